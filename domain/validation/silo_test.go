package validation

import (
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// The silo requirements' scenarios and the silo-only rules.

var children = []string{"care", "sizing", "laces", "socks", "waxing", "repair", "storage"}

func TestSiloClusterOfEightPagesWithAllRulesSatisfiedIsFullyVerified(t *testing.T) {
	// Scenario "All validations pass": the hub links down to five children,
	// each child up to the hub first and then to two siblings.
	type pageLinks struct {
		page  string
		links []link.Link
	}
	hubLinks := []link.Link{}
	for _, c := range children[:5] {
		hubLinks = append(hubLinks, to("hub-"+c, c, link.TypeVerticalDown))
	}
	cluster := []pageLinks{{"hub", hubLinks}}
	for i, c := range children {
		next, after := children[(i+1)%len(children)], children[(i+2)%len(children)]
		cluster = append(cluster, pageLinks{c, []link.Link{
			to(c+"-up", "hub", link.TypeVerticalUp),
			to(c+"-"+next, next, link.TypeHorizontal),
			to(c+"-"+after, after, link.TypeHorizontal),
		}})
	}
	if len(cluster) != 8 {
		t.Fatalf("cluster has %d pages, want 8", len(cluster))
	}
	passed, total := 0, 0
	for _, p := range cluster {
		r, links := validate(t, inputFor(t, policy.Silo, p.page, linkedHTML(p.links...), p.links...))
		for _, x := range r.Rules {
			total++
			if x.Passed {
				passed++
			} else {
				t.Errorf("page %s: rule %+v failed", p.page, x)
			}
		}
		if !r.Passed {
			t.Errorf("page %s did not pass", p.page)
		}
		for _, l := range links {
			if l.Status != link.StatusVerified {
				t.Errorf("page %s: link %s is %s %v", p.page, l.ID, l.Status, l.FailedRules)
			}
		}
	}
	if passed != total {
		t.Errorf("pass rate %d/%d, want 100%%", passed, total)
	}
}

func TestSiloFirstLinkToASiblingFailsThePageAndTheLinkIsNotVerified(t *testing.T) {
	sib, up, other := to("sib", "sizing", link.TypeHorizontal), to("up", "hub", link.TypeVerticalUp), to("laces", "laces", link.TypeHorizontal)
	r, links := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(sib, up, other), sib, up, other))
	fl := rule(r, RuleFirstLink)
	if r.Passed || fl.Passed || fl.Severity != SeverityError || !strings.Contains(fl.Detail, "/boots/sizing/") {
		t.Errorf("report passed %v, first link %+v", r.Passed, fl)
	}
	if links["sib"].Status == link.StatusVerified || !failedRule(links["sib"], RuleFirstLink) {
		t.Errorf("sibling %+v", links["sib"])
	}
}

func TestSiloLinkToAnotherClusterFailsSiloIntegrity(t *testing.T) {
	up, sib, away := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal), to("away", "pitch", link.TypeRelated)
	r, links := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(up, sib, away), up, sib, away))
	s := rule(r, RuleSiloIntegrity)
	if r.Passed || s.Passed || !strings.Contains(s.Detail, "page pitch, in cluster tents; this page is in cluster boots") {
		t.Errorf("silo integrity %+v", s)
	}
	if !failedRule(links["away"], RuleSiloIntegrity) || failedRule(links["sib"], RuleSiloIntegrity) {
		t.Errorf("links %+v", links)
	}
}

