package store

import (
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
)

func TestPruningTheInboxForgetsOnlyEventsPastTheRetention(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	claim := claimer(t, s)
	old := events.Identity{SiteID: "a", Source: "cms", ID: "old"}
	recent := events.Identity{SiteID: "a", Source: "cms", ID: "recent"}
	if !claim(old) || !claim(recent) {
		t.Fatal("first claims refused")
	}
	if _, err := s.pool.Exec(ctx, `UPDATE inbox SET processed_at = now() - interval '9 days' WHERE event_id = 'old'`); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneInbox(ctx, 8*24*time.Hour, 1000)
	if err != nil || n != 1 {
		t.Fatalf("pruned %d rows (%v), want the one past retention", n, err)
	}
	if claim(recent) {
		t.Error("an event inside the retention was claimed again after pruning")
	}
	if !claim(old) {
		t.Error("an event past the retention is still held")
	}
}

func TestPruningTheInboxEndsTheLegacyCheckOnceItsRowsAreGone(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	if _, err := s.pool.Exec(ctx, `INSERT INTO inbox (consumer, event_id, processed_at) VALUES ('planner', 'x', now() - interval '30 days')`); err != nil {
		t.Fatal(err)
	}
	if err := s.checkLegacyInbox(ctx); err != nil || !s.legacyInbox.Load() {
		t.Fatalf("legacy rows not noticed: %v", err)
	}
	if _, err := s.PruneInbox(ctx, 8*24*time.Hour, 1000); err != nil {
		t.Fatal(err)
	}
	if s.legacyInbox.Load() {
		t.Error("claims still look for legacy rows after the last one was pruned")
	}
}
