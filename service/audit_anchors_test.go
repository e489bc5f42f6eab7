package service

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// This file holds the tests of the anchors an audit suggests: a dominant
// anchor varied end to end, on the existing site with one planted
// (existingSiteWithDominantAnchor), and suggested anchors that are the
// pages' own text.

// The dominant anchor planted by existingSiteWithDominantAnchor: every
// in-body link to the product track-pump says "track pumps". Three of the
// five pages linking to it name it otherwise too ("floor pump", "workshop
// pump", "Track Pump"); the two that do not are orphans, the pages of the
// lowest link score, whose links an anchor variation takes first.
const (
	pumpID     = "track-pump"
	pumpURL    = "/shop/track-pump/"
	pumpAnchor = "track pumps"
)

var pumpLink = fmt.Sprintf("<a href=\"%s\">%s</a>", pumpURL, pumpAnchor)

// pumpSources are the pages linking to the track pump and the paragraph
// each gets.
var pumpSources = map[string]string{
	tsClusters[3].articles[3].id: "<p>Riders who commute every day tend to own one of our " + pumpLink + ", and it shows in how rarely they puncture.</p>",
	"aero-50":                    "<p>Deep rims need the right pressure every time, which is why we sell them beside our " + pumpLink + ".</p>",
	tsClusters[4].articles[3].id: "<p>Back home, a floor pump with a gauge takes the guesswork out of pressure; our " + pumpLink + " have one built in.</p>",
	tsClusters[4].articles[1].id: "<p>Seating a tubeless tyre takes a big burst of air, more than any workshop pump of old could give; our " + pumpLink + " come with a charger.</p>",
	tsClusters[5].articles[1].id: "<p>The Cadence Track Pump we use on the truing stand reads to a tenth of a bar; all our " + pumpLink + " do.</p>",
}

func existingSiteWithDominantAnchor(siteID string) (events.Event, []events.PageInfo) {
	structure, pages := existingSite(siteID)
	for i, p := range pages {
		if para, ok := pumpSources[p.ID]; ok {
			pages[i].HTML = appendToArticle(p.HTML, para)
		}
	}
	pages = append(pages, events.PageInfo{ID: pumpID, URL: pumpURL, Title: "Cadence Track Pump", Kind: "product", SectorID: "gear",
		PrimaryKeyword: "track pump", Keywords: []string{"floor pump", "workshop pump"}, PublishedAt: tsDate(time.March, 12), Version: 1,
		HTML: existingFrame("<h1>Cadence Track Pump</h1>\n<p>A steel barrel, a wide base and a large gauge that reads to a tenth of a bar.</p>\n" +
			"<p>The head fits both valve types without adapters, and a bleed button lets you fine-tune the pressure.</p>\n")})
	return structure, pages
}