// A silo trial's child carried its writer's link to /pricing/ in its first
// paragraph: budget and the first link rule counted it, silo_integrity and
// direction_rules said every link stayed in the cluster, and the audit
// said the cluster linked across its silo. The writer's links to pages of
// the site are judged as ours (Input.AuthorTargets); links to pages the
// site does not know, and to the page's own cluster, are not faults.
func TestSiloTheWritersOwnLinksAreJudgedAsOurs(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	authored := func(hrefs ...string) string {
		var b strings.Builder
		b.WriteString(linkedHTML(up, sib))
		for _, h := range hrefs {
			b.WriteString(`<p>` + filler(60) + ` <a href="` + h + `">see here</a>.</p>`)
		}
		return b.String()
	}
	authors := map[string]site.Page{}
	for _, id := range []string{"pricing", "laces", "pitch"} {
		authors[markup.PagePath(pages[id].URL)] = pages[id]
	}
	in := inputFor(t, policy.Silo, "care", authored("/pricing/", "/boots/laces/", "/unknown/"), up, sib)
	in.AuthorTargets = authors
	r, links := validate(t, in)
	if s := rule(r, RuleSiloIntegrity); s.Passed || !strings.Contains(s.Detail, "the page's own link to /pricing/ (page pricing) leaves its silo: that page is outside every cluster, this one in cluster boots") {
		t.Errorf("silo integrity %+v", s)
	}
	if d := rule(r, RuleDirection); d.Passed || !strings.Contains(d.Detail, "the page's own link to /pricing/ points to page pricing") {
		t.Errorf("direction %+v", d)
	}
	if links["up"].Status != link.StatusVerified || links["sib"].Status != link.StatusVerified {
		t.Errorf("our links %+v: a writer's link flags none of them", links)
	}
	in = inputFor(t, policy.Silo, "care", authored("/boots/laces/", "/unknown/"), up, sib)
	in.AuthorTargets = authors
	if r, _ := validate(t, in); !rule(r, RuleSiloIntegrity).Passed || !rule(r, RuleDirection).Passed {
		t.Errorf("links within the cluster and to no page of the site: %+v", r.Rules)
	}
}

func TestSiloClusterPageLinkingToAnOnboardingPageFailsSiloIntegrity(t *testing.T) {
	up, out := to("up", "hub", link.TypeVerticalUp), to("out", "pricing", link.TypeRelated)
	r, links := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(up, out), up, out))
	if s := rule(r, RuleSiloIntegrity); s.Passed || !strings.Contains(s.Detail, "link out points to page pricing, outside every cluster; this page is in cluster boots") {
		t.Errorf("silo integrity %+v", s)
	}
	if links["out"].Status != link.StatusFlagged {
		t.Errorf("link %+v", links["out"])
	}
}

func TestSiloOnboardingPageLinksOnlyToOnboardingPages(t *testing.T) {
	inScope := []link.Link{to("c", "contact", ""), to("p", "pricing", ""), to("f", "faq", "")}
	r, _ := validate(t, inputFor(t, policy.Silo, "about", linkedHTML(inScope...), inScope...))
	if s := rule(r, RuleSiloIntegrity); !s.Passed || !r.Passed {
		t.Errorf("in scope: %+v", r.Rules)
	}

	intoCluster := append(inScope, to("h", "hub", ""))
	r, links := validate(t, inputFor(t, policy.Silo, "about", linkedHTML(intoCluster...), intoCluster...))
	s := rule(r, RuleSiloIntegrity)
	if s.Passed || !strings.Contains(s.Detail, "page hub, in cluster boots; this page is outside every cluster") {
		t.Errorf("into a cluster: %+v", s)
	}
	if links["h"].Status != link.StatusFlagged || links["c"].Status != link.StatusVerified {
		t.Errorf("links %+v", links)
	}
}

func TestSiloLinkToAPageThatNoLongerExistsFailsSiloIntegrity(t *testing.T) {
	up, gone := to("up", "hub", link.TypeVerticalUp), to("gone", "sizing", link.TypeHorizontal)
	in := inputFor(t, policy.Silo, "care", linkedHTML(up, gone), up, gone)
	in.Targets = map[string]site.Page{"hub": pages["hub"]}
	r, links := validate(t, in)
	if s := rule(r, RuleSiloIntegrity); s.Passed || !strings.Contains(s.Detail, "page sizing, which no longer exists") {
		t.Errorf("%+v", s)
	}
	if !failedRule(links["gone"], RuleSiloIntegrity) || failedRule(links["gone"], RuleDirection) {
		t.Errorf("link %+v", links["gone"])
	}
}

// A pet store trial's fixed pages failed silo_integrity on "points to
// page , which no longer exists": the theme's "Back to blog" link, kept as
// the writer's, to a path no page was ever sent for. Such a link leaves no
// silo we know of.
func TestSiloLinkToAPathNoPageWasSentForIsNoCrossing(t *testing.T) {
	up := to("up", "hub", link.TypeVerticalUp)
	back := link.Link{ID: "care-existing-1", TargetURL: "/blogs/news", Type: link.TypeHorizontal, Zone: link.ZoneInBody,
		Status: link.StatusInserted, Anchor: "Back to blog", Placement: link.PlacementExisting}
	in := inputFor(t, policy.Silo, "care", linkedHTML(up, back), up, back)
	r, _ := validate(t, in)
	if s := rule(r, RuleSiloIntegrity); !s.Passed {
		t.Errorf("silo_integrity %+v, want passed: no page is at /blogs/news", s)
	}
}

