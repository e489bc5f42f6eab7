package site

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// bigStructure is a site at the scale the event schema allows for:
// 20,000 clusters, each naming three values of five attributes with 1,000
// values each.
func bigStructure() Structure {
	st := Structure{Site: Site{ID: "big", BaseURL: "https://big.example", Policy: "sag"}}
	for s := range 50 {
		st.Sectors = append(st.Sectors, Sector{ID: fmt.Sprintf("sector-%d", s)})
	}
	for a := range 5 {
		attr := Attribute{ID: fmt.Sprintf("attr-%d", a), Name: fmt.Sprintf("Attribute %d", a)}
		for v := range 1000 {
			attr.Values = append(attr.Values, fmt.Sprintf("value %d", v))
		}
		st.Attributes = append(st.Attributes, attr)
	}
	for c := range 20000 {
		st.Clusters = append(st.Clusters, Cluster{
			ID: fmt.Sprintf("cluster-%d", c), SectorID: fmt.Sprintf("sector-%d", c%50),
			Attributes: map[string][]string{
				"attr-0":      {fmt.Sprintf("value %d", c%1000), fmt.Sprintf("value %d", (c+1)%1000)},
				"Attribute 1": {fmt.Sprintf("value %d", (c*7)%1000)},
				"attribute 4": {fmt.Sprintf("value %d", (c*13)%1000), fmt.Sprintf("value %d", (c*17)%1000)},
			},
		})
	}
	return st
}

func TestALargeStructureValidates(t *testing.T) {
	st := bigStructure()
	if err := st.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	st.Clusters[19999].Attributes["attr-0"] = append(st.Clusters[19999].Attributes["attr-0"], "value 1000")
	if err := st.Validate(t.Context()); err == nil || !strings.Contains(err.Error(), `cluster "cluster-19999": attribute "attr-0" has no value "value 1000"`) {
		t.Errorf("undeclared value in the last cluster: %v", err)
	}
	st.Clusters[19999].Attributes["attr-0"] = st.Clusters[19999].Attributes["attr-0"][:2]
	st.BuildIndex()
	page := Page{ID: "p", Kind: KindSupporting, ClusterID: "cluster-123", Attributes: map[string][]string{"ATTRIBUTE 2": {"value 999"}}}
	if err := st.CheckPage(page); err != nil {
		t.Errorf("page through the index: %v", err)
	}
}

func TestValidateStopsWhenItsContextEnds(t *testing.T) {
	st := bigStructure()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := st.Validate(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v, want context.Canceled", err)
	}
	// A context that ends part way through: the loops look at it, not only
	// the start.
	for _, after := range []int{1, 10, 100} {
		ctx := &endsAfter{Context: t.Context(), calls: after}
		if err := st.Validate(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d looks: %v, want context.Canceled", after, err)
		}
	}
}

// endsAfter is a context whose Err reports cancellation from its calls'th
// call on.
type endsAfter struct {
	context.Context
	calls int
}

func (c *endsAfter) Err() error {
	if c.calls--; c.calls < 0 {
		return context.Canceled
	}
	return nil
}

func TestAttributeLookupsAgreeWithAndWithoutTheIndex(t *testing.T) {
	st := Structure{Attributes: []Attribute{
		{ID: "size", Name: "Weight Class"},
		{ID: "weight class", Name: "Other"}, // an id equal to an earlier name
		{ID: "kelvin", Name: "Temperature K"},
		{ID: "long-s", Name: "ſtyle"},
		{ID: "dup", Name: "Colour"},
		{ID: "colour", Name: "colour"}, // a name repeated: the first wins
		{ID: "blank", Name: ""},
	}}
	indexed := st
	indexed.BuildIndex()
	for _, key := range []string{"size", "weight class", "WEIGHT CLASS", "weight\u00a0class", "Other", "other",
		"temperature k", "TEMPERATURE \u212a", "style", "STYLE", "colour", "COLOUR", "", "missing", "\xff"} {
		want, wantOK := st.Attribute(key)
		got, gotOK := indexed.Attribute(key)
		if got.ID != want.ID || gotOK != wantOK {
			t.Errorf("Attribute(%q): indexed %q %v, scanned %q %v", key, got.ID, gotOK, want.ID, wantOK)
		}
	}
}

func TestTheSameBadAttributesAlwaysGetTheSameError(t *testing.T) {
	st := structure()
	values := map[string][]string{"b-unknown": {"x"}, "a-unknown": {"y"}, "weight-class": {"heavy"}, "c-unknown": nil}
	for range 20 {
		if err := st.CheckAttributes(values); err == nil || err.Error() != `unknown attribute "a-unknown"` {
			t.Fatalf("error %v, want the first key in order", err)
		}
	}
}

