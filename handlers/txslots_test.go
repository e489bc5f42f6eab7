package handlers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestTxSlotsHoldAtMostTheirSizeOfTransactionsAtOnce(t *testing.T) {
	slots := NewTxSlots(3)
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			release, _, err := slots.take(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := inside.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(2 * time.Millisecond)
			inside.Add(-1)
			release()
		})
	}
	wg.Wait()
	if got := most.Load(); got > 3 {
		t.Fatalf("%d transactions held slots at once, want at most 3", got)
	}
	if got := most.Load(); got < 2 {
		t.Fatalf("at most %d transaction held a slot at once: the slots ran them one at a time", got)
	}
}

func TestATransactionWaitingForASlotGivesUpWithItsContext(t *testing.T) {
	slots := NewTxSlots(1)
	release, _, err := slots.take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := slots.take(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past its deadline: got %v, want context.DeadlineExceeded", err)
	}
	release()
	// The slot given up on is not lost.
	again, _, err := slots.take(context.Background())
	if err != nil {
		t.Fatalf("the slot released after a waiter gave up: %v", err)
	}
	again()
}

func TestNoSlotsBoundNothing(t *testing.T) {
	var slots *TxSlots
	release, waited, err := slots.take(context.Background())
	if err != nil || waited != 0 {
		t.Fatalf("nil slots: waited %s, err %v", waited, err)
	}
	release()
	if got := NewTxSlots(0).Size(); got != 1 {
		t.Fatalf("NewTxSlots(0) has %d slots, want 1", got)
	}
}
