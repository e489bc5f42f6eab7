package handlers

import (
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/store"
)

func TestNoLinkTakesAnAnchorOtherPagesUsedThreeTimes(t *testing.T) {
	src := []byte("<p>Our hiking boots guide covers fit.</p>\n<p>" + strings.Repeat("word ", 60) + "</p>\n<p>See the boot care guide for waxing.</p>\n")
	usage := map[string]map[string]int{"boots": {"hiking boots": 3}}
	uplink := link.Link{ID: "up", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Mandatory: true,
		Status: link.StatusPlanned, FirstParagraphs: 2, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword}}}
	optional := func() []link.Link {
		return []link.Link{
			{ID: "rel", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeRelated, Zone: link.ZoneInBody,
				Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
					{Text: "boot care guide", Type: link.AnchorPageTitle}}},
			{ID: "none", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
				Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword}}},
		}
	}
	links := append([]link.Link{uplink}, optional()...)
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{AllowDuplicateTargets: true}); err != nil {
		t.Fatal(err)
	}
	if links[0].Status != link.StatusPlanned || !strings.HasPrefix(links[0].Reason, "anchor cap") {
		t.Errorf("mandatory uplink with only an anchor at the cap %+v, want it left planned for the anchor cap", links[0])
	}
	if links[1].Status != link.StatusPlanned || !strings.Contains(links[1].Reason, "waits for the page's uplink") {
		t.Errorf("optional link %+v, want it waiting for the uplink the cap holds back", links[1])
	}
	// On a page with no uplink to wait for, the optional links meet the
	// cap alone.
	links = optional()
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{AllowDuplicateTargets: true}); err != nil {
		t.Fatal(err)
	}
	if links[0].Status != link.StatusInserted || links[0].Anchor != "boot care guide" || links[0].AnchorType != link.AnchorPageTitle {
		t.Errorf("optional link %+v, want the next candidate, the title", links[0])
	}
	if links[1].Status != link.StatusPlanned || !strings.Contains(links[1].Reason, "max_exact_anchor_per_target") {
		t.Errorf("optional link with only the over-used anchor %+v, want it left planned with the reason", links[1])
	}
}

func TestAnUplinkTakesTheCandidateLeastUsedForItsHub(t *testing.T) {
	src := []byte("<p>Our hiking boots guide covers trail boots and boot fit.</p>\n<p>" + strings.Repeat("word ", 60) + "</p>\n")
	usage := map[string]map[string]int{"boots": {"hiking boots": 2, "trail boots": 1}}
	links := []link.Link{
		{ID: "up", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Mandatory: true,
			Status: link.StatusPlanned, FirstParagraphs: 2, Candidates: []link.Anchor{
				{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
				{Text: "trail boots", Type: link.AnchorPrimaryKeyword},
				{Text: "boot fit", Type: link.AnchorNatural}}},
	}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if links[0].Status != link.StatusInserted || links[0].Anchor != "boot fit" {
		t.Errorf("uplink %+v, want it on \"boot fit\", the candidate its hub has no link with yet", links[0])
	}
}

// A link whose every candidate is at the anchor cap says whether the text
// names the target at all, and is not left for the LLM fallback, which
// writes one of those same candidates in.
func TestALinkWithEveryAnchorAtTheCapSaysWhetherTheTextNamesItsTarget(t *testing.T) {
	src := []byte("<p>Our hiking boots guide covers fit and lacing for long days on the trail.</p>\n")
	usage := map[string]map[string]int{"boots": {"hiking boots": 3}, "tents": {"backpacking tents": 3}}
	links := []link.Link{
		{ID: "named", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeCrossCluster, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword}}},
		{ID: "unnamed", TargetPageID: "tents", TargetURL: "/tents/", Type: link.TypeCrossCluster, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "backpacking tents", Type: link.AnchorPrimaryKeyword}}},
	}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		l    link.Link
		says string
	}{{links[0], "the text names it only with those"}, {links[1], "none of them is in the text"}} {
		if c.l.Status != link.StatusPlanned || !strings.HasPrefix(c.l.Reason, reasonAllCapped) || !strings.HasSuffix(c.l.Reason, c.says) {
			t.Errorf("link %s: %s %q, want it planned for the anchor cap, ending %q", c.l.ID, c.l.Status, c.l.Reason, c.says)
		}
		if awaitingFallback(c.l) {
			t.Errorf("link %s is left for the LLM fallback, which cannot use an anchor at the cap", c.l.ID)
		}
	}
}

