package store

import (
	"context"
	"testing"

	"github.com/interlinker/interlinker/domain/planning"
)

// ptHorizon plans nothing: it notes a horizon the way a plan does and
// stores it on the page.
func ptHorizon(t *testing.T, s *Store, pageID string) planning.Horizon {
	t.Helper()
	ctx := context.Background()
	var h planning.Horizon
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		if _, h, err = tx.PlanningTargets(ctx, ptSite, pageID, planning.Lookup{}, planning.Locks{}); err != nil {
			return err
		}
		return tx.RecordPlan(ctx, ptSite, pageID, h, nil, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAPlanSeesTheChangesCommittedBeforeItButNotThoseStillRunning(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()

	var committed uint64
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		committed, err = tx.ChangeNumber(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// A change that is still running while the plan reads.
	running := make(chan uint64)
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.InTx(ctx, func(tx *Tx) error {
			n, err := tx.ChangeNumber(ctx)
			if err != nil {
				close(running)
				return err
			}
			running <- n
			<-release
			return nil
		})
	}()
	inFlight, ok := <-running
	if !ok {
		t.Fatal(<-done)
	}
	h := ptHorizon(t, s, "boots-a")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	if !planning.ReplanAnswered(committed, h) {
		t.Errorf("horizon %+v did not see change %d, committed before it", h, committed)
	}
	if planning.ReplanAnswered(inFlight, h) {
		t.Errorf("horizon %+v saw change %d, which was still running", h, inFlight)
	}
	rec, _, err := s.Page(ctx, ptSite, "boots-a")
	if err != nil {
		t.Fatal(err)
	}
	if !planning.ReplanAnswered(committed, rec.PlanHorizon) || planning.ReplanAnswered(inFlight, rec.PlanHorizon) {
		t.Errorf("stored horizon %+v does not answer as the one noted, %+v", rec.PlanHorizon, h)
	}
	later := ptHorizon(t, s, "boots-a")
	if !planning.ReplanAnswered(inFlight, later) {
		t.Errorf("a plan after change %d committed, %+v, did not see it", inFlight, later)
	}
}

func TestHorizonsReadAndWritePostgresSnapshotText(t *testing.T) {
	for _, text := range []string{"100:120:", "100:120:112,115", "5:5:"} {
		h, err := parseHorizon(text)
		if err != nil {
			t.Fatalf("parse %q: %v", text, err)
		}
		if got := formatHorizon(h); got == nil || *got != text {
			t.Errorf("%q read as %+v and written back as %v", text, h, got)
		}
	}
	if h, err := parseHorizon(""); err != nil || formatHorizon(h) != nil {
		t.Errorf("no horizon read as %+v (%v), want the zero horizon stored as NULL", h, err)
	}
	for _, bad := range []string{"100:120", "a:120:", "100:120:x", "100:120:1:2"} {
		if _, err := parseHorizon(bad); err == nil {
			t.Errorf("parse %q: no error", bad)
		}
	}
}
