package handlers

import (
	"fmt"
	"sync"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/interlinker/interlinker/bus"
)

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
	max int

	mu     sync.Mutex
	counts map[string]int
	order  []string // keys in the order first counted, to forget the oldest
}

// maxTrackedFailures bounds the memory the counts take.
const maxTrackedFailures = 100_000

func newFailureBudget(max int) *failureBudget {
	return &failureBudget{max: max, counts: map[string]int{}}
}

func (b *failureBudget) middleware(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		key := msg.Metadata.Get(bus.MetaStream) + "#" + msg.Metadata.Get(bus.MetaStreamSeq)
		switch {
		case err == nil || isPermanent(err):
			b.forget(key)
		case isTransient(err) || b.max <= 0:
		default:
			if n := b.count(key); n >= b.max {
				b.forget(key)
				return out, fmt.Errorf("%w: failed %d times: %w", ErrExhausted, n, err)
			}
		}
		return out, err
	}
}

func (b *failureBudget) count(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.counts[key]; !ok {
		if len(b.order) >= maxTrackedFailures {
			delete(b.counts, b.order[0])
			b.order = b.order[1:]
		}
		b.order = append(b.order, key)
	}
	b.counts[key]++
	return b.counts[key]
}

func (b *failureBudget) forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.counts, key) // its place in order goes when it reaches the front
}
