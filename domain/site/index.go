package site

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// index answers the lookups planning makes for every page without walking
// the whole structure: a site of a million pages has tens of thousands of
// clusters.
type index struct {
	clusters      map[string]int
	sectors       map[string]int
	clustersByFct map[string][]string
	// clusterFacets are each cluster's Facets, by position: planning asks
	// for them of every candidate of every page it plans.
	clusterFacets [][]string
	attrs         *attrIndex
	// derived holds what other packages make of the structure (Derived).
	derived sync.Map
}

// Derived returns what build makes of the structure, built once per
// indexed structure and shared by every copy of it (BuildIndex): planning
// holds every page's phrases against the names of the site's clusters,
// which are the same for all its pages at one structure version. build
// must read the structure alone, and what it returns must not be changed.
// An unindexed structure builds it on every call.
func (s Structure) Derived(key string, build func() any) any {
	if s.index == nil {
		return build()
	}
	if v, ok := s.index.derived.Load(key); ok {
		return v
	}
	v, _ := s.index.derived.LoadOrStore(key, build())
	return v
}

// BuildIndex prepares the structure for repeated lookups. Call it once
// after the structure is complete; copies made afterwards share the index.
func (st *Structure) BuildIndex() {
	ix := &index{
		clusters:      make(map[string]int, len(st.Clusters)),
		sectors:       make(map[string]int, len(st.Sectors)),
		clustersByFct: map[string][]string{},
		clusterFacets: make([][]string, len(st.Clusters)),
	}
	// Without a stopper building the index cannot fail.
	ix.attrs, _ = newAttrIndex(st.Attributes, nil)
	// Set first so that Facets below finds attributes through the index.
	st.index = ix
	for i, s := range st.Sectors {
		ix.sectors[s.ID] = i
	}
	for i, c := range st.Clusters {
		ix.clusters[c.ID] = i
		ix.clusterFacets[i] = st.Facets(c.Attributes)
		for _, f := range ix.clusterFacets[i] {
			ix.clustersByFct[f] = append(ix.clustersByFct[f], c.ID)
		}
	}
}

// attrIndex finds an attribute by id or name, and a value of it, in
// constant time: a structure can declare hundreds of attributes with
// thousands of values each, which tens of thousands of clusters name.
type attrIndex struct {
	byID   map[string]int
	byName map[string]int // foldKey of the name → the first attribute with it
	values []map[string]struct{}
}

// newAttrIndex indexes attrs. It fails only when stop does.
func newAttrIndex(attrs []Attribute, stop *stopper) (*attrIndex, error) {
	ix := &attrIndex{
		byID:   make(map[string]int, len(attrs)),
		byName: make(map[string]int, len(attrs)),
		values: make([]map[string]struct{}, len(attrs)),
	}
	for i, a := range attrs {
		if _, ok := ix.byID[a.ID]; !ok {
			ix.byID[a.ID] = i
		}
		if _, ok := ix.byName[foldKey(a.Name)]; !ok {
			ix.byName[foldKey(a.Name)] = i
		}
		set := make(map[string]struct{}, len(a.Values))
		for _, v := range a.Values {
			if err := stop.step(); err != nil {
				return nil, err
			}
			set[v] = struct{}{}
		}
		ix.values[i] = set
	}
	return ix, nil
}

// find returns the position of the attribute Structure.Attribute would
// find for key: the first one whose id is key or whose name equals it
// under Unicode case folding.
func (ix *attrIndex) find(key string) (int, bool) {
	i, byID := ix.byID[key]
	j, byName := ix.byName[foldKey(key)]
	switch {
	case byID && byName:
		return min(i, j), true
	case byID:
		return i, true
	case byName:
		return j, true
	}
	return 0, false
}

// foldKey maps s to one representative of the strings strings.EqualFold
// holds equal to it: each rune becomes the smallest rune of its case
// folding orbit, so "K", "k" and the Kelvin sign share a key. ToLower
// would not do: it leaves "ſ" apart from "s", which EqualFold joins.
func foldKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// Facet is one attribute value in the form lookups use:
// "<attribute id>=<value>", lower case.
func (st Structure) Facet(attribute, value string) string {
	id := attribute
	if a, ok := st.Attribute(attribute); ok {
		id = a.ID
	}
	return strings.ToLower(id + "=" + value)
}