func TestADominantAnchorIsVariedEndToEnd(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-dominant"
	structure, pages := existingSiteWithDominantAnchor(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	input := livePages(pages, existingDeleted)

	before := h.audit(siteID, "before", events.AuditRequestedData{})
	var finding *events.AuditFinding
	for _, f := range storedFindings(t, h, siteID, "before").DominantAnchors {
		if f.PageID == pumpID {
			finding = &f
		}
	}
	if finding == nil || finding.Anchor != pumpAnchor {
		t.Fatalf("the audit does not report %q as the dominant anchor of %s: %+v", pumpAnchor, pumpID, finding)
	}
	if oracle := auditOracle(t, cadenceHost, sortedPages(input), deletedPages(pages)); !oracle.dominant[pumpID] || before.DominantAnchors != len(oracle.dominant) {
		t.Errorf("dominant_anchors %d, the HTML says %v", before.DominantAnchors, sortedKeys(oracle.dominant))
	}

	recs := h.recommendations(siteID, "before")
	var ids []string
	vary := map[string]store.StoredRecommendation{}
	for _, r := range recs {
		if r.Action != "vary_anchor" || r.TargetID != pumpID {
			continue
		}
		ids = append(ids, r.ID)
		vary[r.PageID] = r
		t.Logf("%s: vary %q on %s to %q (found %v)", r.ID, r.LinkText, r.PageID, r.Anchor, r.Found)
		if pumpSources[r.PageID] == "" || r.LinkText != pumpAnchor {
			t.Errorf("recommendation %s varies the link %q of %s, which is no planted link", r.ID, r.LinkText, r.PageID)
		}
		if anchors.Normalize(r.Anchor) == pumpAnchor {
			t.Errorf("recommendation %s (page %s) varies %q to %q: the same anchor", r.ID, r.PageID, pumpAnchor, r.Anchor)
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no vary_anchor recommendation for %s", pumpID)
	}

	res := h.applyFixes(siteID, "apply-vary", events.AuditApplyData{AuditID: "before", RecommendationIDs: ids})
	if res.Applied != len(ids) || len(res.Failed) != 0 {
		t.Errorf("applied %d of %d variations, refused %+v", res.Applied, len(ids), res.Failed)
	}
	fixed := h.fixedPages(siteID, "before")
	for src, r := range vary {
		f, ok := fixed[src]
		if !ok {
			t.Errorf("page %s did not come back fixed", src)
			continue
		}
		in := input[src].HTML
		// Byte for byte: the input with the old link unwrapped, plus the
		// inserted link, which stripping takes out again.
		stripped, err := markup.StripInserted([]byte(f.HTML))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Replace(in, pumpLink, pumpAnchor, 1); string(stripped) != want {
			t.Errorf("page %s: without the inserted link the fixed page is not its input with the old link unwrapped:\n%s", src, string(stripped))
		}
		if withoutLinks(f.HTML) != withoutLinks(in) {
			t.Errorf("fixed page %s differs from its input in more than links", src)
		}
		var moved bool
		for _, l := range linksOf(t, input[src], f.HTML) {
			if l.path == strings.TrimRight(pumpURL, "/") {
				moved = l.text == r.Anchor && anchors.Normalize(l.text) != pumpAnchor
			}
		}
		if !moved {
			t.Errorf("page %s: the link to %s is not under the suggested anchor %q", src, pumpID, r.Anchor)
		}
	}

	republished := h.republishFixed(siteID, input, fixed)
	for id, p := range republished {
		input[id] = p
	}
	after := h.audit(siteID, "after", events.AuditRequestedData{})
	for _, f := range storedFindings(t, h, siteID, "after").DominantAnchors {
		if f.PageID == pumpID {
			t.Errorf("after the variations the audit still flags %s: %s", pumpID, f.Detail)
		}
	}
	if oracle := auditOracle(t, cadenceHost, sortedPages(input), deletedPages(pages)); oracle.dominant[pumpID] || after.DominantAnchors != len(oracle.dominant) {
		t.Errorf("after the variations: dominant_anchors %d, the HTML says %v", after.DominantAnchors, sortedKeys(oracle.dominant))
	}
}

func TestEverySuggestedAnchorMarkedFoundIsTextOfItsPage(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-anchors"
	structure, pages := existingSiteWithDominantAnchor(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	input := livePages(pages, existingDeleted)
	report := h.audit(siteID, "anchors", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "anchors")
	suggested := map[string]string{}
	for _, r := range report.Recommendations {
		suggested[r.ID] = r.AnchorSuggestion
	}
	found := map[string]int{}
	for _, r := range recs {
		if !r.Found || (r.Action != "add" && r.Action != "vary_anchor") {
			continue
		}
		found[string(r.Action)]++
		if r.Anchor == "" || !containsWords(visibleText(t, input[r.PageID].HTML), r.Anchor) {
			t.Errorf("%s (%s on %s → %s): the anchor %q marked found is not text of the page", r.ID, r.Action, r.PageID, r.TargetID, r.Anchor)
		}
		if s, inEvent := suggested[r.ID]; inEvent && s != r.Anchor {
			t.Errorf("%s: audit.completed suggests %q, the stored recommendation %q", r.ID, s, r.Anchor)
		}
	}
	if found["add"] == 0 || found["vary_anchor"] == 0 {
		t.Errorf("found anchors: %v; want additions and variations among them", found)
	}
}

// A variation of a dominant anchor moves a link; moving a page's first
// link, its uplink, past another link would break the first-link rule,
// and apply would refuse the fix. Every variation the audit offers as
// found is one apply makes: applying them all fails none.
func TestEveryAnchorVariationOfferedIsOneApplyMakes(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-variations"
	structure, pages := existingSiteWithDominantAnchor(siteID)
	// One gravel article names its hub otherwise only in its second
	// paragraph, past a link to a sibling that closes its first: its
	// uplink moved there would no longer be its first link.
	for i, p := range pages {
		if p.ID == "gravel-bike-fit" {
			html := strings.Replace(p.HTML, "</p>", ` Pack light with our <a href="/bikes/gravel/gravel-bikes/bikepacking-bags/">bikepacking bags</a>.</p>`, 1)
			first := strings.Index(html, "</p>") + len("</p>")
			pages[i].HTML = html[:first] + strings.Replace(html[first:], "</p>", " Most of our riders do it on adventure bikes.</p>", 1)
		}
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "variations", events.AuditRequestedData{})
	recs := h.recommendations(siteID, "variations")
	var ids []string
	targets := map[string]bool{}
	for _, r := range recs {
		if r.Action == "vary_anchor" && r.Found {
			ids = append(ids, r.ID)
			targets[r.TargetID] = true
		}
		// One with no anchor at all is no fix: apply could only refuse
		// it (trial P: 7 of 27).
		if r.Action == "vary_anchor" && r.Anchor == "" {
			t.Errorf("recommendation %s varies the link of %s to no anchor: %s", r.ID, r.PageID, r.Reason)
		}
	}
	if len(ids) == 0 {
		t.Fatal("the audit offers no anchor variation")
	}
	t.Logf("%d variations, of the links to %v", len(ids), sortedKeys(targets))
	res := h.applyFixes(siteID, "apply-variations", events.AuditApplyData{AuditID: "variations", RecommendationIDs: ids})
	if res.Applied != len(ids) || len(res.Failed) != 0 {
		t.Errorf("applied %d of %d variations; refused: %+v", res.Applied, len(ids), res.Failed)
	}
}

// A dominant anchor the fixes cannot vary, for want of another name of
// its target, is said so in the finding: a Spanish trial's anchor on 5 of
// 5 links needed 3 moves, got 2, and nothing said why the third had none.
func TestADominantAnchorNoFixCanVarySaysSoInItsFinding(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-one-name"
	structure, pages := existingSiteWithDominantAnchor(siteID)
	for i, p := range pages {
		if p.ID == pumpID {
			// Its only name is the dominant anchor.
			pages[i].Title, pages[i].PrimaryKeyword, pages[i].Keywords = "Track pumps", pumpAnchor, nil
		}
	}
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "before", events.AuditRequestedData{})
	var finding *events.AuditFinding
	for _, f := range storedFindings(t, h, siteID, "before").DominantAnchors {
		if f.PageID == pumpID {
			finding = &f
		}
	}
	if finding == nil {
		t.Fatalf("the audit does not report %q as the dominant anchor of %s", pumpAnchor, pumpID)
	}
	recs := h.recommendations(siteID, "before")
	varied := 0
	for _, r := range recs {
		if r.Action == "vary_anchor" && r.TargetID == pumpID {
			varied++
		}
	}
	// Of the five links, one page's text names the pump otherwise ("The
	// Cadence Track Pump"); the others have nothing to move to. The
	// finding says how many of those to move have none, and the fixes
	// made are the rest.
	m := regexp.MustCompile(`(\d+) of the (\d+) links to move to another anchor have none, in their page's text or to write in`).FindStringSubmatch(finding.Detail)
	if m == nil {
		t.Fatalf("the finding says %q, not that some of its links have no other anchor (%d varied)", finding.Detail, varied)
	}
	none, _ := strconv.Atoi(m[1])
	need, _ := strconv.Atoi(m[2])
	if none == 0 || none+varied != need {
		t.Errorf("the finding says %d of %d links have no other anchor; %d are varied", none, need, varied)
	}
}
