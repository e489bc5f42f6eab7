package validation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// pages is a small site: cluster boots (a hub, seven supporting pages and a
// product), cluster tents (a hub and a supporting page), cluster camp (a
// hub), a term page, and flat onboarding pages without a cluster.
var pages = map[string]site.Page{
	"hub":     {ID: "hub", URL: "/boots/", Kind: site.KindHub, ClusterID: "boots"},
	"care":    {ID: "care", URL: "/boots/care/", Kind: site.KindSupporting, ClusterID: "boots"},
	"sizing":  {ID: "sizing", URL: "/boots/sizing/", Kind: site.KindSupporting, ClusterID: "boots"},
	"laces":   {ID: "laces", URL: "/boots/laces/", Kind: site.KindSupporting, ClusterID: "boots"},
	"socks":   {ID: "socks", URL: "/boots/socks/", Kind: site.KindSupporting, ClusterID: "boots"},
	"waxing":  {ID: "waxing", URL: "/boots/waxing/", Kind: site.KindSupporting, ClusterID: "boots"},
	"repair":  {ID: "repair", URL: "/boots/repair/", Kind: site.KindSupporting, ClusterID: "boots"},
	"storage": {ID: "storage", URL: "/boots/storage/", Kind: site.KindSupporting, ClusterID: "boots"},
	"shop":    {ID: "shop", URL: "/boots/shop/", Kind: site.KindProduct, ClusterID: "boots"},
	"tents":   {ID: "tents", URL: "/tents/", Kind: site.KindHub, ClusterID: "tents"},
	"pitch":   {ID: "pitch", URL: "/tents/pitch/", Kind: site.KindSupporting, ClusterID: "tents"},
	"camp":    {ID: "camp", URL: "/camp/", Kind: site.KindHub, ClusterID: "camp"},
	"wool":    {ID: "wool", URL: "/wool/", Kind: site.KindTerm},
	"about":   {ID: "about", URL: "/about/", Kind: site.KindPage},
	"contact": {ID: "contact", URL: "/contact/", Kind: site.KindPage},
	"pricing": {ID: "pricing", URL: "/pricing/", Kind: site.KindPage},
	"team":    {ID: "team", URL: "/team/", Kind: site.KindPage},
	"faq":     {ID: "faq", URL: "/faq/", Kind: site.KindPage},
	"careers": {ID: "careers", URL: "/careers/", Kind: site.KindPage},
	"terms":   {ID: "terms", URL: "/terms/", Kind: site.KindPage},
}

// inputFor validates page under the named policy, with its cluster's hub
// and the whole site as live targets.
func inputFor(t *testing.T, policyName, pageID, html string, links ...link.Link) Input {
	t.Helper()
	pol, err := policy.Default(policyName)
	if err != nil {
		t.Fatal(err)
	}
	page, ok := pages[pageID]
	if !ok {
		t.Fatalf("no page %q in the test site", pageID)
	}
	in := Input{
		Structure: site.Structure{Site: site.Site{BaseURL: "https://shop.example", Policy: policyName}},
		Policy:    pol,
		Page:      page,
		HTML:      []byte(html),
		SiteHost:  "shop.example",
		Links:     links,
		Targets:   pages,
	}
	for _, p := range pages {
		if p.Kind == site.KindHub && p.ClusterID != "" && p.ClusterID == page.ClusterID {
			hub := p
			in.Hub = &hub
		}
	}
	return in
}

// input is the original fixture: supporting page care of cluster boots,
// SAG policy.
func input(html string, links ...link.Link) Input {
	pol, _ := policy.Default(policy.SAG)
	hub := pages["hub"]
	return Input{
		Structure: site.Structure{Site: site.Site{BaseURL: "https://shop.example"}},
		Policy:    pol,
		Page:      pages["care"],
		Hub:       &hub,
		HTML:      []byte(html),
		SiteHost:  "shop.example",
		Links:     links,
		Targets:   pages,
	}
}

func uplink(status link.Status) link.Link {
	return link.Link{ID: "up", Type: link.TypeVerticalUp, TargetPageID: "hub", TargetURL: "/boots/", Zone: link.ZoneInBody,
		Status: status, Paragraph: 1, Anchor: "hiking boots", Reason: "no candidate anchor found in paragraphs 1-2"}
}

// to is a placed in-body link of type t to the target page.
func to(id, target string, t link.Type) link.Link {
	return link.Link{ID: id, TargetPageID: target, TargetURL: pages[target].URL, Type: t, Zone: link.ZoneInBody,
		Status: link.StatusInserted, Anchor: target + " guide"}
}

// relatedEntry is a placed Related Reading entry.
func relatedEntry(id, target string) link.Link {
	l := to(id, target, link.TypeRelated)
	l.Zone = link.ZoneRelatedSection
	return l
}

// filler is n words of plain text.
func filler(n int) string {
	return strings.TrimSpace(strings.Repeat("word ", n))
}

