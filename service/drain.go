package service

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// drainer works off a Postgres queue (the outbox, the link count queue) in
// batches: it runs step until a batch comes back short, then sleeps until
// notified or until the poll interval passes. Failures back off, growing to
// five seconds, and never stop the loop.
type drainer struct {
	name  string
	batch int
	poll  time.Duration
	step  func(ctx context.Context) (int, error)
	log   *slog.Logger
	wake  chan struct{}
	done  chan struct{}
	stop  context.CancelFunc
}

func newDrainer(name string, batch int, poll time.Duration, log *slog.Logger, step func(context.Context) (int, error)) *drainer {
	return &drainer{name: name, batch: batch, poll: poll, step: step, log: log, wake: make(chan struct{}, 1)}
}

// Notify says work is waiting; it never blocks.
func (d *drainer) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Start runs the loop until Stop.
func (d *drainer) Start(ctx context.Context) {
	ctx, d.stop = context.WithCancel(ctx)
	d.done = make(chan struct{})
	go func() {
		defer close(d.done)
		d.run(ctx)
	}()
}

func (d *drainer) run(ctx context.Context) {
	failures := 0
	for {
		n, err := d.step(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			wait := min(time.Duration(failures)*200*time.Millisecond, 5*time.Second)
			d.log.Warn("queue drain failed; retrying", "queue", d.name, "err", err, "retry_in", wait)
			if !sleep(ctx, wait) {
				return
			}
			continue
		case n >= d.batch:
			failures = 0
			continue // more may be waiting
		}
		failures = 0
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-time.After(d.poll):
		}
	}
}

// Halt ends the loop without draining what is left. It waits for the
// step under way until ctx ends; a step still running then is left to
// see its cancelled context on its own.
func (d *drainer) Halt(ctx context.Context) error {
	if d.stop == nil {
		return nil
	}
	d.stop()
	select {
	case <-d.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop %s: %w", d.name, ctx.Err())
	}
}

// Stop ends the loop and then drains what is left, until the queue is
// empty or ctx ends.
func (d *drainer) Stop(ctx context.Context) error {
	if err := d.Halt(ctx); err != nil || d.stop == nil {
		return err
	}
	for {
		n, err := d.step(ctx)
		if err != nil {
			return err
		}
		if n < d.batch {
			return nil
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
