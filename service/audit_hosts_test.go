package service

import (
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// A writer links the site's own pages on its host without "www." as often
// as with it: such a link is internal, and the page it links is linked.
func TestAnAuditCountsLinksToTheSitesHostWithoutWWWAsInternal(t *testing.T) {
	outcomeScenario(t)
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

	findings := storedFindings(t, h, siteID, "bare-host")
	if slices.Contains(findings.Orphans, orphan) {
		t.Errorf("%s, linked from %s on the host without www, is reported an orphan: %v", orphan, linker, findings.Orphans)
	}
	if !slices.Contains(findings.Orphans, "aero-50") {
		t.Errorf("the planted orphan aero-50 is missing from %v", findings.Orphans)
	}
}

// A WordPress site on its default permalinks addresses a post by its
// query at the root ("/?p=412"): a link there is a link to that post, not
// to the home page, with or without tracking parameters.
func TestAnAuditResolvesALinkToAPagePickedByItsQueryAtTheRoot(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-plain-permalinks"
	structure, pages := existingSite(siteID)
	post, linker := tsClusters[3].articles[3].id, tsClusters[3].articles[2].id
	const postURL = "/?p=412"
	var oldURL string
	for i, p := range pages {
		if p.ID == post {
			oldURL, pages[i].URL = p.URL, postURL
		}
	}
	for i, p := range pages {
		pages[i].HTML = strings.ReplaceAll(p.HTML, `href="`+oldURL+`"`, `href="`+postURL+`"`)
		if p.ID == linker {
			pages[i].HTML = strings.Replace(pages[i].HTML, "</article>",
				`<p>Read on in <a href="https://www.cadence-cycles.example/?p=412&amp;utm_source=news">the next guide</a>.</p>`+"\n</article>", 1)
		}
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "plain-permalinks", events.AuditRequestedData{})

	if findings := storedFindings(t, h, siteID, "plain-permalinks"); slices.Contains(findings.Orphans, post) {
		t.Errorf("%s at %s, linked from %s, is reported an orphan: %v", post, postURL, linker, findings.Orphans)
	}
	entries, err := h.svc.Store().LinkMapPage(t.Context(), siteID, store.LinkMapFilter{Source: linker, AfterOrdinal: -1, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	resolved := false
	for _, e := range entries {
		if strings.Contains(e.TargetURL, "p=412") {
			resolved = true
			if e.TargetPageID != post {
				t.Errorf("the link to %s resolves to %q, want %s", e.TargetURL, e.TargetPageID, post)
			}
		}
	}
	if !resolved {
		t.Errorf("%s's link map has no link to %s: %+v", linker, postURL, entries)
	}
}