// anchorTag is the <a> interlinker writes for a link.
func anchorTag(l link.Link) string {
	return fmt.Sprintf(`<a href="%s" data-interlinker="%s">%s</a>`, l.TargetURL, l.ID, l.Anchor)
}

// linkedHTML puts each in-body link in a paragraph of its own, in order,
// and the Related Reading entries in a generated block at the end, so that
// only the rule under test can fail.
func linkedHTML(links ...link.Link) string {
	var b strings.Builder
	var reading []link.Link
	for _, l := range links {
		if !l.Placed() {
			continue
		}
		if l.Zone == link.ZoneRelatedSection {
			reading = append(reading, l)
			continue
		}
		fmt.Fprintf(&b, "<p>%s %s %s.</p>\n", filler(10), anchorTag(l), filler(10))
	}
	if len(reading) > 0 {
		b.WriteString(`<section data-interlinker-block="related-reading"><h2>Related Reading</h2><ul>`)
		for _, l := range reading {
			fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, l.TargetURL, l.Anchor)
		}
		b.WriteString("</ul></section>")
	}
	return b.String()
}

func rule(r Report, name string) RuleResult {
	for _, x := range r.Rules {
		if x.Name == name {
			return x
		}
	}
	return RuleResult{Name: "missing " + name}
}

func hasRule(r Report, name string) bool {
	return rule(r, name).Name == name
}

func validate(t *testing.T, in Input) (Report, map[string]link.Link) {
	t.Helper()
	r, links, err := Validate(in)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]link.Link{}
	for _, l := range links {
		byID[l.ID] = l
	}
	return r, byID
}

func failedRule(l link.Link, name string) bool {
	for _, n := range l.FailedRules {
		if n == name {
			return true
		}
	}
	return false
}

func TestAPlacedUplinkFirstInTheContentIsVerified(t *testing.T) {
	html := `<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p><p>See <a href="https://nps.gov/">the park</a>.</p>`
	r, links, err := Validate(input(html, uplink(link.StatusInserted)))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Passed || links[0].Status != link.StatusVerified || len(links[0].FailedRules) != 0 {
		t.Errorf("report %+v links %+v", r, links)
	}
}

func TestFirstLinkRuleFailsWhenAnotherLinkComesFirst(t *testing.T) {
	// The seeds' scenario: a child page's first <a> points to a sibling.
	html := `<p>Read <a href="/boots/sizing/" data-interlinker="sib">sizing</a> first.</p><p>Then our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	sibling := link.Link{ID: "sib", Type: link.TypeHorizontal, TargetPageID: "sizing", Zone: link.ZoneInBody, Status: link.StatusInserted}
	r, links, err := Validate(input(html, uplink(link.StatusInserted), sibling))
	if err != nil {
		t.Fatal(err)
	}
	fl := rule(r, RuleFirstLink)
	if r.Passed || fl.Passed || !strings.Contains(fl.Detail, "/boots/sizing/") {
		t.Errorf("first link rule %+v", fl)
	}
	if links[1].Status != link.StatusFlagged || !reflect.DeepEqual(links[1].FailedRules, []string{RuleFirstLink}) || links[0].Status != link.StatusVerified {
		t.Errorf("links %+v: the sibling should be flagged, the uplink verified", links)
	}
}

// A writer's own link that comes first says so, and what to change: a
// docs trial's pages failed the rule and were told only which link it was.
func TestFirstLinkRuleSaysWhenTheFirstLinkIsTheWritersOwn(t *testing.T) {
	html := `<p>Read <a href="/boots/sizing/">sizing</a> first.</p><p>Then our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	r, _ := validate(t, input(html, uplink(link.StatusInserted)))
	if fl := rule(r, RuleFirstLink); fl.Passed || !strings.Contains(fl.Detail, "that link is the writer's own") {
		t.Errorf("first link rule %+v, want it failed, saying the link is the writer's own", fl)
	}
}

// WordPress's "link to media file": an image wrapped in a link to the
// file. It leads to no page: it is no first link, and no link the density
// range counts.
func TestALinkToAMediaFileIsNoContentLinkForTheFirstLinkRuleOrTheDensityRange(t *testing.T) {
	image := `<p><a href="/wp-content/uploads/2024/06/scapes.jpg"><img src="/wp-content/uploads/2024/06/scapes-300x200.jpg" alt="Scapes"></a></p>`
	html := image + `<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	r, links := validate(t, input(html, uplink(link.StatusInserted)))
	if fl := rule(r, RuleFirstLink); !fl.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("first link rule %+v, uplink %s: the uplink is the first link, the image link none", fl, links["up"].Status)
	}
	if d := rule(r, RuleDensityRange); !strings.HasPrefix(d.Detail, "1 outbound link(s) in the content") {
		t.Errorf("density range %+v: want the uplink counted alone", d)
	}
	// A link to a page that comes first still fails the rule.
	html = image + `<p>Read <a href="/boots/sizing/">sizing</a>, then our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	r, _ = validate(t, input(html, uplink(link.StatusInserted)))
	if fl := rule(r, RuleFirstLink); fl.Passed || !strings.Contains(fl.Detail, "/boots/sizing/") {
		t.Errorf("first link rule %+v: want it failed on the sizing link", fl)
	}
}

