package service

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
)

// This file holds the tests of what an audit request asks for and what
// the audit then counts: its id, verification, and a page's links to
// itself.

func TestALinkFromAPageToItselfDoesNotMakeItNonOrphan(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-self"
	structure, pages := existingSite(siteID)
	orphan := tsClusters[3].articles[3] // a supporting article no other page links to
	for i, p := range pages {
		if p.ID != orphan.id {
			continue
		}
		// One self link in its own words, one to its path without the
		// trailing slash, with a query and a fragment, and one absolute.
		body := linkAfter(p.HTML, "<article>", orphan.pk, p.URL)
		body = appendToArticle(body, fmt.Sprintf("<p>Printing this guide? <a href=\"%s?print=1#inside\">This version</a> fits on two pages, and <a href=\"https://%s%s\">the web version</a> stays up to date.</p>",
			strings.TrimRight(p.URL, "/"), cadenceHost, p.URL))
		if strings.Count(body, "<a ") != strings.Count(p.HTML, "<a ")+3 {
			t.Fatalf("the self links were not planted in %s", p.ID)
		}
		pages[i].HTML = body
	}
	h.publishExisting(structure, pages, existingDeleted)
	live := livePages(pages, existingDeleted)
	want := auditOracle(t, cadenceHost, sortedPages(live), deletedPages(pages))
	if !want.orphans[orphan.id] {
		t.Fatalf("by the definitions %s is an orphan: %v", orphan.id, sortedKeys(want.orphans))
	}

	got := h.audit(siteID, "self", events.AuditRequestedData{})
	findings := storedFindings(t, h, siteID, "self")
	orphans := map[string]bool{}
	for _, id := range findings.Orphans {
		orphans[id] = true
	}
	if !orphans[orphan.id] {
		t.Errorf("%s links only to itself and is not reported as an orphan: orphans %v, navigation only %v", orphan.id, findings.Orphans, findings.NavigationOnly)
	}
	// The self links are links of the page, to a known page: counted, not
	// unverified.
	if got.OrphanPages != len(want.orphans) || got.TotalLinks != want.totalLinks || got.UnverifiedLinks != want.unverified {
		t.Errorf("orphan_pages %d, total_links %d, unverified_links %d; the HTML says %d, %d and %d",
			got.OrphanPages, got.TotalLinks, got.UnverifiedLinks, len(want.orphans), want.totalLinks, want.unverified)
	}
	var recommended bool
	for _, r := range got.Recommendations {
		recommended = recommended || r.Action == "add" && r.TargetID == orphan.id && r.ContentID != orphan.id
	}
	if !recommended {
		t.Errorf("no page is recommended a link to the orphan %s", orphan.id)
	}
}

func TestAnAuditRequestWithoutAnAuditIDTakesTheEventID(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-default-id"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)

	const eventID = "req-without-audit-id"
	h.publish(mustEvent(events.AuditRequested, siteID, eventID, events.AuditRequestedData{}))
	var got events.AuditCompletedData
	waitFor(t, waitLong, "audit completed", func() bool {
		for _, d := range completedAudits(h.completed, siteID) {
			got = d
			return true
		}
		return false
	})
	if got.AuditID != eventID || got.Status != "complete" {
		t.Errorf("audit.completed for audit %q, status %q (%v); want audit %q, complete", got.AuditID, got.Status, got.Reasons, eventID)
	}
	if rec, found, err := h.svc.Store().Audit(t.Context(), siteID, eventID); err != nil || !found || rec.Status != "complete" {
		t.Errorf("stored audit %q: found %v, status %q, err %v", eventID, found, rec.Status, err)
	}
	for _, r := range h.progress.all() {
		var d events.AuditProgressData
		if r.Event.SiteID == siteID && json.Unmarshal(r.Event.Data, &d) == nil && d.AuditID != eventID {
			t.Errorf("audit.progress for audit %q, want %q", d.AuditID, eventID)
		}
	}
	// The id is the audit's: its fixes apply under it.
	res := h.applyFixes(siteID, "apply-default-id", events.AuditApplyData{AuditID: eventID, All: true})
	if res.AuditID != eventID || res.Applied == 0 {
		t.Errorf("apply of audit %q: %+v", eventID, res)
	}
}
