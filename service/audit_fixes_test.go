package service

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// This file holds the tests of what applying an audit's fixes does to a
// site, on the existing site of existing_test.go, and the helpers the
// audit tests share. existingSiteWithBrokenLinks plants more broken links
// on it: one to the deleted old-fit-guide from a page that does not link
// to its (live) hub, and one to a deleted article of a cluster whose hub
// is deleted too.

// cadenceHost is the existing site's host.
const cadenceHost = "www.cadence-cycles.example"

// fixRun is an audit, its fixes applied and republished, and a second
// audit of the fixed site.
type fixRun struct {
	before, after     events.AuditCompletedData
	beforeF, afterF   events.AuditFindings
	recs              []store.StoredRecommendation // the first audit's, as applied
	applied           events.AuditAppliedData
	input             map[string]events.PageInfo // live pages as first published
	fixed             map[string]events.LinksInsertedData
	republishedByPage map[string]events.PageInfo // the fixed pages as published again
}

// fixAllAndAuditAgain publishes an existing site, audits it, applies all
// of its recommendations, publishes every page that came back and audits
// the site again.
func fixAllAndAuditAgain(t *testing.T, h *auditHarness, structure events.Event, pages []events.PageInfo, deleted ...string) fixRun {
	t.Helper()
	siteID := structure.SiteID
	h.publishExisting(structure, pages, deleted...)
	run := fixRun{input: livePages(pages, deleted...)}
	run.before = h.audit(siteID, "before", events.AuditRequestedData{})
	run.beforeF = storedFindings(t, h, siteID, "before")
	run.applied = h.applyFixes(siteID, "apply-all", events.AuditApplyData{AuditID: "before", All: true})
	var err error
	if run.recs, err = h.svc.Store().Recommendations(t.Context(), siteID, "before", nil); err != nil {
		t.Fatal(err)
	}
	run.fixed = h.fixedPages(siteID, "before")
	checkServedHTML(t, h.harness, siteID, run.fixed, "after the fixes went out")
	run.republishedByPage = h.republishFixed(siteID, run.input, run.fixed)
	checkServedHTML(t, h.harness, siteID, run.fixed, "once the fixed pages were published")
	run.after = h.audit(siteID, "after", events.AuditRequestedData{})
	run.afterF = storedFindings(t, h, siteID, "after")
	return run
}

// checkServedHTML holds content/{id}/html/ to the HTML of each page's last
// links.inserted: a silo trial's client read a fixed page there and got
// the page as it was planned, without the fix.
func checkServedHTML(t *testing.T, h *harness, siteID string, last map[string]events.LinksInsertedData, when string) {
	t.Helper()
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	for _, id := range sortedKeysOf(last) {
		if status, _, body := c.get("/linker/content/"+id+"/html/?site_id="+siteID, token); status != 200 || string(body) != last[id].HTML {
			t.Errorf("%s: content/%s/html/ answered %d with %d bytes, want its last links.inserted's %d", when, id, status, len(body), len(last[id].HTML))
		}
	}
}

// republishFixed publishes the fixed pages as their publisher would put
// them live: the next version of each, with the HTML that came back.
func (h *auditHarness) republishFixed(siteID string, input map[string]events.PageInfo, fixed map[string]events.LinksInsertedData) map[string]events.PageInfo {
	h.t.Helper()
	out := map[string]events.PageInfo{}
	for _, id := range sortedKeysOf(fixed) {
		p, ok := input[id]
		if !ok {
			h.t.Fatalf("page %s came back fixed but was never published", id)
		}
		p.Version++
		p.HTML = fixed[id].HTML
		out[id] = p
		h.publish(mustEvent(events.ContentPublished, siteID, fmt.Sprintf("pub-%s-v%d", p.ID, p.Version), events.ContentData{Page: p}))
	}
	h.waitIdle(waitLong)
	return out
}

// livePages are the pages not deleted, by id.
func livePages(pages []events.PageInfo, deleted ...string) map[string]events.PageInfo {
	gone := map[string]bool{}
	for _, id := range deleted {
		gone[id] = true
	}
	out := map[string]events.PageInfo{}
	for _, p := range pages {
		if !gone[p.ID] {
			out[p.ID] = p
		}
	}
	return out
}

// storedFindings are the pages and links behind a stored audit's figures.
func storedFindings(t *testing.T, h *auditHarness, siteID, auditID string) events.AuditFindings {
	t.Helper()
	rec, found, err := h.svc.Store().Audit(t.Context(), siteID, auditID)
	if err != nil || !found {
		t.Fatalf("stored audit %s: found %v, err %v", auditID, found, err)
	}
	var report events.AuditCompletedData
	if err := json.Unmarshal(rec.Report, &report); err != nil {
		t.Fatal(err)
	}
	if report.Findings == nil {
		t.Fatalf("stored audit %s has no findings", auditID)
	}
	return *report.Findings
}

func findingPages(fs []events.AuditFinding) map[string]bool {
	out := map[string]bool{}
	for _, f := range fs {
		out[f.PageID] = true
	}
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// visibleText is the text a reader sees in a page, read with the standard
// parser: character references decoded, whitespace runs as one space.
func visibleText(t *testing.T, src string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.Join(strings.Fields(b.String()), " ")
}

// containsWords reports whether text holds phrase literally (case and
// all), as whole words: "track pump" is not in "track pumps".
func containsWords(text, phrase string) bool {
	for from := 0; phrase != ""; {
		k := strings.Index(text[from:], phrase)
		if k < 0 {
			return false
		}
		at, end := from+k, from+k+len(phrase)
		if (at == 0 || !isWordByte(text[at-1]) || !isWordByte(phrase[0])) &&
			(end == len(text) || !isWordByte(text[end]) || !isWordByte(phrase[len(phrase)-1])) {
			return true
		}
		from = at + 1
	}
	return false
}

// appendToArticle adds a paragraph at the end of a framed page's article.
func appendToArticle(page, paragraph string) string {
	return strings.Replace(page, "</article>", paragraph+"\n</article>", 1)
}

// linksOf are a page's internal links as the standard parser reads them.
func linksOf(t *testing.T, p events.PageInfo, src string) []oracleLink {
	t.Helper()
	links, _ := parseLinks(t, cadenceHost, "https://"+cadenceHost+p.URL, src)
	return links
}

// isUnderLinkedFix reports a recommendation that adds a link to a page
// under its density minimum.
func isUnderLinkedFix(r store.StoredRecommendation) bool {
	return r.Action == "add" && strings.Contains(r.Reason, "under its minimum")
}

func TestApplyingFixesToUnderLinkedPagesAddsLinksWhoseAnchorsAreTheirText(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-under")
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)

	underBefore, underAfter := findingPages(run.beforeF.UnderLinked), findingPages(run.afterF.UnderLinked)
	if run.before.UnderLinkedPages == 0 || run.before.UnderLinkedPages != len(underBefore) {
		t.Fatalf("the site should start with under-linked pages: figure %d, findings %v", run.before.UnderLinkedPages, sortedKeys(underBefore))
	}
	if run.after.UnderLinkedPages >= run.before.UnderLinkedPages {
		t.Errorf("under_linked_pages %d after the fixes, %d before", run.after.UnderLinkedPages, run.before.UnderLinkedPages)
	}

	// Every under-linked page's fix that was applied added a link, under an
	// anchor that is text the page already had.
	underFixes := 0
	added, removed := map[string]int{}, map[string]int{} // applied fixes by page
	for _, r := range run.recs {
		switch {
		case r.AppliedBy == "":
			continue
		case r.Action == "add":
			added[r.PageID]++
		case r.Action == "remove":
			removed[r.PageID]++
		}
		if !isUnderLinkedFix(r) {
			continue
		}
		if !underBefore[r.PageID] {
			t.Errorf("recommendation %s adds a link to %s for being under-linked, which the audit did not find it", r.ID, r.PageID)
		}
		underFixes++
		in, fixed := run.input[r.PageID], run.fixed[r.PageID]
		if !r.Found || r.Anchor == "" {
			t.Errorf("recommendation %s (%s → %s) was applied without an anchor found in the page: %q", r.ID, r.PageID, r.TargetID, r.Anchor)
			continue
		}
		if !containsWords(visibleText(t, in.HTML), r.Anchor) {
			t.Errorf("page %s: the anchor %q added towards %s is not text of the page", r.PageID, r.Anchor, r.TargetID)
		}
		var added bool
		for _, l := range fixed.Links {
			if l.TargetPageID == r.TargetID && l.Placement == "audit_fix" && l.Anchor == r.Anchor {
				added = true
			}
		}
		target := run.input[r.TargetID]
		var inHTML bool
		for _, l := range linksOf(t, in, fixed.HTML) {
			inHTML = inHTML || l.position == "content" && l.path == strings.TrimRight(target.URL, "/") && l.text == r.Anchor
		}
		if !added || !inHTML {
			t.Errorf("page %s: the link to %s under %q is in links.inserted: %v, in its HTML: %v", r.PageID, r.TargetID, r.Anchor, added, inHTML)
		}
		if withoutLinks(fixed.HTML) != withoutLinks(in.HTML) {
			t.Errorf("fixed page %s differs from its input in more than links", r.PageID)
		}
	}
	if underFixes == 0 {
		t.Fatalf("no under-linked page's fix was applied; failed: %+v", run.applied.Failed)
	}

	// The pages that are no longer under-linked are pages the fixes gave
	// links, each with as many more in-body links as were added.
	var nowWithin []string
	for _, id := range sortedKeys(underBefore) {
		if underAfter[id] {
			continue
		}
		nowWithin = append(nowWithin, id)
		if added[id] == 0 {
			t.Errorf("page %s is no longer under-linked though no link was added to it", id)
			continue
		}
		count := func(src string) (n int) {
			for _, l := range linksOf(t, run.input[id], src) {
				if l.position == "content" {
					n++
				}
			}
			return n
		}
		if before, after := count(run.input[id].HTML), count(run.republishedByPage[id].HTML); after != before+added[id]-removed[id] {
			t.Errorf("page %s has %d in-body links after %d additions and %d removals, %d before", id, after, added[id], removed[id], before)
		}
	}
	if len(nowWithin) == 0 {
		t.Errorf("no under-linked page reached its minimum: before %v, after %v", sortedKeys(underBefore), sortedKeys(underAfter))
	}
	t.Logf("under-linked: %d before, %d after; fixed %v", run.before.UnderLinkedPages, run.after.UnderLinkedPages, nowWithin)
}

