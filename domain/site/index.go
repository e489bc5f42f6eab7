package site

import (
	"sort"
	"strings"
)

// index answers the lookups planning makes for every page without walking
// the whole structure: a site of a million pages has tens of thousands of
// clusters.
type index struct {
	clusters      map[string]int
	sectors       map[string]int
	clustersByFct map[string][]string
}

// BuildIndex prepares the structure for repeated lookups. Call it once
// after the structure is complete; copies made afterwards share the index.
func (st *Structure) BuildIndex() {
	ix := &index{
		clusters:      make(map[string]int, len(st.Clusters)),
		sectors:       make(map[string]int, len(st.Sectors)),
		clustersByFct: map[string][]string{},
	}
	for i, s := range st.Sectors {
		ix.sectors[s.ID] = i
	}
	for i, c := range st.Clusters {
		ix.clusters[c.ID] = i
		for _, f := range st.Facets(c.Attributes) {
			ix.clustersByFct[f] = append(ix.clustersByFct[f], c.ID)
		}
	}
	st.index = ix
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
