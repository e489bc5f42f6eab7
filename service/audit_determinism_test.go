package service

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
)

// TestAnAuditsRecommendationsAreAFunctionOfItsSnapshot: the projected link
// counts catch up with the link map a moment after pages are published;
// an audit scores its recommendations from the links of its own snapshot,
// so the counts being anything at all changes none of them.
func TestAnAuditsRecommendationsAreAFunctionOfItsSnapshot(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	cfg := testConfig(t)
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteID = "cadence-snapshot"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	first := h.audit(siteID, "counts-settled", events.AuditRequestedData{})

	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// Counts as a lagging projection might hold them: all wrong.
	if _, err := conn.Exec(t.Context(), `UPDATE pages SET live_inbound_link_count = (abs(hashtext(id)) % 50) WHERE site_id = $1`, siteID); err != nil {
		t.Fatal(err)
	}
	second := h.audit(siteID, "counts-off", events.AuditRequestedData{})
	if first.RecommendationsTotal == 0 || first.RecommendationsTotal != second.RecommendationsTotal {
		t.Fatalf("%d recommendations, then %d with the counts off", first.RecommendationsTotal, second.RecommendationsTotal)
	}
	a := h.recommendations(siteID, "counts-settled")
	b := h.recommendations(siteID, "counts-off")
	for i := range a {
		x, y := a[i].Recommendation, b[i].Recommendation
		if x.ID != y.ID || x.Priority != y.Priority || x.Anchor != y.Anchor || x.TargetID != y.TargetID || x.Reason != y.Reason {
			t.Errorf("recommendation %d: %s %q → %s at %.2f (%s), then %s %q → %s at %.2f (%s)", i,
				x.ID, x.Anchor, x.TargetID, x.Priority, x.Reason, y.ID, y.Anchor, y.TargetID, y.Priority, y.Reason)
		}
	}
}

// A deletion that arrives before any version of its page leaves a
// tombstone with no address; a trial (t29) sent the deletion first and
// its audit called the links to that page "a path that is no known page"
// rather than broken, and offered no fix for them. The version that
// arrives after the deletion now gives the tombstone its address, so the
// audit's figures are those of the site whatever the order.
func TestAnAuditFindsTheLinksToAPageDeletedBeforeItArrivedBroken(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	const siteID = "cadence-deleted-first"
	structure, pages := existingSite(siteID)

	last := startAuditHarness(t)
	last.publishExisting(structure, pages, existingDeleted)
	want := last.audit(siteID, "deletion-last", events.AuditRequestedData{})

	first := startAuditHarness(t)
	first.publish(structure)
	first.waitIdle(waitLong)
	first.publish(mustEvent(events.ContentDeleted, siteID, "del-"+existingDeleted, events.ContentDeletedData{PageID: existingDeleted, Version: 2}))
	first.waitIdle(waitLong)
	for _, p := range pages {
		first.publish(mustEvent(events.ContentPublished, siteID, fmt.Sprintf("pub-%s-v%d", p.ID, p.Version), events.ContentData{Page: p}))
	}
	first.waitIdle(waitLong)
	got := first.audit(siteID, "deletion-first", events.AuditRequestedData{})

	if want.BrokenLinks == 0 {
		t.Fatalf("the fixture's audit finds no broken link to %s", existingDeleted)
	}
	if got.BrokenLinks != want.BrokenLinks || got.UnverifiedLinks != want.UnverifiedLinks || got.RecommendationsTotal != want.RecommendationsTotal {
		t.Errorf("deletion first: broken %d, unverified %d, %d recommendations; deletion last: broken %d, unverified %d, %d recommendations",
			got.BrokenLinks, got.UnverifiedLinks, got.RecommendationsTotal, want.BrokenLinks, want.UnverifiedLinks, want.RecommendationsTotal)
	}
}