func TestApplyingFixesBringsOverLinkedPagesWithinTheirMaximum(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-over")
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)

	over := findingPages(run.beforeF.OverLinked)
	if run.before.OverLinkedPages == 0 || !over[tsClusters[4].articles[0].id] {
		t.Fatalf("the planted over-linked page %s is not reported: %v", tsClusters[4].articles[0].id, sortedKeys(over))
	}
	if run.after.OverLinkedPages != 0 {
		t.Errorf("over_linked_pages %d after the fixes (%v), want 0", run.after.OverLinkedPages, sortedKeys(findingPages(run.afterF.OverLinked)))
	}
	for id := range over {
		fixed, ok := run.fixed[id]
		if !ok {
			t.Errorf("over-linked page %s did not come back fixed", id)
			continue
		}
		// A removal unwraps the link: its text stays.
		if withoutLinks(fixed.HTML) != withoutLinks(run.input[id].HTML) {
			t.Errorf("fixed page %s differs from its input in more than links", id)
		}
	}
}

// existingSiteWithBrokenLinks is the existing site with two more broken
// links: one to the deleted old-fit-guide, whose hub is live, from a page
// that does not link to that hub; one to a deleted article of a cluster,
// tandem-bikes, whose hub is deleted too. It returns the pages to delete.
func existingSiteWithBrokenLinks(siteID string) (events.Event, []events.PageInfo, []string, brokenPlants) {
	structure, pages := existingSite(siteID)
	var data events.SiteUpdatedData
	if err := json.Unmarshal(structure.Data, &data); err != nil {
		panic(err)
	}
	data.Clusters = append(data.Clusters, events.ClusterInfo{ID: "tandem-bikes", SectorID: "bikes", Name: "Tandem Bikes",
		PrimaryKeyword: "tandem bikes", Keywords: []string{"tandem bike", "bicycles built for two"}})
	structure = mustEvent(structure.Type, siteID, structure.ID, data)

	plants := brokenPlants{
		retargetFrom: tsClusters[5].articles[0].id, // rim-depth: in bike-wheels, no link to gravel-bikes
		retargetText: "how to fit a bike",
		removeFrom:   tsClusters[5].articles[1].id, // wheel-truing
		removeText:   "riding a tandem",
		hub:          tsClusters[0].id,
	}
	var oldURL string
	for _, p := range pages {
		if p.ID == existingDeleted {
			oldURL = p.URL
		}
	}
	tandemHub := events.PageInfo{ID: "tandem-bikes", URL: "/bikes/tandem-bikes/", Title: "Tandem Bikes", Kind: "hub",
		ClusterID: "tandem-bikes", SectorID: "bikes", PrimaryKeyword: "tandem bikes", PublishedAt: tsDate(time.January, 20), Version: 1,
		HTML: existingFrame("<h1>Tandem Bikes</h1>\n<p>Tandem bikes carry two riders on one frame, and we no longer sell them.</p>\n")}
	tandemArticle := events.PageInfo{ID: "tandem-touring", URL: "/bikes/tandem-bikes/tandem-touring/", Title: "Touring on a Tandem",
		Kind: "supporting", ClusterID: "tandem-bikes", SectorID: "bikes", PrimaryKeyword: "tandem touring", PublishedAt: tsDate(time.February, 27),
		Version: 1, HTML: existingFrame("<h1>Touring on a Tandem</h1>\n<p>Touring on a tandem bike halves the wind and doubles the conversation.</p>\n")}
	plants.removeURL = tandemArticle.URL
	plants.oldURL = oldURL
	for i, p := range pages {
		switch p.ID {
		case plants.retargetFrom:
			pages[i].HTML = appendToArticle(p.HTML, fmt.Sprintf("<p>Wheels are only half the story: we once wrote about <a href=\"%s\">%s</a> properly, and the advice still holds.</p>", oldURL, plants.retargetText))
		case plants.removeFrom:
			pages[i].HTML = appendToArticle(p.HTML, fmt.Sprintf("<p>Strong wheels matter even more when <a href=\"%s\">%s</a>, with twice the weight on every spoke.</p>", tandemArticle.URL, plants.removeText))
		}
	}
	pages = append(pages, tandemHub, tandemArticle)
	return structure, pages, []string{existingDeleted, tandemHub.ID, tandemArticle.ID}, plants
}

// brokenPlants are the broken links existingSiteWithBrokenLinks planted.
type brokenPlants struct {
	retargetFrom, retargetText, oldURL, hub string
	removeFrom, removeText, removeURL       string
}

func TestABrokenLinkIsPointedAtItsLiveHubOrRemovedKeepingItsText(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages, deleted, plants := existingSiteWithBrokenLinks("cadence-broken")
	run := fixAllAndAuditAgain(t, h, structure, pages, deleted...)

	broken := map[string]bool{}
	for _, f := range run.beforeF.Broken {
		broken[f.PageID+" "+f.Anchor] = true
	}
	if !broken[plants.retargetFrom+" "+plants.retargetText] || !broken[plants.removeFrom+" "+plants.removeText] {
		t.Fatalf("the planted broken links are not reported: %+v", run.beforeF.Broken)
	}
	if run.after.BrokenLinks != 0 {
		t.Errorf("broken_links %d after the fixes: %+v", run.after.BrokenLinks, run.afterF.Broken)
	}
	actions := map[string]store.StoredRecommendation{}
	for _, r := range run.recs {
		if r.LinkText == plants.retargetText || r.LinkText == plants.removeText {
			actions[r.PageID] = r
		}
	}
	hubURL := run.input[plants.hub].URL
	if r := actions[plants.retargetFrom]; r.Action != "retarget" || r.TargetID != plants.hub || r.AppliedBy == "" {
		t.Errorf("the link to the deleted %s from %s: %s to %q, applied by %q; want retarget to its hub %s, applied",
			existingDeleted, plants.retargetFrom, r.Action, r.TargetID, r.AppliedBy, plants.hub)
	}
	if r := actions[plants.removeFrom]; r.Action != "remove" || r.AppliedBy == "" {
		t.Errorf("the link to the deleted tandem-touring (hub deleted) from %s: %s, applied by %q; want remove, applied",
			plants.removeFrom, r.Action, r.AppliedBy)
	}
	// Their anchor is the link's own text, in the page (the UI showed
	// such an anchor "(not in the text)": a Spanish trial).
	for _, r := range actions {
		if !r.Found || r.Anchor != r.LinkText {
			t.Errorf("the %s of %s's link %q: anchor %q, found %v; want the link's text, found", r.Action, r.PageID, r.LinkText, r.Anchor, r.Found)
		}
	}

	// Retargeted: the same text now links to the hub, the old URL is gone.
	in := run.input[plants.retargetFrom]
	fixed, ok := run.fixed[plants.retargetFrom]
	if !ok {
		t.Fatalf("page %s did not come back fixed", plants.retargetFrom)
	}
	var retargeted int
	for _, l := range linksOf(t, in, fixed.HTML) {
		if l.text == plants.retargetText {
			retargeted++
			if l.path != strings.TrimRight(hubURL, "/") {
				t.Errorf("page %s: the link %q points at %s, want the hub's %s", plants.retargetFrom, l.text, l.path, hubURL)
			}
		}
		if l.path == strings.TrimRight(plants.oldURL, "/") {
			t.Errorf("page %s still links to the deleted %s", plants.retargetFrom, plants.oldURL)
		}
	}
	if retargeted != 1 {
		t.Errorf("page %s has %d links with the text %q, want 1", plants.retargetFrom, retargeted, plants.retargetText)
	}
	if !strings.Contains(fixed.HTML, fmt.Sprintf("<a href=\"%s\">%s</a>", hubURL, plants.retargetText)) {
		t.Errorf("page %s: only the href of the broken link should change", plants.retargetFrom)
	}
	if withoutLinks(fixed.HTML) != withoutLinks(in.HTML) {
		t.Errorf("fixed page %s differs from its input in more than links", plants.retargetFrom)
	}

	// Removed: the link is unwrapped, its text stays where it was.
	in = run.input[plants.removeFrom]
	if fixed, ok = run.fixed[plants.removeFrom]; !ok {
		t.Fatalf("page %s did not come back fixed", plants.removeFrom)
	}
	for _, l := range linksOf(t, in, fixed.HTML) {
		if l.path == strings.TrimRight(plants.removeURL, "/") || l.text == plants.removeText {
			t.Errorf("page %s still has the link %q to %s", plants.removeFrom, l.text, l.path)
		}
	}
	if !strings.Contains(fixed.HTML, "Strong wheels matter even more when "+plants.removeText+", with twice") {
		t.Errorf("page %s: the removed link's text is not kept in place", plants.removeFrom)
	}
	if withoutLinks(fixed.HTML) != withoutLinks(in.HTML) {
		t.Errorf("fixed page %s differs from its input in more than links", plants.removeFrom)
	}
}

