package service

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
)

// A link to a media file (WordPress's "link to media file" around an
// image, a PDF to download) leads to no page: the audit of a site whose
// pages carry such links has the figures of the same site without them.
func TestAnAuditCountsNoLinkToAMediaFileAsAContentLink(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	media := `<p><a href="/wp-content/uploads/2024/06/scapes.jpg"><img src="/wp-content/uploads/2024/06/scapes-300x200.jpg" alt="Scapes"></a></p>` + "\n" +
		`<p>Print <a href="https://www.cadence-cycles.example/wp-content/uploads/fit-chart.pdf">our fit chart</a> before you ride.</p>` + "\n"
	withMedia := map[string]bool{tsClusters[0].articles[2].id: true, tsClusters[2].articles[3].id: true, tsClusters[1].id: true}

	reports := map[string]events.AuditCompletedData{}
	for _, siteID := range []string{"cadence-plain", "cadence-media"} {
		structure, pages := existingSite(siteID)
		if siteID == "cadence-media" {
			for i, p := range pages {
				if withMedia[p.ID] {
					pages[i].HTML = strings.Replace(p.HTML, "<main><article>\n", "<main><article>\n"+media, 1)
				}
			}
		}
		h.publishExisting(structure, pages, existingDeleted)
		h.audit(siteID, "audit-"+siteID, events.AuditRequestedData{})
		rec, found, err := h.svc.Store().Audit(t.Context(), siteID, "audit-"+siteID)
		if err != nil || !found {
			t.Fatalf("stored audit of %s: found %v, err %v", siteID, found, err)
		}
		var report events.AuditCompletedData
		if err := json.Unmarshal(rec.Report, &report); err != nil {
			t.Fatal(err)
		}
		reports[siteID] = report
	}
	plain, got := reports["cadence-plain"], reports["cadence-media"]
	for _, f := range got.Findings.Unverified {
		if strings.Contains(f.URL, "/wp-content/") {
			t.Errorf("a link to a media file is reported unverified: %+v", f)
		}
	}
	figures := []struct {
		name      string
		got, want any
	}{
		{"total_links", got.TotalLinks, plain.TotalLinks},
		{"unverified_links", got.UnverifiedLinks, plain.UnverifiedLinks},
		{"over-linked pages", withoutWordCounts(got.Findings.OverLinked), withoutWordCounts(plain.Findings.OverLinked)},
		{"under-linked pages", withoutWordCounts(got.Findings.UnderLinked), withoutWordCounts(plain.Findings.UnderLinked)},
		{"missing mandatory", got.Findings.MissingMandatory, plain.Findings.MissingMandatory},
		{"overall health", got.OverallHealthScore, plain.OverallHealthScore},
	}
	for _, f := range figures {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s with media links: %v; without them: %v", f.name, f.got, f.want)
		}
	}
}

var wordCount = regexp.MustCompile(`of \d+ words`)

// withoutWordCounts are density findings without the pages' word counts,
// which the media links' captions add to.
func withoutWordCounts(findings []events.AuditFinding) []events.AuditFinding {
	out := make([]events.AuditFinding, len(findings))
	for i, f := range findings {
		f.Detail = wordCount.ReplaceAllString(f.Detail, "of N words")
		out[i] = f
	}
	return out
}
