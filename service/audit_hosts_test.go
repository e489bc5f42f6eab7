package service

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
)

// A writer links the site's own pages on its host without "www." as often
// as with it: such a link is internal, and the page it links is linked.
func TestAnAuditCountsLinksToTheSitesHostWithoutWWWAsInternal(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-bare-host"
	structure, pages := existingSite(siteID)
	orphan, linker := tsClusters[3].articles[3].id, tsClusters[3].articles[2].id
	var orphanURL string
	for _, p := range pages {
		if p.ID == orphan {
			orphanURL = p.URL
		}
	}
	for i, p := range pages {
		if p.ID == linker {
			// the site's base URL is https://www.cadence-cycles.example
			pages[i].HTML = strings.Replace(p.HTML, "</article>",
				`<p>Read on in <a href="http://cadence-cycles.example`+orphanURL+`">the next guide</a>.</p>`+"\n</article>", 1)
		}
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "bare-host", events.AuditRequestedData{})

	rec, found, err := h.svc.Store().Audit(t.Context(), siteID, "bare-host")
	if err != nil || !found {
		t.Fatalf("stored audit: found %v, err %v", found, err)
	}
	var report events.AuditCompletedData
	if err := json.Unmarshal(rec.Report, &report); err != nil {
		t.Fatal(err)
	}
	if report.Findings == nil {
		t.Fatal("the stored report has no findings")
	}
	if slices.Contains(report.Findings.Orphans, orphan) {
		t.Errorf("%s, linked from %s on the host without www, is reported an orphan: %v", orphan, linker, report.Findings.Orphans)
	}
	if !slices.Contains(report.Findings.Orphans, "aero-50") {
		t.Errorf("the planted orphan aero-50 is missing from %v", report.Findings.Orphans)
	}
}
