package planning

import (
	"sort"

	"github.com/interlinker/interlinker/domain/site"
)

// Locks are the keys a page's planning holds for its transaction, so that a
// page and the pages depending on it never plan at the same time unseen by
// each other: a supporting article and its hub, a hub and the term pages
// of its values, a term page and the pages whose breadcrumbs name it. A page
// whose arrival re-plans others holds its key exclusively; pages that only
// read it share the key, so siblings still plan in parallel.
type Locks struct {
	Exclusive []string
	Shared    []string
}

// LocksFor lists the keys planning or deleting the page holds.
func LocksFor(st site.Structure, p site.Page, deleting bool) Locks {
	var l Locks
	if p.ClusterID != "" {
		key := "cluster:" + p.ClusterID
		if p.Kind == site.KindHub || deleting {
			l.Exclusive = append(l.Exclusive, key)
		} else {
			l.Shared = append(l.Shared, key)
		}
		c, _ := st.Cluster(p.ClusterID)
		for _, f := range st.Facets(c.Attributes) {
			l.Shared = append(l.Shared, "facet:"+f)
		}
	}
	if p.Kind == site.KindTerm {
		for _, f := range st.Facets(p.Attributes) {
			l.Exclusive = append(l.Exclusive, "facet:"+f)
		}
	}
	sort.Strings(l.Exclusive)
	sort.Strings(l.Shared)
	return l
}

// Dependants names the pages whose required links depend on a page, and so
// are planned again when it arrives, changes or leaves:
//   - a supporting article: its hub (the Related Articles section);
//   - a hub: every page of its cluster (uplinks and breadcrumbs) and the
//     term pages of its cluster's values (taxonomy links);
//   - a term page: the pages of the clusters with its values (the
//     attribute step of their breadcrumbs);
//   - a page that leaves: also every page that links to it.
type Dependants struct {
	HubOf          string   // the hub of this cluster
	MembersOf      string   // every page of this cluster
	TermsWith      []string // term pages with one of these index terms
	PagesOf        []string // every page of these clusters
	LinkingTo      string   // every page with a link to this page
	ExcludedPageID string   // the page itself
}

// DependantsOf says which pages depend on p.
func DependantsOf(st site.Structure, p site.Page, deleted bool) Dependants {
	d := Dependants{ExcludedPageID: p.ID}
	switch p.Kind {
	case site.KindSupporting:
		d.HubOf = p.ClusterID
	case site.KindHub:
		d.MembersOf = p.ClusterID
		c, _ := st.Cluster(p.ClusterID)
		for _, f := range st.Facets(c.Attributes) {
			d.TermsWith = append(d.TermsWith, "facet:"+f)
		}
	case site.KindTerm:
		d.PagesOf = st.ClustersWithFacets(st.Facets(p.Attributes))
	}
	if deleted {
		d.LinkingTo = p.ID
	}
	return d
}

// ReplanAnswered says whether a dependant's current plan already answers a
// re-plan. Plans draw increasing numbers while they hold their planning
// locks, and a cause and its dependants hold conflicting locks (see
// LocksFor), so a dependant plan numbered after the cause's began after the
// cause committed and saw it. A cause without a number (0: a deletion,
// which also re-plans pages whose locks do not conflict with it) is never
// answered in advance.
func ReplanAnswered(causePlanSeq, currentPlanSeq int64) bool {
	return causePlanSeq > 0 && currentPlanSeq > causePlanSeq
}
