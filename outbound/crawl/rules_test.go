package crawl

import (
	"strings"
	"testing"
)

const rulesYAML = `
policy: sag
site_name: Crema & Grind
sectors:
  - {id: coffee, name: Coffee, url: /}
attributes:
  - {id: budget, name: Budget, values: [under-100, premium]}
clusters:
  - id: grinders
    sector_id: coffee
    name: Grinders
    primary_keyword: coffee grinder
    keywords: [burr grinder]
    attributes: {budget: [under-100, premium]}
  - {id: brewing, sector_id: coffee, name: Brewing, primary_keyword: brewing coffee}
rules:
  - {path: /grinders/, kind: hub, cluster: grinders}
  - {path: "/grinders/**", kind: supporting, cluster: grinders, primary_keyword: grinder guide}
  - {path: /brewing, kind: hub, cluster: brewing}
  - {path: "/brewing/*", kind: supporting, cluster: brewing}
  - {regexp: '^/shop/[^/]+\.html$', kind: product, labels: [shop], attributes: {budget: [premium]}}
  - {path: "/tags/?", kind: term}
`

func TestRulesMatch(t *testing.T) {
	r, err := ParseRules([]byte(rulesYAML))
	if err != nil {
		t.Fatal(err)
	}
	if r.Policy != "sag" || r.SiteName != "Crema & Grind" || len(r.Clusters) != 2 || r.Clusters[0].Keywords[0] != "burr grinder" {
		t.Errorf("parsed %+v", r)
	}
	for _, tc := range []struct{ path, kind, cluster string }{
		{"/", "home", ""}, // the default: no rule for it
		{"/grinders/", "hub", "grinders"},
		{"/grinders", "hub", "grinders"}, // a trailing slash is ignored
		{"/grinders/hand/", "supporting", "grinders"},
		{"/grinders/hand/comandante", "supporting", "grinders"}, // ** crosses segments
		{"/brewing/", "hub", "brewing"},
		{"/brewing/v60/", "supporting", "brewing"},
		{"/brewing/v60/steps", "page", ""}, // * does not
		{"/shop/kettle.html", "product", ""},
		{"/shop/kettle.htm", "page", ""},
		{"/shop/a/kettle.html", "page", ""},
		{"/tags/a", "term", ""},
		{"/tags/ab", "page", ""},
		{"/about", "page", ""},
	} {
		a := r.Match(tc.path)
		if a.Kind != tc.kind || a.ClusterID != tc.cluster {
			t.Errorf("Match(%q) = %s/%s, want %s/%s", tc.path, a.Kind, a.ClusterID, tc.kind, tc.cluster)
		}
	}
	if a := r.Match("/grinders/x"); a.PrimaryKeyword != "grinder guide" || a.Rule != 1 {
		t.Errorf("assignment %+v", a)
	}
	if a := r.Match("/shop/x.html"); len(a.Labels) != 1 || a.Labels[0] != "shop" {
		t.Errorf("labels %+v", a)
	}
	// Attribute values, for a SAG site's cross-cluster and term links.
	if len(r.Attributes) != 1 || strings.Join(r.Attributes[0].Values, ",") != "under-100,premium" ||
		strings.Join(r.Clusters[0].Attributes["budget"], ",") != "under-100,premium" {
		t.Errorf("attributes %+v, clusters %+v", r.Attributes, r.Clusters)
	}
	if a := r.Match("/shop/x.html"); strings.Join(a.Attributes["budget"], ",") != "premium" {
		t.Errorf("the product's attributes %+v", a.Attributes)
	}
	if got := r.AttributeRefs(); strings.Join(got, ",") != "budget=premium" {
		t.Errorf("AttributeRefs %v", got)
	}
	var none *Rules
	if none.Match("/").Kind != "home" || none.Match("/x").Kind != "page" {
		t.Error("no rules: / is home and the rest plain pages")
	}
	// A rule for / overrides the default.
	r2, err := ParseRules([]byte(`{"rules": [{"path": "/", "kind": "sector", "sector": "s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if a := r2.Match("/"); a.Kind != "sector" || a.SectorID != "s" {
		t.Errorf("JSON rules: / is %+v", a)
	}
	if got := r.ClusterRefs(); strings.Join(got, ",") != "grinders,brewing" {
		t.Errorf("ClusterRefs %v", got)
	}
}

func TestRulesRefusesMistakes(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{`rules: [{path: /a, kind: hubb, cluster: c}]`, `unknown page kind "hubb"`},
		{`rules: [{path: /a, kind: hub}]`, "a hub needs its cluster"},
		{`rules: [{path: /a, kind: page, cluser: c}]`, "field cluser not found"},
		{`rules: [{path: a, kind: page}]`, "must start with /"},
		{`rules: [{kind: page}]`, "exactly one of path"},
		{`rules: [{path: /a, regexp: /a, kind: page}]`, "exactly one of path"},
		{`rules: [{regexp: "(", kind: page}]`, "regexp"},
		{`rules: [{path: /a}]`, "no kind"},
		{`policy: strict`, `policy "strict"`},
		{"sectors: [{id: s, name: S, url: /}]\nclusters: [{id: c, sector_id: s, name: C, primary_keyword: k}]\nrules: [{path: /a, kind: hub, cluster: d}]", `cluster "d" is not among`},
		{"sectors: [{id: s, name: S, url: /}]\nclusters: [{id: c, sector_id: t, name: C, primary_keyword: k}]", `sector_id "t" is not among`},
		{"sectors: [{id: s, name: S, url: /}]\nclusters: [{id: c, sector_id: s, name: C}]", "no primary_keyword"},
		{"sectors: [{id: s, name: S, url: /}, {id: s, name: T, url: /t}]", "declared twice"},
		{"rules: [", "crawl: rules"},
		{"attributes: [{id: a, name: A, values: [x]}, {id: a, name: B, values: [y]}]", `attribute "a" is declared twice`},
		{"attributes: [{id: a, name: A}]", `attribute "a": no values`},
		{"attributes: [{id: a, name: A, values: [x, x]}]", `value "x" is declared twice`},
		{"attributes: [{id: a, name: A, values: [x]}]\nrules: [{path: /a, kind: term, attributes: {b: [x]}}]", `attribute "b" is not among`},
		{"attributes: [{id: a, name: A, values: [x]}]\nrules: [{path: /a, kind: term, attributes: {a: [y]}}]", `attribute "a" has no value "y"`},
		{"sectors: [{id: s, name: S, url: /}]\nattributes: [{id: a, name: A, values: [x]}]\nclusters: [{id: c, sector_id: s, name: C, primary_keyword: k, attributes: {a: [z]}}]", `cluster "c": attribute "a" has no value "z"`},
	} {
		_, err := ParseRules([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRules(%q) = %v, want an error with %q", tc.yaml, err, tc.want)
		}
	}
	if r, err := ParseRules(nil); err != nil || r.Match("/x").Kind != "page" {
		t.Errorf("an empty file: %v", err)
	}
}