func TestClusterFacetsAreTheClustersFacetsIndexedOrNot(t *testing.T) {
	st := Structure{
		Attributes: []Attribute{{ID: "material", Name: "Material", Values: []string{"Leather", "Synthetic"}},
			{ID: "use", Name: "Use", Values: []string{"Hiking"}}},
		Clusters: []Cluster{
			{ID: "boots", Attributes: map[string][]string{"Material": {"Leather", "Synthetic", "Leather"}, "use": {"Hiking"}}},
			{ID: "socks"},
		},
	}
	indexed := st
	indexed.BuildIndex()
	// A cluster the index does not hold gets its own values.
	stranger := Cluster{ID: "boots-2", Attributes: map[string][]string{"use": {"Hiking"}}}
	for _, c := range append(slices.Clone(st.Clusters), stranger) {
		want := st.Facets(c.Attributes)
		for name, s := range map[string]Structure{"scanned": st, "indexed": indexed} {
			if got := s.ClusterFacets(c); !slices.Equal(got, want) {
				t.Errorf("%s ClusterFacets(%s) = %q, want %q", name, c.ID, got, want)
			}
		}
	}
	if got := indexed.ClusterFacets(st.Clusters[0]); !slices.Equal(got, []string{"material=leather", "material=synthetic", "use=hiking"}) {
		t.Errorf("indexed facets of boots: %q", got)
	}
}

func TestTheClosestClusterIsInThePagesSectorThenSharesTheMostValuesThenIsNamedThenSharesTheRarestThenComesFirst(t *testing.T) {
	st := Structure{
		Attributes: []Attribute{{ID: "material", Values: []string{"ceramic", "steel"}},
			{ID: "room", Values: []string{"kitchen", "pantry"}}},
		Clusters: []Cluster{
			{ID: "stockpots", SectorID: "cooking", Name: "Stockpots", PrimaryKeyword: "stockpots", Attributes: map[string][]string{"material": {"steel"}, "room": {"kitchen"}}},
			{ID: "bakeware", SectorID: "baking", Name: "Bakeware", PrimaryKeyword: "ceramic bakeware", Attributes: map[string][]string{"material": {"ceramic"}, "room": {"kitchen"}}},
			{ID: "jars", SectorID: "storage", Name: "Storage Jars", PrimaryKeyword: "storage jars", Keywords: []string{"pantry jars"}, Attributes: map[string][]string{"material": {"ceramic"}, "room": {"pantry"}}},
			{ID: "knives", SectorID: "cooking", Name: "Kitchen Knives", PrimaryKeyword: "kitchen knives", Attributes: map[string][]string{"material": {"steel"}}},
		},
	}
	indexed := st
	indexed.BuildIndex()
	cases := []struct {
		name   string
		values map[string][]string
		sector string
		names  []string
		want   string
	}{
		{"most shared values", map[string][]string{"material": {"ceramic"}, "room": {"pantry"}}, "", nil, "jars"},
		{"the page's sector before more shared values", map[string][]string{"material": {"ceramic"}, "room": {"kitchen"}}, "cooking", nil, "stockpots"},
		{"most shared values outside a sector sharing none", map[string][]string{"material": {"ceramic"}, "room": {"pantry"}}, "cooking", nil, "jars"},
		{"equals: the page's sector", map[string][]string{"material": {"ceramic"}}, "storage", nil, "jars"},
		{"equals outside the sector: declared first", map[string][]string{"material": {"ceramic"}}, "cooking", nil, "bakeware"},
		{"equals outside the sector: the one its names name", map[string][]string{"material": {"ceramic"}}, "cooking",
			[]string{"Airtight Jar Set", "glass pantry jars"}, "jars"},
		{"equals in the sector: the one its names name", map[string][]string{"material": {"steel"}}, "cooking",
			[]string{"Chef's Knife, 20 cm", "kitchen knife"}, "knives"},
		{"the sector before the names", map[string][]string{"material": {"ceramic"}}, "baking",
			[]string{"pantry jars"}, "bakeware"},
		{"a value no cluster has does not count", map[string][]string{"material": {"steel", "glass"}}, "cooking", nil, "stockpots"},
		{"equals, named alike: the one sharing the value fewer clusters hold", map[string][]string{"material": {"steel"}, "room": {"pantry"}}, "", nil, "jars"},
		{"none shared", map[string][]string{"room": {"garden"}}, "", nil, ""},
	}
	for _, c := range cases {
		for name, s := range map[string]Structure{"scanned": st, "indexed": indexed} {
			got, ok := s.ClosestCluster(s.Facets(c.values), c.sector, c.names)
			if got != c.want || ok != (c.want != "") {
				t.Errorf("%s, %s: ClosestCluster = %q, %v; want %q", c.name, name, got, ok, c.want)
			}
		}
	}
}