// A link offered no candidate is not blamed on the anchor cap (a trial's
// term pages were told the cap held back their links to a one-word sector).
func TestALinkWithNoCandidateIsNotBlamedOnTheCap(t *testing.T) {
	src := []byte("<p>See also dunning and proforma invoices for the rest of invoicing.</p>\n")
	usage := map[string]map[string]int{"invoicing": {"invoice tools": 2}}
	links := []link.Link{{ID: "none", TargetPageID: "invoicing", TargetURL: "/invoicing/", Type: link.TypeVerticalUp,
		Zone: link.ZoneInBody, Status: link.StatusPlanned}}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; l.Status != link.StatusPlanned || !strings.HasPrefix(l.Reason, reasonNoCandidate) {
		t.Errorf("link with no candidate: %s %q, want it planned with reason %q", l.Status, l.Reason, reasonNoCandidate)
	}
}

// A link some of whose candidates the cap held back, and whose others are
// not in the text, blames the cap only when a held-back candidate is in
// the text: a reader told "anchor cap" looks for one there.
func TestALinkPartlyHeldBackByTheCapBlamesItOnlyWhenTheTextHoldsOne(t *testing.T) {
	src := []byte("<p>Our hiking boots guide covers fit and lacing for long days on the trail.</p>\n")
	usage := map[string]map[string]int{"boots": {"hiking boots": 3}, "tents": {"backpacking tents": 3}}
	links := []link.Link{
		{ID: "named", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeCrossCluster, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
				{Text: "walking boots", Type: link.AnchorPrimaryKeyword}}},
		{ID: "unnamed", TargetPageID: "tents", TargetURL: "/tents/", Type: link.TypeCrossCluster, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "backpacking tents", Type: link.AnchorPrimaryKeyword},
				{Text: "tent guide", Type: link.AnchorPageTitle}}},
	}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; l.Status != link.StatusPlanned || !strings.HasPrefix(l.Reason, `anchor cap: other pages link page boots with "hiking boots" as often as the cap allows (3 times each`) ||
		!strings.Contains(l.Reason, `another of its names under the cap written there ("walking boots") would carry it`) {
		t.Errorf("link named: %s %q, want it planned for the anchor cap, whose held-back anchor the text holds", l.Status, l.Reason)
	}
	if l := links[1]; l.Status != link.StatusPlanned || strings.Contains(l.Reason, "anchor cap") || !strings.HasPrefix(l.Reason, "no candidate anchor found") {
		t.Errorf("link unnamed: %s %q, want it planned because no candidate is in the text, the cap unmentioned", l.Status, l.Reason)
	}
}

// A link the cap held back, whose other name the text already holds where
// the density limits keep it out, is not told to write that name in: a
// lighting trial was advised to write "low-voltage landscape lighting
// transformer" into a paragraph that said it.
func TestACappedLinkIsNotToldToWriteANameItsTextHolds(t *testing.T) {
	src := []byte(`<p>Pack <a href="/socks/">wool socks</a> and <a href="/poles/">trekking poles</a>, then read our guide to lightweight hiking boots before you buy.</p>` + "\n")
	usage := map[string]map[string]int{"boots": {"hiking boots": 3}}
	links := []link.Link{{ID: "named", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeCrossCluster, Zone: link.ZoneInBody,
		Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
			{Text: "lightweight hiking boots", Type: link.AnchorPrimaryKeyword}, {Text: "walking boots", Type: link.AnchorPrimaryKeyword}}}}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	l := links[0]
	if l.Status != link.StatusPlanned || !strings.HasPrefix(l.Reason, "anchor cap:") || !strings.Contains(l.Reason, "density") {
		t.Fatalf("link: %s %q, want it planned for the anchor cap, its other name kept out by the density limits", l.Status, l.Reason)
	}
	if strings.Contains(l.Reason, `"lightweight hiking boots") would carry it`) || strings.Contains(l.Reason, `"lightweight hiking boots", `) {
		t.Errorf("reason %q tells the writer to write in a name the text holds", l.Reason)
	}
	if !strings.Contains(l.Reason, `written there ("walking boots") would carry it`) {
		t.Errorf("reason %q, want it to name the name the text does not hold yet", l.Reason)
	}

	// A name the text holds only inside another page's longer name, where
	// no link goes, is still one to write (a lighting trial's advice lost
	// "brass pendant", said only in "Arlo 3-Light Brass Pendant").
	src = []byte(`<p>Pack <a href="/socks/">wool socks</a> and <a href="/poles/">trekking poles</a>, then read our guide to lightweight hiking boots before you buy.</p>` + "\n" +
		`<p>The Alpine Walking Boots Kit is sold out.</p>` + "\n")
	links = []link.Link{{ID: "named", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeCrossCluster, Zone: link.ZoneInBody,
		Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
			{Text: "lightweight hiking boots", Type: link.AnchorPrimaryKeyword},
			{Text: "walking boots", Type: link.AnchorPrimaryKeyword, NotWithin: []string{"Alpine Walking Boots Kit"}}}}}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; !strings.Contains(l.Reason, `written there ("walking boots") would carry it`) {
		t.Errorf("reason %q, want \"walking boots\" named: the text holds it only inside another page's name", l.Reason)
	}
}