func TestFirstLinkSkipsExternalLinksWhenTheyDoNotCount(t *testing.T) {
	// SAG's default: a citation before the uplink is not the "first link".
	html := `<p>As <a href="https://nps.gov/">the park service</a> says.</p><p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	in := input(html, uplink(link.StatusInserted))
	if in.Policy.FirstLinkCountsExternal {
		t.Fatal("SAG default should not count external links")
	}
	r, links := validate(t, in)
	if fl := rule(r, RuleFirstLink); !fl.Passed || !r.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("first link %+v, report passed %v, uplink %s", fl, r.Passed, links["up"].Status)
	}
}

// A byline's link to the author's archive, a path that is no page of the
// site, is no link between the site's pages: where external links do not
// count, it does not either (trial N). A writer's link to a page the
// site holds still comes first, and where external links count (silo)
// every link does.
func TestFirstLinkPassesOverAWritersLinkToNoPageOfTheSite(t *testing.T) {
	byline := `<p>Written by <a href="/author/sam-okafor/">Sam Okafor</a>, staff engineer</p>`
	html := byline + `<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	in := input(html, uplink(link.StatusInserted))
	in.AuthorTargets = map[string]site.Page{}
	r, links := validate(t, in)
	if fl := rule(r, RuleFirstLink); !fl.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("first link rule %+v, uplink %s: want the byline passed over", fl, links["up"].Status)
	}
	in.AuthorTargets = map[string]site.Page{"/author/sam-okafor": {ID: "sam", URL: "/author/sam-okafor/", Kind: site.KindPage}}
	if fl := rule(func() Report { r, _ := validate(t, in); return r }(), RuleFirstLink); fl.Passed {
		t.Errorf("first link rule %+v: the author page is a page of the site, want it failed", fl)
	}
	in.AuthorTargets = map[string]site.Page{}
	in.Policy.FirstLinkCountsExternal = true
	if fl := rule(func() Report { r, _ := validate(t, in); return r }(), RuleFirstLink); fl.Passed {
		t.Errorf("first link rule %+v: where every link counts, the byline comes first", fl)
	}
}

