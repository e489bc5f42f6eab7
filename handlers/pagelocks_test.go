package handlers

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPageLocksLetOneHandlerAtATimeWorkOnAPage(t *testing.T) {
	var locks pageLocks
	ctx := context.Background()
	unlockHub, err := locks.lock(ctx, "site\x00hub")
	if err != nil {
		t.Fatal(err)
	}
	// Another page is not held up.
	unlockOther, err := locks.lock(ctx, "site\x00article")
	if err != nil {
		t.Fatal(err)
	}
	unlockOther()

	got := make(chan struct{})
	go func() {
		unlock, err := locks.lock(ctx, "site\x00hub")
		if err != nil {
			t.Error(err)
			return
		}
		close(got)
		unlock()
	}()
	select {
	case <-got:
		t.Fatal("a second handler took the page while the first held it")
	case <-time.After(50 * time.Millisecond):
	}
	unlockHub()
	<-got // the waiting handler gets the page once it is released

	held, err := locks.lock(ctx, "site\x00hub")
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := locks.lock(cancelled, "site\x00hub"); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting with a cancelled context: %v, want context.Canceled", err)
	}
}
