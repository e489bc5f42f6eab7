package handlers

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/semaphore"
)

// TxSlots bounds the event handlers' Postgres transactions open at once
// (--db-concurrency). Postgres does the most with a few busy sessions a
// core: with the service and Postgres on one 2-core machine, a burst of
// 2,000 pages took 7 to 13% less of Postgres' CPU a page with 4
// transactions at once than with the 14 or 15 sessions its handlers
// opened unbounded, at a rate within the run-to-run spread (README,
// Performance). A handler past the bound waits here, before it takes a
// connection, rather than inside Postgres, where every session contends
// for its CPU, locks and buffers.
// The slots are given in the order asked (semaphore.Weighted), so no
// stage starves another.
type TxSlots struct {
	sem  *semaphore.Weighted
	size int
}

// NewTxSlots returns n slots; n below 1 is taken as 1.
func NewTxSlots(n int) *TxSlots {
	n = max(n, 1)
	return &TxSlots{sem: semaphore.NewWeighted(int64(n)), size: n}
}

// Size is the number of slots.
func (s *TxSlots) Size() int { return s.size }

// take waits for a slot, or for ctx to end, and returns how long it
// waited and the release of the slot. A nil TxSlots bounds nothing.
func (s *TxSlots) take(ctx context.Context) (release func(), waited time.Duration, err error) {
	if s == nil {
		return func() {}, 0, nil
	}
	start := time.Now()
	if err := s.sem.Acquire(ctx, 1); err != nil {
		return nil, time.Since(start), fmt.Errorf("wait for one of %d transaction slots (--db-concurrency): %w", s.size, err)
	}
	return func() { s.sem.Release(1) }, time.Since(start), nil
}
