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

// A page without its uplink that links a deleted sibling: the audit
// recommends adding the uplink, and the broken link, whose retarget
// would be the page's second link to its hub (no_duplicate_links, and two
// vertical_up links where link_type_caps allows one), is removed instead.
// No page gets two fixes linking one target, and the page that goes out
// links its hub once and fails neither rule.
func TestABrokenLinkIsNotRetargetedToTheHubTheAuditAlsoRecommendsAsTheUplink(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-uplink-retarget"
	structure, pages := existingSite(siteID)
	page := tsClusters[0].articles[0].id // no uplink to gravel-bikes
	hub := tsClusters[0].id
	// Its siblings use the hub's name up to the anchor cap: its first
	// paragraph gets another of the hub's names for the uplink to take.
	plantOn(pages, page, func(html string) string {
		html = strings.Replace(html, "<p>", "<p>We wrote this for riders of all-road bikes. ", 1)
		return appendToArticle(html, fmt.Sprintf("<p>Riders new to this asked us before, so read <a href=\"%s\">our bike fit notes</a> too.</p>", oldFitURL(pages)))
	})
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)

	var uplink, broken *store.StoredRecommendation
	for _, r := range recsOf(run.recs, page) {
		switch {
		case r.Action == "add" && r.LinkType == "vertical_up":
			uplink = &r
		case r.LinkText == "our bike fit notes":
			broken = &r
		}
	}
	if uplink == nil || uplink.TargetID != hub {
		t.Fatalf("page %s: no uplink to %s recommended: %+v", page, hub, recsOf(run.recs, page))
	}
	if broken == nil || broken.Action != "remove" {
		t.Fatalf("page %s: the broken link's fix is %+v; want remove, the uplink fix linking the hub", page, broken)
	}
	if !strings.Contains(broken.Reason, hub) {
		t.Errorf("the removal's reason %q does not say the hub is linked by another fix", broken.Reason)
	}
	// No page of the site gets two fixes that link one target.
	linking := map[[2]string][]string{}
	for _, r := range run.recs {
		if r.Action == "add" || r.Action == "retarget" {
			k := [2]string{r.PageID, r.TargetID}
			linking[k] = append(linking[k], r.ID)
		}
	}
	for k, ids := range linking {
		if len(ids) > 1 {
			t.Errorf("page %s has %d fixes linking %s: %v", k[0], len(ids), k[1], ids)
		}
	}

	for _, f := range run.applied.Failed {
		if f.ID == uplink.ID || f.ID == broken.ID {
			t.Errorf("fix %s refused: %s", f.ID, f.Reason)
		}
	}
	fixed, ok := run.fixed[page]
	if !ok {
		t.Fatalf("page %s did not come back fixed", page)
	}
	for _, r := range fixed.Validation.Rules {
		if (r.Name == "no_duplicate_links" || r.Name == "link_type_caps") && !r.Passed {
			t.Errorf("the fixed page fails %s: %s", r.Name, r.Detail)
		}
	}
	hubPath := strings.TrimRight(run.input[hub].URL, "/")
	n := 0
	for _, l := range linksOf(t, run.input[page], fixed.HTML) {
		if l.position == "content" && l.path == hubPath {
			n++
		}
		if l.text == "our bike fit notes" {
			t.Errorf("the broken link is still a link, to %s", l.path)
		}
	}
	if n != 1 {
		t.Errorf("the fixed page links its hub %d times in its body, want 1", n)
	}
}

// A broken link is pointed at its cluster's hub when the page does not
// link the hub in its body: a menu link to the hub, on every page, is no
// reason to unwrap it.
func TestABrokenLinkIsRetargetedToTheHubAPageLinksOnlyFromItsMenu(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-menu-hub"
	structure, pages := existingSite(siteID)
	page := tsClusters[5].articles[2].id // bike-wheels: no link to gravel-bikes
	hub := tsClusters[0]
	plantOn(pages, page, func(html string) string {
		html = strings.Replace(html, "<nav>", fmt.Sprintf("<nav><a href=\"%s\">Gravel Bikes</a> ", hub.url), 1)
		return appendToArticle(html, fmt.Sprintf("<p>Wheels are half the story; we once wrote <a href=\"%s\">how to fit a bike</a> properly.</p>", oldFitURL(pages)))
	})
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "before", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "before")
	var fix *store.StoredRecommendation
	for _, r := range recsOf(recs, page) {
		if r.LinkText == "how to fit a bike" {
			fix = &r
		}
	}
	if fix == nil || fix.Action != "retarget" || fix.TargetID != hub.id {
		t.Fatalf("page %s: the broken link's fix is %+v; want a retarget to the hub %s, which the page links only from its menu", page, fix, hub.id)
	}
}