func TestFirstLinkFailsOnAnExternalLinkWhenExternalLinksCount(t *testing.T) {
	html := `<p>As <a href="https://nps.gov/">the park service</a> says.</p><p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	in := input(html, uplink(link.StatusInserted))
	in.Policy.FirstLinkCountsExternal = true
	r, links := validate(t, in)
	fl := rule(r, RuleFirstLink)
	if fl.Passed || r.Passed || !strings.Contains(fl.Detail, "https://nps.gov/") {
		t.Errorf("first link %+v", fl)
	}
	// The external link is not ours: nothing of ours is to blame.
	if len(fl.LinkIDs) != 0 || links["up"].Status != link.StatusVerified {
		t.Errorf("flagged %v, uplink %s", fl.LinkIDs, links["up"].Status)
	}
}

func TestFirstLinkIgnoresGeneratedBlocksAndNavigation(t *testing.T) {
	html := `<nav><a href="/tents/">Tents</a></nav><section data-interlinker-block="breadcrumb"><a href="/">Home</a></section>` +
		`<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`
	in := input(html, uplink(link.StatusInserted))
	in.Policy.FirstLinkCountsExternal = true
	r, _ := validate(t, in)
	if fl := rule(r, RuleFirstLink); !fl.Passed {
		t.Errorf("first link %+v", fl)
	}
}

func TestAnUnplacedUplinkFailsTheMandatoryRuleAndStaysPlanned(t *testing.T) {
	r, links, err := Validate(input(`<p>No links here.</p>`, uplink(link.StatusPlanned)))
	if err != nil {
		t.Fatal(err)
	}
	mu := rule(r, RuleMandatoryUplink)
	if r.Passed || mu.Passed || !strings.Contains(mu.Detail, "no candidate anchor") {
		t.Errorf("mandatory uplink %+v", mu)
	}
	if links[0].Status != link.StatusPlanned {
		t.Errorf("unplaced link became %s", links[0].Status)
	}
}

// A page whose author links its hub in the first paragraphs has its
// uplink: the placer adds none beside it, and the rule passes. A link to
// the hub further down is not one.
func TestTheAuthorsOwnLinkToTheHubInTheFirstParagraphsIsTheUplink(t *testing.T) {
	up := uplink(link.StatusPlanned)
	up.Reason = "the page already links to /boots/ in its first 2 paragraphs"
	r, _, err := Validate(input(`<p>Start with <a href="/boots/">our hiking boots guide</a>.</p>`, up))
	if err != nil {
		t.Fatal(err)
	}
	if mu := rule(r, RuleMandatoryUplink); !mu.Passed || !strings.Contains(mu.Detail, "own link to hub hub in paragraph 1") {
		t.Errorf("mandatory uplink with the author's link to the hub in paragraph 1: %+v", mu)
	}
	r, _, err = Validate(input(`<p>First.</p><p>Second.</p><p>Back to <a href="/boots/">our hiking boots guide</a>.</p>`, uplink(link.StatusPlanned)))
	if err != nil {
		t.Fatal(err)
	}
	if mu := rule(r, RuleMandatoryUplink); mu.Passed {
		t.Errorf("mandatory uplink passed on the author's link to the hub in paragraph 3: %+v", mu)
	}
}

// The author's link to the hub counts in whichever form it is written:
// without the trailing slash, to a part of the hub, with a query, as an
// absolute URL or relative to the page. A link to another page under the
// hub's path is not one.
func TestTheAuthorsLinkToTheHubInAnyFormIsTheUplinkAndTheFirstLink(t *testing.T) {
	up := uplink(link.StatusPlanned)
	up.Reason = "the page already links to /boots/ in its first 2 paragraphs"
	for _, href := range []string{"/boots", "/boots/#sizing", "/boots?ref=care", "https://shop.example/boots#sizing", "../"} {
		r, _, err := Validate(input(`<p>Start with <a href="`+href+`">our hiking boots guide</a>.</p>`, up))
		if err != nil {
			t.Fatal(err)
		}
		if mu := rule(r, RuleMandatoryUplink); !mu.Passed {
			t.Errorf("%s: mandatory uplink %+v", href, mu)
		}
		if fl := rule(r, RuleFirstLink); !fl.Passed {
			t.Errorf("%s: first link %+v", href, fl)
		}
	}
	for _, href := range []string{"/boots/care/sizing/", "https://elsewhere.example/boots/"} {
		r, _, err := Validate(input(`<p>Start with <a href="`+href+`">our hiking boots guide</a>.</p>`, uplink(link.StatusPlanned)))
		if err != nil {
			t.Fatal(err)
		}
		if mu := rule(r, RuleMandatoryUplink); mu.Passed {
			t.Errorf("%s counted as the uplink: %+v", href, mu)
		}
	}
}

// When the uplink waits for the LLM fallback (or anything else), the first
// link rule fails because of it: its detail carries the uplink's reason,
// so a reader of the report sees what will place it.
func TestTheFirstLinkRuleSaysWhyTheUplinkIsNotPlaced(t *testing.T) {
	up := uplink(link.StatusPlanned)
	up.Reason = "anchor cap: every candidate anchor already links to page hub 3 times; left for the LLM fallback"
	sibling := link.Link{ID: "sib", Type: link.TypeHorizontal, TargetPageID: "sizing", Zone: link.ZoneInBody, Status: link.StatusInserted}
	for name, html := range map[string]string{
		"no link":       `<p>No links here.</p>`,
		"sibling first": `<p>Read <a href="/boots/sizing/" data-interlinker="sib">sizing</a> first.</p>`,
	} {
		r, _, err := Validate(input(html, up, sibling))
		if err != nil {
			t.Fatal(err)
		}
		fl := rule(r, RuleFirstLink)
		if fl.Passed || !strings.Contains(fl.Detail, "the uplink to hub hub is not placed: "+up.Reason) {
			t.Errorf("%s: first link rule %+v, want it failed with the uplink's reason", name, fl)
		}
	}
	r, _, err := Validate(input(`<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>`, uplink(link.StatusInserted)))
	if err != nil {
		t.Fatal(err)
	}
	if fl := rule(r, RuleFirstLink); !fl.Passed || strings.Contains(fl.Detail, "not placed") {
		t.Errorf("placed uplink: first link rule %+v", fl)
	}
}

func TestSelfLinksAndDuplicateTargetsAreFlagged(t *testing.T) {
	self := link.Link{ID: "self", TargetPageID: "care", Zone: link.ZoneInBody, Status: link.StatusInserted}
	dupA := link.Link{ID: "a", TargetPageID: "x", Zone: link.ZoneInBody, Status: link.StatusInserted}
	dupB := link.Link{ID: "b", TargetPageID: "x", Zone: link.ZoneInBody, Status: link.StatusInserted}
	html := `<p><a href="/boots/" data-interlinker="up">hiking boots</a></p>`
	r, links, err := Validate(input(html, uplink(link.StatusInserted), self, dupA, dupB))
	if err != nil {
		t.Fatal(err)
	}
	if rule(r, RuleNoSelfLinks).Passed || rule(r, RuleNoDuplicateTargets).Passed {
		t.Errorf("rules %+v", r.Rules)
	}
	byID := map[string]link.Link{}
	for _, l := range links {
		byID[l.ID] = l
	}
	if byID["self"].Status != link.StatusFlagged || byID["b"].Status != link.StatusFlagged || byID["a"].Status != link.StatusVerified {
		t.Errorf("links %+v", links)
	}
}

func TestLinksToNoKnownPageAreNotDuplicatesOfEachOtherAndAreNamedByPath(t *testing.T) {
	unknown := func(id, url string) link.Link {
		return link.Link{ID: id, TargetURL: url, Zone: link.ZoneInBody, Status: link.StatusInserted, Placement: "existing"}
	}
	html := `<p><a href="/boots/" data-interlinker="up">hiking boots</a></p>`
	image := unknown("img", "/wp-content/uploads/2023/03/tomato-seedlings.jpg")
	stale := unknown("stale", "/Vegetables/Tomatoes/Best-Tomato-Varieties/")
	category := unknown("cat", "/category/tomatoes/")
	r, _, err := Validate(input(html, uplink(link.StatusInserted), image, stale, category))
	if err != nil {
		t.Fatal(err)
	}
	if d := rule(r, RuleNoDuplicateTargets); !d.Passed {
		t.Errorf("three links to three unknown paths: %+v, want passed", d)
	}

	again := unknown("again", "/category/tomatoes")
	r, _, err = Validate(input(html, uplink(link.StatusInserted), image, category, again))
	if err != nil {
		t.Fatal(err)
	}
	d := rule(r, RuleNoDuplicateTargets)
	if d.Passed || d.Detail != "linked more than once in the body: /category/tomatoes (2 links)" {
		t.Errorf("two links to one unknown path: %+v, want failed naming the path", d)
	}
}

func TestNoSelfLinksPassesWithoutSelfLinks(t *testing.T) {
	links := []link.Link{to("up", "hub", link.TypeVerticalUp), to("s1", "sizing", link.TypeHorizontal)}
	r, _ := validate(t, inputFor(t, policy.SAG, "care", linkedHTML(links...), links...))
	if !rule(r, RuleNoSelfLinks).Passed {
		t.Errorf("%+v", rule(r, RuleNoSelfLinks))
	}
}

// A personal-finance trial's article linked its hub in a heading, and
// the planner placed the uplink in paragraph 1 as the rules ask: the page
// passed no_duplicate_links, and the audit then reported the hub linked
// twice. The writer's link is reported, as a warning that flags no link
// of ours.
func TestAWritersOwnLinkToATargetOursLinksIsAWarningThatFlagsNoLink(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	html := linkedHTML(up) + fmt.Sprintf(`<h2>Part of <a href="%s">our hub</a></h2>`+"\n<p>%s</p>\n", pages["hub"].URL, filler(20))
	r, links := validate(t, inputFor(t, policy.SAG, "care", html, up))
	d := rule(r, RuleNoDuplicateTargets)
	if d.Passed || d.Severity != SeverityWarning || len(d.LinkIDs) != 0 || !strings.Contains(d.Detail, `hub (the writer's "our hub")`) {
		t.Errorf("%+v, want a warning naming the hub and the writer's link, flagging none of ours", d)
	}
	if links["up"].Status != link.StatusVerified {
		t.Errorf("uplink %s, want verified", links["up"].Status)
	}
	// Without the writer's link the rule passes.
	if r, _ := validate(t, inputFor(t, policy.SAG, "care", linkedHTML(up), up)); !rule(r, RuleNoDuplicateTargets).Passed {
		t.Errorf("%+v", rule(r, RuleNoDuplicateTargets))
	}
}