// sortedPages are pages by id.
func sortedPages(m map[string]events.PageInfo) []events.PageInfo {
	out := make([]events.PageInfo, 0, len(m))
	for _, id := range sortedKeysOf(m) {
		out = append(out, m[id])
	}
	return out
}

// deletedPages are the existing site's pages it deletes.
func deletedPages(pages []events.PageInfo) []events.PageInfo {
	var out []events.PageInfo
	for _, p := range pages {
		if p.ID == existingDeleted {
			out = append(out, p)
		}
	}
	return out
}

func TestAFixValidationRefusesIsRefusedWithItsRulesAndThePagesOtherFixesApply(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-refused"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	input := livePages(pages, existingDeleted)
	h.audit(siteID, "before", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "before")

	// A page with a cross-cluster link to add and other fixes that apply
	// as they stand: additions whose anchor is in the page, or removals.
	byPage := map[string][]store.StoredRecommendation{}
	for _, r := range recs {
		byPage[r.PageID] = append(byPage[r.PageID], r)
	}
	var pageID string
	var refused, others []store.StoredRecommendation
	for _, id := range sortedKeysOf(byPage) {
		refused, others = nil, nil
		usable := true
		for _, r := range byPage[id] {
			switch {
			case r.Action == "add" && r.LinkType == "cross_cluster" && r.Found:
				refused = append(refused, r)
			case r.Action != "add" || r.Found:
				others = append(others, r)
			default:
				usable = false // an addition with no anchor in the page fails anyway
			}
		}
		if usable && len(refused) > 0 && len(others) > 0 {
			pageID = id
			break
		}
	}
	if pageID == "" {
		t.Fatal("no page with a cross-cluster link to add and other fixes")
	}
	t.Logf("page %s: %d cross-cluster additions, %d other fixes", pageID, len(refused), len(others))

	// The site then allows no cross-cluster link: validation refuses the
	// addition the audit recommended under the old rules.
	var data events.SiteUpdatedData
	if err := json.Unmarshal(structure.Data, &data); err != nil {
		t.Fatal(err)
	}
	data.Site.Overrides = json.RawMessage(`{"max_cross_cluster_per_hub": 0}`)
	h.publish(mustEvent(events.SiteUpdated, siteID, structure.ID+"-no-cross-cluster", data))
	h.waitIdle(waitLong)

	var ids []string
	for _, r := range append(append([]store.StoredRecommendation{}, refused...), others...) {
		ids = append(ids, r.ID)
	}
	res := h.applyFixes(siteID, "apply-page", events.AuditApplyData{AuditID: "before", RecommendationIDs: ids})
	reasons := map[string]string{}
	for _, f := range res.Failed {
		reasons[f.ID] = f.Reason
	}
	for _, r := range refused {
		reason, ok := reasons[r.ID]
		if !ok || !strings.HasPrefix(reason, "refused by validation: ") || !strings.Contains(reason, "link_type_caps: ") ||
			!strings.Contains(reason, "cross-cluster links, max 0") {
			t.Errorf("the cross-cluster link to %s: refused %v with %q; want it refused by validation, the rule link_type_caps and its detail", r.TargetID, ok, reason)
		}
	}
	for _, r := range others {
		if reason, ok := reasons[r.ID]; ok {
			t.Errorf("fix %s (%s %s) was refused with the one validation refused: %q", r.ID, r.Action, r.TargetID, reason)
		}
	}
	if res.Applied != len(others) || len(res.Failed) != len(refused) {
		t.Errorf("applied %d, refused %d; want %d applied and %d refused", res.Applied, len(res.Failed), len(others), len(refused))
	}

	fixed, ok := h.fixedPages(siteID, "before")[pageID]
	if !ok {
		t.Fatalf("page %s did not come back with its other fixes", pageID)
	}
	in := input[pageID]
	if withoutLinks(fixed.HTML) != withoutLinks(in.HTML) {
		t.Errorf("fixed page %s differs from its input in more than links", pageID)
	}
	targets := map[string]int{}
	for _, l := range linksOf(t, in, fixed.HTML) {
		if l.position == "content" {
			targets[l.path]++
		}
	}
	for _, r := range refused {
		if n := targets[strings.TrimRight(input[r.TargetID].URL, "/")]; n != 0 {
			t.Errorf("page %s links to %s, whose link validation refused", pageID, r.TargetID)
		}
	}
	for _, r := range others {
		if r.Action == "add" && targets[strings.TrimRight(input[r.TargetID].URL, "/")] == 0 {
			t.Errorf("page %s does not link to %s: the addition that validation accepted is missing", pageID, r.TargetID)
		}
	}
	stored, err := h.svc.Store().Recommendations(t.Context(), siteID, "before", ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stored {
		if wantApplied := reasons[r.ID] == ""; (r.AppliedBy != "") != wantApplied {
			t.Errorf("fix %s recorded as applied by %q; applied: %v", r.ID, r.AppliedBy, wantApplied)
		}
	}
}

// The anchor cap holds for an audit's fixes as for the pipeline's links,
// and counts the anchors the site's writers chose: two live articles link
// the hub as "hiking boots", and two more lack their uplink. Recommending
// "hiking boots" for both would take the anchor to four uses (the cap is
// three), as a trial site's apply did: the second gets the other name its
// text holds, and the site ends with no anchor over the cap (nor over the
// anchor share: the first takes its text's "Wet hiking boots").
func TestAnAuditsFixesKeepEveryAnchorWithinTheCapCountingTheSitesOwnLinks(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, page := oneClusterSite(events.SiteInfo{ID: "cap", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		events.SectorInfo{ID: "hiking", Name: "Hiking", URL: "/hiking/"},
		events.ClusterInfo{ID: "boots", SectorID: "hiking", Name: "Hiking Boots", PrimaryKeyword: "hiking boots", Keywords: []string{"trail boots"}})
	linked := `<p>Choosing <a href="/hiking/boots/">hiking boots</a> starts with how your heel sits when you walk downhill.</p>
<p>Everything else follows from a good fit, from socks to lacing and insoles.</p>`
	pages := []events.PageInfo{
		page("boots-hub", "hub", "/hiking/boots/", `<p>Our guide to hiking boots covers fit, materials and care for every kind of trail.</p>`),
		page("fit", "supporting", "/hiking/boots/fit/", linked),
		page("socks", "supporting", "/hiking/boots/socks/", linked),
		page("care", "supporting", "/hiking/boots/care/", `<p>Wet hiking boots dry slowly, away from the fire, with newspaper inside.</p>
<p>Brush the mud off before it dries and the leather stays supple for years.</p>`),
		page("lacing", "supporting", "/hiking/boots/lacing/", `<p>Hiking boots and trail boots both loosen on long descents, so relace before you drop.</p>
<p>A surgeon's knot at the ankle keeps the heel in place without cutting off the blood.</p>`),
	}
	run := fixAllAndAuditAgain(t, h, structure, pages)

	uplinks := map[string]store.StoredRecommendation{}
	for _, r := range run.recs {
		if r.Action == "add" && r.TargetID == "boots-hub" {
			uplinks[r.PageID] = r
		}
	}
	if len(uplinks) != 2 {
		t.Fatalf("uplink recommendations for %v, want care and lacing", sortedKeysOf(uplinks))
	}
	if got := uplinks["lacing"].Anchor; !strings.EqualFold(got, "trail boots") || !uplinks["lacing"].Found {
		t.Errorf("lacing's uplink is recommended with %q (found %v), want \"trail boots\": \"hiking boots\" is at the cap once care takes it",
			got, uplinks["lacing"].Found)
	}
	// Every page as it stands after the fixes: the republished ones, and
	// the others as first published.
	final := map[string]events.PageInfo{}
	for id, p := range run.input {
		final[id] = p
	}
	for id, p := range run.republishedByPage {
		final[id] = p
	}
	uses := map[string]int{}
	for _, id := range sortedKeysOf(final) {
		for _, l := range linksOf(t, final[id], final[id].HTML) {
			if l.position == "content" && l.path == "/hiking/boots" {
				uses[strings.ToLower(l.text)]++
			}
		}
	}
	for anchor, n := range uses {
		if n > 3 {
			t.Errorf("the hub carries the anchor %q %d times after the fixes, over the cap of 3", anchor, n)
		}
	}
	// care's uplink takes "Wet hiking boots" rather than a third "hiking
	// boots", which would carry 3 of the 5 links the hub may reach
	// (audit.WouldDominate).
	if uses["hiking boots"] != 2 || uses["wet hiking boots"] != 1 || uses["trail boots"] != 1 {
		t.Errorf("the hub's in-body anchors after the fixes: %v, want hiking boots 2, wet hiking boots 1 and trail boots 1", uses)
	}
}

// An audit's addition must not make the anchor it adds dominate: a
// trial's re-audit (t43) found one of its fixes had taken an anchor to 3
// of a page's 7 links. Here five live pages link the hub in their text,
// two as "pruning fruit trees"; an article lacking its uplink names the
// hub so and as "fruit tree pruning". A third "pruning fruit trees" would
// carry 3 of 6 links (over 40%), so the fix takes the other name.
func TestAnAuditsAdditionTakesNoAnchorItWouldMakeDominant(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, page := oneClusterSite(events.SiteInfo{ID: "orchard", BaseURL: "https://orchard.example", Name: "Orchard", Policy: "sag"},
		events.SectorInfo{ID: "garden", Name: "Garden", URL: "/garden/"},
		events.ClusterInfo{ID: "pruning", SectorID: "garden", Name: "Pruning Fruit Trees", PrimaryKeyword: "pruning fruit trees", Keywords: []string{"fruit tree pruning"}})
	linking := func(anchor string) string {
		return `<p>Read our notes on <a href="/garden/pruning/">` + anchor + `</a> before the sap rises in spring.</p>
<p>Sharp secateurs and a clean cut matter more than the exact day you choose.</p>`
	}
	pages := []events.PageInfo{
		page("pruning-hub", "hub", "/garden/pruning/", `<p>Pruning fruit trees keeps them productive, healthy and easy to pick from a short ladder.</p>`),
		page("apples", "supporting", "/garden/pruning/apples/", linking("pruning fruit trees")),
		page("pears", "supporting", "/garden/pruning/pears/", linking("pruning fruit trees")),
		page("plums", "supporting", "/garden/pruning/plums/", linking("our pruning guide")),
		page("cherries", "supporting", "/garden/pruning/cherries/", linking("the pruning calendar")),
		page("peaches", "supporting", "/garden/pruning/peaches/", linking("cutting back fruiting wood")),
		page("quinces", "supporting", "/garden/pruning/quinces/", `<p>Pruning fruit trees like quince is mostly about light: fruit tree pruning opens the crown.</p>
<p>Take out crossing branches first, then anything growing straight up from the main limbs.</p>`),
	}
	run := fixAllAndAuditAgain(t, h, structure, pages)

	var uplink *store.StoredRecommendation
	for i, r := range run.recs {
		if r.Action == "add" && r.PageID == "quinces" && r.TargetID == "pruning-hub" {
			uplink = &run.recs[i]
		}
	}
	if uplink == nil {
		t.Fatalf("no uplink recommended for quinces: %+v", run.recs)
	}
	if !strings.EqualFold(uplink.Anchor, "fruit tree pruning") || !uplink.Found {
		t.Errorf("quinces' uplink is recommended with %q (found %v), want \"fruit tree pruning\": a third \"pruning fruit trees\" would carry 3 of the hub's 6 links",
			uplink.Anchor, uplink.Found)
	}
	for _, f := range run.afterF.DominantAnchors {
		t.Errorf("after the fixes the audit finds a dominant anchor: %+v", f)
	}
}

// An audit's additions to a target of fewer than anchor_dominance_min_inbound
// links must not make one anchor dominate once the later additions bring
// it there: a solar trial's audit gave a hub of no links three uplinks on
// "heat pumps", then three more links, and its re-audit found the anchor
// carrying 3 of 6. Here the hub has no live link, and five articles
// lacking their uplink name it three ways in their opening paragraphs:
// within 40% of 5 links, no name may carry more than 2.
func TestAnAuditsAdditionsToATargetUnderTheMinimumMakeNoAnchorDominant(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	naming := `<p>Most homes that switch to heat pumps start with a survey of the rooms and their windows.</p>
<p>An air source heat pump suits most gardens, and a heat pump system needs one service a year.</p>`
	structure, pages := heatPumpsLackingUplinks("sunward", []string{"air source heat pump", "heat pump system"}, map[string]string{
		"a-defrost": naming, "b-noise": naming, "c-tariffs": naming, "d-sizing": naming, "e-radiators": naming})
	run := fixAllAndAuditAgain(t, startAuditHarness(t), structure, pages)

	uses, found := map[string]int{}, 0
	for _, r := range run.recs {
		if r.Action == "add" && r.TargetID == "heat-pumps" && r.Found {
			uses[anchors.Normalize(r.Anchor)]++
			found++
		}
	}
	if found != 5 {
		t.Errorf("%d of the 5 missing uplinks are found (%v), want all: each text names the hub", found, uses)
	}
	for anchor, n := range uses {
		if n > 2 {
			t.Errorf("the audit adds %d uplinks on %q of the hub's %d: over 40%% of them", n, anchor, found)
		}
	}
	for _, f := range run.afterF.DominantAnchors {
		t.Errorf("after the fixes the audit finds a dominant anchor: %+v", f)
	}
}

// A mandatory uplink takes an anchor over the share when its opening
// paragraphs hold no other: a page without its uplink is worse than a
// dominant anchor, which the next audit varies. Here three of five
// articles lacking their uplink name the hub only "heat pumps".
func TestAMandatoryUplinkTakesAnAnchorOverTheShareWhenItsTextHoldsNoOther(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	saying := func(name string) string {
		return `<p>Most homes that switch to ` + name + ` start with a survey of the rooms and their windows.</p>
<p>The installer then sizes the outdoor unit for the coldest week of the year.</p>`
	}
	structure, pages := heatPumpsLackingUplinks("sunward-only", []string{"air source heat pump"}, map[string]string{
		"a-defrost": saying("heat pumps"), "b-noise": saying("heat pumps"), "c-tariffs": saying("heat pumps"),
		"x-sizing": saying("an air source heat pump"), "y-radiators": saying("an air source heat pump")})
	run := fixAllAndAuditAgain(t, startAuditHarness(t), structure, pages)
	for _, r := range run.recs {
		if r.Action == "add" && r.TargetID == "heat-pumps" && !r.Found {
			t.Errorf("the uplink of %s is not found: %s", r.PageID, r.Reason)
		}
	}
	if run.after.MissingMandatory != 0 {
		t.Errorf("after the fixes %d pages lack their uplink, want 0", run.after.MissingMandatory)
	}
}

// heatPumpsLackingUplinks is a site of one cluster, Heat Pumps, whose hub
// no live page links, and its articles (by id, in id order) with their
// bodies, none linking the hub.
func heatPumpsLackingUplinks(siteID string, keywords []string, articles map[string]string) (events.Event, []events.PageInfo) {
	structure, page := oneClusterSite(events.SiteInfo{ID: siteID, BaseURL: "https://sunward.example", Name: "Sunward", Policy: "sag"},
		events.SectorInfo{ID: "efficiency", Name: "Efficiency", URL: "/efficiency/"},
		events.ClusterInfo{ID: "heat-pumps", SectorID: "efficiency", Name: "Heat Pumps", PrimaryKeyword: "heat pumps", Keywords: keywords})
	pages := []events.PageInfo{page("heat-pumps", "hub", "/efficiency/heat-pumps/",
		`<p>Heat pumps move heat rather than make it, and heat in winter and cool in summer.</p>`)}
	for _, id := range slices.Sorted(maps.Keys(articles)) {
		pages = append(pages, page(id, "supporting", "/efficiency/heat-pumps/"+id+"/", articles[id]))
	}
	return structure, pages
}

// An anchor is one however its apostrophe is typed: a French trial's
// audit counted "l’évier" and "l'évier" apart (and offered one as a
// variation of the other). Here three of six links to a hub say "fuite
// sous l’évier" in two spellings: 50%, a dominant anchor, and no
// variation offered is the same anchor.
func TestAnAnchorIsOneAnchorHoweverItsApostropheIsTyped(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, page := oneClusterSite(events.SiteInfo{ID: "plomberie", BaseURL: "https://atelier.example", Name: "Atelier", Policy: "sag", Overrides: json.RawMessage(`{"language":"fr"}`)},
		events.SectorInfo{ID: "maison", Name: "Maison", URL: "/maison/"},
		events.ClusterInfo{ID: "fuites", SectorID: "maison", Name: "Fuites d'eau", PrimaryKeyword: "fuite sous l'évier", Keywords: []string{"fuite d'eau"}})
	linking := func(anchor string) string {
		return `<p>Avant tout, lisez notre page sur la <a href="/maison/fuites/">` + anchor + `</a> et coupez l'eau.</p>
<p>Un seau, une serpillière et une clé à molette suffisent pour la plupart des réparations.</p>`
	}
	pages := []events.PageInfo{
		page("fuites", "hub", "/maison/fuites/", `<p>Une fuite sous l’évier se répare souvent en dix minutes avec les bons gestes.</p>`),
		page("siphon", "supporting", "/maison/fuites/siphon/", linking("fuite sous l’évier")),
		page("joint", "supporting", "/maison/fuites/joint/", linking("fuite sous l’évier")),
		page("flexible", "supporting", "/maison/fuites/flexible/", linking("fuite sous l'évier")),
		page("robinet", "supporting", "/maison/fuites/robinet/", linking("fuite d'eau")),
		page("compteur", "supporting", "/maison/fuites/compteur/", linking("réparation de plomberie")),
		page("chauffe-eau", "supporting", "/maison/fuites/chauffe-eau/", linking("dépannage rapide")),
	}
	h.publishExisting(structure, pages)
	h.audit("plomberie", "before", events.AuditRequestedData{})
	var found *events.AuditFinding
	for _, f := range storedFindings(t, h, "plomberie", "before").DominantAnchors {
		if f.PageID == "fuites" {
			found = &f
		}
	}
	if found == nil || anchors.Normalize(found.Anchor) != "fuite sous l'évier" {
		t.Fatalf("dominant anchor of the hub: %+v, want \"fuite sous l'évier\" (3 of 6 links, in two spellings)", found)
	}
	recs := h.recommendations("plomberie", "before")
	for _, r := range recs {
		if r.Action == "vary_anchor" && anchors.Normalize(r.Anchor) == anchors.Normalize(r.LinkText) {
			t.Errorf("recommendation %s varies %q on %s to %q: the same anchor", r.ID, r.LinkText, r.PageID, r.Anchor)
		}
	}
}

// A dominant anchor's variations count the audit's own fixes before
// them: a French trial's audit asked for three where, with its own new
// uplink and a late uplink's move counted, one was needed. Here five of
// the hub's seven in-body links say "home insulation", one of them late
// in its page; another page lacks its uplink. The addition takes the
// links to 8 and the move the anchor to 4: one variation brings it to 3
// of 8, within the share and the cap.
func TestADominantAnchorsVariationsCountTheAuditsOwnFixesBeforeThem(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, page := oneClusterSite(events.SiteInfo{ID: "warm", BaseURL: "https://warm.example", Name: "Warm", Policy: "sag"},
		events.SectorInfo{ID: "house", Name: "House", URL: "/house/"},
		events.ClusterInfo{ID: "insulation", SectorID: "house", Name: "Home Insulation", PrimaryKeyword: "home insulation", Keywords: []string{"insulating your home", "house insulation"}})
	linking := func(anchor string) string {
		return `<p>Start with our notes on <a href="/house/insulation/">` + anchor + `</a> before you buy anything.</p>
<p>Insulating your home pays back faster than most upgrades, and house insulation grants make it cheaper still.</p>`
	}
	filler := `<p>Measure the depth of what is there already with a ruler pushed down between the joists.</p>`
	pages := []events.PageInfo{
		page("insulation", "hub", "/house/insulation/", `<p>Home insulation keeps heat in during winter and out during summer.</p>`),
		page("loft", "supporting", "/house/insulation/loft/", linking("home insulation")),
		page("walls", "supporting", "/house/insulation/walls/", linking("home insulation")),
		page("floors", "supporting", "/house/insulation/floors/", linking("home insulation")),
		page("pipes", "supporting", "/house/insulation/pipes/", linking("home insulation")),
		page("doors", "supporting", "/house/insulation/doors/", linking("our draught guide")),
		page("windows", "supporting", "/house/insulation/windows/", linking("keeping heat in")),
		page("grants", "supporting", "/house/insulation/grants/", `<p>Insulating your home may be paid for in part by a local grant.</p>
<p>Check what your council offers before you pick a contractor.</p>`+filler+filler+
			`<p>Our page on <a href="/house/insulation/">home insulation</a> lists the materials.</p>`),
		page("costs", "supporting", "/house/insulation/costs/", `<p>Insulating your home costs less than most people expect.</p>
<p>Quotes vary by region, so ask three installers.</p>`),
	}
	h.publishExisting(structure, pages)
	h.audit("warm", "before", events.AuditRequestedData{})
	recs := h.recommendations("warm", "before")
	var varied []string
	added, moved := false, false
	for _, r := range recs {
		t.Logf("%s %s on %s: %q → %q (found %v)", r.Action, r.Problem, r.PageID, r.LinkText, r.Anchor, r.Found)
		switch {
		case r.Action == "add" && r.PageID == "costs" && r.TargetID == "insulation":
			added = true
		case r.Action == "vary_anchor" && r.PageID == "grants":
			moved = true
		case r.Action == "vary_anchor" && r.TargetID == "insulation" && anchors.Normalize(r.LinkText) == "home insulation":
			varied = append(varied, r.PageID)
		}
	}
	if !added || !moved {
		t.Fatalf("the audit's uplink for costs (%v) and move of grants' late uplink (%v) are the scene: without them the test proves nothing", added, moved)
	}
	if len(varied) != 1 {
		t.Errorf("%d variations of \"home insulation\" (%v), want 1: with the new uplink and the move, 4 of 8 links carry it", len(varied), varied)
	}
}

// A writer told to work a name into the text is given the target's
// keyword: a French trial was told to work in "Isolation de la maison : le
// guide", a hub's title with its subtitle, where its keyword was free.
func TestAnAnchorToWorkInIsTheTargetsKeyword(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure := mustEvent(events.SiteUpdated, "maison", "site-maison", events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: "maison", BaseURL: "https://maison.example", Name: "Maison", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "travaux", Name: "Travaux", URL: "/travaux/"}},
		Clusters: []events.ClusterInfo{{ID: "isolation", SectorID: "travaux", Name: "Isolation",
			PrimaryKeyword: "home insulation"}},
	})
	page := func(id, kind, url, title, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: title, Kind: kind, ClusterID: "isolation",
			SectorID: "travaux", Version: 1, HTML: "<h1>" + title + "</h1>\n" + body}
	}
	linking := func(anchor string) string {
		return `<p>Read about <a href="/travaux/isolation/">` + anchor + `</a> before the cold comes.</p>
<p>A ruler between the joists tells you how deep the existing layer is.</p>`
	}
	pages := []events.PageInfo{
		page("isolation", "hub", "/travaux/isolation/", "Home Insulation: The Complete Guide", `<p>Home insulation keeps the heat where you pay for it.</p>`),
		page("loft", "supporting", "/travaux/isolation/loft/", "Loft Rolls", linking("home insulation")),
		page("walls", "supporting", "/travaux/isolation/walls/", "Cavity Walls", linking("home insulation")),
		page("doors", "supporting", "/travaux/isolation/doors/", "Door Seals", linking("our draught notes")),
		page("pipes", "supporting", "/travaux/isolation/pipes/", "Pipe Lagging", `<p>Lagging the pipes in an unheated loft stops them bursting in a frost.</p>
<p>Foam sleeves slit along their length are the quickest to fit.</p>`),
	}
	h.publishExisting(structure, pages)
	h.audit("maison", "before", events.AuditRequestedData{})
	recs := h.recommendations("maison", "before")
	for _, r := range recs {
		if r.Action == "add" && r.PageID == "pipes" && r.TargetID == "isolation" {
			if r.Found || r.Anchor != "home insulation" {
				t.Errorf("pipes' uplink: anchor %q (found %v), want \"home insulation\" to work in: %s", r.Anchor, r.Found, r.Reason)
			}
			return
		}
	}
	t.Fatalf("no uplink recommended for pipes: %+v", recs)
}