// A suggestion left for review carries the words that would carry it and
// their paragraph: not words a placed link already took, not an anchor at
// the cap, and none when the text holds none of its candidates. It stays
// out of the HTML.
func TestASuggestionShowsTheWordsThatWouldCarryIt(t *testing.T) {
	src := []byte(`<p>Our <a href="/boots/">hiking boots</a> guide covers fit.</p>` + "\n" +
		`<p>Read the boot care guide before waxing, and the trail boots page too.</p>` + "\n")
	usage := map[string]map[string]int{"care": {"trail boots": 3}}
	links := []link.Link{
		{ID: "care", TargetPageID: "care", TargetURL: "/care/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
			Status: link.StatusReview, Candidates: []link.Anchor{{Text: "trail boots", Type: link.AnchorPrimaryKeyword},
				{Text: "hiking boots", Type: link.AnchorPrimaryKeyword}, {Text: "boot care guide", Type: link.AnchorPageTitle}}},
		{ID: "tents", TargetPageID: "tents", TargetURL: "/tents/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
			Status: link.StatusReview, Candidates: []link.Anchor{{Text: "backpacking tents", Type: link.AnchorPrimaryKeyword}}},
	}
	if err := suggestAnchors(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; l.Status != link.StatusReview || l.Anchor != "boot care guide" || l.AnchorType != link.AnchorPageTitle || l.Paragraph != 2 {
		t.Errorf("suggestion %+v, want it on \"boot care guide\" (page_title) in paragraph 2, still for review", l)
	}
	if l := links[0]; l.Reason != "" {
		t.Errorf("suggestion with words to carry it has reason %q, want none", l.Reason)
	}
	// It says why it has none: accepted as it stands it goes nowhere (trial O).
	if l := links[1]; l.Anchor != "" || l.Paragraph != 0 || l.Reason != planning.ReviewReason(planning.NoAnchorInText) {
		t.Errorf("suggestion whose text holds no candidate: anchor %q in paragraph %d, reason %q; want none, saying why", l.Anchor, l.Paragraph, l.Reason)
	}
	links[1].Candidates = []link.Anchor{{Text: "trail boots", Type: link.AnchorPrimaryKeyword}}
	links[1].TargetPageID = "care"
	if err := suggestAnchors(src, links[1:], usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if l := links[1]; l.Anchor != "" || l.Reason != planning.ReviewReason(planning.EveryAnchorAtCap) {
		t.Errorf("suggestion whose only anchor is at the cap: anchor %q, reason %q; want none, saying the cap", l.Anchor, l.Reason)
	}
	// With another anchor the text lacks, the one the text holds at the cap
	// is what the reason names (trial V: "no anchor for it in the page's
	// text" where the text held the target's keyword word for word).
	links[1].Candidates = append(links[1].Candidates, link.Anchor{Text: "boot waxing basics", Type: link.AnchorPageTitle})
	if err := suggestAnchors(src, links[1:], usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if l := links[1]; l.Anchor != "" || l.Reason != planning.ReviewReason(planning.TextAnchorsAtCap) {
		t.Errorf("suggestion whose text holds only an anchor at the cap: anchor %q, reason %q; want none, saying the text's anchors are at the cap", l.Anchor, l.Reason)
	}
}

// An uplink the author's own link in the first paragraphs carries, and a
// link to a target the page links already, stay planned with that
// reason and are no work for the LLM fallback, which would write a second
// link to the same page; a link no text carries is.
func TestALinkThePageCarriesAlreadyIsNotLeftForTheFallback(t *testing.T) {
	src := []byte(`<p>Start with <a href="/boots/">our boots guide</a> before you buy.</p>` + "\n<p>" + strings.Repeat("word ", 60) + "</p>\n")
	links := []link.Link{
		{ID: "up", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Mandatory: true,
			Status: link.StatusPlanned, FirstParagraphs: 2, Candidates: []link.Anchor{{Text: "hiking boots", Type: link.AnchorPrimaryKeyword}}},
		{ID: "sib", TargetPageID: "socks", TargetURL: "/socks/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "hiking socks", Type: link.AnchorPrimaryKeyword}}},
	}
	if _, err := placeInBody(src, links, nil, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if links[0].Status != link.StatusPlanned || !markup.LinkedAlready(links[0].Reason) || awaitingFallback(links[0]) {
		t.Errorf("uplink the author's link carries: %+v, want it planned, saying the page links the hub already, not for the fallback", links[0])
	}
	if links[1].Status != link.StatusPlanned || !awaitingFallback(links[1]) {
		t.Errorf("sibling no text names: %+v, want it left for the fallback", links[1])
	}
}

// The breadcrumb's <nav> is read out by its aria-label, so a site writes
// it in its own language (breadcrumb_aria_label), as it does the
// headings of its blocks.
func TestTheBreadcrumbNavIsLabelledInTheSitesWords(t *testing.T) {
	sc := sagSiteContext(t)
	page := store.PageRecord{Page: site.Page{SiteID: "s", ID: "p", URL: "/pulpo/congelar/", Kind: site.KindSupporting, Version: 1},
		Breadcrumbs: []planning.Crumb{{Name: "Cocina", URL: "/"}, {Name: "¿Por qué congelar el pulpo antes de cocerlo?", URL: "/pulpo/congelar/"}}}
	html := []byte("<main><p>El pulpo congelado queda más tierno.</p></main>\n")
	for label, want := range map[string]string{"Ruta de navegación": `aria-label="Ruta de navegación"`, "": `aria-label="Breadcrumb"`} {
		sc.policy.BreadcrumbAriaLabel = label
		out, err := insertBreadcrumbs(html, nil, planStage{page: page, site: sc})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "<nav "+want+" ") {
			t.Errorf("label %q: %s, want the nav with %s", label, out, want)
		}
	}
}

// A finance trial's articles carried Yoast's trail and were given a
// second one above it. A page with a visible trail of its own gets none
// of ours, its breadcrumb links say why, and one with a BreadcrumbList of
// its own gets no second.
func TestAPageWithATrailOfItsOwnGetsNoSecond(t *testing.T) {
	sc := sagSiteContext(t)
	page := store.PageRecord{Page: site.Page{SiteID: "s", ID: "p", URL: "/budgeting/sinking-funds/", Kind: site.KindSupporting, Version: 1},
		Breadcrumbs: []planning.Crumb{{Name: "Home", URL: "/"}, {Name: "Budgeting", URL: "/budgeting/"}, {Name: "Sinking Funds", URL: "/budgeting/sinking-funds/"}}}
	crumbs := func() []link.Link {
		return []link.Link{{ID: "b1", Type: link.TypeBreadcrumb, Zone: link.ZoneBreadcrumb, TargetPageID: "home", Status: link.StatusPlanned},
			{ID: "b2", Type: link.TypeBreadcrumb, Zone: link.ZoneBreadcrumb, TargetPageID: "budgeting", Status: link.StatusPlanned}}
	}
	body := "<p>A sinking fund spreads a known cost over the months before it.</p>"
	for _, c := range []struct {
		name, html     string
		nav, jsonLD    bool
		linksGenerated bool
	}{
		{"none", "<body class=\"has-breadcrumbs\"><main>" + body + "</main></body>", true, true, true},
		{"Yoast", `<main><p id="breadcrumbs"><span><a href="/">Home</a> » <a href="/budgeting/">Budgeting</a></span></p>` + body + "</main>", false, false, false},
		{"microdata", `<main><ol itemscope itemtype="https://schema.org/BreadcrumbList"><li><a href="/">Home</a></li></ol>` + body + "</main>", false, false, false},
		{"JSON-LD", `<main>` + body + `</main><script type="application/ld+json">{"@context":"https://schema.org","@type":"BreadcrumbList","itemListElement":[]}</script>`, true, false, true},
	} {
		links := crumbs()
		out, err := insertBreadcrumbs([]byte(c.html), links, planStage{page: page, site: sc})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), `<nav aria-label="Breadcrumb"`); got != c.nav {
			t.Errorf("%s: our nav written %v, want %v: %s", c.name, got, c.nav, out)
		}
		if got := strings.Count(string(out), "BreadcrumbList") > strings.Count(c.html, "BreadcrumbList"); got != c.jsonLD {
			t.Errorf("%s: our BreadcrumbList written %v, want %v: %s", c.name, got, c.jsonLD, out)
		}
		for _, l := range links {
			if generated := l.Status == link.StatusInserted; generated != c.linksGenerated {
				t.Errorf("%s: breadcrumb link %s is %s (%q)", c.name, l.ID, l.Status, l.Reason)
			}
			if !c.linksGenerated && l.Reason != OwnTrailReason {
				t.Errorf("%s: breadcrumb link %s says %q, want %q", c.name, l.ID, l.Reason, OwnTrailReason)
			}
		}
	}
}

// A sibling's link stops one use short of the cap, so the last is there
// for the parent: a silo's children used "PLA filament" three times among
// themselves and their parent could not link its priority child (trial T).
func TestAnOptionalLinkLeavesTheLastUseOfAnAnchorToTheHierarchy(t *testing.T) {
	src := []byte("<p>Start with PLA filament before anything else.</p>\n")
	usage := map[string]map[string]int{"pla": {"pla filament": 2}}
	candidates := []link.Anchor{{Text: "PLA filament", Type: link.AnchorPrimaryKeyword}}
	for _, c := range []struct {
		typ    link.Type
		placed bool
	}{
		{link.TypeHorizontal, false},
		{link.TypeRelated, false},
		{link.TypeVerticalDown, true},
		{link.TypeCrossCluster, true},
	} {
		links := []link.Link{{ID: "l", TargetPageID: "pla", TargetURL: "/pla/", Type: c.typ, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: candidates}}
		if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
			t.Fatal(err)
		}
		if placed := links[0].Status == link.StatusInserted; placed != c.placed {
			t.Errorf("%s link with its anchor used twice: placed %v (%s), want %v", c.typ, placed, links[0].Reason, c.placed)
		}
		if !c.placed && !strings.Contains(links[0].Reason, "as often as the cap allows, on other pages (2 times, max_exact_anchor_per_target; an optional link takes at most 2") {
			t.Errorf("%s link's reason %q, want it to say the optional link's limit", c.typ, links[0].Reason)
		}
	}
}

// A candidate the cap holds back that the text holds only where no link
// goes is refused for that, cap or no cap: the reason blamed the cap and
// then the other candidates' "no candidate anchor found" (trial T2).
func TestACappedCandidateTheTextHoldsOnlyAsAFragmentIsNotBlamedOnTheCap(t *testing.T) {
	src := []byte("<p>Schedule updates between ESP32 deep sleep cycles so the board wakes on time.</p>\n")
	goesOn := func(_, phrase, following string) bool {
		return phrase == "esp32 deep sleep" && strings.HasPrefix(strings.TrimSpace(following), "cycles")
	}
	usage := map[string]map[string]int{"sleep": {"esp32 deep sleep": 3}}
	links := []link.Link{{ID: "l", TargetPageID: "sleep", TargetURL: "/sleep/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
		Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "ESP32 deep sleep", Type: link.AnchorPrimaryKeyword},
			{Text: "Deep Sleep on the ESP32", Type: link.AnchorPageTitle}}}}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{GoesOn: goesOn, MinWordsBetweenLinks: -1}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; l.Status != link.StatusPlanned || strings.HasPrefix(l.Reason, "anchor cap") || !strings.Contains(l.Reason, "only as the front of a longer phrase") {
		t.Errorf("link %+v, want it planned with the fragment as its reason, not the cap", l)
	}
}