func TestARelatedArticlesEntryAndABodyLinkToTheSameArticleAreNotDuplicates(t *testing.T) {
	body := to("body", "sizing", link.TypeVerticalDown)
	listed := to("listed", "sizing", link.TypeVerticalDown)
	listed.Zone = link.ZoneRelatedSection
	html := linkedHTML(body) + `<section data-interlinker-block="related-articles"><ul><li><a href="/boots/sizing/">Sizing</a></li></ul></section>`
	r, links := validate(t, inputFor(t, policy.SAG, "hub", html, body, listed))
	if d := rule(r, RuleNoDuplicateTargets); !d.Passed {
		t.Errorf("%+v", d)
	}
	if links["listed"].Status != link.StatusVerified || links["body"].Status != link.StatusVerified {
		t.Errorf("links %+v", links)
	}
}

func TestParagraphDensityPassesTwoLinksFiftyWordsApart(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	html := "<p>" + anchorTag(up) + " " + filler(50) + " " + anchorTag(sib) + "</p>"
	r, links := validate(t, inputFor(t, policy.SAG, "care", html, up, sib))
	if d := rule(r, RuleParagraphDensity); !d.Passed {
		t.Errorf("%+v", d)
	}
	if links["sib"].Status != link.StatusVerified {
		t.Errorf("sibling %s %v", links["sib"].Status, links["sib"].FailedRules)
	}
}

