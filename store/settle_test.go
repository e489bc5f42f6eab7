package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store/storetest"
)

func markChanged(t *testing.T, s *Store, pageIDs ...string) {
	t.Helper()
	err := s.InTx(context.Background(), func(tx *Tx) error {
		for _, id := range pageIDs {
			tx.MarkChanged(ptSite, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestASettlePassClearsOnlyTheChangesItsSnapshotSaw(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	markChanged(t, s, "home")

	seen := make(chan struct{})
	later := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.InSnapshotTx(ctx, func(tx *Tx) error {
			snap, err := tx.SettleSnapshot(ctx)
			if err != nil {
				close(seen)
				return err
			}
			close(seen)
			<-later // a page changes while the pass runs
			tx.ClearSettled(ptSite, snap)
			return nil
		})
	}()
	<-seen
	markChanged(t, s, "sec-outdoor")
	close(later)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	var marked []string
	rows, err := s.pool.Query(ctx, `SELECT id FROM pages WHERE site_id = $1 AND changed_xid IS NOT NULL ORDER BY id`, ptSite)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		marked = append(marked, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(marked, []string{"sec-outdoor"}) {
		t.Errorf("pages still marked %v, want only the one changed after the pass's snapshot", marked)
	}
}

func TestASiteSettlesOnlyOnceItIsQuiet(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	markChanged(t, s, "home")

	busy, err := s.UnsettledSites(ctx, time.Hour, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(busy) != 0 {
		t.Errorf("sites to settle %v while a page changed within the quiet time, want none", busy)
	}
	time.Sleep(20 * time.Millisecond)
	quiet, err := s.UnsettledSites(ctx, time.Millisecond, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(quiet, []string{ptSite}) {
		t.Errorf("sites to settle %v, want %s, quiet for 20ms, longer than the quiet time", quiet, ptSite)
	}
	if n, err := s.Unsettled(ctx); err != nil || n != 1 {
		t.Errorf("unsettled pages %d (%v), want 1", n, err)
	}
}

func TestASiteWithADependantsReplanWaitingInTheOutboxIsNotQuiet(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	markChanged(t, s, "home")
	replan, err := events.New(events.LinksReplan, ptSite, "replan-1", "", events.ReplanData{PageID: "hub"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InTx(ctx, func(tx *Tx) error { return tx.EnqueueReplan(ctx, replan, "hub", nil, time.Hour) }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	waiting, err := s.UnsettledSites(ctx, time.Millisecond, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 0 {
		t.Errorf("sites to settle %v while a dependant's re-plan waits in the outbox, want none", waiting)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM outbox WHERE site_id = $1`, ptSite); err != nil {
		t.Fatal(err)
	}
	quiet, err := s.UnsettledSites(ctx, time.Millisecond, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(quiet, []string{ptSite}) {
		t.Errorf("sites to settle %v once the request left the outbox, want %s", quiet, ptSite)
	}
}

func TestASnapshotWriteLosingToAConcurrentChangeSaysSo(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	read := make(chan struct{})
	changed := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.InSnapshotTx(ctx, func(tx *Tx) error {
			if _, err := tx.SettleSnapshot(ctx); err != nil {
				close(read)
				return err
			}
			close(read)
			<-changed
			_, err := tx.ReplacePlan(ctx, ptSite, "home", "settled-plan", "settled")
			return err
		})
	}()
	<-read
	markChanged(t, s, "home")
	close(changed)
	if err := <-done; !errors.Is(err, ErrConcurrentChange) {
		t.Errorf("pass writing a page changed after its snapshot: %v, want ErrConcurrentChange", err)
	}
}

// A settle pass plans first the pages whose rules require an uplink, so
// their mandatory uplinks take a hub's capped anchor before the home
// page's optional link: supporting articles, and under the silo policy
// every page of a cluster but its hub (a silo trial's service page lost
// its uplink to the home page).
func TestASettlePassOrdersThePagesThatNeedAnUplinkFirst(t *testing.T) {
	s, st := ptOpen(t)
	ctx := context.Background()
	service := ptPage{id: "boots-fitting", kind: "service", cluster: "boots", day: 26}.page()
	err := s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.SavePageVersion(ctx, service, StateGenerated, ptPlanID(service.ID, 1), 3, false, planning.IndexTerms(st, service))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	orderOf := func(silo bool) []string {
		var order []string
		err := s.InTx(ctx, func(tx *Tx) error {
			var err error
			order, err = tx.SettleOrder(ctx, ptSite, silo)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return order
	}
	for _, silo := range []bool{false, true} {
		order := orderOf(silo)
		home, svc := slices.Index(order, "home"), slices.Index(order, "boots-fitting")
		if home < 0 || svc < 0 || slices.Index(order, "boots-a") > home {
			t.Fatalf("silo %v: order %v, want the home page after the supporting articles and the service in it", silo, order)
		}
		if before := svc < home; before != silo {
			t.Errorf("silo %v: the cluster's service planned before the home page: %v, want %v (order %v)", silo, before, silo, order)
		}
	}
}

// A settle pass under way is seen by every process on the database,
// however many passes run at once, until the last lets go; a pass on
// another database is not.
func TestASettlePassUnderWayIsSeenByEveryProcessOnTheDatabaseAndNoOther(t *testing.T) {
	ctx := context.Background()
	open := func(url string) *Store {
		s, err := Open(ctx, url, Options{MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	url := storetest.NewDatabase(t)
	replicaA, replicaB, elsewhere := open(url), open(url), open(storetest.NewDatabase(t))
	settling := func(s *Store, want bool, when string) {
		t.Helper()
		got, err := s.Settling(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: settling %v, want %v", when, got, want)
		}
	}
	settling(replicaB, false, "before any pass")
	releaseA, err := replicaA.HoldSettling(ctx)
	if err != nil {
		t.Fatal(err)
	}
	releaseB, err := replicaB.HoldSettling(ctx)
	if err != nil {
		t.Fatal(err)
	}
	settling(replicaB, true, "two passes under way, seen by one replica")
	settling(replicaA, true, "two passes under way, seen by the other")
	settling(elsewhere, false, "passes under way on another database")
	releaseA()
	settling(replicaA, true, "one pass done, the other's under way")
	releaseB()
	settling(replicaA, false, "both passes done")
}
