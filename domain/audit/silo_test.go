package audit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/spill"
	"github.com/interlinker/interlinker/domain/validation"
)

// siloStructure is a strict-silo coffee site of two clusters.
var siloStructure = site.Structure{
	Site: site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: policy.Silo},
	Clusters: []site.Cluster{
		{ID: "grinders", Name: "Grinders", PrimaryKeyword: "coffee grinders"},
		{ID: "kettles", Name: "Kettles", PrimaryKeyword: "pour over kettles"},
	},
}

type siloPage struct {
	Page
	html string
}

func siloPolicy(t *testing.T) policy.Policy {
	t.Helper()
	p, err := policy.Default(policy.Silo)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// auditSilo audits pages of siloStructure under the silo policy.
func auditSilo(t *testing.T, pages []siloPage) Report {
	t.Helper()
	a := New(siloStructure, siloPolicy(t), spill.Memory{})
	for _, p := range pages {
		if err := a.Know(p.Page); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pages {
		if !p.Live {
			continue
		}
		if err := a.AddPage(p.ID, shopLinks(t, p.URL, p.html)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// siloCluster is a cluster that keeps to its silo: the parent links its
// three children, each child links up to the parent first and then to
// its two siblings. extra goes into the first child's last paragraph.
func siloCluster(id string, extra string) []siloPage {
	hub := "/" + id + "/"
	child := func(n string) string { return "/" + id + "/" + n + "/" }
	a := func(href, text string) string { return `<a href="` + href + `">` + text + `</a>` }
	return []siloPage{
		{Page{ID: id, URL: hub, Kind: site.KindHub, ClusterID: id, WordCount: 77, Live: true},
			`<p>Start with ` + a(child("one"), "the first guide") + `.</p><p>Then ` + a(child("two"), "the second guide") +
				`.</p><p>And ` + a(child("three"), "the third guide") + `.</p>`},
		{Page{ID: id + "-one", URL: child("one"), Kind: site.KindSupporting, ClusterID: id, WordCount: 300, Live: true},
			`<p>Back to ` + a(hub, "the parent") + `.</p><p>See ` + a(child("two"), "the second guide") +
				`.</p><p>And ` + a(child("three"), "the third guide") + `.</p><p>More.` + extra + `</p>`},
		{Page{ID: id + "-two", URL: child("two"), Kind: site.KindSupporting, ClusterID: id, WordCount: 300, Live: true},
			`<p>Back to ` + a(hub, "the parent") + `.</p><p>See ` + a(child("one"), "the first guide") +
				`.</p><p>And ` + a(child("three"), "the third guide") + `.</p>`},
		{Page{ID: id + "-three", URL: child("three"), Kind: site.KindSupporting, ClusterID: id, WordCount: 300, Live: true},
			`<p>Back to ` + a(hub, "the parent") + `.</p><p>See ` + a(child("one"), "the first guide") +
				`.</p><p>And ` + a(child("two"), "the second guide") + `.</p>`},
	}
}

func crossesSilo(issue string) bool {
	return strings.HasSuffix(issue, "of the cluster link across its silo")
}

// Under the silo policy no link may cross a silo, so a hub linking no
// other cluster's hub is the rule obeyed, not a fault: the 15 points go
// to silo integrity instead, and are lost by a cluster one of whose
// pages links across its silo.
func TestASiloClusterEarnsTheCrossClusterPointsForKeepingToItsSilo(t *testing.T) {
	pages := append(siloCluster("grinders", ""),
		siloCluster("kettles", ` Also <a href="/grinders/one/">a grinder guide</a>.`)...)
	r := auditSilo(t, pages)
	kept, crossed := r.Clusters["grinders"], r.Clusters["kettles"]
	for name, h := range map[string]ClusterHealth{"grinders": kept, "kettles": crossed} {
		if slices.Contains(h.Issues, "the hub links to no other cluster's hub") {
			t.Errorf("%s: a silo hub is faulted for linking no other cluster's hub: %v", name, h.Issues)
		}
	}
	if slices.ContainsFunc(kept.Issues, crossesSilo) {
		t.Errorf("grinders keeps to its silo, yet: %v", kept.Issues)
	}
	if !slices.ContainsFunc(crossed.Issues, crossesSilo) {
		t.Errorf("kettles' first child links a grinder guide, but its issues are %v", crossed.Issues)
	}
	if kept.Score-crossed.Score != pointsCrossCluster {
		t.Errorf("grinders %.0f, kettles %.0f: want the silo integrity points (%d) between them", kept.Score, crossed.Score, pointsCrossCluster)
	}
}

// A silo parent of 77 words linking its 3 children was called under the
// minimum of 5 for a hub page, the SAG density row. Under the silo policy
// the audit holds a page to the range validation's budget rule holds it
// to, so the two agree on every page: a parent linking 2, 3, 5 or 6
// children is flagged by both or by neither.
func TestASiloPageIsHeldToTheBudgetValidationHoldsItTo(t *testing.T) {
	pol := siloPolicy(t)
	for _, n := range []int{2, 3, 5, 6} {
		html := ""
		pages := []siloPage{{Page: Page{ID: "parent", URL: "/grinders/", Kind: site.KindHub, ClusterID: "grinders", WordCount: 77, Live: true}}}
		for k := range n {
			url := fmt.Sprintf("/grinders/c%d/", k)
			html += fmt.Sprintf(`<p>See <a href="%s">guide %d</a>.</p>`, url, k)
			pages = append(pages, siloPage{Page{ID: fmt.Sprintf("c%d", k), URL: url, Kind: site.KindSupporting, ClusterID: "grinders",
				WordCount: 300, Live: true}, `<p>Back to <a href="/grinders/">the parent</a>.</p>`})
		}
		pages[0].html = html
		r := auditSilo(t, pages)
		flagged := slices.Contains(ids(r.UnderLinked), "parent") || slices.Contains(ids(r.OverLinked), "parent")

		report, _, err := validation.Validate(validation.Input{Structure: siloStructure, Policy: pol,
			Page: site.Page{ID: "parent", URL: "/grinders/", Kind: site.KindHub, ClusterID: "grinders"},
			HTML: []byte(html), SiteHost: "shop.example", WordCount: 77})
		if err != nil {
			t.Fatal(err)
		}
		var budget *validation.RuleResult
		for i, rule := range report.Rules {
			if rule.Name == validation.RuleBudget {
				budget = &report.Rules[i]
			}
		}
		if budget == nil {
			t.Fatalf("%d children: validation ran no budget rule: %+v", n, report.Rules)
		}
		if flagged != !budget.Passed {
			t.Errorf("a parent linking %d children: the audit flags it %v (under %v, over %v), validation's budget rule %q",
				n, flagged, r.UnderLinked, r.OverLinked, budget.Detail)
		}
	}
}

// The trial's case whole: a silo cluster whose parent links its 3
// children and whose children link up first and across to each other
// keeps every rule the silo policy has, and scores 100.
func TestASiloClusterKeepingEverySiloRuleScoresFullHealth(t *testing.T) {
	r := auditSilo(t, siloCluster("grinders", ""))
	if h := r.Clusters["grinders"]; h.Score != 100 || len(h.Issues) != 0 {
		t.Errorf("grinders: %+v, want 100 and no issue (a silo's hub is never a term page's to link)", h)
	}
	if len(r.UnderLinked) > 0 || len(r.OverLinked) > 0 {
		t.Errorf("under-linked %v, over-linked %v: want none", r.UnderLinked, r.OverLinked)
	}
}

// Under the silo policy every page of a cluster but its parent is a child
// that links up to the parent first (planning.SiloChild), products
// included: one without that link misses its mandatory uplink, so its
// recommendation comes from the missing-uplink band rather than the
// under-linked rule, and the cluster's health counts it. Under SAG a
// product links no hub and misses nothing.
func TestASiloClustersProductWithoutItsUplinkMissesItsMandatoryLink(t *testing.T) {
	pages := siloCluster("grinders", "")
	pages = append(pages,
		siloPage{Page{ID: "burr-set", URL: "/grinders/burr-set/", Kind: site.KindProduct, ClusterID: "grinders", WordCount: 120, Live: true},
			`<p>Spare burrs; see <a href="/grinders/one/">the first guide</a>.</p><p>And <a href="/grinders/two/">the second guide</a>.</p>`},
		siloPage{Page{ID: "cleaning", URL: "/grinders/cleaning/", Kind: site.KindService, ClusterID: "grinders", WordCount: 120, Live: true},
			`<p>See <a href="/grinders/one/">the first guide</a>.</p><p>And <a href="/grinders/two/">the second guide</a>.</p>` +
				`<p>Back to <a href="/grinders/">the parent</a>.</p>`})
	r := auditSilo(t, pages)
	if want := []string{"burr-set"}; !slices.Equal(r.MissingMandatory, want) {
		t.Errorf("missing mandatory: %v, want %v", r.MissingMandatory, want)
	}
	if want := []string{"cleaning"}; !slices.Equal(r.UplinkOutsideFirst, want) {
		t.Errorf("uplink past paragraph 2: %v, want %v", r.UplinkOutsideFirst, want)
	}
	if h := r.Clusters["grinders"]; h.Missing != 1 {
		t.Errorf("grinders: %+v, want 1 missing uplink", h)
	}

	a := New(siloStructure, sagPolicy(t), spill.Memory{})
	for _, p := range pages {
		if err := a.Know(p.Page); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range pages {
		if err := a.AddPage(p.ID, shopLinks(t, p.URL, p.html)); err != nil {
			t.Fatal(err)
		}
	}
	sag, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(sag.MissingMandatory) > 0 || len(sag.UplinkOutsideFirst) > 0 || sag.Clusters["grinders"].Missing != 0 {
		t.Errorf("under SAG: missing %v, past paragraph 2 %v, health %+v: want none",
			sag.MissingMandatory, sag.UplinkOutsideFirst, sag.Clusters["grinders"])
	}
}
