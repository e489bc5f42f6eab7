package planning

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

func digestSite() site.Structure {
	return site.Structure{
		Site:       site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop", Policy: policy.SAG},
		Sectors:    []site.Sector{{ID: "outdoor", Name: "Outdoor", URL: "/outdoor/"}},
		Attributes: []site.Attribute{{ID: "material", Name: "Material", Values: []string{"Leather", "Canvas"}}},
		Clusters: []site.Cluster{{ID: "boots", SectorID: "outdoor", Name: "Boots", PrimaryKeyword: "hiking boots",
			Keywords: []string{"trail boots"}, Attributes: map[string][]string{"material": {"Leather"}}}},
	}
}

func digestOf(t *testing.T, st site.Structure, overrides string) []byte {
	t.Helper()
	pol, err := policy.Resolve(st.Site.Policy, json.RawMessage(overrides))
	if err != nil {
		t.Fatal(err)
	}
	d, err := StructureDigest(st, pol)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestStructureDigestIsTheSameForTheSameStructureAndResolvedPolicy(t *testing.T) {
	base := digestOf(t, digestSite(), `{"related_reading_heading": "Lecturas", "max_sibling_links": 3}`)
	for what, overrides := range map[string]string{
		"the same overrides":             `{"related_reading_heading": "Lecturas", "max_sibling_links": 3}`,
		"the overrides in another order": `{"max_sibling_links": 3, "related_reading_heading": "Lecturas"}`,
		"a default spelled out besides":  `{"related_reading_heading": "Lecturas", "max_sibling_links": 3, "review_score": 40}`,
	} {
		if got := digestOf(t, digestSite(), overrides); !bytes.Equal(got, base) {
			t.Errorf("%s: digest differs", what)
		}
	}
}

func TestStructureDigestDiffersForEveryChangePlanningReads(t *testing.T) {
	const overrides = `{"related_reading_heading": "Lecturas"}`
	base := digestOf(t, digestSite(), overrides)
	changes := map[string]func(st *site.Structure) string{
		"a heading override":    func(*site.Structure) string { return `{"related_reading_heading": "Lecturas relacionadas"}` },
		"a numeric override":    func(*site.Structure) string { return `{"related_reading_heading": "Lecturas", "max_sibling_links": 1}` },
		"the policy":            func(st *site.Structure) string { st.Site.Policy = policy.Silo; return overrides },
		"the base URL":          func(st *site.Structure) string { st.Site.BaseURL = "https://www.shop.example"; return overrides },
		"the site's name":       func(st *site.Structure) string { st.Site.Name = "Store"; return overrides },
		"a sector's URL":        func(st *site.Structure) string { st.Sectors[0].URL = "/out/"; return overrides },
		"an attribute's values": func(st *site.Structure) string { st.Attributes[0].Values = []string{"Leather"}; return overrides },
		"a cluster's keywords":  func(st *site.Structure) string { st.Clusters[0].Keywords = []string{"walking boots"}; return overrides },
		"a cluster's primary":   func(st *site.Structure) string { st.Clusters[0].PrimaryKeyword = "boots"; return overrides },
		"a cluster's values": func(st *site.Structure) string {
			st.Clusters[0].Attributes["material"] = []string{"Canvas"}
			return overrides
		},
		"a cluster's sector": func(st *site.Structure) string { st.Clusters[0].SectorID = "indoor"; return overrides },
		"a cluster added": func(st *site.Structure) string {
			st.Clusters = append(st.Clusters, site.Cluster{ID: "tents"})
			return overrides
		},
	}
	for what, change := range changes {
		st := digestSite()
		ov := change(&st)
		if got := digestOf(t, st, ov); bytes.Equal(got, base) {
			t.Errorf("%s changed, digest did not", what)
		}
	}

	// The order clusters are declared in breaks ties between them.
	first, second := digestSite(), digestSite()
	first.Clusters = append(first.Clusters, site.Cluster{ID: "tents"})
	second.Clusters = append([]site.Cluster{{ID: "tents"}}, second.Clusters...)
	if bytes.Equal(digestOf(t, first, overrides), digestOf(t, second, overrides)) {
		t.Error("the clusters' order changed, digest did not")
	}
}
