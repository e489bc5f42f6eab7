package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/store"
)

// Relay publishes the outbox to JetStream. Each event goes out with its id
// as Nats-Msg-Id, so a batch published twice (after a crash or a lost ack)
// is stored once.
type Relay struct {
	Store     *store.Store
	JS        jetstream.JetStream
	BatchSize int
	Poll      time.Duration // how often to look when nobody signalled
	AckWait   time.Duration // how long to wait for a batch's acks
	OnPublish func(subject string)
	Logger    *slog.Logger

	wake chan struct{}
}

// NewRelay prepares a relay; Run starts it.
func NewRelay(r Relay) *Relay {
	r.wake = make(chan struct{}, 1)
	return &r
}

// Notify tells the relay new events are waiting; it never blocks.
func (r *Relay) Notify() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) {
	failures := 0
	for {
		n, err := r.Store.RelayOutbox(ctx, r.BatchSize, r.publish)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			wait := min(time.Duration(failures)*200*time.Millisecond, 5*time.Second)
			r.Logger.Warn("outbox relay failed; retrying", "err", err, "retry_in", wait)
			sleep(ctx, wait)
			continue
		case n == r.BatchSize:
			failures = 0
			continue // more may be waiting
		}
		failures = 0
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-time.After(r.Poll):
		}
	}
}

// Flush relays until the outbox is empty or ctx ends; used at shutdown.
func (r *Relay) Flush(ctx context.Context) error {
	for {
		n, err := r.Store.RelayOutbox(ctx, r.BatchSize, r.publish)
		if err != nil {
			return fmt.Errorf("flush outbox: %w", err)
		}
		if n < r.BatchSize {
			return nil
		}
	}
}

func (r *Relay) publish(ctx context.Context, batch []store.OutboxMessage) error {
	futures := make([]jetstream.PubAckFuture, 0, len(batch))
	for _, m := range batch {
		msg := &nats.Msg{Subject: m.Subject, Data: m.Payload, Header: nats.Header{}}
		for k, v := range m.Headers {
			msg.Header.Set(k, v)
		}
		msg.Header.Set(nats.MsgIdHdr, m.EventID)
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

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
