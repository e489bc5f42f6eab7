package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

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
		_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
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

// errConsumerReplicasExceedStream is JetStream's error code for a consumer
// asking for more replicas than its stream has.
const errConsumerReplicasExceedStream jetstream.ErrorCode = 10126

// replicaChangeWait bounds how long a consumer waits for its stream's new
// replica count to be applied.
const replicaChangeWait = 30 * time.Second

// createOrUpdateConsumer creates or updates a durable consumer. After a
// stream's replica count is raised, JetStream applies the change a moment
// later and refuses a consumer with more replicas than the stream had until
// then: that refusal is retried for up to replicaChangeWait.
func createOrUpdateConsumer(ctx context.Context, js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig) error {
	deadline := time.Now().Add(replicaChangeWait)
	for wait := 25 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		_, err := js.CreateOrUpdateConsumer(ctx, stream, cfg)
		var apiErr *jetstream.APIError
		if err == nil || !errors.As(err, &apiErr) || apiErr.ErrorCode != errConsumerReplicasExceedStream || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
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