func TestSiloBudgetUnderMinimumWarnsButThePageAndLinksAreVerified(t *testing.T) {
	// Scenario "Budget under minimum (warning only)": two outbound links.
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	r, links := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(up, sib), up, sib))
	b := rule(r, RuleBudget)
	if b.Passed || b.Severity != SeverityWarning || !strings.Contains(b.Detail, "2 internal link(s)") || !strings.Contains(b.Detail, "3–5") {
		t.Errorf("budget %+v", b)
	}
	if !r.Passed {
		t.Errorf("a budget warning failed the page: %+v", r.Rules)
	}
	for id, l := range links {
		if l.Status != link.StatusVerified || len(l.FailedRules) != 0 {
			t.Errorf("link %s is %s %v", id, l.Status, l.FailedRules)
		}
	}
}

func TestSiloBudgetOverMaximumWarnsOnly(t *testing.T) {
	var links []link.Link
	for _, p := range []string{"contact", "pricing", "team", "faq", "careers", "terms"} {
		links = append(links, to(p, p, ""))
	}
	r, _ := validate(t, inputFor(t, policy.Silo, "about", linkedHTML(links...), links...))
	if b := rule(r, RuleBudget); b.Passed || b.Severity != SeverityWarning || !strings.Contains(b.Detail, "6 internal link(s)") || !r.Passed {
		t.Errorf("budget %+v, page passed %v", b, r.Passed)
	}
}

func TestSiloBudgetCountsPreExistingContentLinksButNotNavigationBlocksOrExternalLinks(t *testing.T) {
	c := to("c", "contact", "")
	html := `<nav><a href="/faq/">FAQ</a></nav>` + linkedHTML(c) +
		`<p>` + filler(60) + ` <a href="/team/">our team</a> and <a href="https://nps.gov/">the park</a>.</p>` +
		`<p><a href="/careers/">careers</a></p>` +
		`<section data-interlinker-block="related-reading"><ul><li><a href="/terms/">Terms</a></li></ul></section>`
	r, _ := validate(t, inputFor(t, policy.Silo, "about", html, c))
	if b := rule(r, RuleBudget); !b.Passed || !strings.Contains(b.Detail, "3 internal link(s)") {
		t.Errorf("budget %+v", b)
	}
}

func TestSiloHubLinkingOnlyToItsChildrenPassesDirectionRules(t *testing.T) {
	var links []link.Link
	for _, c := range children[:3] {
		links = append(links, to(c, c, link.TypeVerticalDown))
	}
	r, _ := validate(t, inputFor(t, policy.Silo, "hub", linkedHTML(links...), links...))
	if d := rule(r, RuleDirection); !d.Passed || !r.Passed {
		t.Errorf("direction %+v", d)
	}
}

func TestSiloHubLinksTheProductOfItsClusterAsAChild(t *testing.T) {
	// A silo knows parents and children: the product of the hub's cluster
	// is one of its children, as its articles are.
	links := []link.Link{to("care", "care", link.TypeVerticalDown), to("shop", "shop", link.TypeVerticalDown)}
	r, out := validate(t, inputFor(t, policy.Silo, "hub", linkedHTML(links...), links...))
	if d := rule(r, RuleDirection); !d.Passed || !r.Passed {
		t.Errorf("direction %+v", d)
	}
	if out["shop"].Status != link.StatusVerified {
		t.Errorf("links %+v", out)
	}
}

func TestSiloHubLinkingOutsideItsClusterFailsDirectionRules(t *testing.T) {
	links := []link.Link{to("care", "care", link.TypeVerticalDown), to("sizing", "sizing", link.TypeVerticalDown), to("away", "pitch", "")}
	r, out := validate(t, inputFor(t, policy.Silo, "hub", linkedHTML(links...), links...))
	d := rule(r, RuleDirection)
	if d.Passed || r.Passed || !strings.Contains(d.Detail, "link away points to supporting page pitch, in cluster tents") {
		t.Errorf("direction %+v", d)
	}
	if out["away"].Status != link.StatusFlagged || out["care"].Status != link.StatusVerified {
		t.Errorf("links %+v", out)
	}
}

