package handlers

import (
	"context"
	"sync"
)

// pageLocks lets one handler of this process at a time work on a page.
// The page's row lock in Postgres is what makes it correct; this keeps the
// handlers that would queue on that row lock waiting here instead, without
// a database connection each. A hub whose articles arrive in a burst gets
// a re-plan per article: those queue here, and all but a few find the plan
// before them already answered theirs.
type pageLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

// lock waits until no other handler of this process holds key, or ctx ends,
// and returns the function that releases it.
func (l *pageLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	for {
		l.mu.Lock()
		released, busy := l.held[key]
		if !busy {
			if l.held == nil {
				l.held = map[string]chan struct{}{}
			}
			released = make(chan struct{})
			l.held[key] = released
			l.mu.Unlock()
			return func() {
				l.mu.Lock()
				delete(l.held, key)
				l.mu.Unlock()
				close(released)
			}, nil
		}
		l.mu.Unlock()
		select {
		case <-released:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