func TestParagraphDensityFailsAThirdLinkInAParagraph(t *testing.T) {
	up, s1 := to("up", "hub", link.TypeVerticalUp), to("s1", "sizing", link.TypeHorizontal)
	html := "<p>" + anchorTag(up) + " " + filler(60) + ` <a href="/about/">about us</a> ` + filler(60) + " " + anchorTag(s1) + "</p>"
	r, links := validate(t, inputFor(t, policy.SAG, "care", html, up, s1))
	d := rule(r, RuleParagraphDensity)
	if d.Passed || r.Passed || !strings.Contains(d.Detail, "paragraph 1 has 3 links (max 2)") {
		t.Errorf("%+v", d)
	}
	// Only our links are flagged; the pre-existing one is counted, not blamed.
	if !reflect.DeepEqual(d.LinkIDs, []string{"up", "s1"}) || links["s1"].Status != link.StatusFlagged {
		t.Errorf("flagged %v, links %+v", d.LinkIDs, links)
	}
}

// The seed's limits are on internal links: a citation to another site in
// the paragraph is not counted, neither as a third link nor for spacing.
func TestParagraphDensityDoesNotCountLinksToOtherSites(t *testing.T) {
	up, s1 := to("up", "hub", link.TypeVerticalUp), to("s1", "sizing", link.TypeHorizontal)
	html := `<p><a href="https://www.worldathletics.org/rules">World Athletics</a> ` + filler(10) + " " + anchorTag(up) + " " +
		filler(60) + " " + anchorTag(s1) + "</p>"
	r, links := validate(t, inputFor(t, policy.SAG, "care", html, up, s1))
	if d := rule(r, RuleParagraphDensity); !d.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("an external link counted: %+v, links %+v", d, links)
	}
}

// A link to a media file on the site (a photo's full size, a PDF) is no
// link to a page: the planner does not count it in a paragraph, and
// neither does validation, so a plan the planner made is not failed for it.
func TestParagraphDensityDoesNotCountLinksToMediaFiles(t *testing.T) {
	up, s1 := to("up", "hub", link.TypeVerticalUp), to("s1", "sizing", link.TypeHorizontal)
	html := `<p><a href="/wp-content/uploads/2024/05/rose-pruning.jpg">the full photo</a> ` + filler(10) + " " + anchorTag(up) + " " +
		filler(60) + " " + anchorTag(s1) + "</p>"
	r, links := validate(t, inputFor(t, policy.SAG, "care", html, up, s1))
	if d := rule(r, RuleParagraphDensity); !d.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("a media link counted: %+v, links %+v", d, links)
	}
}

func TestParagraphDensityFailsLinksTwentyWordsApart(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	html := "<p>" + anchorTag(up) + " " + filler(20) + " " + anchorTag(sib) + "</p><p>" + filler(30) + "</p>"
	r, links := validate(t, inputFor(t, policy.SAG, "care", html, up, sib))
	d := rule(r, RuleParagraphDensity)
	if d.Passed || !strings.Contains(d.Detail, "20 words between") || !strings.Contains(d.Detail, "min 50") {
		t.Errorf("%+v", d)
	}
	if !failedRule(links["sib"], RuleParagraphDensity) || !failedRule(links["up"], RuleParagraphDensity) {
		t.Errorf("links %+v", links)
	}
}

func TestParagraphDensityCountsWordsInsideInlineMarkup(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	html := "<p>" + anchorTag(up) + " <em>" + filler(25) + "</em> <strong>" + filler(25) + "</strong> " + anchorTag(sib) + "</p>"
	r, _ := validate(t, inputFor(t, policy.SAG, "care", html, up, sib))
	if d := rule(r, RuleParagraphDensity); !d.Passed {
		t.Errorf("50 words across inline tags should be enough: %+v", d)
	}
}

func TestParagraphDensityIgnoresParagraphsWithoutOurLinks(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	html := "<p>" + anchorTag(up) + "</p><p><a href=\"/a/\">a</a> <a href=\"/b/\">b</a> <a href=\"/c/\">c</a></p>"
	r, _ := validate(t, inputFor(t, policy.SAG, "care", html, up))
	if d := rule(r, RuleParagraphDensity); !d.Passed {
		t.Errorf("%+v", d)
	}
}

func TestParagraphDensityWithoutAMinimumAllowsAdjacentLinks(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	in := inputFor(t, policy.SAG, "care", "<p>"+anchorTag(up)+" and "+anchorTag(sib)+"</p>", up, sib)
	in.Policy.MinWordsBetweenLinks = 0
	r, _ := validate(t, in)
	if d := rule(r, RuleParagraphDensity); !d.Passed {
		t.Errorf("%+v", d)
	}
}