func TestSiloChildLinkingToParentAndSiblingsPassesDirectionRules(t *testing.T) {
	links := []link.Link{to("up", "hub", link.TypeVerticalUp), to("s1", "sizing", link.TypeHorizontal), to("s2", "laces", link.TypeHorizontal)}
	r, _ := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(links...), links...))
	if d := rule(r, RuleDirection); !d.Passed || !r.Passed {
		t.Errorf("direction %+v, rules %+v", d, r.Rules)
	}
}

func TestSiloChildLinkingToANonSiblingFailsDirectionRules(t *testing.T) {
	links := []link.Link{to("up", "hub", link.TypeVerticalUp), to("s1", "shop", link.TypeHorizontal), to("away", "pitch", "")}
	r, out := validate(t, inputFor(t, policy.Silo, "care", linkedHTML(links...), links...))
	d := rule(r, RuleDirection)
	if d.Passed || !strings.Contains(d.Detail, "supporting care may link only to its parent hub and siblings") {
		t.Errorf("direction %+v", d)
	}
	// The product of its cluster is a sibling; the page of another cluster is not.
	if !failedRule(out["away"], RuleDirection) || out["s1"].Status == link.StatusFlagged {
		t.Errorf("links %+v", out)
	}
}

func TestSiloProductOfAClusterLinksToItsParentFirst(t *testing.T) {
	sib, up := to("sib", "sizing", link.TypeHorizontal), to("up", "hub", link.TypeVerticalUp)
	r, _ := validate(t, inputFor(t, policy.Silo, "shop", linkedHTML(sib, up), sib, up))
	if fl := rule(r, RuleFirstLink); fl.Name == "" || fl.Passed || r.Passed {
		t.Errorf("first link %+v: a child product whose first link is a sibling must fail it", fl)
	}
	r, _ = validate(t, inputFor(t, policy.Silo, "shop", linkedHTML(up, sib), up, sib))
	if fl, d := rule(r, RuleFirstLink), rule(r, RuleDirection); !fl.Passed || !d.Passed || !r.Passed {
		t.Errorf("first link %+v, direction %+v", fl, d)
	}
}

// A Portuguese trial's theme opened every page on "Pular para o
// conteúdo" (href="#primary") before its header, and every silo child
// failed first_link_rule on it: a link within the page is no link.
func TestALinkThatOnlyMovesWithinThePageIsNoFirstLink(t *testing.T) {
	up, sib := to("up", "hub", link.TypeVerticalUp), to("sib", "sizing", link.TypeHorizontal)
	html := `<a class="skip-link screen-reader-text" href="#primary">Skip to content</a>` + "\n" + linkedHTML(up, sib)
	r, _ := validate(t, inputFor(t, policy.Silo, "shop", html, up, sib))
	if fl := rule(r, RuleFirstLink); !fl.Passed || !r.Passed {
		t.Errorf("first link %+v; passed %v", fl, r.Passed)
	}
}

func TestSiloRulesDoNotApplyUnderSAG(t *testing.T) {
	up, away := to("up", "hub", link.TypeVerticalUp), to("away", "pitch", link.TypeRelated)
	r, _ := validate(t, inputFor(t, policy.SAG, "care", linkedHTML(up, away), up, away))
	for _, name := range []string{RuleBudget, RuleSiloIntegrity, RuleDirection} {
		if hasRule(r, name) {
			t.Errorf("SAG report has silo rule %s", name)
		}
	}
}

// A fourteenth trial site's home page was told "at most 2147483647 links
// each, 0+ words apart".
func TestTheHomePagesParagraphDensitySaysItHasNoLimit(t *testing.T) {
	links := []link.Link{to("a", "care", ""), to("b", "sizing", ""), to("c", "laces", "")}
	html := "<p>Start with " + anchorTag(links[0]) + ", " + anchorTag(links[1]) + " and " + anchorTag(links[2]) + ".</p>"
	in := inputFor(t, policy.Silo, "hub", html, links...)
	in.Page.Kind, in.Page.ClusterID = site.KindHome, ""
	r, _ := validate(t, in)
	d := rule(r, RuleParagraphDensity)
	if !d.Passed || !strings.Contains(d.Detail, "no link limit") || strings.Contains(d.Detail, "2147483647") {
		t.Errorf("paragraph density %+v", d)
	}
}

