package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/store"
)

// Relay publishes the outbox to JetStream. Each event goes out with its
// identity (siteid/source/id) as Nats-Msg-Id, so a batch published twice
// (after a crash or a lost ack) is stored once.
type Relay struct {
	Store     *store.Store
	JS        jetstream.JetStream
	BatchSize int
	AckWait   time.Duration // how long to wait for a batch's acks
	OnPublish func(subject string)
}

// RelayOnce publishes up to BatchSize waiting events and reports how many
// it published.
func (r *Relay) RelayOnce(ctx context.Context) (int, error) {
	return r.Store.RelayOutbox(ctx, r.BatchSize, r.publish)
}

func (r *Relay) publish(ctx context.Context, batch []store.OutboxMessage) error {
	futures := make([]jetstream.PubAckFuture, 0, len(batch))
	for _, m := range batch {
		msg := &nats.Msg{Subject: m.Subject, Data: m.Payload, Header: nats.Header{}}
		for k, v := range m.Headers {
			msg.Header.Set(k, v)
		}
		msg.Header.Set(nats.MsgIdHdr, m.MsgID)
		f, err := r.JS.PublishMsgAsync(msg)
		if err != nil {
			return fmt.Errorf("publish %s %s: %w", m.Subject, m.EventID, err)
		}
		futures = append(futures, f)
	}
	timeout := time.NewTimer(r.AckWait)
	defer timeout.Stop()
	var errs []error
	for i, f := range futures {
		select {
		case <-f.Ok():
			if r.OnPublish != nil {
				r.OnPublish(batch[i].Subject)
			}
		case err := <-f.Err():
			errs = append(errs, fmt.Errorf("publish %s %s: %w", batch[i].Subject, batch[i].EventID, err))
		case <-timeout.C:
			return fmt.Errorf("publish outbox batch: no ack within %s", r.AckWait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return errors.Join(errs...)
}