// Anchors a writer is told to work in, to vary a dominant one, count as
// moves do: a French trial's audit told three writers to work "fuite
// sous évier" in, which would then carry 3 of 6 links, and its next audit
// sent one of them to another anchor once the first two were written.
// Here five of six links say "pipe insulation" and no page's text holds
// another name of the hub: the names to work in are spread so none would
// carry more than 40%.
func TestAnchorsToWorkInForADominantAnchorAreSpreadWithinTheShare(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, page := oneClusterSite(events.SiteInfo{ID: "lagging", BaseURL: "https://lagging.example", Name: "Lagging", Policy: "sag"},
		events.SectorInfo{ID: "house", Name: "House", URL: "/house/"},
		events.ClusterInfo{ID: "pipes", SectorID: "house", Name: "Pipe Insulation", PrimaryKeyword: "pipe insulation",
			Keywords: []string{"lagging your pipes", "insulating water pipes"}})
	linking := func(anchor string) string {
		return `<p>Before winter, read about <a href="/house/pipes/">` + anchor + `</a> and check the loft.</p>
<p>A frozen joint splits in a night and floods the ceiling below by morning.</p>`
	}
	pages := []events.PageInfo{page("pipes", "hub", "/house/pipes/", `<p>Pipe insulation is the cheapest frost protection a house can get.</p>`)}
	for _, id := range []string{"loft", "garage", "cellar", "garden", "boiler"} {
		pages = append(pages, page(id, "supporting", "/house/pipes/"+id+"/", linking("pipe insulation")))
	}
	pages = append(pages, page("sleeves", "supporting", "/house/pipes/sleeves/", linking("our frost notes")))
	h.publishExisting(structure, pages)
	h.audit("lagging", "before", events.AuditRequestedData{})
	recs := h.recommendations("lagging", "before")
	toWorkIn := map[string]int{}
	for _, r := range recs {
		if r.Action == "vary_anchor" && r.TargetID == "pipes" && !r.Found {
			toWorkIn[anchors.Normalize(r.Anchor)]++
		}
	}
	total := 0
	for anchor, n := range toWorkIn {
		total += n
		if 10*n > 4*6 {
			t.Errorf("%d writers are told to work %q in: it would carry %d of the hub's 6 links, over 40%%", n, anchor, n)
		}
	}
	if total < 2 {
		t.Errorf("anchors to work in %v: want the variations a 5-of-6 anchor needs, spread", toWorkIn)
	}
}

