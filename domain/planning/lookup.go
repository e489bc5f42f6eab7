package planning

import (
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Lookup says which pages the store's index must return as targets for a
// page, so that planning never reads the whole site: the pages of one
// cluster, the hubs and pages of a bounded list of related clusters, the
// pages sharing an index term, and the pages the breadcrumb trail names.
type Lookup struct {
	// ClusterID: the live pages of this cluster, every one when
	// ClusterLimit is 0, else the ClusterLimit most recently published.
	ClusterID    string
	ClusterLimit int
	// HubClusters: the live hub of each of these clusters.
	HubClusters []string
	// RelatedClusters: live hubs and supporting articles of these clusters,
	// at most RelatedLimit of them.
	RelatedClusters []string
	// Terms: live pages outside any cluster carrying one of these index
	// terms, at most RelatedLimit of them.
	Terms []string
	// Offerings: live products and services of clusters other than
	// ClusterID carrying one of these index terms, at most RelatedLimit.
	Offerings []string
	// Crumbs: the home page (when Home), the sector page of SectorID and
	// term pages carrying one of CrumbTerms.
	Home       bool
	SectorID   string
	CrumbTerms []string
	// Sectors: every sector page of the site, at most RelatedLimit.
	Sectors bool
	// Flat: live pages outside any cluster, the home and sector pages
	// aside, at most RelatedLimit, the most recently published first: a
	// silo home page may link one that shares no label with it
	// (onlyHomeMayLink), which Terms would not find.
	Flat         bool
	RelatedLimit int
}

// Deferred splits the lookup into what every plan of the page reads and
// the related clusters' pages, which a plan reads only when it draws on
// them (PlanDeferring); later is the zero Lookup when there are none.
// Every plan still reads the related clusters' hubs, one a cluster: they
// carry the names a natural phrase in the page's text most likely means
// when it names another cluster (anchors.Owners), and the site's most
// linked pages, which the authority factor is measured against.
func (l Lookup) Deferred() (now, later Lookup) {
	if len(l.RelatedClusters) == 0 {
		return l, Lookup{}
	}
	later = Lookup{RelatedClusters: l.RelatedClusters, RelatedLimit: l.RelatedLimit}
	l.HubClusters = unionSorted(l.HubClusters, l.RelatedClusters)
	l.RelatedClusters = nil
	return l, later
}

// IndexTerms are the terms a page is found by: its labels, its own
// attribute values and its keywords. The store keeps them with the page.
func IndexTerms(st site.Structure, p site.Page) []string {
	seen := map[string]bool{}
	var out []string
	add := func(prefix, v string) {
		v = strings.ToLower(strings.Join(strings.Fields(v), " "))
		if v != "" && !seen[prefix+v] {
			seen[prefix+v] = true
			out = append(out, prefix+v)
		}
	}
	for _, l := range p.Labels {
		add("label:", l)
	}
	for _, f := range st.Facets(p.Attributes) {
		add("facet:", f)
	}
	add("keyword:", p.PrimaryKeyword)
	for _, k := range p.Keywords {
		add("keyword:", k)
	}
	sort.Strings(out)
	return out
}

// LookupFor says what to fetch to plan the page under the policy.
func LookupFor(st site.Structure, pol policy.Policy, p site.Page) Lookup {
	l := Lookup{ClusterID: p.ClusterID, RelatedLimit: pol.RelatedCandidateLimit}
	if p.ClusterID != "" && p.Kind != site.KindHub {
		// Only a hub needs every page of its cluster (Related Articles, or
		// the silo parent's children); any other page picks a few siblings
		// from a bounded set, and still finds its hub, so a page does not
		// cost more as its cluster grows.
		l.ClusterLimit = pol.RelatedCandidateLimit
		l.HubClusters = []string{p.ClusterID}
	}
	cluster, _ := st.Cluster(p.ClusterID)
	clusterFacets := st.ClusterFacets(cluster)
	crumbs := func() {
		l.Home = true
		l.SectorID = trailSector(st, p)
		for _, f := range clusterFacets {
			l.CrumbTerms = append(l.CrumbTerms, "facet:"+f)
		}
	}
	if pol.Name == policy.Silo {
		if p.ClusterID == "" {
			for _, label := range p.Labels {
				l.Terms = append(l.Terms, "label:"+strings.ToLower(strings.Join(strings.Fields(label), " ")))
			}
		}
		// The pages the home and sector pages enter the silos by
		// (EntersSilo), read as SAG reads them.
		switch p.Kind {
		case site.KindSector:
			l.HubClusters = st.ClustersInSector(p.SectorID)
		case site.KindHome:
			l.Sectors, l.Flat = true, true
			l.HubClusters = firstClusters(st, pol.RelatedCandidateLimit)
		}
		if pol.BreadcrumbHTML {
			crumbs()
		}
		return l
	}
	crumbs()
	own := st.Facets(p.Attributes)
	switch p.Kind {
	case site.KindHub:
		l.HubClusters = relatedClusters(st, clusterFacets, p.ClusterID, pol.RelatedClusterLimit)
		l.Terms = facetTerms(clusterFacets) // products and services outside clusters
		l.Offerings = l.Terms               // and those of other clusters
	case site.KindSupporting:
		l.RelatedClusters = relatedClusters(st, clusterFacets, p.ClusterID, pol.RelatedClusterLimit)
	case site.KindTerm:
		// Every hub of the term's values: taxonomy links have no cap.
		l.HubClusters = unionSorted(l.HubClusters, st.ClustersWithFacets(own))
		l.Terms = facetTerms(own)
	case site.KindSector:
		// Every hub of the sector: the sector page lists them, no cap.
		l.HubClusters = st.ClustersInSector(p.SectorID)
	case site.KindHome:
		l.Sectors = true
		l.HubClusters = firstClusters(st, pol.RelatedCandidateLimit)
	case site.KindProduct, site.KindService, site.KindPage:
		l.HubClusters = unionSorted(l.HubClusters, relatedClusters(st, unionSorted(clusterFacets, own), "", pol.RelatedClusterLimit))
		if closest, ok := st.ClosestCluster(own, p.SectorID, PageNames(p)); ok && p.ClusterID == "" && p.Kind != site.KindPage {
			// The hub that lists it (adoptedOfferings), whatever the limit.
			l.HubClusters = unionSorted(l.HubClusters, []string{closest})
		}
	}
	return l
}

// PageNames are what a page is called: its title and keywords, which tell
// the cluster it belongs to among those sharing as many of its values
// (site.Structure.ClosestCluster).
func PageNames(p site.Page) []string {
	return append([]string{p.Title, p.PrimaryKeyword}, p.Keywords...)
}

// facetTerms are the index terms of facets.
func facetTerms(facets []string) []string {
	out := make([]string, len(facets))
	for i, f := range facets {
		out[i] = "facet:" + f
	}
	return out
}

// firstClusters is up to limit clusters in the structure's order: the home
// page looks for the hubs it names among them.
func firstClusters(st site.Structure, limit int) []string {
	var out []string
	for _, c := range st.Clusters {
		if len(out) == limit {
			break
		}
		out = append(out, c.ID)
	}
	return out
}

// relatedClusters lists the clusters sharing a facet, most shared facets
// first, then in structure order, without the page's own, at most limit.
func relatedClusters(st site.Structure, facets []string, own string, limit int) []string {
	ids, counts := st.ClustersSharing(facets)
	shared := make(map[string]int, len(ids))
	out := ids[:0:0]
	for i, id := range ids {
		if id != own {
			shared[id] = counts[i]
			out = append(out, id)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return shared[out[i]] > shared[out[j]] })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
