package planning

import (
	"slices"
	"sort"

	"github.com/interlinker/interlinker/domain/site"
)

// Locks are the keys a page's planning holds for its transaction, so that a
// page and the pages depending on it never plan at the same time unseen by
// each other: a supporting article and its hub, a hub and the term pages
// of its values, a term page and the pages whose breadcrumbs name it, a
// product or service and the term pages and hubs of its values. A page
// whose arrival re-plans others holds its key exclusively; pages that only
// read it share the key, so siblings still plan in parallel.
type Locks struct {
	Exclusive []string
	Shared    []string
}

// Change is why a page is planned or retired, which decides the locks it
// takes.
type Change int

const (
	// Arriving: a new version of the page; its dependants must see it.
	Arriving Change = iota
	// Replanning: the page catches up with a page it depends on. It holds
	// no locks: it causes no re-plans, the change it answers committed
	// before it was asked for, and a change it misses asks again (see
	// ReplanAnswered), so the articles of a cluster keep arriving while
	// their hub re-plans.
	Replanning
	// Deleting: the page leaves; its cluster's pages must not miss it.
	Deleting
)

// LocksFor lists the keys planning or retiring the page holds.
func LocksFor(st site.Structure, p site.Page, change Change) Locks {
	var l Locks
	if change == Replanning {
		return l
	}
	deleting := change == Deleting
	// A hub's arrival re-plans the home page and its sector page, which
	// link to it: a hub shares their keys, and they hold them exclusively.
	switch p.Kind {
	case site.KindHome:
		l.Exclusive = append(l.Exclusive, "home")
	case site.KindHub:
		l.Shared = append(l.Shared, "home")
	}
	if sector := st.SectorOf(p); sector != "" && (p.Kind == site.KindSector || p.Kind == site.KindHub) {
		if p.Kind == site.KindSector {
			l.Exclusive = append(l.Exclusive, "sector:"+sector)
		} else {
			l.Shared = append(l.Shared, "sector:"+sector)
		}
	}
	if p.ClusterID != "" {
		key := "cluster:" + p.ClusterID
		if p.Kind == site.KindHub || deleting {
			l.Exclusive = append(l.Exclusive, key)
		} else {
			l.Shared = append(l.Shared, key)
		}
		c, _ := st.Cluster(p.ClusterID)
		for _, f := range st.ClusterFacets(c) {
			l.Shared = append(l.Shared, "facet:"+f)
		}
	}
	if p.Kind == site.KindTerm {
		for _, f := range st.Facets(p.Attributes) {
			l.Exclusive = append(l.Exclusive, "facet:"+f)
		}
	}
	if p.Kind == site.KindProduct || p.Kind == site.KindService {
		// Its arrival re-plans the term pages and hubs of its values
		// (DependantsOf), which take those keys: it holds them
		// exclusively, or a term page or hub planned at the same time
		// would neither link it nor be re-planned for it.
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
//   - a supporting article, or a plain page in a cluster: its hub (the
//     Related Articles section);
//   - a product or service in a cluster: its hub, and the hubs of the
//     other clusters sharing its values (their links);
//   - a product or service outside clusters: the term pages of its values
//     (their lists) and the hubs of clusters sharing them (their links);
//   - a hub: every page of its cluster (uplinks and breadcrumbs), the term
//     pages of its cluster's values (taxonomy links), its sector page (the
//     sector's list) and the home page (which links the hubs it names);
//   - a term page: the pages of the clusters with its values (the
//     attribute step of their breadcrumbs);
//   - a page that leaves: also every page that links to it;
//   - a site.updated that changes what planning reads of the site (its
//     structure or its policy): every planned page of the site (Site).
//
// The home page and a sector page do not re-plan the pages under them
// when they arrive after those: re-planning a whole site at once let the
// pages take each other's anchors in whatever order the re-plans ran. The
// site's settle pass (handlers/settle.go), which plans every page in an
// order of the pages alone, gives those pages their full trail; on a site
// that never settles they do re-plan them (WithTrailsThrough). A change
// to the site itself does re-plan every page: any page's links may differ
// under it (a heading, a cap, a cluster's keywords), and the settle pass
// that follows the re-plans puts their anchors back in that order.
type Dependants struct {
	HubOf          string   // the hub of this cluster
	MembersOf      string   // every page of this cluster
	TermsWith      []string // term pages with one of these index terms
	PagesOf        []string // every page of these clusters
	HubsOf         []string // the hubs of these clusters
	SectorPage     string   // the sector page of this sector
	Home           bool     // the home page
	LinkingTo      string   // every page with a link to this page
	Site           bool     // every page of the site
	ExcludedPageID string   // the page itself
}

// WithTrailsThrough is d with every page of the site when p is the home
// page or a sector page: the breadcrumb trails of the pages under it pass
// through it. A site that settles leaves those to its settle pass (above);
// one that never settles has nothing else to give them the step (a
// trial's pages planned before the home page had 137 crumbs in their
// HTML and 44 breadcrumb links). A re-plan whose result is the same
// emits nothing.
func (d Dependants) WithTrailsThrough(p site.Page) Dependants {
	if p.Kind == site.KindHome || p.Kind == site.KindSector {
		d.Site = true
	}
	return d
}

// DependantsOf says which pages depend on p.
func DependantsOf(st site.Structure, p site.Page, deleted bool) Dependants {
	d := Dependants{ExcludedPageID: p.ID}
	switch p.Kind {
	case site.KindSupporting:
		d.HubOf = p.ClusterID
	case site.KindProduct, site.KindService, site.KindPage:
		own := st.Facets(p.Attributes)
		switch {
		case p.ClusterID != "" && p.Kind != site.KindPage:
			d.HubOf = p.ClusterID
			// The hubs of other clusters sharing its values link it too.
			d.HubsOf = slices.DeleteFunc(st.ClustersWithFacets(own), func(id string) bool { return id == p.ClusterID })
		case p.ClusterID != "":
			d.HubOf = p.ClusterID
		case p.Kind != site.KindPage:
			d.TermsWith = facetTerms(own)
			d.HubsOf = st.ClustersWithFacets(own)
		}
	case site.KindHub:
		d.MembersOf = p.ClusterID
		c, _ := st.Cluster(p.ClusterID)
		d.TermsWith = facetTerms(st.ClusterFacets(c))
		d.SectorPage = c.SectorID
		d.Home = true
	case site.KindTerm:
		d.PagesOf = st.ClustersWithFacets(st.Facets(p.Attributes))
	}
	if deleted {
		d.LinkingTo = p.ID
	}
	return d
}

// Horizon is what a plan saw of the site: the changes committed before it
// read its targets. Changes are numbered in the order they began (in
// Postgres, transaction ids); every change numbered below Settled had ended
// by then, none numbered from Unstarted on had begun, and of those between,
// the ones in Running had not committed yet. The zero Horizon saw nothing.
type Horizon struct {
	Settled   uint64
	Unstarted uint64
	Running   []uint64
}

// Saw reports whether a committed change was visible to the plan.
func (h Horizon) Saw(change uint64) bool {
	switch {
	case change == 0 || change >= h.Unstarted:
		return false
	case change < h.Settled:
		return true
	default:
		return !slices.Contains(h.Running, change)
	}
}

// ReplanAnswered says whether a dependant's current plan already answers a
// re-plan: the plan read its targets after the cause committed, so it saw
// the cause. A re-plan whose cause is unnumbered is never answered in
// advance.
func ReplanAnswered(cause uint64, current Horizon) bool {
	return current.Saw(cause)
}