// The anchor cap counts an audit's anchor variations with its additions:
// trial P's audit recommended two missing uplinks as "soup recipes" and
// moved three links from the dominant "easy soup recipes" to it as well,
// five uses where the cap is three. Here two articles lack their uplink
// and nine link the hub as "easy soup recipes" (the share limit lets three
// of those move to one other anchor), every text saying "soup recipes"
// too: no more than three of the audit's fixes may carry it.
func TestAnAuditsVariationsAndAdditionsTogetherKeepAnAnchorWithinTheCap(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, page := oneClusterSite(events.SiteInfo{ID: "soups", BaseURL: "https://kitchen.example", Name: "Kitchen", Policy: "sag"},
		events.SectorInfo{ID: "cooking", Name: "Cooking", URL: "/cooking/"},
		events.ClusterInfo{ID: "soups", SectorID: "cooking", Name: "Soups", PrimaryKeyword: "soup recipes", Keywords: []string{"easy soup recipes"}})
	pages := []events.PageInfo{page("soups-hub", "hub", "/cooking/soups/",
		`<p>Our soup recipes run from quick weeknight pots to slow stocks that simmer all afternoon.</p>`)}
	for _, id := range []string{"onion", "tomato", "pumpkin", "lentil", "pea", "leek", "carrot", "potato", "squash"} {
		pages = append(pages, page(id, "supporting", "/cooking/soups/"+id+"/",
			`<p>Start with our <a href="/cooking/soups/">easy soup recipes</a> if this is your first pot of `+id+` soup.</p>
<p>Most soup recipes agree on one thing: a good stock and patience at the stove.</p>`))
	}
	for _, id := range []string{"minestrone", "chowder"} {
		pages = append(pages, page(id, "supporting", "/cooking/soups/"+id+"/",
			`<p>Like most soup recipes, a `+id+` rewards a slow simmer more than anything.</p>
<p>Chop the vegetables small so every spoonful holds a bit of everything in the pot.</p>`))
	}
	h.publishExisting(structure, pages)
	h.audit("soups", "before", events.AuditRequestedData{})
	recs := h.recommendations("soups", "before")
	carried := map[string]int{}
	for _, r := range recs {
		if r.TargetID == "soups-hub" && r.Found && (r.Action == "add" || r.Action == "vary_anchor") {
			carried[anchors.Normalize(r.Anchor)]++
			t.Logf("%s %s on %s: %q", r.ID, r.Action, r.PageID, r.Anchor)
		}
		// With "soup recipes" at the cap the hub has no anchor left to
		// move a link to: a variation to no anchor is no fix, which
		// apply could only refuse (trial P: 7 of 27).
		if r.Action == "vary_anchor" && r.Anchor == "" {
			t.Errorf("recommendation %s varies the link of %s to no anchor: %s", r.ID, r.PageID, r.Reason)
		}
	}
	for anchor, n := range carried {
		if n > 3 {
			t.Errorf("the audit's fixes give the hub the anchor %q %d times, over the cap of 3", anchor, n)
		}
	}
	if carried["soup recipes"] == 0 {
		t.Errorf("no fix carries \"soup recipes\": %v; the test proves nothing", carried)
	}
}