// An apply validates each page's fixes as it makes them and refuses one
// whose result validation flags, whatever the fix does: here a retarget,
// which adds no link of its own. A hub's broken link to a deleted article
// of another cluster is recommended pointed at that cluster's hub, a
// cross-cluster link; the site then allows none, and the retarget is
// refused with the rule and its detail, not sent out flagged.
func TestApplyRefusesARetargetWhoseResultValidationFlags(t *testing.T) {
	outcomeScenario(t)
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
	recs := h.recommendations(siteID, "before")
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

// A page that links one target four times, with one anchor, and is over
// its density maximum: the audit recommends removing the three extra
// links (the first kept), over-linked removals count them before taking
// the weakest others, no two fixes touch one link, and the page that goes
// out passes no_duplicate_links and link_type_caps and is within range.
func TestAnAuditReportsDuplicateLinksAndRecommendsRemovingTheExtraOnes(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-duplicates"
	structure, pages := existingSite(siteID)
	c := tsClusters[4]
	page, dup := c.articles[0].id, c.articles[1] // over-linked, links its next sibling once already
	var dupURL string
	for _, p := range pages {
		if p.ID == dup.id {
			dupURL = p.URL
		}
	}
	plantOn(pages, page, func(html string) string {
		for _, s := range []string{"Before you buy", "When it rains", "Back at home"} {
			html = appendToArticle(html, fmt.Sprintf("<p>%s, read about <a href=\"%s\">%s</a> once more.</p>", s, dupURL, dup.pk))
		}
		return html
	})
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)

	seen := map[string]string{}
	removed := 0
	for _, r := range recsOf(run.recs, page) {
		if r.LinkPath == "" {
			continue
		}
		k := fmt.Sprintf("%s|%s|%d", r.LinkPath, r.LinkText, r.Occurrence)
		if other, ok := seen[k]; ok {
			t.Errorf("two fixes of one link %s: %s and %s", k, other, r.ID)
		}
		seen[k] = r.ID
		if r.Action == "remove" && r.TargetID == dup.id {
			removed++
			if r.Occurrence == 0 && r.LinkText == dup.pk {
				t.Errorf("the first link to %s is removed: %+v", dup.id, r)
			}
		}
	}
	if removed != 3 {
		t.Errorf("%d removals of links to %s, want the 3 extra ones", removed, dup.id)
	}
	for _, f := range run.applied.Failed {
		for _, r := range recsOf(run.recs, page) {
			if r.ID == f.ID && r.Action == "remove" {
				t.Errorf("fix %s (%s %s) refused: %s", r.ID, r.Action, r.TargetID, f.Reason)
			}
		}
	}
	fixed, ok := run.fixed[page]
	if !ok {
		t.Fatalf("page %s did not come back fixed", page)
	}
	for _, r := range fixed.Validation.Rules {
		if (r.Name == "no_duplicate_links" || r.Name == "link_type_caps" || r.Name == "density_range") && !r.Passed && r.Severity == "error" {
			t.Errorf("the fixed page fails %s: %s", r.Name, r.Detail)
		}
	}
	n := 0
	for _, l := range linksOf(t, run.input[page], fixed.HTML) {
		if l.position == "content" && l.path == strings.TrimRight(dupURL, "/") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the fixed page links %s %d times in its body, want 1", dup.id, n)
	}
	if findingPages(run.afterF.OverLinked)[page] {
		t.Errorf("page %s is over-linked after the fixes", page)
	}
	// The stored report lists the duplicate before the fixes, not after.
	listed := func(fs []events.AuditFinding) bool {
		for _, f := range fs {
			if f.PageID == page && f.TargetID == dup.id {
				return true
			}
		}
		return false
	}
	if !listed(run.beforeF.DuplicateLinks) {
		t.Errorf("the stored report's duplicate_links %+v do not list %s linking %s 4 times", run.beforeF.DuplicateLinks, page, dup.id)
	}
	if listed(run.afterF.DuplicateLinks) {
		t.Errorf("the duplicate is still listed after the fixes: %+v", run.afterF.DuplicateLinks)
	}
}

// A dental trial's page linked its hub in a heading before the paragraph
// that carried its uplink: the fix for the duplicate kept the heading's
// link, the first, and took out the uplink, which the page then lacked.
// Of links to the page's hub, the one in the opening paragraphs stays.
func TestADuplicateOfAnUplinkKeepsTheUplinkInTheOpeningParagraphs(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-heading-uplink"
	structure, pages := existingSite(siteID)
	c := tsClusters[5]
	page := c.articles[2].id // links its hub's primary keyword in paragraph 1 or 2
	plantOn(pages, page, func(html string) string {
		return strings.Replace(html, "</h1>", fmt.Sprintf("</h1>\n<h2>Start with <a href=\"%s\">%s</a></h2>", c.url, c.pk), 1)
	})
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)

	removed := 0
	for _, r := range recsOf(run.recs, page) {
		if r.Action != "remove" || r.TargetID != c.id {
			continue
		}
		removed++
		if r.Occurrence != 0 || r.LinkText != c.pk {
			t.Errorf("the fix takes out a link to the hub other than the heading's: %+v", r)
		}
	}
	if removed != 1 {
		t.Errorf("%d removals of links to the hub %s, want the heading's alone", removed, c.id)
	}
	fixed, ok := run.fixed[page]
	if !ok {
		t.Fatalf("page %s did not come back fixed", page)
	}
	var uplinks []oracleLink
	for _, l := range linksOf(t, run.input[page], fixed.HTML) {
		if l.position == "content" && l.path == strings.TrimRight(c.url, "/") {
			uplinks = append(uplinks, l)
		}
	}
	if len(uplinks) != 1 || uplinks[0].paragraph < 1 || uplinks[0].paragraph > 2 {
		t.Errorf("links to the hub after the fixes %+v, want one, in paragraph 1 or 2", uplinks)
	}
	for _, r := range fixed.Validation.Rules {
		if (r.Name == "mandatory_uplink" || r.Name == "no_duplicate_links") && !r.Passed {
			t.Errorf("the fixed page fails %s: %s", r.Name, r.Detail)
		}
	}
}