// The home and sector pages enter the silos from above
// (planning.EntersSilo): their links down to a sector page or a hub, ours
// or the writer's, cross no silo. Their links to any other page of a
// cluster still do.
func TestSiloHomeAndSectorPagesMayLinkDownToTheTopOfASilo(t *testing.T) {
	targets := map[string]site.Page{}
	for id, p := range pages {
		targets[id] = p
	}
	home := site.Page{ID: "home", URL: "/", Kind: site.KindHome}
	sector := site.Page{ID: "outdoors", URL: "/outdoors/", Kind: site.KindSector, SectorID: "outdoors"}
	targets["home"], targets["outdoors"] = home, sector
	for _, tc := range []struct {
		page       site.Page
		down       []link.Link
		authorHref string
	}{
		{home, []link.Link{to("s", "outdoors", link.TypeVerticalDown), to("h", "hub", link.TypeVerticalDown)}, "/tents/"},
		{sector, []link.Link{to("h", "hub", link.TypeVerticalDown)}, "/camp/"},
	} {
		tc.down[0].TargetURL = targets[tc.down[0].TargetPageID].URL
		html := linkedHTML(tc.down...) + `<p>` + filler(10) + ` <a href="` + tc.authorHref + `">the writer's own link</a> ` + filler(10) + `.</p>`
		in := inputFor(t, policy.Silo, "about", html, tc.down...)
		in.Page, in.Targets = tc.page, targets
		in.AuthorTargets = map[string]site.Page{tc.authorHref: targets[strings.Trim(tc.authorHref, "/")]}
		r, links := validate(t, in)
		if s := rule(r, RuleSiloIntegrity); !s.Passed || !r.Passed || !strings.Contains(s.Detail, "into a silo from above") {
			t.Errorf("%s linking down to the top of a silo: %+v", tc.page.Kind, r.Rules)
		}
		for _, l := range links {
			if l.Status != link.StatusVerified {
				t.Errorf("%s's link %s is %s %v", tc.page.Kind, l.ID, l.Status, l.FailedRules)
			}
		}

		deeper := append(tc.down, to("a", "care", link.TypeVerticalDown))
		in = inputFor(t, policy.Silo, "about", linkedHTML(deeper...), deeper...)
		in.Page, in.Targets = tc.page, targets
		r, links = validate(t, in)
		if s := rule(r, RuleSiloIntegrity); s.Passed || !strings.Contains(s.Detail, "page care, in cluster boots") {
			t.Errorf("%s linking an article of a silo: %+v", tc.page.Kind, s)
		}
		if links["a"].Status != link.StatusFlagged || links["h"].Status != link.StatusVerified {
			t.Errorf("%s: the article's link is %s, the hub's %s", tc.page.Kind, links["a"].Status, links["h"].Status)
		}
	}
}

// A silo trial's sector pages, which link their hubs by their generated
// list, each warned of "0 internal link(s) in the content, outside the
// budget of 3–5", a warning they could never clear. The list counts
// towards the minimum, never the maximum, as SAG's density_range counts
// a term page's; an about page's list of the same links counts nothing.
func TestASiloSectorPagesListOfHubsCountsTowardsTheBudgetMinimum(t *testing.T) {
	list := `<section data-interlinker-block="related-articles"><ul><li><a href="/tents/">Tents</a></li>` +
		`<li><a href="/camp/">Camp</a></li><li><a href="/boots/">Boots</a></li></ul></section>`
	in := inputFor(t, policy.Silo, "about", `<p>`+filler(40)+`</p>`+list)
	in.Page.Kind = site.KindSector
	r, _ := validate(t, in)
	if b := rule(r, RuleBudget); !b.Passed || !strings.Contains(b.Detail, "0 internal link(s) in the content, and 3 in its list") {
		t.Errorf("a sector page listing 3 hubs: budget %+v, want within it", b)
	}
	in.Page.Kind = site.KindPage
	r, _ = validate(t, in)
	if b := rule(r, RuleBudget); b.Passed {
		t.Errorf("a plain page with the same list: budget %+v, want under the minimum", b)
	}
}
