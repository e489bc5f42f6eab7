package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// StreamSettings apply to every stream interlinker provisions.
type StreamSettings struct {
	DuplicateWindow time.Duration // how long JetStream remembers Nats-Msg-Id values
	MaxAge          time.Duration // how long messages are kept
	// MaxBytes bounds each stream's storage. A full stream refuses new
	// messages rather than dropping old ones, which may not have been
	// handled yet: producers see the refusal and retry, and interlinker's
	// own events wait in the outbox.
	MaxBytes int64
	// Replicas is how many servers of a NATS cluster keep each stream and
	// each durable consumer (0 or 1: one; at most 5, JetStream's limit).
	// Provision applies a change to existing streams and consumers in
	// place.
	Replicas int
}

// ConsumerSettings apply to every durable consumer.
type ConsumerSettings struct {
	AckWait time.Duration
	// DeliveryCeiling is JetStream's max_deliver: past it JetStream stops
	// redelivering, and the delivery watch dead-letters the message. It is
	// a ceiling for failures that never count against a handler's own
	// budget (a database away for hours), not that budget.
	DeliveryCeiling int
	MaxAckPending   int
}

// ConsumerSpec binds one handler to its subject through a durable consumer.
type ConsumerSpec struct {
	Durable string
	Subject string
}

// Provision creates or updates every stream, the given durable consumers
// and the delivery watch, each kept by ss.Replicas servers. It is
// idempotent: running it at every start converges the server to the
// configuration, replica counts included.
func Provision(ctx context.Context, js jetstream.JetStream, ss StreamSettings, cs ConsumerSettings, consumers []ConsumerSpec) error {
	for _, s := range events.Streams {
		err := createOrUpdateStream(ctx, js, jetstream.StreamConfig{
			Name:       s.Name,
			Subjects:   s.Subjects,
			Storage:    jetstream.FileStorage,
			Retention:  jetstream.LimitsPolicy,
			MaxAge:     ss.MaxAge,
			MaxBytes:   ss.MaxBytes,
			Discard:    jetstream.DiscardNew,
			Duplicates: ss.DuplicateWindow,
			MaxMsgSize: MaxPayload,
			Replicas:   ss.Replicas,
		})
		if err != nil {
			return fmt.Errorf("provision stream %s: %w", s.Name, err)
		}
	}
	for _, c := range consumers {
		stream, ok := events.StreamFor(c.Subject)
		if !ok {
			return fmt.Errorf("provision consumer %s: no stream holds subject %s", c.Durable, c.Subject)
		}
		err := createOrUpdateConsumer(ctx, js, stream, jetstream.ConsumerConfig{
			Durable:       c.Durable,
			Description:   "interlinker handler for " + c.Subject,
			FilterSubject: c.Subject,
			DeliverPolicy: jetstream.DeliverAllPolicy,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       cs.AckWait,
			MaxDeliver:    cs.DeliveryCeiling,
			MaxAckPending: cs.MaxAckPending,
			Replicas:      ss.Replicas,
		})
		if err != nil {
			return fmt.Errorf("provision consumer %s on %s: %w", c.Durable, stream, err)
		}
	}
	return provisionDeliveryWatch(ctx, js, ss)
}

// A cluster may lose the answer to a JetStream API request while it
// elects a leader, or while replicas starting at the same moment create
// the same stream; right after a stream's replica count is raised it
// also refuses, for a moment, a consumer with more replicas than the
// stream had (error 10126). Provisioning therefore bounds each request
// by provisionAttempt and asks again, with backoff, for up to
// provisionWait, then reports the last error: the service's start
// retries the whole on top of that.
const (
	provisionAttempt = 5 * time.Second
	provisionWait    = 30 * time.Second
)

// retryProvision runs one provisioning request until it succeeds, ctx
// ends or provisionWait has passed.
func retryProvision(ctx context.Context, call func(context.Context) error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 50*time.Millisecond, 2*time.Second, provisionWait
	return backoff.Retry(func() error {
		attempt, cancel := context.WithTimeout(ctx, provisionAttempt)
		defer cancel()
		err := call(attempt)
		if err != nil && ctx.Err() != nil {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(b, ctx))
}

// retryLookUp asks for a stream or consumer as retryProvision does, but a
// stream or consumer that does not exist is an answer, not an outage.
func retryLookUp(ctx context.Context, call func(context.Context) error) error {
	return retryProvision(ctx, func(ctx context.Context) error {
		err := call(ctx)
		if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound) {
			return backoff.Permanent(err)
		}
		return err
	})
}

func createOrUpdateStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	return retryProvision(ctx, func(ctx context.Context) error {
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		return err
	})
}

func createOrUpdateConsumer(ctx context.Context, js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig) error {
	return retryProvision(ctx, func(ctx context.Context) error {
		_, err := js.CreateOrUpdateConsumer(ctx, stream, cfg)
		return err
	})
}

// ConsumersBound reports an error unless every durable consumer exists.
func ConsumersBound(ctx context.Context, js jetstream.JetStream, consumers []ConsumerSpec) error {
	for _, c := range consumers {
		stream, _ := events.StreamFor(c.Subject)
		if _, err := js.Consumer(ctx, stream, c.Durable); err != nil {
			return fmt.Errorf("consumer %s on %s: %w", c.Durable, stream, err)
		}
	}
	return nil
}
