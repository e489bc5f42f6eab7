package bus

import (
	"context"
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
// and the delivery watch. It is idempotent: running it at every start
// converges the server to the configuration.
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
		_, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
			Durable:       c.Durable,
			Description:   "interlinker handler for " + c.Subject,
			FilterSubject: c.Subject,
			DeliverPolicy: jetstream.DeliverAllPolicy,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       cs.AckWait,
			MaxDeliver:    cs.DeliveryCeiling,
			MaxAckPending: cs.MaxAckPending,
		})
		if err != nil {
			return fmt.Errorf("provision consumer %s on %s: %w", c.Durable, stream, err)
		}
	}
	return provisionDeliveryWatch(ctx, js, ss)
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
