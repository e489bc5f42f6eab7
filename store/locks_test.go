package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/store/storetest"
)

const lkSite = "site-locks"

func TestLockSlotsAreMergedAndAscending(t *testing.T) {
	shared := []string{"facet:a=1", "facet:a=1", "cluster:boots", "facet:b=2"}
	l := planning.Locks{Exclusive: []string{"cluster:boots", "cluster:boots"}, Shared: shared}
	got := lockSlots(lkSite, l)
	want := map[int32]bool{}
	for _, name := range shared {
		want[planning.LockSlot(lkSite, name)] = false
	}
	want[planning.LockSlot(lkSite, "cluster:boots")] = true // exclusive wins over shared
	if len(got) != len(want) {
		t.Fatalf("%d slots %v, want %d", len(got), got, len(want))
	}
	for i, k := range got {
		if i > 0 && got[i-1].slot >= k.slot {
			t.Errorf("slots out of ascending order: %v", got)
		}
		if excl, ok := want[k.slot]; !ok || excl != k.exclusive {
			t.Errorf("slot %d exclusive %v, want present %v exclusive %v", k.slot, k.exclusive, ok, excl)
		}
	}
	if len(lockSlots(lkSite, planning.Locks{})) != 0 {
		t.Error("no names, yet slots to lock")
	}
	// The order does not depend on the order of the names.
	rev := planning.Locks{Exclusive: l.Exclusive, Shared: slices.Clone(shared)}
	slices.Reverse(rev.Shared)
	if !slices.Equal(got, lockSlots(lkSite, rev)) {
		t.Error("the names' order changed the slots' order")
	}
}

func manyFacets(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("facet:attr-%d=value %d", i%50, i)
	}
	return names
}

// A page with thousands of facets takes at most LockSlots advisory locks,
// so it cannot exhaust Postgres' shared lock table for the other tenants.
func TestPlanningHoldsAtMostLockSlotsAdvisoryLocks(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, storetest.NewDatabase(t), Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	l := planning.Locks{Exclusive: []string{"cluster:boots"}, Shared: manyFacets(5000)}
	want := len(lockSlots(lkSite, l))
	if want > planning.LockSlots || want < planning.LockSlots/2 {
		t.Fatalf("5,000 names fill %d of %d slots", want, planning.LockSlots)
	}
	err = s.InTx(ctx, func(tx *Tx) error {
		if err := tx.Lock(ctx, lkSite, l); err != nil {
			return err
		}
		var held, planningHeld, exclusive int
		err := tx.queryRow(ctx, `SELECT count(*),
				count(*) FILTER (WHERE classid = $1::int4::oid AND objsubid = 2),
				count(*) FILTER (WHERE mode = 'ExclusiveLock')
			FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`,
			planningLockClass).Scan(&held, &planningHeld, &exclusive)
		if err != nil {
			return err
		}
		if held > planning.LockSlots || held != want || planningHeld != held || exclusive != 1 {
			t.Errorf("the transaction holds %d advisory locks (%d in the planning class, %d exclusive), want %d ≤ %d, all planning, 1 exclusive",
				held, planningHeld, exclusive, want, planning.LockSlots)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Merging names into slots keeps an exclusive and a shared lock on one
// name in conflict, and two shared ones compatible.
func TestExclusiveAndSharedLocksOnOneNameStillConflict(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, storetest.NewDatabase(t), Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	slot := planning.LockSlot(lkSite, "cluster:boots")
	// try reports whether another connection gets the slot at once.
	try := func(fn string) bool {
		t.Helper()
		var got bool
		if err := s.pool.QueryRow(ctx, `SELECT `+fn+`($1::int4, $2::int4)`, planningLockClass, slot).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	hold := func(l planning.Locks, check func()) {
		t.Helper()
		if err := s.InTx(ctx, func(tx *Tx) error {
			if err := tx.Lock(ctx, lkSite, l); err != nil {
				return err
			}
			check()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// The hub takes its cluster exclusively; an article shares it, with
	// thousands of facets beside it.
	hold(planning.Locks{Exclusive: []string{"cluster:boots"}, Shared: manyFacets(5000)}, func() {
		if try("pg_try_advisory_xact_lock_shared") {
			t.Error("a shared lock was granted on a name held exclusively")
		}
	})
	hold(planning.Locks{Shared: append(manyFacets(5000), "cluster:boots")}, func() {
		if !try("pg_try_advisory_xact_lock_shared") {
			t.Error("a shared lock was refused on a name held shared")
		}
		if try("pg_try_advisory_xact_lock") {
			t.Error("an exclusive lock was granted on a name held shared")
		}
	})
	// The locks end with their transaction.
	if !try("pg_try_advisory_xact_lock") {
		t.Error("the slot is still held after the transaction ended")
	}
	// Two transactions through Lock: the second waits for the first.
	first := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(ctx, func(tx *Tx) error {
			if err := tx.Lock(ctx, lkSite, planning.Locks{Exclusive: []string{"cluster:boots"}}); err != nil {
				close(first)
				return err
			}
			close(first)
			<-release
			return nil
		})
	}()
	<-first
	waitCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	err = s.InTx(waitCtx, func(tx *Tx) error {
		return tx.Lock(waitCtx, lkSite, planning.Locks{Shared: []string{"cluster:boots"}})
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a planning transaction sharing a name held exclusively by another: %v, want it to wait until its deadline", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