// A trial's trim of an over-linked hub (t29) removed the only links two
// term pages had, making two new orphans, and kept three links to pages
// that do not exist while it removed links to live pages. Here the
// planted over-linked page also links a page nothing else links and a
// path no page answers: the fixes keep the first and remove the second.
func TestTrimmingAnOverLinkedPageOrphansNothingAndRemovesLinksToNoPageFirst(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-trim")
	overID := tsClusters[4].articles[0].id
	lonely := events.PageInfo{ID: "shop-history", URL: "/about/shop-history/", Title: "Our Shop's History", Kind: "page",
		PublishedAt: tsDate(time.January, 3), Version: 1,
		HTML: existingFrame("<h1>Our Shop's History</h1>\n<p>We opened in a garage with two stands and a kettle.</p>\n")}
	const nowhere = "/bikes/folding-bikes/"
	for i, p := range pages {
		if p.ID == overID {
			pages[i].HTML = appendToArticle(p.HTML, fmt.Sprintf("<p>Some of this started in <a href=\"%s\">our old garage</a>, "+
				"and a reader asked about <a href=\"%s\">folding frames</a> once.</p>", lonely.URL, nowhere))
		}
	}
	pages = append(pages, lonely)
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)

	if !findingPages(run.beforeF.OverLinked)[overID] {
		t.Fatalf("the planted over-linked page %s is not reported", overID)
	}
	fixed, ok := run.fixed[overID]
	if !ok {
		t.Fatalf("over-linked page %s did not come back fixed", overID)
	}
	if !strings.Contains(fixed.HTML, `href="`+lonely.URL+`"`) {
		t.Errorf("the fix removed %s's only inbound link", lonely.ID)
	}
	if strings.Contains(fixed.HTML, `href="`+nowhere+`"`) {
		t.Errorf("the fix kept the link to %s, which no page answers", nowhere)
	}
	for _, o := range run.afterF.Orphans {
		if !slices.Contains(run.beforeF.Orphans, o) {
			t.Errorf("page %s is an orphan after the fixes and was not before", o)
		}
	}
}

// A gardening trial's hub linked 9 other hubs; the audit did not report
// it and the fixed page failed validation's link_type_caps. Here a hub
// links four other hubs in its body: the audit reports it and the fix
// brings it within max_cross_cluster_per_hub.
func TestApplyingFixesBringsAHubWithinTheCrossClusterCap(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-cross")
	hub := tsClusters[0]
	var extra []string
	for _, c := range tsClusters[1:5] {
		extra = append(extra, fmt.Sprintf(`<a href="%s">%s</a>`, c.url, strings.ToLower(c.name)))
	}
	for i, p := range pages {
		if p.ID == hub.id {
			pages[i].HTML = appendToArticle(p.HTML, "<p>Riders who love this also read about "+strings.Join(extra, ", ")+" on long weekends.</p>")
		}
	}
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)
	if !slices.ContainsFunc(run.beforeF.CrossClusterOverCap, func(f events.AuditFinding) bool { return f.PageID == hub.id }) {
		t.Fatalf("the hub %s linking %d other hubs is not reported: %+v", hub.id, len(extra), run.beforeF.CrossClusterOverCap)
	}
	if slices.ContainsFunc(run.afterF.CrossClusterOverCap, func(f events.AuditFinding) bool { return f.PageID == hub.id }) {
		t.Errorf("the hub %s is still over the cross-cluster cap after the fixes: %+v", hub.id, run.afterF.CrossClusterOverCap)
	}
	fixed, ok := run.fixed[hub.id]
	if !ok {
		t.Fatalf("hub %s did not come back fixed", hub.id)
	}
	for _, rule := range fixed.Validation.Rules {
		if rule.Name == "link_type_caps" && !rule.Passed {
			t.Errorf("the fixed hub fails link_type_caps: %s", rule.Detail)
		}
	}
}