// An optional link keeps the last use of an anchor back for the links the
// site's hierarchy asks for, but not for a target no such link reaches: a
// silo trial's glossary page, outside every cluster and reached by
// related links alone, got no link once two pages used its name.
func TestAnOptionalLinkTakesTheLastUseOfATargetNoHierarchyLinkReaches(t *testing.T) {
	src := []byte("<p>Interest on interest is how compound interest grows your savings.</p>\n")
	related := func() []link.Link {
		return []link.Link{{ID: "rel", TargetPageID: "glossary-compound-interest", TargetURL: "/glossary/compound-interest/",
			Type: link.TypeRelated, Zone: link.ZoneInBody, Status: link.StatusPlanned,
			Candidates: []link.Anchor{{Text: "compound interest", Type: link.AnchorPrimaryKeyword}}}}
	}
	usage := map[string]map[string]int{"glossary-compound-interest": {"compound interest": 2}}
	kept := related()
	if _, err := placeInBody(src, kept, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if kept[0].Status != link.StatusPlanned || !strings.Contains(kept[0].Reason, "the last kept for the site's hierarchy") {
		t.Errorf("link to a target the hierarchy reaches %+v, want the last use kept back", kept[0])
	}
	taken := related()
	capOf := planning.AnchorCap{MaxExact: 3, Unreserved: map[string]bool{"glossary-compound-interest": true}}
	if _, err := placeInBody(src, taken, usage, capOf, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if taken[0].Status != link.StatusInserted || taken[0].Anchor != "compound interest" {
		t.Errorf("link to a target no hierarchy link reaches %+v, want it placed on the third use", taken[0])
	}
	if planning.ReachedByHierarchy(site.Page{Kind: site.KindPage}) || !planning.ReachedByHierarchy(site.Page{Kind: site.KindSupporting, ClusterID: "c"}) ||
		!planning.ReachedByHierarchy(site.Page{Kind: site.KindSector}) {
		t.Error("ReachedByHierarchy: want pages of a cluster and sector pages only")
	}
}

// An uplink whose candidates are all at the anchor cap still holds the
// links that must follow it: an e-commerce trial's article got a sibling
// link first, which failed first_link_rule and stayed in the page.
func TestTheLinksThatFollowAnUplinkAtTheCapWaitForIt(t *testing.T) {
	src := []byte("<p>Our espresso grinder guide starts with stepless grinder adjustment.</p>\n<p>" + strings.Repeat("word ", 60) +
		"</p>\n<p>Stepless grinder adjustment is worth it for espresso.</p>\n")
	usage := map[string]map[string]int{"grinders": {"espresso grinder": 3}}
	links := []link.Link{
		{ID: "up", TargetPageID: "grinders", TargetURL: "/grinders/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Mandatory: true,
			Status: link.StatusPlanned, FirstParagraphs: 2, Candidates: []link.Anchor{{Text: "espresso grinder", Type: link.AnchorPrimaryKeyword}}},
		{ID: "sib", TargetPageID: "stepless", TargetURL: "/grinders/stepless/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "stepless grinder adjustment", Type: link.AnchorPrimaryKeyword}}},
	}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if links[0].Status != link.StatusPlanned || !strings.HasPrefix(links[0].Reason, "anchor cap") {
		t.Errorf("uplink %+v, want it planned for the anchor cap", links[0])
	}
	if links[1].Status != link.StatusPlanned || !strings.Contains(links[1].Reason, "waits for the page's uplink") {
		t.Errorf("sibling %+v, want it waiting for the uplink", links[1])
	}
}

// The links that follow the uplink wait for it only while the page has
// one to place: a docs trial's links waited for ever on a page whose
// author links the hub in paragraph 1, and on a product, which has none.
func TestTheLinksThatFollowTheUplinkWaitOnlyForAnUplinkStillToCome(t *testing.T) {
	up := link.Link{ID: "up", TargetURL: "/hub/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Mandatory: true,
		FirstParagraphs: 2, Status: link.StatusPlanned}
	authored := `<p>See <a href="/hub/">the hub</a> first.</p><p>More text.</p>`
	if got := endOfUplink([]byte(authored), []link.Link{up}, ""); got != strings.Index(authored, "</a>")+len("</a>") {
		t.Errorf("author's hub link in paragraph 1: %d, want the end of that link", got)
	}
	if got := endOfUplink([]byte(`<p>No hub link here.</p>`), []link.Link{up}, ""); got != -1 {
		t.Errorf("uplink still to come: %d, want -1", got)
	}
	if got := endOfUplink([]byte(`<p>A product page.</p>`), nil, ""); got != 0 {
		t.Errorf("no uplink to follow: %d, want 0", got)
	}
	placed := up
	placed.Status = link.StatusInserted
	ours := `<p>Our <a href="/hub/" data-interlinker="up">hub</a> text.</p>`
	if got := endOfUplink([]byte(ours), []link.Link{placed}, ""); got != strings.Index(ours, "</a>")+len("</a>") {
		t.Errorf("our placed uplink: %d, want the end of it", got)
	}
}

// Related Reading names pages the body does not link: an outdoor trial's
// page linked a sibling in its text, which the planner's trial had found
// no room for, and listed it in its Related Reading as well.
func TestRelatedReadingLeavesOutATargetTheBodyLinks(t *testing.T) {
	sc := sagSiteContext(t)
	page := store.PageRecord{Page: site.Page{SiteID: "s", ID: "p", URL: "/boots/p/", Kind: site.KindSupporting, Version: 1}}
	links := []link.Link{
		{ID: "body", TargetPageID: "sib", TargetURL: "/boots/sib/", Type: link.TypeHorizontal, Zone: link.ZoneInBody, Status: link.StatusInserted, Anchor: "resoling"},
		{ID: "rr1", TargetPageID: "sib", TargetURL: "/boots/sib/", Type: link.TypeRelated, Zone: link.ZoneRelatedSection, Status: link.StatusPlanned, Anchor: "Resoling Boots"},
		{ID: "rr2", TargetPageID: "other", TargetURL: "/boots/other/", Type: link.TypeRelated, Zone: link.ZoneRelatedSection, Status: link.StatusPlanned, Anchor: "Boot Laces"},
		{ID: "rr3", TargetPageID: "third", TargetURL: "/boots/third/", Type: link.TypeRelated, Zone: link.ZoneRelatedSection, Status: link.StatusPlanned, Anchor: "Boot Socks"},
	}
	out, err := insertBlocks([]byte("<main><p>Text.</p></main>\n"), links, planStage{page: page, site: sc})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "/boots/sib/") || !strings.Contains(string(out), "/boots/other/") {
		t.Errorf("Related Reading %s, want the other page listed and not the one the body links", out)
	}
	if links[1].Status != link.StatusRemoved || links[2].Status == link.StatusPlanned || links[3].Status == link.StatusPlanned {
		t.Errorf("section links %+v, want the body-linked one removed with its reason and the others written", links[1:])
	}
	// Left with fewer than the minimum of 2, the section keeps it.
	short := []link.Link{links[0], links[1], links[2]}
	short[1].Status, short[2].Status = link.StatusPlanned, link.StatusPlanned
	if out, err := insertBlocks([]byte("<main><p>Text.</p></main>\n"), short, planStage{page: page, site: sc}); err != nil || !strings.Contains(string(out), "/boots/sib/") {
		t.Errorf("a section of 2, one body-linked: %s (%v), want both kept, the section written", out, err)
	}
}

// The cap counts the exact words linked: a Dutch trial's uplink found
// "druiven" in its text while "druif", the candidate it varies, was at
// the cap, and failed. A capped candidate is offered after the others
// for its variations; its own words at the cap stay refused.
func TestACandidateAtTheCapStillCarriesItsLinkOnAVariation(t *testing.T) {
	up := func() []link.Link {
		return []link.Link{{ID: "up", TargetPageID: "boots", TargetURL: "/boots/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Mandatory: true, FirstParagraphs: 2,
			Candidates: []link.Anchor{{Text: "hiking boot care", Type: link.AnchorPrimaryKeyword}, {Text: "hiking boot", Type: link.AnchorPrimaryKeyword}}}}
	}
	usage := map[string]map[string]int{"boots": {"hiking boot": 3}}
	links := up()
	if _, err := placeInBody([]byte("<p>Good hiking boots last for years with a little care.</p>\n"), links, usage,
		planning.AnchorCap{MaxExact: 3}, markup.Options{Language: "english"}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; l.Status != link.StatusInserted || l.Anchor != "hiking boots" {
		t.Errorf("uplink %s on %q (%s), want it placed on the variation \"hiking boots\"", l.Status, l.Anchor, l.Reason)
	}
	links = up()
	if _, err := placeInBody([]byte("<p>A good hiking boot lasts for years with a little care.</p>\n"), links, usage,
		planning.AnchorCap{MaxExact: 3}, markup.Options{Language: "english"}); err != nil {
		t.Fatal(err)
	}
	if l := links[0]; l.Status != link.StatusPlanned || !strings.HasPrefix(l.Reason, "anchor cap") {
		t.Errorf("uplink %s on %q (%s), want it held: the text has only the capped words", l.Status, l.Anchor, l.Reason)
	}
}

// The cap's reason names the candidates used as often as the cap allows,
// not one refused for landing on such words (a Dutch trial was told
// "racefietsen" was used 3 times; it had 1 use).
func TestTheCapReasonNamesTheCandidatesAtTheCap(t *testing.T) {
	used := map[string]int{"racefiets": 3, "racefietsen": 1}
	if got := cappedNames([]string{"racefiets", "racefietsen"}, used, 3); !slices.Equal(got, []string{"racefiets"}) {
		t.Errorf("named %q, want only \"racefiets\"", got)
	}
}

// A page whose uplink no text carries is told which names would carry it
// (a pet-care trial's articles were told only "no candidate anchor found
// in paragraphs 1-2"); names at the cap are left out, and an optional
// link gets no such hint.
func TestAnUplinkNoTextCarriesTellsTheWriterWhichNamesWould(t *testing.T) {
	src := []byte("<p>Raw diets divide vets.</p>\n<p>" + strings.Repeat("word ", 60) + "</p>\n")
	usage := map[string]map[string]int{"nutrition": {"dog food": 3}}
	links := []link.Link{
		{ID: "up", TargetPageID: "nutrition", TargetURL: "/dog-nutrition/", Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Mandatory: true,
			Status: link.StatusPlanned, FirstParagraphs: 2, Candidates: []link.Anchor{
				{Text: "dog food", Type: link.AnchorPrimaryKeyword},
				{Text: "dog nutrition", Type: link.AnchorPrimaryKeyword},
				{Text: "Dog Nutrition Basics", Type: link.AnchorPageTitle},
				// a title with its subtitle is no name a sentence holds
				{Text: "Dog Nutrition Basics: What Goes in the Bowl", Type: link.AnchorPageTitle}}},
		{ID: "sib", TargetPageID: "kibble", TargetURL: "/kibble/", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
			Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "senior kibble", Type: link.AnchorPrimaryKeyword}}},
	}
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	up := links[0]
	want := `writing "dog nutrition", "Dog Nutrition Basics" into paragraphs 1-2 would carry it`
	if up.Status != link.StatusPlanned || !strings.HasPrefix(up.Reason, markup.NoCandidateFound) || !strings.Contains(up.Reason, want) {
		t.Errorf("uplink: %s %q, want it planned with %q", up.Status, up.Reason, want)
	}
	if !awaitingFallback(up) {
		t.Errorf("uplink %q is not left for the LLM fallback", up.Reason)
	}
	if sib := links[1]; strings.Contains(sib.Reason, "would carry it") || !awaitingFallback(sib) {
		t.Errorf("optional link: %q, want no hint and the LLM fallback", sib.Reason)
	}

	// Named only further down, it is told the same.
	src = []byte("<p>Raw diets divide vets.</p>\n<p>" + strings.Repeat("word ", 60) + "</p>\n<p>Dog nutrition matters later on.</p>\n")
	links = links[:1]
	links[0].Status, links[0].Reason = link.StatusPlanned, ""
	if _, err := placeInBody(src, links, usage, planning.AnchorCap{MaxExact: 3}, markup.Options{}); err != nil {
		t.Fatal(err)
	}
	if up := links[0]; !strings.HasPrefix(up.Reason, markup.FoundOnlyOutside) || !strings.Contains(up.Reason, want) {
		t.Errorf("uplink named further down: %q, want it to start %q and hold %q", up.Reason, markup.FoundOnlyOutside, want)
	}
}