func TestAnchorDiversityFailsAFourthUseOfTheSameAnchor(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	up.Anchor = "Hiking  Boots"
	in := inputFor(t, policy.SAG, "care", linkedHTML(up), up)
	in.AnchorUsage = map[string]map[string]int{"hub": {"hiking boots": 3}}
	r, links := validate(t, in)
	a := rule(r, RuleAnchorDiversity)
	if a.Passed || r.Passed || !strings.Contains(a.Detail, `"hiking boots" to page hub used 4 times`) {
		t.Errorf("%+v", a)
	}
	if !failedRule(links["up"], RuleAnchorDiversity) || links["up"].Status != link.StatusFlagged {
		t.Errorf("uplink %+v", links["up"])
	}
}

func TestAnchorDiversitySaysOverTheLimitWhenOtherPagesAreCountedOnlySoFar(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	up.Anchor = "hiking boots"
	in := inputFor(t, policy.SAG, "care", linkedHTML(up), up)
	in.AnchorUsage = map[string]map[string]int{"hub": {"hiking boots": 4}} // counted to one over the limit
	r, links := validate(t, in)
	a := rule(r, RuleAnchorDiversity)
	if a.Passed || !strings.Contains(a.Detail, `"hiking boots" to page hub used over 3 times on other pages (1 here; max 3)`) {
		t.Errorf("%+v", a)
	}
	if links["up"].Status != link.StatusFlagged {
		t.Errorf("uplink %+v", links["up"])
	}
}

func TestAnchorDiversityOnlyReportsAMandatoryUplinksFourthUse(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	up.Anchor, up.Mandatory = "hiking boots", true
	in := inputFor(t, policy.SAG, "care", linkedHTML(up), up)
	in.AnchorUsage = map[string]map[string]int{"hub": {"hiking boots": 3}}
	r, links := validate(t, in)
	a := rule(r, RuleAnchorDiversity)
	if a.Passed || a.Severity != SeverityWarning || !strings.Contains(a.Detail, "used 4 times") {
		t.Errorf("rule %+v, want a failed warning naming the overuse", a)
	}
	if links["up"].Status != link.StatusVerified || failedRule(links["up"], RuleAnchorDiversity) {
		t.Errorf("uplink %+v, want verified: the uplink outweighs anchor variety", links["up"])
	}
}

func TestAnchorDiversityNeverFlagsTheUplinkWhenAnOptionalLinkFailsToo(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	up.Anchor, up.Mandatory = "hiking boots", true
	sib.Anchor = "boot sizing"
	html := "<p>" + anchorTag(up) + " " + filler(60) + " " + anchorTag(sib) + "</p>"
	in := inputFor(t, policy.SAG, "care", html, up, sib)
	in.AnchorUsage = map[string]map[string]int{"hub": {"hiking boots": 3}, "sizing": {"boot sizing": 3}}
	r, links := validate(t, in)
	if a := rule(r, RuleAnchorDiversity); a.Passed || a.Severity != SeverityError {
		t.Errorf("rule %+v, want an error for the optional link's overuse", a)
	}
	if links["up"].Status != link.StatusVerified || failedRule(links["up"], RuleAnchorDiversity) {
		t.Errorf("uplink %+v, want verified: its overuse is only reported", links["up"])
	}
	if links["sib"].Status != link.StatusFlagged {
		t.Errorf("sibling %+v, want flagged", links["sib"])
	}
}

func TestAnchorDiversityAllowsAThirdUse(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	up.Anchor = "hiking boots"
	in := inputFor(t, policy.SAG, "care", linkedHTML(up), up)
	in.AnchorUsage = map[string]map[string]int{"hub": {"hiking boots": 2, "boot guide": 5}, "sizing": {"hiking boots": 9}}
	r, links := validate(t, in)
	if a := rule(r, RuleAnchorDiversity); !a.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("%+v, uplink %s", a, links["up"].Status)
	}
}

func TestWarningsNeverFlagLinksAndErrorsDo(t *testing.T) {
	results := []RuleResult{
		{Name: "warn", Severity: SeverityWarning, LinkIDs: []string{"a"}},
		{Name: "err", Severity: SeverityError, LinkIDs: []string{"b", "b"}},
	}
	in := []link.Link{{ID: "a", Status: link.StatusInserted}, {ID: "b", Status: link.StatusInserted}, {ID: "c", Status: link.StatusPlanned}}
	out := settle(in, results)
	if out[0].Status != link.StatusVerified || len(out[0].FailedRules) != 0 {
		t.Errorf("warned link %+v", out[0])
	}
	if out[1].Status != link.StatusFlagged || !reflect.DeepEqual(out[1].FailedRules, []string{"err"}) {
		t.Errorf("failed link %+v", out[1])
	}
	if out[2].Status != link.StatusPlanned {
		t.Errorf("unplaced link %+v", out[2])
	}
}