// A German trial's hub linked 2 of its 6 articles, and its fixes were
// links to other clusters' hubs: the planner leaves to a hub's Related
// Articles list the articles its text does not name, and an audit writes
// no list. An under-linked hub is recommended links to its own articles
// first, for a writer to work in where its text does not name them.
func TestAnUnderLinkedHubIsRecommendedLinksToItsOwnArticles(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-hub-articles"
	structure, pages := existingSite(siteID)
	c := tsClusters[0]
	own := map[string]bool{}
	for _, a := range c.articles {
		own[a.id] = true
	}
	hubID := ""
	for i, p := range pages {
		if p.Kind != "hub" || clusterIndex(p.ID) != 0 {
			continue
		}
		hubID = p.ID
		// The hub's text neither links nor names its articles.
		for _, a := range c.articles {
			pages[i].HTML = regexp.MustCompile(`<a href="[^"]*/`+regexp.QuoteMeta(a.id)+`/">[^<]*</a>`).ReplaceAllString(pages[i].HTML, "")
		}
		// Nor does it name the term page of its steel value ("steel
		// frames"), whose link its text would carry (planning.termPages)
		// and take the place this test watches, the last the hub lacks.
		pages[i].HTML = strings.ReplaceAll(pages[i].HTML, "Steel frames soak up", "Frames of steel soak up")
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "before", events.AuditRequestedData{})
	under := false
	for _, f := range storedFindings(t, h, siteID, "before").UnderLinked {
		under = under || f.PageID == hubID
	}
	if !under {
		t.Fatalf("the hub of cluster %s, linking none of its articles, is not under-linked", c.id)
	}
	recs := h.recommendations(siteID, "before")
	var fixes []store.StoredRecommendation
	for _, r := range recs {
		if r.PageID == hubID && isUnderLinkedFix(r) {
			t.Logf("%s: add %s → %s (%s) under %q, found %v", r.ID, r.PageID, r.TargetID, r.LinkType, r.Anchor, r.Found)
			fixes = append(fixes, r)
		}
	}
	toOwn := 0
	for _, r := range fixes {
		if own[r.TargetID] && r.LinkType == "vertical_down" {
			toOwn++
		}
	}
	// Its text names one article in other words ("gravel position"): that
	// one is placed, the others are for a writer to work in, ahead of the
	// other clusters' hubs its text does not name either.
	if toOwn < 2 {
		t.Errorf("the under-linked hub %s is recommended %d links to its own articles of %d, want them ahead of other clusters' hubs", hubID, toOwn, len(fixes))
	}
}

// A trial's fixed pages that still lacked their uplink were told their
// cluster "has no hub page yet", its hub live: the fixed page's hub was
// found only through a link it had. And a writer's link to the hub in
// paragraph 5 passed mandatory_uplink, which the audit reports as an
// uplink outside the first paragraphs.
func TestAFixedPagesVerdictJudgesItsUplinkAgainstItsClustersLiveHub(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-fixed-uplink"
	structure, pages := existingSite(siteID)
	c := tsClusters[0]
	missing, late := c.articles[0].id, c.articles[2].id // (0,0) has no uplink
	// A second link to the sibling each already links (the next one), the
	// fix applied below.
	again := func(next tsArticle) string {
		return fmt.Sprintf("<p>Again: <a href=\"%s%s/\">%s</a>.</p>", c.url, next.id, next.pk)
	}
	for i, p := range pages {
		switch p.ID {
		case missing:
			pages[i].HTML = appendToArticle(p.HTML, again(c.articles[1]))
		case late:
			// Its uplink moved to the last paragraph.
			html := regexp.MustCompile(`<a href="`+regexp.QuoteMeta(c.url)+`">([^<]*)</a>`).ReplaceAllString(p.HTML, "$1")
			pages[i].HTML = appendToArticle(appendToArticle(html, "<p>More in <a href=\""+c.url+"\">our gravel bikes guide</a>.</p>"), again(c.articles[3]))
		}
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "before", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "before")
	var ids []string
	for _, r := range recs {
		if (r.PageID == missing || r.PageID == late) && r.Action == "remove" {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) < 2 {
		t.Fatalf("recommendations %d to remove a duplicate from %s and %s, want one each", len(ids), missing, late)
	}
	h.applyFixes(siteID, "apply-duplicates", events.AuditApplyData{AuditID: "before", RecommendationIDs: ids})
	fixed := h.fixedPages(siteID, "before")
	for _, id := range []string{missing, late} {
		f, ok := fixed[id]
		if !ok {
			t.Fatalf("page %s did not come back fixed", id)
		}
		for _, rule := range f.Validation.Rules {
			if rule.Name != "mandatory_uplink" {
				continue
			}
			if rule.Passed || strings.Contains(rule.Detail, "no live hub page") || !strings.Contains(rule.Detail, "gravel-bikes") {
				t.Errorf("page %s: mandatory_uplink %+v, want it failed against hub gravel-bikes", id, rule)
			}
		}
	}
}

// A German trial's audit reported pages whose only link to their hub was
// past paragraph 2 and fixed none of them. The link is moved into the
// first paragraphs, where an anchor for the hub is, and the page then has
// its uplink there.
func TestALateUplinkIsMovedIntoTheFirstParagraphs(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-late-uplink")
	late := tsClusters[2].articles[1] // its uplink is only its last paragraph
	hub := tsClusters[2]
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)
	if !slices.Contains(run.beforeF.UplinksOutsideOpening, late.id) {
		t.Fatalf("the audit does not find %s's uplink outside paragraphs 1–2: %v", late.id, run.beforeF.UplinksOutsideOpening)
	}
	var move *store.StoredRecommendation
	for i, r := range run.recs {
		if r.PageID == late.id && r.Action == "vary_anchor" && r.TargetID == hub.id {
			move = &run.recs[i]
		}
	}
	if move == nil || !move.Found || move.FirstParagraphs != 2 || move.AppliedBy == "" {
		t.Fatalf("recommendation %+v, want the late uplink moved into paragraphs 1–2 and applied", move)
	}
	fixed := run.fixed[late.id]
	var uplinks []events.LinkResult
	for _, l := range fixed.Links {
		if l.TargetPageID == hub.id && l.Zone == "in_body" {
			uplinks = append(uplinks, l)
		}
	}
	if len(uplinks) != 1 || uplinks[0].Paragraph < 1 || uplinks[0].Paragraph > 2 {
		t.Errorf("links to the hub after the move %+v, want one, in paragraph 1 or 2", uplinks)
	}
	for _, rule := range fixed.Validation.Rules {
		if rule.Name == "mandatory_uplink" && !rule.Passed {
			t.Errorf("mandatory_uplink after the move: %s", rule.Detail)
		}
	}
	if slices.Contains(run.afterF.UplinksOutsideOpening, late.id) {
		t.Errorf("the audit after the fixes still finds %s's uplink outside paragraphs 1–2", late.id)
	}
}

// A trial's hub was offered two additions found 12 words apart in one
// paragraph, an orphan's and its own minimum's, of which apply could place
// one. A page's additions are placed together as apply places them, so
// none found in the text is refused for the room another took.
func TestAnAuditsAdditionsFoundInAPageAllFitItTogether(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-additions-fit")
	c := tsClusters[3]
	orphan, named := c.articles[3], c.articles[2] // the site's orphan, and an article its hub names
	for i, p := range pages {
		if p.Kind != "hub" || clusterIndex(p.ID) != 3 {
			continue
		}
		// The hub links none of its articles, so it is under-linked, and
		// names one only beside the orphan, which no page links.
		html := p.HTML
		for _, a := range c.articles {
			html = regexp.MustCompile(`<a href="[^"]*/`+regexp.QuoteMeta(a.id)+`/">([^<]*)</a>`).ReplaceAllString(html, "$1")
		}
		html = strings.Replace(html, "Our guide to "+named.pk+" explains", "Our guide explains", 1)
		html = strings.Replace(html, "Our guide to "+orphan.kws[0]+" explains", "Our guides to "+orphan.kws[0]+" and "+named.pk+" explain", 1)
		pages[i].HTML = html
	}
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)
	found := map[string]store.StoredRecommendation{}
	for _, r := range run.recs {
		if r.Action == "add" && r.Found {
			found[r.ID] = r
		}
	}
	if len(found) == 0 {
		t.Fatal("no addition found in its page's text")
	}
	for _, f := range run.applied.Failed {
		if r, ok := found[f.ID]; ok && strings.Contains(f.Reason, "density limits") {
			t.Errorf("addition %s (%s → %s under %q) refused: %s", f.ID, r.PageID, r.TargetID, r.Anchor, f.Reason)
		}
	}
}

// oneClusterSite is a site of one sector and one cluster, and how its
// pages are written: each titled by its id, its HTML a heading and body.
func oneClusterSite(info events.SiteInfo, sector events.SectorInfo, cluster events.ClusterInfo) (events.Event, func(id, kind, url, body string) events.PageInfo) {
	structure := mustEvent(events.SiteUpdated, info.ID, "site-"+info.ID, events.SiteUpdatedData{
		Site: info, Sectors: []events.SectorInfo{sector}, Clusters: []events.ClusterInfo{cluster}})
	page := func(id, kind, url, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: strings.ToUpper(id[:1]) + id[1:], Kind: kind, ClusterID: cluster.ID,
			SectorID: sector.ID, Version: 1, HTML: "<h1>" + id + "</h1>\n" + body}
	}
	return structure, page
}

