package audit

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/linkscore"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/spill"
)

// A small outdoor site with planted defects, its pages' HTML and the
// figures worked out by hand from it.
var (
	testStructure = site.Structure{
		Site: site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Clusters: []site.Cluster{
			{ID: "boots", Name: "Hiking Boots", PrimaryKeyword: "hiking boots", Attributes: map[string][]string{"terrain": {"mountain"}}},
			{ID: "tents", Name: "Tents", PrimaryKeyword: "tents", Attributes: map[string][]string{"terrain": {"mountain"}}},
		},
	}
	testPages = []struct {
		Page
		html string
	}{
		{Page{ID: "home", URL: "/", Kind: site.KindHome, WordCount: 40, Live: true},
			`<nav><a href="/boots/">Boots</a> <a href="/tents">Tents</a> <a href="/about/">About</a></nav>
			<p>Shop our <a href="/boots/?ref=home">hiking boots</a>.</p>`},
		{Page{ID: "boots", URL: "/boots/", Kind: site.KindHub, ClusterID: "boots", WordCount: 300, Live: true},
			`<p>Start with <a href="/boots/fit/">boot fit</a>.</p>
			<p>Sleep well in one of our <a href="https://shop.example/tents/">tents</a>.</p>
			<p>Our old <a href="/boots/gone/">resoling guide</a> is gone.</p>`},
		{Page{ID: "fit", URL: "/boots/fit/", Kind: site.KindSupporting, ClusterID: "boots", WordCount: 300, Live: true},
			`<p>Fit matters for <a href="/boots/">hiking boots</a>.</p><p>See <a href="https://other.example/">a maker</a>.</p>`},
		{Page{ID: "care", URL: "/boots/care/", Kind: site.KindSupporting, ClusterID: "boots", WordCount: 300, Live: true},
			`<p>Care one.</p><p>Care two.</p><p>Back to <a href="/boots/#top">hiking boots</a>.</p>`},
		{Page{ID: "dry", URL: "/boots/dry/", Kind: site.KindSupporting, ClusterID: "boots", WordCount: 300, Live: true},
			`<p>Dry them slowly; see <a href="/nowhere/">this</a>.</p>`},
		{Page{ID: "gone", URL: "/boots/gone/", Kind: site.KindSupporting, ClusterID: "boots", WordCount: 300, Live: false}, ``},
		{Page{ID: "tents", URL: "/tents/", Kind: site.KindHub, ClusterID: "tents", WordCount: 300, Live: true},
			`<p>Tents for every trip.</p>`},
		{Page{ID: "pitch", URL: "/tents/pitch/", Kind: site.KindSupporting, ClusterID: "tents", WordCount: 300, Live: true},
			`<p>Pitch one of our <a href="/tents/">tents</a> in wind.</p>`},
		{Page{ID: "mountain", URL: "/terrain/mountain/", Kind: site.KindTerm, WordCount: 100, Live: true},
			`<p>For mountains, <a href="/boots/">hiking boots</a>.</p>`},
		{Page{ID: "about", URL: "/about/", Kind: site.KindPage, WordCount: 100, Live: true}, `<p>About us and our <a href="/boots/">boot range</a>.</p>`},
	}
)

func auditTestSite(t *testing.T) Report { return auditTestSiteChecked(t, nil) }

