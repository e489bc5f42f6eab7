package handlers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/interlinker/interlinker/bus"
)

// eventKey names a delivered event by its place in its stream, which every
// delivery of it shares.
func eventKey(msg *message.Message) string {
	return msg.Metadata.Get(bus.MetaStream) + "#" + msg.Metadata.Get(bus.MetaStreamSeq)
}

// eventCounts counts something per event in this process, within bounded
// memory: past maxTrackedEvents events the oldest counted is forgotten.
type eventCounts struct {
	mu     sync.Mutex
	counts map[string]int
	order  []string // keys in the order first counted, to forget the oldest
}

// maxTrackedEvents bounds the memory an eventCounts takes.
const maxTrackedEvents = 100_000

// add counts one more for key and returns its count.
func (c *eventCounts) add(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	if _, ok := c.counts[key]; !ok {
		if len(c.order) >= maxTrackedEvents {
			delete(c.counts, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
	}
	c.counts[key]++
	return c.counts[key]
}

func (c *eventCounts) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[key]
}

func (c *eventCounts) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.counts, key) // its place in order goes when it reaches the front
}

// failureBudget counts, per event, the deliveries that failed for a reason
// other than a dependency being away, and turns the failure that uses up
// the budget into ErrExhausted, which the poison queue dead-letters.
// Transient failures are not counted: JetStream counts every delivery,
// and an outage longer than a few redelivery delays would otherwise
// dead-letter everything in flight.
//
// The counts live in this process: a replica that restarts, or another
// replica that receives the event, starts from zero, so an event may fail
// up to max times per replica. JetStream's delivery ceiling bounds the
// whole.
type failureBudget struct {
	max    int
	failed eventCounts
}

func newFailureBudget(max int) *failureBudget {
	return &failureBudget{max: max}
}

func (b *failureBudget) middleware(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		key := eventKey(msg)
		switch {
		case err == nil || isPermanent(err):
			b.failed.forget(key)
		case isTransient(err) || b.max <= 0:
		default:
			if n := b.failed.add(key); n >= b.max {
				b.failed.forget(key)
				return out, fmt.Errorf("%w: failed %d times: %w", ErrExhausted, n, err)
			}
		}
		return out, err
	}
}

// attemptLimits gives each attempt at an event its time limit: the
// handler timeout, doubled for each earlier attempt at the same event
// that ran out of time, at most maxAttemptDoublings times. A timed-out
// attempt is transient and retried without end; when the machine or the
// database is too busy for an attempt to finish within the timeout (in a
// stress test of 1 s attempts on 96 handlers sharing 16 connections, one
// event reached 62 deliveries), fixed limits would keep cutting every
// attempt and the pipeline would make no progress.
// Growing limits let the slow attempts finish; an event that succeeds,
// or is refused, starts from the timeout again. A model call in a longer
// attempt still ends when the first attempt's would have: with the model
// down its retries filled every attempt, however long, and a page meant
// to be planned without its phrases timed out at each.
type attemptLimits struct {
	base     time.Duration
	timedOut eventCounts
}

// modelDeadlineKey holds when an attempt given only the handler timeout
// would end: the latest a model call in it may end by (modelCall).
type modelDeadlineKey struct{}

// maxAttemptDoublings bounds an attempt's limit at 8 times the handler
// timeout (40 s by default): long enough for a busy database, short
// enough that an attempt stuck for good is still cut.
const maxAttemptDoublings = 3

// limit is the time the next attempt at the event of key may take.
func (a *attemptLimits) limit(key string) time.Duration {
	return a.base << min(a.timedOut.get(key), maxAttemptDoublings)
}

func (a *attemptLimits) middleware(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		key := eventKey(msg)
		parent := msg.Context()
		// A model call takes no more of a longer attempt than of the
		// first (modelCall): the time added is for the work after it.
		ctx, cancel := context.WithTimeout(context.WithValue(parent, modelDeadlineKey{}, time.Now().Add(a.base)), a.limit(key))
		defer cancel()
		msg.SetContext(ctx)
		out, err := h(msg)
		switch {
		case err == nil || isPermanent(err):
			a.timedOut.forget(key)
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil:
			a.timedOut.add(key)
		}
		return out, err
	}
}