// Under silo, a link that leaves its page's silo is named and removed: a
// pet store trial's audit counted such links in its clusters' health,
// named none and fixed none, and did not count those from pages outside
// every cluster. Here an article of the boots silo links a tents article,
// and a plain page outside every cluster links a boots article.
func TestASiloSitesLinksThatLeaveTheirSiloAreNamedAndRemoved(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure := mustEvent(events.SiteUpdated, "silos", "site-silos", events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: "silos", BaseURL: "https://silos.example", Name: "Silos", Policy: "silo"},
		Sectors: []events.SectorInfo{{ID: "gear", Name: "Gear", URL: "/gear/"}},
		Clusters: []events.ClusterInfo{
			{ID: "boots", SectorID: "gear", Name: "Hiking Boots", PrimaryKeyword: "hiking boots"},
			{ID: "tents", SectorID: "gear", Name: "Tents", PrimaryKeyword: "backpacking tents"}},
	})
	page := func(id, kind, cluster, url, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: strings.ToUpper(id[:1]) + id[1:], Kind: kind, ClusterID: cluster,
			SectorID: "gear", Version: 1, HTML: "<h1>" + id + "</h1>\n" + body}
	}
	pages := []events.PageInfo{
		page("boots", "hub", "boots", "/gear/boots/", `<p>Hiking boots for every trail: see <a href="/gear/boots/fit/">boot fit</a>.</p>`),
		page("fit", "supporting", "boots", "/gear/boots/fit/", `<p>Our <a href="/gear/boots/">hiking boots</a> guide starts with fit.</p>
<p>Pitch your <a href="/gear/tents/pitching/">tent on a slope</a> with the door downhill, and your boots dry faster.</p>`),
		page("tents", "hub", "tents", "/gear/tents/", `<p>Backpacking tents, from one-person shelters up: <a href="/gear/tents/pitching/">pitching</a>.</p>`),
		page("pitching", "supporting", "tents", "/gear/tents/pitching/", `<p>Every <a href="/gear/tents/">backpacking tents</a> guide says: practise at home.</p>`),
		page("about", "page", "", "/about/", `<p>We started by reviewing <a href="/gear/boots/fit/">boot fit</a> in our garage.</p>`),
	}
	run := fixAllAndAuditAgain(t, h, structure, pages)
	crossing := map[string]string{}
	for _, f := range run.beforeF.SiloCrossings {
		crossing[f.PageID] = f.TargetID
	}
	if crossing["fit"] != "pitching" || crossing["about"] != "fit" || len(crossing) != 2 {
		t.Fatalf("silo crossings %+v, want fit → pitching and about → fit", run.beforeF.SiloCrossings)
	}
	if run.before.SiloCrossingLinks != 2 {
		t.Errorf("silo_crossing_links %d, want 2", run.before.SiloCrossingLinks)
	}
	removed := map[string]bool{}
	for _, r := range run.recs {
		if r.Action == "remove" && (r.PageID == "fit" && r.LinkPath == "/gear/tents/pitching" || r.PageID == "about" && r.LinkPath == "/gear/boots/fit") {
			removed[r.PageID] = r.AppliedBy != ""
		}
	}
	if !removed["fit"] || !removed["about"] {
		t.Errorf("removals applied %v, want both crossing links removed", removed)
	}
	if len(run.afterF.SiloCrossings) != 0 {
		t.Errorf("after the fixes: silo crossings %+v, want none", run.afterF.SiloCrossings)
	}
	if fixed, ok := run.fixed["fit"]; !ok || !fixed.Validation.Passed {
		t.Errorf("fit's fixed page: sent %v, verdict %+v", ok, fixed.Validation)
	}
}

// A recipe trial's trim of an over-linked fermentation article kept a
// pasta recipe that the sidebar's Recent Posts listed on every page, and
// took out a sibling the text named: a score counts the template's
// inbound links too. Here every page's sidebar lists another cluster's
// article, which the over-linked page also links in its body beside a
// sibling: the trim takes out the links leaving the cluster first and
// keeps the siblings.
func TestTrimmingAnOverLinkedArticleTakesOutOtherClustersPagesBeforeItsSiblings(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-trim-structure")
	c := tsClusters[4]
	overID := c.articles[0].id
	popular := tsClusters[0].articles[2]
	sibling := c.articles[2]
	urls := map[string]string{}
	for _, p := range pages {
		urls[p.ID] = p.URL
	}
	sidebar := fmt.Sprintf("<aside class=\"widget recent-posts\"><a href=\"%s\">%s</a></aside>\n", urls[popular.id], popular.pk)
	for i, p := range pages {
		pages[i].HTML = strings.Replace(p.HTML, "</main>", "</main>\n"+sidebar, 1)
		if p.ID == overID {
			pages[i].HTML = appendToArticle(pages[i].HTML, fmt.Sprintf("<p>After a puncture, %s and then <a href=\"%s\">%s</a> are what we reach for.</p>",
				fmt.Sprintf("<a href=\"%s\">%s</a>", urls[popular.id], popular.pk), urls[sibling.id], sibling.pk))
		}
	}
	run := fixAllAndAuditAgain(t, h, structure, pages, existingDeleted)
	if !findingPages(run.beforeF.OverLinked)[overID] {
		t.Fatalf("the planted over-linked page %s is not reported", overID)
	}
	cluster := map[string]string{}
	for _, p := range pages {
		cluster[p.ID] = p.ClusterID
	}
	trimmed := 0
	for _, r := range run.recs {
		if r.PageID != overID || r.Action != "remove" || !strings.Contains(r.Reason, "over its maximum") {
			continue
		}
		trimmed++
		if cluster[r.TargetID] == c.id {
			t.Errorf("the trim removes the link to %s, of the page's own cluster, while links leave it: %s", r.TargetID, r.Reason)
		}
	}
	if trimmed == 0 {
		t.Fatalf("no link of %s is trimmed; the test proves nothing", overID)
	}
	fixed, ok := run.fixed[overID]
	if !ok {
		t.Fatalf("over-linked page %s did not come back fixed", overID)
	}
	for _, id := range []string{c.articles[1].id, sibling.id} {
		if !strings.Contains(fixed.HTML, `href="`+urls[id]+`"`) {
			t.Errorf("the fix removed the link to the sibling %s", id)
		}
	}
}

// A recipe trial's orphan was recommended a link from its hub, whose text
// did not name it, with "work the name into the text"; two siblings said
// the name in paragraphs that already held their links, and the editor
// was not told. Here only a sibling names the orphan, in a paragraph
// with two links: the recommendation says so and why.
func TestAnOrphansRecommendationNamesThePagesThatSayItWhereNoLinkMayGo(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-orphan-named"
	structure, pages := existingSite(siteID)
	c := tsClusters[3]
	orphan := c.articles[3]
	namer := c.articles[0]
	urls := map[string]string{}
	for _, p := range pages {
		urls[p.ID] = p.URL
	}
	unsay := strings.NewReplacer("internal gear hubs", "enclosed drivetrains", "Internal gear hubs", "Enclosed drivetrains",
		"internal gear hub", "enclosed drivetrain", "Internal gear hub", "Enclosed drivetrain",
		"hub gears", "enclosed drivetrains", "Hub gears", "Enclosed drivetrains", "Hub Gears", "Enclosed Drivetrains",
		"belt drives", "enclosed drivetrains", "Belt drives", "Enclosed drivetrains")
	for i, p := range pages {
		if p.ID == orphan.id {
			continue
		}
		pages[i].HTML = unsay.Replace(p.HTML)
		if p.ID == namer.id {
			pages[i].HTML = appendToArticle(pages[i].HTML, fmt.Sprintf(
				"<p>With <a href=\"%s\">%s</a> and <a href=\"%s\">%s</a> in hand, hub gears are the last piece.</p>",
				urls[c.articles[1].id], c.articles[1].pk, urls[c.articles[2].id], c.articles[2].pk))
		}
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "before", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "before")
	var toOrphan []string
	for _, r := range recs {
		if r.TargetID != orphan.id || r.Action != "add" {
			continue
		}
		toOrphan = append(toOrphan, r.PageID+": "+r.Reason)
		if r.Found {
			t.Fatalf("a link to the orphan was found on %s (%q); the test proves nothing", r.PageID, r.Anchor)
		}
		if !strings.Contains(r.Reason, namer.id+" (candidate anchor found") {
			t.Errorf("the orphan's recommendation on %s does not say that %s names it where no link may go: %s", r.PageID, namer.id, r.Reason)
		}
	}
	if len(toOrphan) == 0 {
		t.Fatalf("no recommendation links the orphan %s", orphan.id)
	}
}

// An audit of a site the pipeline linked recommends adding no link to a
// target the page already links, in its Related Reading or Related
// Articles: apply refuses every such fix (an API client trial's audit
// made 27 of its 38 recommendations so).
func TestAnAuditRecommendsAddingNoLinkThePageHasAlready(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	site := h.linkExampleSite("outdoor-gear")
	siteID := site.Structure.Site.ID
	// The publisher puts the linked pages live.
	for _, p := range site.Pages {
		sent, ok := h.inserted.latestFor(t, siteID, p.ID)
		if !ok {
			continue
		}
		live := p
		live.HTML = sent.HTML
		h.publish(mustEvent(events.ContentPublished, siteID, "pub-"+p.ID, events.ContentData{Page: live}))
	}
	h.waitIdle(waitLong)
	rep := h.audit(siteID, "linked", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "linked")
	if len(recs) == 0 {
		t.Fatalf("the audit of the linked site made no recommendation (report %+v): the test proves too little", rep)
	}
	for _, r := range recs {
		if r.Action == "add" && strings.Contains(r.Reason, "already links") {
			t.Errorf("recommendation %s adds a link from %s to %s, which it has already: %s", r.ID, r.PageID, r.TargetID, r.Reason)
		}
	}
}
