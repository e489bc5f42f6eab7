package service

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
)

// TestLinkScoresReachThePagesOfSitesThatPlanWithThem: a whole-site audit's
// link scores become the pages' (the planner's authority factor) on a site
// whose policy says authority: link_score, and on a site that comes to say
// so later, from its latest audit; a site that plans by inbound links keeps
// them in the audit alone.
func TestLinkScoresReachThePagesOfSitesThatPlanWithThem(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	cfg := testConfig(t)
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	// pagesMatchingTheAudit counts the site's pages whose link score is the
	// audit's, and its pages with any link score.
	pagesMatchingTheAudit := func(siteID, auditID string) (matching, scored int) {
		t.Helper()
		err := conn.QueryRow(t.Context(), `SELECT
			count(*) FILTER (WHERE p.link_score = s.score), count(*) FILTER (WHERE p.link_score IS NOT NULL)
			FROM pages p LEFT JOIN audit_link_scores s ON s.site_id = p.site_id AND s.audit_id = $2 AND s.page_id = p.id
			WHERE p.site_id = $1`, siteID, auditID).Scan(&matching, &scored)
		if err != nil {
			t.Fatal(err)
		}
		return matching, scored
	}
	withAuthority := func(structure events.Event, id string) events.Event {
		data, err := events.DecodeData[events.SiteUpdatedData](structure)
		if err != nil {
			t.Fatal(err)
		}
		data.Site.Overrides = json.RawMessage(`{"authority": "link_score"}`)
		return mustEvent(events.SiteUpdated, structure.SiteID, id, data)
	}

	// Planning by inbound links: the scores stay in the audit.
	const later = "cadence-scores-later"
	structure, pages := existingSite(later)
	h.publishExisting(structure, pages, existingDeleted)
	first := h.audit(later, "first", events.AuditRequestedData{})
	if first.Status != "complete" || first.Pages == 0 {
		t.Fatalf("audit: status %q, %d pages", first.Status, first.Pages)
	}
	if _, scored := pagesMatchingTheAudit(later, "first"); scored != 0 {
		t.Errorf("%d pages took link scores on a site that plans by inbound links", scored)
	}
	// The policy comes to plan with link scores: the pages take the latest
	// whole-site audit's.
	h.publish(withAuthority(structure, "site-"+later+"-by-score"))
	h.waitIdle(waitLong)
	if matching, scored := pagesMatchingTheAudit(later, "first"); matching != first.Pages || scored != first.Pages {
		t.Errorf("after the policy changed: %d pages hold the audit's link score and %d any, want all %d live pages",
			matching, scored, first.Pages)
	}

	// Planning with link scores from the start: the audit writes them.
	const from = "cadence-scores-from-start"
	structure, pages = existingSite(from)
	h.publishExisting(withAuthority(structure, "site-"+from), pages, existingDeleted)
	audited := h.audit(from, "only", events.AuditRequestedData{})
	if matching, scored := pagesMatchingTheAudit(from, "only"); matching != audited.Pages || scored != audited.Pages {
		t.Errorf("after the audit: %d pages hold its link score and %d any, want all %d live pages", matching, scored, audited.Pages)
	}
}
