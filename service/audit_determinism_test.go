package service

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
)

// TestAnAuditsRecommendationsAreAFunctionOfItsSnapshot: the projected link
// counts catch up with the link map a moment after pages are published;
// an audit scores its recommendations from the links of its own snapshot,
// so the counts being anything at all changes none of them.
func TestAnAuditsRecommendationsAreAFunctionOfItsSnapshot(t *testing.T) {
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
	a, err := h.svc.Store().Recommendations(t.Context(), siteID, "counts-settled", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.svc.Store().Recommendations(t.Context(), siteID, "counts-off", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		x, y := a[i].Recommendation, b[i].Recommendation
		if x.ID != y.ID || x.Priority != y.Priority || x.Anchor != y.Anchor || x.TargetID != y.TargetID || x.Reason != y.Reason {
			t.Errorf("recommendation %d: %s %q → %s at %.2f (%s), then %s %q → %s at %.2f (%s)", i,
				x.ID, x.Anchor, x.TargetID, x.Priority, x.Reason, y.ID, y.Anchor, y.TargetID, y.Priority, y.Reason)
		}
	}
}