func TestRulesComeInAFixedOrderPerPolicy(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	names := func(r Report) []string {
		var out []string
		for _, x := range r.Rules {
			out = append(out, x.Name)
		}
		return out
	}
	silo, _ := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(up), up))
	wantSilo := []string{RuleBudget, RuleSiloIntegrity, RuleNoSelfLinks, RuleNoDuplicateTargets, RuleParagraphDensity,
		RuleAnchorDiversity, RuleFirstLink, RuleDirection, RuleNoBrokenLinks}
	if got := names(silo); !reflect.DeepEqual(got, wantSilo) {
		t.Errorf("silo rules %v, want %v", got, wantSilo)
	}
	sag, _ := validate(t, inputFor(t, policy.SAG, "care", linkedHTML(up), up))
	wantSAG := []string{RuleNoSelfLinks, RuleNoDuplicateTargets, RuleParagraphDensity, RuleAnchorDiversity,
		RuleFirstLink, RuleMandatoryUplink, RuleDensityRange, RuleLinkTypeCaps, RuleNoBrokenLinks}
	if got := names(sag); !reflect.DeepEqual(got, wantSAG) {
		t.Errorf("sag rules %v, want %v", got, wantSAG)
	}
}

func TestRulesForUplinksApplyOnlyToClusterChildren(t *testing.T) {
	about := to("c", "contact", "")
	for _, name := range []string{policy.SAG, policy.Silo} {
		r, _ := validate(t, inputFor(t, name, "about", linkedHTML(about), about))
		if hasRule(r, RuleFirstLink) || hasRule(r, RuleMandatoryUplink) || hasRule(r, RuleDirection) {
			t.Errorf("%s: an onboarding page got uplink or direction rules: %+v", name, r.Rules)
		}
	}
}

func TestAnUnknownPolicyIsAnError(t *testing.T) {
	in := input(`<p>x</p>`)
	in.Policy.Name = "mesh"
	if _, _, err := Validate(in); err == nil || !strings.Contains(err.Error(), `"mesh"`) {
		t.Errorf("err = %v", err)
	}
}

// An audit's fix is judged by what it makes worse: a rule that newly
// fails, or one that failed and now flags more links (a retarget that
// duplicates a target on a page already failing no_duplicate_links), not
// a failure the page had before, nor a warning.
func TestAChangeIsWorseWhenAnErrorRuleNewlyFailsOrFlagsMoreLinks(t *testing.T) {
	rule := func(name string, passed bool, severity string, flagged ...string) RuleResult {
		return RuleResult{Name: name, Passed: passed, Severity: severity, LinkIDs: flagged}
	}
	before := Report{Rules: []RuleResult{
		rule(RuleNoDuplicateTargets, false, SeverityError, "a"),
		rule(RuleLinkTypeCaps, true, SeverityError),
		rule(RuleDensityRange, false, SeverityError, "x", "y"),
		rule(RuleAnchorDiversity, true, SeverityError),
	}}
	after := Report{Rules: []RuleResult{
		rule(RuleNoDuplicateTargets, false, SeverityError, "a", "b"), // flags more
		rule(RuleLinkTypeCaps, false, SeverityError, "b"),            // newly fails
		rule(RuleDensityRange, false, SeverityError, "x"),            // fails, less so
		rule(RuleAnchorDiversity, false, SeverityWarning),            // a warning only
	}}
	var names []string
	for _, r := range Worse(before, after) {
		names = append(names, r.Name)
	}
	if want := []string{RuleNoDuplicateTargets, RuleLinkTypeCaps}; !reflect.DeepEqual(names, want) {
		t.Errorf("worse: %v, want %v", names, want)
	}
	if got := Worse(before, before); len(got) != 0 {
		t.Errorf("a page is worse than itself: %+v", got)
	}
}

// A writer's link to a deleted page is reported, as a warning that leaves
// the page passing and flags none of our links; a link to a path no page
// was ever sent for (an about page the pipeline does not send) is not.
func TestAWritersLinkToADeletedPageIsReportedAsBroken(t *testing.T) {
	html := `<p>Our <a href="/boots/" data-interlinker="up">hiking boots</a> guide.</p>
<p>See <a href="/boots/old-tips/#dry">the old tips</a>, <a href="/boots/old-tips">again</a> and <a href="/about/">about us</a>.</p>`
	in := input(html, uplink(link.StatusInserted))
	r, _ := validate(t, in)
	if nb := rule(r, RuleNoBrokenLinks); !nb.Passed {
		t.Errorf("no deleted page known: %+v, want passed", nb)
	}
	in.DeletedAuthorTargets = map[string]string{"/boots/old-tips": "old-tips"}
	r, links := validate(t, in)
	nb := rule(r, RuleNoBrokenLinks)
	if want := "the page's own links lead to deleted pages: /boots/old-tips/#dry (page old-tips)"; nb.Passed || nb.Severity != SeverityWarning || nb.Detail != want {
		t.Errorf("%+v, want a warning: %s", nb, want)
	}
	if !r.Passed || links["up"].Status != link.StatusVerified {
		t.Errorf("report passed %v, uplink %s: a warning fails no page and flags no link", r.Passed, links["up"].Status)
	}
}
