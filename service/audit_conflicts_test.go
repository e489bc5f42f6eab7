package service

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// This file holds the tests of fixes that would conflict on one page:
// two fixes linking one target, and a fix whose result validation flags.

// oldFitURL is the URL of the existing site's deleted old-fit-guide.
func oldFitURL(pages []events.PageInfo) string {
	for _, p := range pages {
		if p.ID == existingDeleted {
			return p.URL
		}
	}
	panic("no " + existingDeleted)
}

// plantOn changes one page of pages.
func plantOn(pages []events.PageInfo, id string, change func(html string) string) {
	for i, p := range pages {
		if p.ID == id {
			pages[i].HTML = change(p.HTML)
			return
		}
	}
	panic("no page " + id)
}

// recsOf are a page's recommendations.
func recsOf(recs []store.StoredRecommendation, pageID string) []store.StoredRecommendation {
	var out []store.StoredRecommendation
	for _, r := range recs {
		if r.PageID == pageID {
			out = append(out, r)
		}
	}
	return out
}

// An apply validates each page's fixes as it makes them and refuses one
// whose result validation flags, whatever the fix does: here a retarget,
// which adds no link of its own. A hub's broken link to a deleted article
// of another cluster is recommended pointed at that cluster's hub, a
// cross-cluster link; the site then allows none, and the retarget is
// refused with the rule and its detail, not sent out flagged.
func TestApplyRefusesARetargetWhoseResultValidationFlags(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-retarget-refused"
	structure, pages := existingSite(siteID)
	var data events.SiteUpdatedData
	if err := json.Unmarshal(structure.Data, &data); err != nil {
		t.Fatal(err)
	}
	// A cluster of no attribute value: no hub is its cross-cluster
	// candidate, so only the retarget links its hub.
	data.Clusters = append(data.Clusters, events.ClusterInfo{ID: "tandem-bikes", SectorID: "bikes", Name: "Tandem Bikes",
		PrimaryKeyword: "tandem bikes", Keywords: []string{"tandem bike"}})
	structure = mustEvent(structure.Type, siteID, structure.ID, data)
	tandemHub := events.PageInfo{ID: "tandem-bikes", URL: "/bikes/tandem-bikes/", Title: "Tandem Bikes", Kind: "hub",
		ClusterID: "tandem-bikes", SectorID: "bikes", PrimaryKeyword: "tandem bikes", PublishedAt: tsDate(time.January, 20), Version: 1,
		HTML: existingFrame("<h1>Tandem Bikes</h1>\n<p>Tandem bikes carry two riders on one frame.</p>\n")}
	tandemArticle := events.PageInfo{ID: "tandem-touring", URL: "/bikes/tandem-bikes/tandem-touring/", Title: "Touring on a Tandem",
		Kind: "supporting", ClusterID: "tandem-bikes", SectorID: "bikes", PrimaryKeyword: "tandem touring", PublishedAt: tsDate(time.February, 27),
		Version: 1, HTML: existingFrame("<h1>Touring on a Tandem</h1>\n<p>Touring on a tandem bike halves the wind.</p>\n")}
	page := tsClusters[1].id
	plantOn(pages, page, func(html string) string {
		return appendToArticle(html, fmt.Sprintf("<p>Some of you ride <a href=\"%s\">with a partner on one frame</a>, too.</p>", tandemArticle.URL))
	})
	pages = append(pages, tandemHub, tandemArticle)
	h.publishExisting(structure, pages, tandemArticle.ID)
	h.audit(siteID, "before", events.AuditRequestedData{})
	recs, err := h.svc.Store().Recommendations(t.Context(), siteID, "before", nil)
	if err != nil {
		t.Fatal(err)
	}
	var fix *store.StoredRecommendation
	for _, r := range recsOf(recs, page) {
		if r.LinkText == "with a partner on one frame" {
			fix = &r
		}
	}
	if fix == nil || fix.Action != "retarget" || fix.TargetID != tandemHub.ID || fix.LinkType != "cross_cluster" {
		t.Fatalf("hub %s: the broken link's fix is %+v; want a cross-cluster retarget to %s", page, fix, tandemHub.ID)
	}

	data.Site.Overrides = json.RawMessage(`{"max_cross_cluster_per_hub": 0}`)
	h.publish(mustEvent(events.SiteUpdated, siteID, structure.ID+"-no-cross-cluster", data))
	h.waitIdle(waitLong)
	res := h.applyFixes(siteID, "apply-retarget", events.AuditApplyData{AuditID: "before", RecommendationIDs: []string{fix.ID}})
	if res.Applied != 0 || len(res.Failed) != 1 || res.Failed[0].ID != fix.ID ||
		!strings.HasPrefix(res.Failed[0].Reason, "refused by validation: link_type_caps: ") ||
		!strings.Contains(res.Failed[0].Reason, "cross-cluster links, max 0") {
		t.Errorf("apply: %+v; want the retarget refused by validation with link_type_caps and its detail", res)
	}
	if fixed, ok := h.fixedPages(siteID, "before")[page]; ok {
		t.Errorf("page %s went out with the refused retarget: validation passed %v", page, fixed.Validation.Passed)
	}
}