// Facets lists the attribute values of a cluster or page as facets, sorted
// and without repeats.
func (st Structure) Facets(values map[string][]string) []string {
	seen := map[string]bool{}
	var out []string
	for key, vals := range values {
		for _, v := range vals {
			f := st.Facet(key, v)
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ClusterFacets is Facets of a cluster's attribute values, worked out once
// per structure when it is indexed. The slice is shared: callers do not
// change it.
func (st Structure) ClusterFacets(c Cluster) []string {
	if st.index != nil {
		if i, ok := st.index.clusters[c.ID]; ok && i < len(st.Clusters) && st.Clusters[i].ID == c.ID {
			return st.index.clusterFacets[i]
		}
	}
	return st.Facets(c.Attributes)
}

// ClustersWithFacets lists, in structure order and once each, the clusters
// that have at least one of the facets.
func (st Structure) ClustersWithFacets(facets []string) []string {
	seen := map[string]bool{}
	var ids []string
	if st.index != nil {
		for _, f := range facets {
			for _, id := range st.index.clustersByFct[f] {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		sort.SliceStable(ids, func(i, j int) bool { return st.index.clusters[ids[i]] < st.index.clusters[ids[j]] })
		return ids
	}
	want := map[string]bool{}
	for _, f := range facets {
		want[f] = true
	}
	for _, c := range st.Clusters {
		for _, f := range st.Facets(c.Attributes) {
			if want[f] {
				ids = append(ids, c.ID)
				break
			}
		}
	}
	return ids
}

// ClustersSharing lists, in structure order, the clusters that have at
// least one of the facets, with how many of them each has.
func (st Structure) ClustersSharing(facets []string) (ids []string, shared []int) {
	want := make(map[string]bool, len(facets))
	for _, f := range facets {
		want[f] = true
	}
	ids = st.ClustersWithFacets(facets)
	shared = make([]int, len(ids))
	for i, id := range ids {
		c, _ := st.Cluster(id)
		for _, f := range st.ClusterFacets(c) {
			if want[f] {
				shared[i]++
			}
		}
	}
	return ids, shared
}

// ClosestCluster is, among the clusters sharing any of facets, one of
// sectorID first (a DIY trial's electrical-safety inspection, in the
// electrical sector, was listed by the Tile Floors hub, which shared one
// value more with it than the sector's Outlets and Switches), then the one
// sharing the most of them, then the one whose name and keywords share the
// most words with names (the page's title and keywords: a "mobile dog
// grooming" service sharing as many values with Dog Grooming as with Dog
// Nutrition belongs to Dog Grooming), then the one whose shared values
// fewer clusters hold (facetRarity: a parenting trial's white-noise
// machine, sharing "infant" and "guide" with Car Seats and "infant" and
// "sleep" with Sleep Training, was listed by Car Seats, declared first),
// then the one declared first. It
// reports false when no cluster shares any. The answer depends on the
// structure alone, so every page planned against it agrees on it whatever
// order pages arrive.
func (st Structure) ClosestCluster(facets []string, sectorID string, names []string) (string, bool) {
	ids, shared := st.ClustersSharing(facets)
	// The names are compared only between clusters tied on the rest.
	var words map[string]bool
	named := func(id string) int {
		if words == nil {
			words = nameWords(names...)
		}
		c, _ := st.Cluster(id)
		n := 0
		for w := range nameWords(append([]string{c.Name, c.PrimaryKeyword}, c.Keywords...)...) {
			if words[w] {
				n++
			}
		}
		return n
	}
	best, bestInSector, bestNamed := -1, false, -1 // bestNamed: -1 until asked
	for i, id := range ids {
		c, _ := st.Cluster(id)
		inSector := sectorID != "" && c.SectorID == sectorID
		better, n := best < 0, -1
		switch {
		case better:
		case inSector != bestInSector:
			better = inSector
		case shared[i] != shared[best]:
			better = shared[i] > shared[best]
		default:
			if bestNamed < 0 {
				bestNamed = named(ids[best])
			}
			n = named(id)
			better = n > bestNamed
			if n == bestNamed {
				r, bestR := st.facetRarity(id, facets), st.facetRarity(ids[best], facets)
				better = r > bestR
			}
		}
		if better {
			best, bestInSector, bestNamed = i, inSector, n
		}
	}
	if best < 0 {
		return "", false
	}
	return ids[best], true
}

// facetRarity is how rare the facets a cluster shares with facets are:
// the sum, over each it holds, of one over the number of the site's
// clusters that hold it. A value every cluster holds tells a page's
// cluster apart from none.
func (st Structure) facetRarity(id string, facets []string) float64 {
	holders := st.Derived("site.facetHolders", func() any {
		n := map[string]int{}
		for _, c := range st.Clusters {
			for _, f := range st.ClusterFacets(c) {
				n[f]++
			}
		}
		return n
	}).(map[string]int)
	c, _ := st.Cluster(id)
	r := 0.0
	for _, f := range st.ClusterFacets(c) {
		if slices.Contains(facets, f) && holders[f] > 0 {
			r += 1 / float64(holders[f])
		}
	}
	return r
}

// nameWords are the words of names that can tell two clusters apart:
// lower case, without punctuation, of three letters or more, a plural "s"
// dropped ("boots" and "boot" are one word).
func nameWords(names ...string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1]
			}
			if len(w) >= 3 {
				out[w] = true
			}
		}
	}
	return out
}

// ClustersInSector lists, in structure order, the clusters of a sector.
func (st Structure) ClustersInSector(sectorID string) []string {
	var out []string
	for _, c := range st.Clusters {
		if c.SectorID == sectorID && sectorID != "" {
			out = append(out, c.ID)
		}
	}
	return out
}