// auditTestSiteChecked audits the test site, judging links by checks
// when they are given.
func auditTestSiteChecked(t *testing.T, checks map[string]Check) Report {
	t.Helper()
	pages := make([]Page, len(testPages))
	for i, tp := range testPages {
		pages[i] = tp.Page
	}
	pages[8].Values = testStructure.Facets(map[string][]string{"terrain": {"mountain"}})
	a := newAuditor(t, testStructure, pages)
	if checks != nil {
		a.UseChecks(func(u string) (Check, bool) {
			c, ok := checks[u]
			return c, ok
		})
	}
	for _, tp := range testPages {
		if !tp.Live {
			continue
		}
		if err := a.AddPage(tp.ID, shopLinks(t, tp.URL, tp.html)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// shopLinks are the links of a page at path on shop.example, as the
// audit is given them.
func shopLinks(t *testing.T, path, html string) []Link {
	t.Helper()
	found, err := markup.Links([]byte(html), "https://shop.example"+path, "shop.example")
	if err != nil {
		t.Fatal(err)
	}
	links := make([]Link, len(found))
	for i, f := range found {
		links[i] = Link{URL: f.URL, Internal: f.Internal, Follow: !f.Nofollow(), Position: f.Position,
			InBlock: f.InBlock, Paragraph: f.Paragraph, Text: f.Text}
	}
	return links
}

// newAuditor starts an audit of pages, with its spills in memory.
func newAuditor(t *testing.T, st site.Structure, pages []Page) *Auditor {
	t.Helper()
	a := New(st, sagPolicy(t), spill.Memory{})
	for _, p := range pages {
		if err := a.Know(p); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func sagPolicy(t *testing.T) policy.Policy {
	t.Helper()
	p, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ids(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.PageID)
	}
	return out
}

func TestTheAuditFindsEveryPlantedDefect(t *testing.T) {
	r := auditTestSite(t)
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"live pages", r.Pages, 9},
		{"internal links", r.TotalLinks, 13},
		// No other live page links to them; the home page is never one.
		{"orphans", r.Orphans, []string{"care", "dry", "pitch", "mountain"}},
		// Linked from the home page's navigation alone.
		{"navigation only", r.NavigationOnly, []string{"about"}},
		// dry has no link to its hub; care's is in paragraph 3.
		{"missing mandatory", r.MissingMandatory, []string{"dry"}},
		{"uplink past paragraph 2", r.UplinkOutsideFirst, []string{"care"}},
		{"broken", ids(r.Broken), []string{"boots"}},
		{"unverified", ids(r.Unverified), []string{"dry"}},
		// Under 1000 words: 2–5 for articles, 5–10 for hubs, at least 3
		// for term pages; a plain page outside clusters (about) is held to
		// no row.
		{"under-linked", ids(r.UnderLinked), []string{"boots", "fit", "care", "dry", "tents", "pitch", "mountain"}},
		{"over-linked", ids(r.OverLinked), []string(nil)},
		// 4 of the hub's 5 in-body links say "hiking boots"; the home
		// page's menu link is no in-body link.
		{"dominant anchors", ids(r.DominantAnchors), []string{"boots"}},
	} {
		if !equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestClusterHealthScoresTheSeedsSixFactors(t *testing.T) {
	r := auditTestSite(t)
	// boots: hub linked 25, an article without uplink 0, a link to the
	// tents hub 15, its term page links the hub 15, a broken link 0, pages
	// under their density 0.
	// tents: the hub links nowhere 0, its article's uplink 25, no other
	// hub 0, its term page does not link it 0, nothing broken 10, density 0.
	if got := r.Clusters["boots"]; got.Score != 55 || got.Missing != 1 {
		t.Errorf("boots: %+v, want score 55 with 1 missing uplink", got)
	}
	if got := r.Clusters["tents"]; got.Score != 35 || got.Missing != 0 {
		t.Errorf("tents: %+v, want score 35", got)
	}
	if math.Abs(r.Health-45) > 1e-9 {
		t.Errorf("site health %.2f, want 45, the mean of the clusters", r.Health)
	}
}

func TestAClusterWithoutTermPagesKeepsTheTermPoints(t *testing.T) {
	st := site.Structure{Clusters: []site.Cluster{{ID: "c", Attributes: map[string][]string{"terrain": {"desert"}}}}}
	a := newAuditor(t, st, []Page{
		{ID: "hub", URL: "/c/", Kind: site.KindHub, ClusterID: "c", WordCount: 100, Live: true},
	})
	if err := a.AddPage("hub", nil); err != nil {
		t.Fatal(err)
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	h := r.Clusters["c"]
	// No link either way 0, no articles 25, no other hub 0, no term page
	// 15, nothing broken 10, under its density 0.
	if h.Score != 50 || !slices.Contains(h.Issues, "no live term page carries the cluster's values (nothing to link the hub)") {
		t.Errorf("%+v, want 50 with the term factor met and noted", h)
	}
}

func TestAPageIsReadOnceAndOnlyIfLive(t *testing.T) {
	a := newAuditor(t, testStructure, []Page{
		{ID: "x", URL: "/x/", Kind: site.KindPage, Live: true}, {ID: "y", URL: "/y/", Kind: site.KindPage}})
	if err := a.AddPage("x", nil); err != nil {
		t.Fatal(err)
	}
	if err := a.AddPage("x", nil); err == nil {
		t.Error("a page read twice was taken")
	}
	if err := a.AddPage("y", nil); err == nil {
		t.Error("a deleted page's links were taken")
	}
	if err := a.AddPage("z", nil); err == nil {
		t.Error("an unknown page's links were taken")
	}
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case []string:
		y, _ := b.([]string)
		return slices.Equal(x, y)
	default:
		return a == b
	}
}

func TestLinkScoresRankTheLivePagesOverTheirFollowLinks(t *testing.T) {
	r := auditTestSite(t)
	// The follow links between different live pages of the test site, a
	// source's to one target once: what linkscore ranks.
	live := []string{"home", "boots", "fit", "care", "dry", "tents", "pitch", "mountain", "about"}
	at := map[string]int32{}
	for i, id := range live {
		at[id] = int32(i)
	}
	var edges []linkscore.Edge
	for _, e := range [][2]string{{"home", "boots"}, {"home", "tents"}, {"home", "about"}, {"boots", "fit"}, {"boots", "tents"},
		{"fit", "boots"}, {"care", "boots"}, {"pitch", "tents"}, {"mountain", "boots"}, {"about", "boots"}} {
		edges = append(edges, linkscore.Edge{From: at[e[0]], To: at[e[1]]})
	}
	g, err := linkscore.NewGraph(len(live), edges)
	if err != nil {
		t.Fatal(err)
	}
	res, err := linkscore.PageRank(g)
	if err != nil {
		t.Fatal(err)
	}
	want := res.Ranks
	if len(r.LinkScores) != len(live) {
		t.Fatalf("%d link scores, want one per live page (%d)", len(r.LinkScores), len(live))
	}
	for i, s := range r.LinkScores {
		if math.Abs(s.Rank-want[at[s.PageID]]) > 1e-12 {
			t.Errorf("%s: rank %.6f, want %.6f", s.PageID, s.Rank, want[at[s.PageID]])
		}
		if i > 0 && s.Rank > r.LinkScores[i-1].Rank {
			t.Errorf("link scores not highest first at %s", s.PageID)
		}
	}
	if best := r.LinkScores[0]; best.PageID != "boots" || best.Score != 100 {
		t.Errorf("best page %+v, want the boots hub at 100", best)
	}
}

func TestHTTPChecksMakeLinksBrokenRedirectingOrUnverified(t *testing.T) {
	before := auditTestSite(t)
	r := auditTestSiteChecked(t, map[string]Check{
		"https://shop.example/boots/fit/": {Outcome: CheckBroken, Status: 404},
		"https://other.example/":          {Outcome: CheckBroken, Status: 410},
		"https://shop.example/nowhere/":   {Outcome: CheckOK, Status: 200},
		"https://shop.example/tents/":     {Outcome: CheckRedirect, Status: 200, FinalURL: "https://shop.example/tents/all/"},
		"https://shop.example/about/":     {Outcome: CheckUnverified, Status: 429, Reason: "rate-limited"},
	})
	find := func(fs []Finding, url string) (Finding, bool) {
		for _, f := range fs {
			if f.URL == url {
				return f, true
			}
		}
		return Finding{}, false
	}
	if f, ok := find(r.Broken, "https://shop.example/boots/fit/"); !ok || f.PageID != "boots" || f.TargetID != "fit" || f.Detail != "its target answers HTTP 404" {
		t.Errorf("a live page answering 404: %+v (found %v)", f, ok)
	}
	if f, ok := find(r.Broken, "https://other.example/"); !ok || f.PageID != "fit" || f.TargetID != "" {
		t.Errorf("an external target answering 410: %+v (found %v)", f, ok)
	}
	if len(r.Broken) != len(before.Broken)+2 {
		t.Errorf("%d broken links, %d without checks; want 2 more", len(r.Broken), len(before.Broken))
	}
	if !slices.Contains(r.Orphans, "fit") || slices.Contains(before.Orphans, "fit") {
		t.Errorf("the page whose one inbound link answers 404 is no orphan: %v (before %v)", r.Orphans, before.Orphans)
	}
	if _, ok := find(before.Unverified, "https://shop.example/nowhere/"); !ok {
		t.Fatalf("without checks a path no page holds is unverified: %+v", before.Unverified)
	}
	if _, ok := find(r.Unverified, "https://shop.example/nowhere/"); ok {
		t.Errorf("a path no page holds that answers 200 is still unverified")
	}
	if f, ok := find(r.Unverified, "https://shop.example/about/"); !ok || f.Detail != "not verified over HTTP: rate-limited" {
		t.Errorf("a target not checked: %+v (found %v)", f, ok)
	}
	if !slices.Equal(ids(r.Redirects), []string{"boots", "pitch"}) ||
		r.Redirects[0].Detail != "points at a redirect; update it to the final URL https://shop.example/tents/all/" {
		t.Errorf("redirects %+v; want the links of boots and pitch to /tents/", r.Redirects)
	}
	if slices.Contains(r.Orphans, "tents") {
		t.Errorf("a link through a redirect still reaches its page: tents is no orphan")
	}
}

// A site of 400 articles, many tied: the report's top link scores are the
// first TopLinkScores of LinkScores, which orders every live page by rank
// and then by id, for the site and for a cluster.
func TestTheReportsTopLinkScoresLeadTheFullOrder(t *testing.T) {
	st := site.Structure{Site: site.Site{ID: "s", BaseURL: "https://s.example", Policy: "sag"},
		Clusters: []site.Cluster{{ID: "a", PrimaryKeyword: "a"}, {ID: "b", PrimaryKeyword: "b"}}}
	a := New(st, sagPolicy(t), spill.Memory{})
	const n = 400
	id := func(i int) string { return fmt.Sprintf("p%03d", (i*7)%n) } // not in page order
	cluster := func(i int) string { return []string{"a", "b"}[i%2] }
	for i := range n {
		if err := a.Know(Page{ID: id(i), URL: "/" + id(i) + "/", Kind: site.KindSupporting, ClusterID: cluster(i), WordCount: 300, Live: i%13 != 0}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if i%13 == 0 {
			continue
		}
		// Every page links to the next page's and a few shared pages: many
		// pages rank the same.
		var links []Link
		for _, to := range []int{(i + 1) % n, 5 * (i % 4), 1} {
			links = append(links, Link{URL: "/" + id(to) + "/", Text: "x", Internal: true, Follow: true, Position: "content", Paragraph: 1})
		}
		if err := a.AddPage(id(i), links); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"", "a"} {
		r, err := a.ReportFor(c)
		if err != nil {
			t.Fatal(err)
		}
		all := slices.Collect(a.LinkScores(c))
		if len(r.LinkScores) != TopLinkScores || len(all) < TopLinkScores {
			t.Fatalf("cluster %q: %d in the report and %d in all", c, len(r.LinkScores), len(all))
		}
		if !slices.Equal(r.LinkScores, all[:TopLinkScores]) {
			t.Errorf("cluster %q: the report's top scores are not the first of the full order:\n%v\n%v", c, r.LinkScores[:5], all[:5])
		}
		ties := 0
		for k := 1; k < len(all); k++ {
			p, q := all[k-1], all[k]
			if p.Rank < q.Rank || p.Rank == q.Rank && p.PageID >= q.PageID {
				t.Fatalf("cluster %q: %+v before %+v", c, p, q)
			}
			if p.Rank == q.Rank {
				ties++
			}
		}
		if ties == 0 {
			t.Errorf("cluster %q: no tied ranks, so the id order is not exercised", c)
		}
	}
}

// A term page that links the hubs of its value by our generated list is
// linked as density_range counts it: the list counts towards the minimum.
// A list on an article does not, and a term page without one is short.
func TestATermPagesGeneratedListCountsTowardsItsDensityMinimumAsValidationCountsIt(t *testing.T) {
	st := site.Structure{
		Site: site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Clusters: []site.Cluster{
			{ID: "boots", Name: "Boots", PrimaryKeyword: "boots"},
			{ID: "tents", Name: "Tents", PrimaryKeyword: "tents"},
			{ID: "packs", Name: "Packs", PrimaryKeyword: "packs"},
		},
	}
	list := `<section data-interlinker-block="related-articles"><ul>` +
		`<li><a href="/boots/">Boots</a></li><li><a href="/tents/">Tents</a></li><li><a href="/packs/">Packs</a></li></ul></section>`
	pages := []struct {
		Page
		html string
	}{
		{Page{ID: "boots", URL: "/boots/", Kind: site.KindHub, ClusterID: "boots", WordCount: 100, Live: true}, `<p>Boots.</p>`},
		{Page{ID: "tents", URL: "/tents/", Kind: site.KindHub, ClusterID: "tents", WordCount: 100, Live: true}, `<p>Tents.</p>`},
		{Page{ID: "packs", URL: "/packs/", Kind: site.KindHub, ClusterID: "packs", WordCount: 100, Live: true}, `<p>Packs.</p>`},
		{Page{ID: "listed", URL: "/terrain/mountain/", Kind: site.KindTerm, WordCount: 100, Live: true}, `<p>For mountains.</p>` + list},
		{Page{ID: "short", URL: "/terrain/forest/", Kind: site.KindTerm, WordCount: 100, Live: true},
			`<p>For forests, <a href="/boots/">boots</a>.</p>`},
		{Page{ID: "article", URL: "/boots/care/", Kind: site.KindSupporting, ClusterID: "boots", WordCount: 300, Live: true},
			`<p>Care for boots.</p>` + list},
	}
	known := make([]Page, len(pages))
	for i, p := range pages {
		known[i] = p.Page
	}
	a := newAuditor(t, st, known)
	for _, p := range pages {
		if err := a.AddPage(p.ID, shopLinks(t, p.URL, p.html)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	under := map[string]Finding{}
	for _, f := range r.UnderLinked {
		under[f.PageID] = f
	}
	if f, ok := under["listed"]; ok {
		t.Errorf("a term page listing 3 hubs is under-linked: %s", f.Detail)
	}
	if f, ok := under["short"]; !ok || f.Count != 1 || !strings.Contains(f.Detail, "1 in-body links, under the minimum of 3") {
		t.Errorf("a term page with 1 link and no list: %+v (found %v)", f, ok)
	}
	if f, ok := under["article"]; !ok || f.Count != 0 {
		t.Errorf("an article's list counted towards its minimum: %+v (found %v)", f, ok)
	}
}

// A term page's link to a hub counts for the cluster's health where the
// other factors look, in the page's body (or its generated list of hubs,
// which is how the planner links a term page's hubs): a site menu that
// links the hub from every page, term pages included, is no term page
// linking its hub.
func TestATermPageLinkingTheHubOnlyFromTheMenuCostsTheClusterItsTermPoints(t *testing.T) {
	st := site.Structure{
		Site:     site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Clusters: []site.Cluster{{ID: "c", Name: "Cacti", PrimaryKeyword: "cacti", Attributes: map[string][]string{"terrain": {"desert"}}}},
	}
	for _, c := range []struct {
		name, html string
		linked     bool
	}{
		{"menu only", `<nav><a href="/c/">Cacti</a></nav><p>For the desert.</p>`, false},
		{"footer only", `<p>For the desert.</p><footer><a href="/c/">Cacti</a></footer>`, false},
		{"in its body", `<nav><a href="/c/">Cacti</a></nav><p>For the desert, <a href="/c/">cacti</a>.</p>`, true},
		{"in its generated list", `<p>For the desert.</p><section data-interlinker-block="related-articles"><ul><li><a href="/c/">Cacti</a></li></ul></section>`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAuditor(t, st, []Page{
				{ID: "hub", URL: "/c/", Kind: site.KindHub, ClusterID: "c", WordCount: 100, Live: true},
				{ID: "desert", URL: "/terrain/desert/", Kind: site.KindTerm, WordCount: 100, Live: true,
					Values: st.Facets(map[string][]string{"terrain": {"desert"}})},
			})
			if err := a.AddPage("hub", nil); err != nil {
				t.Fatal(err)
			}
			if err := a.AddPage("desert", shopLinks(t, "/terrain/desert/", c.html)); err != nil {
				t.Fatal(err)
			}
			r, err := a.Report()
			if err != nil {
				t.Fatal(err)
			}
			h := r.Clusters["c"]
			missing := slices.Contains(h.Issues, "1 of 1 term pages of its values do not link to the hub")
			// The hub is linked but links nowhere 0, no articles 25, no
			// other hub 0, the term page 15 or 0, nothing broken 10,
			// under its density 0.
			want := 50.0
			if !c.linked {
				want = 35
			}
			if missing == c.linked || h.Score != want {
				t.Errorf("%+v; want score %.0f, the term page counted as linking the hub: %v", h, want, c.linked)
			}
		})
	}
}

// Validation holds every page to no_duplicate_links and link_type_caps:
// the audit reports a page's in-body links to a target it already links
// in its body (a menu link aside), and pages with more in-body sibling
// links than max_sibling_links, so their fixes can remove the extras.
func TestAnAuditReportsDuplicateLinksAndSiblingLinksOverTheCap(t *testing.T) {
	st := site.Structure{
		Site:     site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Clusters: []site.Cluster{{ID: "soil", Name: "Soil", PrimaryKeyword: "soil"}},
	}
	art := func(id string) Page {
		return Page{ID: id, URL: "/soil/" + id + "/", Kind: site.KindSupporting, ClusterID: "soil", WordCount: 600, Live: true}
	}
	pages := []Page{{ID: "soil", URL: "/soil/", Kind: site.KindHub, ClusterID: "soil", WordCount: 300, Live: true},
		art("hot"), art("cold"), art("worms"), art("leaves"), art("what-not"),
		{ID: "home", URL: "/", Kind: site.KindHome, WordCount: 200, Live: true}}
	html := map[string]string{
		// A blog index's cards link each post by its title and a "Continue
		// reading": a listing, no duplicate (trial P).
		"home": `<article><h2><a href="/soil/hot/">Hot composting</a></h2><p>Fast heat. <a href="/soil/hot/">Continue reading</a></p></article>
			<article><h2><a href="/soil/cold/">Cold composting</a></h2><p>Slow and easy. <a href="/soil/cold/">Continue reading</a></p></article>`,
		"hot": `<nav><a href="/soil/what-not/">What not</a></nav>
			<p>Start with <a href="/soil/">soil</a>.</p>
			<p>Skip <a href="/soil/what-not/">what not to compost</a>.</p>
			<p>Again, <a href="/soil/what-not/">what not to compost</a>.</p>
			<p>Once more <a href="/soil/what-not/?x=1">what not to compost</a>.</p>
			<p>See <a href="/soil/cold/">cold composting</a>.</p>`,
		"cold": `<p>Start with <a href="/soil/">soil</a>, then <a href="/soil/hot/">hot</a>.</p>
			<p>Or <a href="/soil/worms/">worms</a>, or <a href="/soil/leaves/">leaves</a>.</p>`,
	}
	r := shopReport(t, st, pages, html)
	if len(r.Duplicates) != 1 {
		t.Fatalf("duplicates: %+v, want hot's links to what-not", r.Duplicates)
	}
	if f := r.Duplicates[0]; f.PageID != "hot" || f.TargetID != "what-not" || f.Count != 3 || f.Anchor != "what not to compost" {
		t.Errorf("duplicate: %+v, want hot linking what-not 3 times in its body, first as \"what not to compost\"", f)
	}
	// hot links 2 siblings (what-not, cold): at the cap; cold links 3.
	if len(r.OverCap) != 1 || r.OverCap[0].PageID != "cold" || r.OverCap[0].Count != 3 || r.OverCap[0].Limit != 2 {
		t.Errorf("over the sibling cap: %+v, want cold with 3 of 2", r.OverCap)
	}
}

// A gardening trial's hub linked 9 other clusters' hubs; the audit never
// said so, and its fixed page failed validation's link_type_caps. A hub
// linking more other hubs in its body than max_cross_cluster_per_hub is
// a finding its fix brings within the cap.
func TestAnAuditReportsAHubLinkingMoreOtherHubsThanTheCap(t *testing.T) {
	var clusters []site.Cluster
	var pages []Page
	for _, id := range []string{"lawn", "roses", "garlic", "potatoes", "dahlias"} {
		clusters = append(clusters, site.Cluster{ID: id, Name: id, PrimaryKeyword: id})
		pages = append(pages, Page{ID: id, URL: "/" + id + "/", Kind: site.KindHub, ClusterID: id, WordCount: 900, Live: true})
	}
	st := site.Structure{Site: site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"}, Clusters: clusters}
	html := map[string]string{
		"lawn":  `<p>Feed it as you feed <a href="/roses/">roses</a>, <a href="/garlic/">garlic</a> and <a href="/potatoes/">potatoes</a>.</p>`,
		"roses": `<p>Pair them with <a href="/dahlias/">dahlias</a> and <a href="/garlic/">garlic</a>.</p>`,
	}
	r := shopReport(t, st, pages, html)
	if len(r.CrossClusterOverCap) != 1 {
		t.Fatalf("hubs over the cross-cluster cap: %+v, want lawn alone (roses links 2, the cap)", r.CrossClusterOverCap)
	}
	if f := r.CrossClusterOverCap[0]; f.PageID != "lawn" || f.Count != 3 || f.Limit != 2 || !strings.Contains(f.Detail, "max_cross_cluster_per_hub") {
		t.Errorf("finding %+v, want lawn with 3 of 2", f)
	}
}

// shopReport audits pages whose links are those of html, by page id.
func shopReport(t *testing.T, st site.Structure, pages []Page, html map[string]string) Report {
	t.Helper()
	a := newAuditor(t, st, pages)
	for _, p := range pages {
		if err := a.AddPage(p.ID, shopLinks(t, p.URL, html[p.ID])); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A link to the page itself is no link of its density: a camera trial's
// article with a self-link beside its uplink was not reported under its
// minimum.
func TestASelfLinkIsNoLinkOfThePagesDensity(t *testing.T) {
	st := site.Structure{
		Site:     site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Clusters: []site.Cluster{{ID: "soil", Name: "Soil", PrimaryKeyword: "soil"}},
	}
	pages := []Page{{ID: "soil", URL: "/soil/", Kind: site.KindHub, ClusterID: "soil", WordCount: 300, Live: true},
		{ID: "hot", URL: "/soil/hot/", Kind: site.KindSupporting, ClusterID: "soil", WordCount: 600, Live: true}}
	html := map[string]string{"hot": `<p>Start with <a href="/soil/">soil</a>, then read <a href="/soil/hot/">hot composting</a> again.</p>`}
	r := shopReport(t, st, pages, html)
	var hot *Finding
	for i := range r.UnderLinked {
		if r.UnderLinked[i].PageID == "hot" {
			hot = &r.UnderLinked[i]
		}
	}
	if hot == nil || hot.Count != 1 {
		t.Errorf("under-linked %+v, want hot with 1 in-body link, its self-link not counted", r.UnderLinked)
	}
}

// A gardening trial's audit reported its noindex newsletter-thanks page
// an orphan and had the home page link it: a page that asks not to be
// indexed is owed no links.
func TestANoIndexPageIsNoOrphan(t *testing.T) {
	a := newAuditor(t, testStructure, []Page{
		{ID: "home", URL: "/", Kind: site.KindHome, Live: true},
		{ID: "thanks", URL: "/thanks/", Kind: site.KindPage, Live: true, NoIndex: true},
		{ID: "about", URL: "/about/", Kind: site.KindPage, Live: true}})
	for _, id := range []string{"home", "thanks", "about"} {
		if err := a.AddPage(id, nil); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Orphans, []string{"about"}) {
		t.Errorf("orphans %v, want [about]: the noindex page is none", r.Orphans)
	}
}
