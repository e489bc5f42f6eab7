package service

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/events"
)

// A bakery's live site: the blind-baking article names its hub's keyword
// "pie crust" in its first paragraphs only inside "all-butter pie crust",
// its sibling's keyword, and the hub opens a sentence on "Blind baking",
// the article's keyword, which holds the word of the sector "Baking".
func bakerySite(siteID string) (events.Event, []events.PageInfo) {
	structure := mustEvent(events.SiteUpdated, siteID, "site-"+siteID, events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: siteID, BaseURL: "https://bakery.example", Name: "Crumb & Crust", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "baking", Name: "Baking", URL: "/baking/"}},
		Clusters: []events.ClusterInfo{{ID: "pie-crust", SectorID: "baking", Name: "Pie Crust",
			PrimaryKeyword: "pie crust", Keywords: []string{"flaky pie crust", "pastry dough"}}},
	})
	date := func(day int) *time.Time {
		d := time.Date(2026, time.March, day, 9, 0, 0, 0, time.UTC)
		return &d
	}
	page := func(id, url, title, kind, cluster, keyword string, day int, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: title, Kind: kind, ClusterID: cluster, SectorID: "baking",
			PrimaryKeyword: keyword, PublishedAt: date(day), Version: 1, HTML: "<main>\n" + body + "</main>\n"}
	}
	pages := []events.PageInfo{
		page("baking", "/baking/", "Baking", "sector", "", "baking", 1,
			"<h1>Baking</h1>\n<p>Bread, pastry and everything else that comes out of a hot oven.</p>\n"),
		page("pie-crust", "/baking/pie-crust/", "How to Make Pie Crust That Stays Flaky", "hub", "pie-crust", "pie crust", 2,
			"<h1>How to Make Pie Crust That Stays Flaky</h1>\n<p>A good crust is mostly temperature control: cold butter in flat pieces turns to steam in the oven and lifts the layers apart.</p>\n"+
				"<p>Blind baking, lattice tops and crimped edges all follow from the same dough once you keep it cold.</p>\n"),
		page("all-butter-pie-crust", "/baking/pie-crust/all-butter-pie-crust/", "All-Butter Pie Crust Recipe", "supporting", "pie-crust", "all-butter pie crust", 3,
			"<h1>All-Butter Pie Crust Recipe</h1>\n<p>Butter tastes better than shortening but forgives less. Keep everything cold and work quickly.</p>\n"+
				"<p>Cut the butter into the flour until the largest pieces are the size of peas, then add ice water a spoonful at a time.</p>\n"),
		page("blind-baking", "/baking/pie-crust/blind-baking/", "How to Blind Bake a Pie Shell", "supporting", "pie-crust", "blind baking", 4,
			"<h1>How to Blind Bake a Pie Shell</h1>\n<p>Custard and cream pies need their shell baked before the filling goes in, or the bottom stays pale and soggy.</p>\n"+
				"<p>Line the chilled shell with parchment and fill it with weights. Our all-butter pie crust holds its shape best for this.</p>\n"),
	}
	return structure, pages
}

// The audit proposes a link from the planner's plan of the page over the
// pages that plan reads, as a new page is planned: a phrase is offered
// only to the page it names best (anchors.Owners). Planned over the
// target alone, a cooking trial's audit placed a hub's uplink on "pie
// crust" inside "all-butter pie crust", offered that sibling's keyword as
// the hub's anchor, and linked the hub's "Blind baking" to the sector
// page "Baking".
func TestAnAuditOffersAPhraseOnlyToThePageItNamesBest(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "crumb-and-crust"
	structure, pages := bakerySite(siteID)
	h.publishExisting(structure, pages)
	h.audit(siteID, "ownership", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "ownership")
	uplink := false
	for _, r := range recs {
		if r.PageID == "blind-baking" && r.TargetID == "pie-crust" && r.LinkType == "vertical_up" {
			uplink = true
			if slices.ContainsFunc(r.Anchors, func(a string) bool { return anchors.Normalize(a) == "all-butter pie crust" }) {
				t.Errorf("uplink %s offers the sibling's keyword among the hub's anchors %q", r.ID, r.Anchors)
			}
			if r.Found {
				t.Errorf("uplink %s found %q in the page, whose first paragraphs name the hub only inside the sibling's name", r.ID, r.Anchor)
			}
		}
		if r.Found && strings.EqualFold(r.Anchor, "Blind baking") && r.TargetID != "blind-baking" {
			t.Errorf("%s links %q on %s to %s, not to the article it names", r.ID, r.Anchor, r.PageID, r.TargetID)
		}
	}
	if !uplink {
		t.Errorf("no uplink recommended for blind-baking; recommendations: %+v", recs)
	}
}
