package service

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// A bakery's live site: the blind-baking article names its hub's keyword
// "pie crust" in its first paragraphs only inside "all-butter pie crust",
// its sibling's keyword, and the hub opens a sentence on "Blind baking",
// the article's keyword, which holds the word of the sector "Baking",
// and names the newer lattice-top-pie, as "lattice tops", a few words on
// in the same paragraph: no room for a second link there.
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
		page("lattice-top-pie", "/baking/pie-crust/lattice-top-pie/", "How to Weave a Lattice Top Pie", "supporting", "pie-crust", "lattice top", 5,
			"<h1>How to Weave a Lattice Top Pie</h1>\n<p>A woven top lets steam escape from juicy fruit and looks impressive for little skill.</p>\n"+
				"<p>Cut even strips from cold dough and weave them over the filled pie, then chill it for fifteen minutes before baking.</p>\n"),
	}
	// The article the hub names first is the older: its orphan fix has
	// the lower priority.
	older := time.Date(2025, time.March, 4, 9, 0, 0, 0, time.UTC)
	pages[3].PublishedAt = &older
	return structure, pages
}

// auditedBakery publishes the bakery site as site siteID, audits it and
// returns its recommendations.
func auditedBakery(t *testing.T, siteID, auditID string) (*auditHarness, []store.StoredRecommendation) {
	h := startAuditHarness(t)
	structure, pages := bakerySite(siteID)
	h.publishExisting(structure, pages)
	h.audit(siteID, auditID, events.AuditRequestedData{})
	return h, h.recommendations(siteID, auditID)
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
	_, recs := auditedBakery(t, "crumb-and-crust", "ownership")
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

// Apply places a page's fixes whose anchor the audit found before those
// it did not: the audit found each with the additions before it in
// place. The hub's paragraph names two orphans a few words apart; the
// audit gives the room to "Blind baking" and finds none for "lattice
// tops", though the newer lattice-top-pie's fix has the higher priority.
// Applied in priority order, a cooking trial's hub took the lattice link
// and refused the found one.
func TestApplyPlacesEveryFixWhoseAnchorTheAuditFound(t *testing.T) {
	t.Parallel()
	const siteID = "crumb-and-crust-apply"
	h, recs := auditedBakery(t, siteID, "found-first")
	found := map[string]string{}
	for _, r := range recs {
		if r.Found && r.Action == "add" {
			found[r.ID] = r.PageID + " → " + r.TargetID + " on " + strconv.Quote(r.Anchor)
		}
	}
	if !slices.ContainsFunc(recs, func(r store.StoredRecommendation) bool {
		return r.PageID == "pie-crust" && r.TargetID == "blind-baking" && r.Found
	}) {
		t.Fatalf("the audit found no anchor for the hub's link to blind-baking; recommendations: %+v", recs)
	}
	// The premise: the fix the audit found no room for comes first in
	// the report.
	lattice := slices.IndexFunc(recs, func(r store.StoredRecommendation) bool {
		return r.PageID == "pie-crust" && r.TargetID == "lattice-top-pie" && !r.Found
	})
	blind := slices.IndexFunc(recs, func(r store.StoredRecommendation) bool {
		return r.PageID == "pie-crust" && r.TargetID == "blind-baking"
	})
	if lattice < 0 || lattice > blind {
		t.Fatalf("the hub's fix to lattice-top-pie is at %d, its found fix to blind-baking at %d: want the first before the second", lattice, blind)
	}
	applied := h.applyFixes(siteID, "apply-found-first", events.AuditApplyData{AuditID: "found-first", All: true})
	for _, f := range applied.Failed {
		if what, ok := found[f.ID]; ok {
			t.Errorf("fix %s (%s), whose anchor the audit found, failed: %s", f.ID, what, f.Reason)
		}
	}
}

// The sector page "Baking" is an orphan whose every name is one word,
// shorter than an anchor: its fix says what a writer could work in,
// where a trial's said only "write one".
func TestAnAuditSaysWhatWouldCarryALinkToAPageWithOnlyShortNames(t *testing.T) {
	t.Parallel()
	_, recs := auditedBakery(t, "crumb-and-crust-short", "short-names")
	i := slices.IndexFunc(recs, func(r store.StoredRecommendation) bool { return r.TargetID == "baking" && r.Action == "add" })
	if i < 0 {
		t.Fatalf("no fix adds a link to the orphan sector page; recommendations: %+v", recs)
	}
	if r := recs[i]; r.Found || !strings.Contains(r.Reason, `every name of it is shorter than the 2 words an anchor needs; a phrase such as "our baking guide" would carry the link`) {
		t.Errorf("fix %s on %s (found %v): reason %q, want it to say what would carry the link", r.ID, r.PageID, r.Found, r.Reason)
	}
}

// A reef keeper's live article links "reef tank" to its hub and names its
// orphaned sibling further down by the sibling's keyword, "reef tank water
// parameters", which holds those words. The keyword is the sibling's own
// name, not the author's words again: the audit finds it there and apply
// links it, the author's link kept (a reef trial's audit said the page
// named it only "as words that already link another page here").
func TestAnAuditLinksALongerNameOfThePageThatHoldsWordsTheAuthorLinkedElsewhere(t *testing.T) {
	t.Parallel()
	const siteID = "reef-keeper"
	structure, page := publishedClusterSite(events.SiteInfo{ID: siteID, BaseURL: "https://reef.example", Name: "Reef Keeper", Policy: "sag"},
		events.SectorInfo{ID: "saltwater", Name: "Saltwater Aquariums", URL: "/saltwater/"},
		events.ClusterInfo{ID: "reef-tanks", SectorID: "saltwater", Name: "Reef Tanks",
			PrimaryKeyword: "reef tanks", Keywords: []string{"reef tank", "reef aquarium"}},
		time.Date(2026, time.March, 2, 9, 0, 0, 0, time.UTC))
	pages := []events.PageInfo{
		page("reef-tanks", "/saltwater/reef-tanks/", "Reef Tanks: Keeping Corals Alive", "hub", "reef tanks",
			"<h1>Reef Tanks: Keeping Corals Alive</h1>\n<p>Corals need stable salinity, strong light and very clean water.</p>\n"+
				`<p>Start with <a href="/saltwater/reef-tanks/soft-corals/">soft corals</a>, which forgive the swings of a young tank.</p>`+"\n"),
		page("soft-corals", "/saltwater/reef-tanks/soft-corals/", "Soft Corals for Beginners", "supporting", "soft corals",
			"<h1>Soft Corals for Beginners</h1>\n"+
				`<p>Leathers, mushrooms and zoanthids are the right first corals for a new <a href="/saltwater/reef-tanks/">reef tank</a>.</p>`+"\n"+
				"<p>They tolerate moderate light and small swings, and they grow fast enough to frag and trade with other keepers at the local club.</p>\n"+
				"<p>Once they thrive for six months, you are ready to think about reef tank water parameters in more detail.</p>\n"),
		page("water-parameters", "/saltwater/reef-tanks/water-parameters/", "Reef Tank Water Parameters", "supporting", "reef tank water parameters",
			"<h1>Reef Tank Water Parameters</h1>\n"+
				`<p>Salinity, alkalinity and calcium are the numbers that keep a <a href="/saltwater/reef-tanks/">reef aquarium</a> alive.</p>`+"\n"+
				"<p>Change alkalinity slowly, and test it every few days while the corals grow.</p>\n"),
	}
	h := startAuditHarness(t)
	h.publishExisting(structure, pages)
	h.audit(siteID, "longer-name", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "longer-name")
	i := slices.IndexFunc(recs, func(r store.StoredRecommendation) bool {
		return r.PageID == "soft-corals" && r.TargetID == "water-parameters" && r.Action == "add"
	})
	if i < 0 {
		t.Fatalf("no fix links soft-corals to water-parameters; recommendations: %+v", recs)
	}
	if r := recs[i]; !r.Found || !strings.EqualFold(r.Anchor, "reef tank water parameters") {
		t.Fatalf("fix %s found %v, anchor %q: want the sibling's keyword found in the page (reason: %s)", r.ID, r.Found, r.Anchor, r.Reason)
	}
	applied := h.applyFixes(siteID, "apply-longer-name", events.AuditApplyData{AuditID: "longer-name", RecommendationIDs: []string{recs[i].ID}})
	if applied.Applied != 1 || len(applied.Failed) != 0 {
		t.Fatalf("apply: %+v, want the one fix applied", applied)
	}
	fixed, ok := h.fixedPages(siteID, "longer-name")["soft-corals"]
	if !ok {
		t.Fatal("apply sent no fixed soft-corals")
	}
	for _, want := range []string{`new <a href="/saltwater/reef-tanks/">reef tank</a>`, `/saltwater/reef-tanks/water-parameters/"`, `>reef tank water parameters</a>`} {
		if !strings.Contains(fixed.HTML, want) {
			t.Errorf("fixed soft-corals lacks %s:\n%s", want, fixed.HTML)
		}
	}
}

// A live article with no links names its hub in its first paragraph and
// a sibling's keyword in its second. Apply places the page's fixes one
// after another, the uplink first, so the sibling link that follows it
// breaks no first-link rule: the audit finds it too (a cycling trial's
// audit said "work \"suspension setup\" into the text" of a page that
// held it, and apply then placed it).
func TestAnAuditFindsASiblingLinkThatFollowsTheUplinkItRecommendsWithIt(t *testing.T) {
	t.Parallel()
	const siteID = "trail-cycles"
	structure, page := publishedClusterSite(events.SiteInfo{ID: siteID, BaseURL: "https://cycles.example", Name: "Trail Cycles", Policy: "sag"},
		events.SectorInfo{ID: "bikes", Name: "Bikes", URL: "/bikes/"},
		events.ClusterInfo{ID: "mountain-bikes", SectorID: "bikes", Name: "Mountain Bikes",
			PrimaryKeyword: "mountain bikes", Keywords: []string{"mountain bike"}},
		time.Date(2026, time.May, 4, 9, 0, 0, 0, time.UTC))
	pages := []events.PageInfo{
		page("mountain-bikes", "/bikes/mountain-bikes/", "Mountain Bikes", "hub", "mountain bikes",
			"<h1>Mountain Bikes</h1>\n<p>Mountain bikes come as hardtails and as full-suspension trail bikes.</p>\n"),
		page("hardtail-vs-full", "/bikes/mountain-bikes/hardtail-vs-full/", "Hardtail vs Full Suspension", "supporting", "hardtail vs full suspension",
			"<h1>Hardtail vs Full Suspension</h1>\n<p>A hardtail is cheaper and lighter; a full suspension mountain bike is faster on rough trails.</p>\n"+
				"<p>For beginners, a good hardtail teaches line choice. See our suspension setup guide once you have bought.</p>\n"),
		page("suspension-setup", "/bikes/mountain-bikes/suspension-setup/", "Mountain Bike Suspension Setup", "supporting", "suspension setup",
			"<h1>Mountain Bike Suspension Setup</h1>\n<p>Sag is the amount the fork compresses under your weight: aim for a quarter of its travel.</p>\n"),
	}
	h := startAuditHarness(t)
	h.publishExisting(structure, pages)
	h.audit(siteID, "sibling-after-uplink", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "sibling-after-uplink")
	find := func(target string) store.StoredRecommendation {
		t.Helper()
		i := slices.IndexFunc(recs, func(r store.StoredRecommendation) bool {
			return r.PageID == "hardtail-vs-full" && r.TargetID == target && r.Action == "add"
		})
		if i < 0 {
			t.Fatalf("no fix links hardtail-vs-full to %s; recommendations: %+v", target, recs)
		}
		return recs[i]
	}
	up, sibling := find("mountain-bikes"), find("suspension-setup")
	if !up.Found || !sibling.Found || !strings.EqualFold(sibling.Anchor, "suspension setup") {
		t.Fatalf("uplink found %v; sibling found %v on %q (reason: %s): want both found, the sibling on its keyword", up.Found, sibling.Found, sibling.Anchor, sibling.Reason)
	}
	applied := h.applyFixes(siteID, "apply-sibling-after-uplink", events.AuditApplyData{AuditID: "sibling-after-uplink",
		RecommendationIDs: []string{up.ID, sibling.ID}})
	if applied.Applied != 2 || len(applied.Failed) != 0 {
		t.Fatalf("apply: %+v, want both fixes applied", applied)
	}
	fixed := h.fixedPages(siteID, "sibling-after-uplink")["hardtail-vs-full"]
	hub, next := strings.Index(fixed.HTML, `href="/bikes/mountain-bikes/"`), strings.Index(fixed.HTML, `href="/bikes/mountain-bikes/suspension-setup/"`)
	if hub < 0 || next < hub {
		t.Errorf("fixed page links the hub at %d and the sibling at %d, want the hub first:\n%s", hub, next, fixed.HTML)
	}
}

// publishedClusterSite is oneClusterSite with live pages that carry a
// title, a keyword and a publication date, their body inside <main>.
func publishedClusterSite(info events.SiteInfo, sector events.SectorInfo, cluster events.ClusterInfo, published time.Time) (events.Event, func(id, url, title, kind, keyword, body string) events.PageInfo) {
	structure, _ := oneClusterSite(info, sector, cluster)
	page := func(id, url, title, kind, keyword, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: title, Kind: kind, ClusterID: cluster.ID, SectorID: sector.ID,
			PrimaryKeyword: keyword, PublishedAt: &published, Version: 1, HTML: "<main>\n" + body + "</main>\n"}
	}
	return structure, page
}
