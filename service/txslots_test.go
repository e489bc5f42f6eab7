package service

import (
	"context"
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
)

// TestABurstLinksEveryPageThroughOneTransactionSlot publishes three
// clusters at once to a service whose handlers may hold one transaction at
// a time (--db-concurrency 1), with eight workers a stage: every page is
// linked and nothing is dead-lettered, so no handler holds its slot while
// it waits for another, and handlers did wait their turn.
func TestABurstLinksEveryPageThroughOneTransactionSlot(t *testing.T) {
	cfg := testConfig(t)
	cfg.DBConcurrency = 1
	cfg.Workers = 8
	h := startHarness(t, cfg)
	const clusters, articles = 3, 6
	h.publish(burstSiteEvent("slots", clusters))
	waitFor(t, time.Minute, "site projected", func() bool {
		_, found, err := h.svc.Store().LoadSite(context.Background(), "slots")
		return err == nil && found
	})
	var pages []events.Event
	for c := range clusters {
		pages = append(pages, burstPageEvent("slots", c, -1))
		for a := range articles {
			pages = append(pages, burstPageEvent("slots", c, a))
		}
	}
	for _, ev := range pages {
		h.publish(ev)
	}
	waitFor(t, 3*time.Minute, "every page linked", func() bool { return h.inserted.pageCount("slots") >= len(pages) })
	h.waitIdle(3 * time.Minute)

	if dead := h.dead.all(); len(dead) > 0 {
		t.Fatalf("%d event(s) dead-lettered with one transaction slot, the first: %s", len(dead), dead[0].Data)
	}
	if got := h.inserted.pageCount("slots"); got != len(pages) {
		t.Fatalf("%d of %d pages linked", got, len(pages))
	}
	// Some planner attempt waited longer than a slot is free for: the
	// slot bounded the handlers, which would otherwise each have taken a
	// connection of the 16 at once.
	attempts := h.metricTotal("interlinker_tx_slot_wait_seconds_count", `handler="planner"`)
	quick := h.metricTotal("interlinker_tx_slot_wait_seconds_bucket", `handler="planner"`, `le="0.0016"`)
	if attempts < float64(len(pages)) {
		t.Fatalf("the planner's attempts waited for a slot %v times, want at least once a page (%d)", attempts, len(pages))
	}
	if quick >= attempts {
		t.Fatalf("all %v planner attempts had a slot within 1.6 ms: nothing waited its turn", attempts)
	}
}
