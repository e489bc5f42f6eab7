// Package audit holds the definitions of existing-content mode's audit: what
// makes a page an orphan, over- or under-linked, missing its mandatory
// uplink, what makes a link broken or unverified and an anchor dominant,
// and how a cluster's link health is scored. It reads a site's pages and
// the links found in their live HTML; it does no I/O.
//
// The figures are gathered as links are read, a page's at a time:
//
//	a := audit.New(structure, policy, pages) // every known page, live or not
//	for each live page: a.AddPage(pageID, itsLinks)
//	report, err := a.Report()
//
// Memory follows the number of pages and of distinct (target, anchor)
// pairs, and the link graph the link score needs: 8 bytes a link between
// two live pages (240 MB for a million pages of 30 links), never the
// links' text.
package audit

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/linkscore"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Page is a page the site has or had.
type Page struct {
	ID        string
	URL       string // its path on the site (or a URL on the site's host)
	Kind      site.Kind
	ClusterID string
	Values    []string // its attribute values as attribute=value (site.Structure.Facets)
	WordCount int
	// Live: published and not deleted. A deleted page is kept so links
	// to it are known to be broken.
	Live bool
}

// Link is an <a href> found in a live page's HTML (markup.Links).
type Link struct {
	URL       string // resolved against the page (and its <base>); "" when it could not be
	Internal  bool   // on the site's host
	Follow    bool   // no rel=nofollow
	Position  string // content, navigation, header, footer or aside
	InBlock   string // the generated block it is in, if any
	Paragraph int    // 1-based content paragraph, 0 outside any
	Text      string // visible anchor text
}

// InBody reports whether a link is in the page's own text: outside the
// navigation, header, footer and asides, and outside generated blocks.
func (l Link) InBody() bool { return l.Position == "content" && l.InBlock == "" }

// Path is a URL's path as pages are matched by it: query and fragment
// dropped, and a trailing slash ignored ("/a/" and "/a" are one page).
func Path(u string) string {
	if parsed, err := url.Parse(u); err == nil {
		u = parsed.Path
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if len(u) > 1 {
		u = strings.TrimRight(u, "/")
	}
	if u == "" {
		u = "/"
	}
	return u
}

// Auditor gathers a site's figures from its pages' links.
type Auditor struct {
	st    site.Structure
	pol   policy.Policy
	pages []Page
	index map[string]int // page id → position in pages
	path  map[string]int // Path → position in pages
	hubs  map[string]int // cluster id → its live hub's position

	// By page position:
	inbound     []int                  // other live pages linking to it, any position
	outbound    []int                  // other live pages it links to, any position
	bodyInbound []int                  // of which outside navigation, header and footer
	inBody      []int                  // the page's own in-body internal links
	read        []bool                 // AddPage was called for it
	uplink      []int                  // for a supporting article: paragraph of its first in-body link to its hub, -1 none
	crossHub    []bool                 // for a hub: an in-body link to another cluster's hub
	brokenFrom  []int                  // broken links on the page
	links       []int                  // the page's internal links
	termLinks   map[int]map[int]bool   // term page → hubs it links to
	anchorsTo   map[int]map[string]int // target → folded anchor → links

	// edges are the follow links between different live pages, a source's
	// to one target once, for the link score: the one part of the audit
	// that holds every link (as two int32s).
	edges []linkscore.Edge

	broken     []Finding
	unverified []Finding

	// resolved caches the page a link URL points to (-1: no known page):
	// a menu and footer repeat the same URLs on every page, and parsing a
	// URL costs more than the rest of reading its link. It is emptied
	// when it reaches maxResolved, so it stays small whatever the site.
	resolved map[string]int
	// counted and followed are AddPage's per-page sets, kept for reuse.
	counted, followed map[int]bool
}

const maxResolved = 1 << 16

// Finding is one thing the audit found, on a page (and towards a target).
type Finding struct {
	PageID   string
	TargetID string
	URL      string
	Anchor   string // the link's text; for a dominant anchor, the anchor (normalised)
	// Count and Limit are the figures a density or dominance finding
	// compares: in-body links against the range's bound, or the anchor's
	// links against all the target's.
	Count, Limit int
	Detail       string
}

// New starts an audit of the site's pages: every page it knows of, live
// or deleted, so links can be resolved.
func New(st site.Structure, pol policy.Policy, pages []Page) *Auditor {
	n := len(pages)
	a := &Auditor{st: st, pol: pol, pages: pages, index: make(map[string]int, n), path: make(map[string]int, n), hubs: map[string]int{},
		inbound: make([]int, n), outbound: make([]int, n), bodyInbound: make([]int, n), inBody: make([]int, n), read: make([]bool, n),
		uplink: make([]int, n), crossHub: make([]bool, n), brokenFrom: make([]int, n), links: make([]int, n),
		termLinks: map[int]map[int]bool{}, anchorsTo: map[int]map[string]int{},
		resolved: map[string]int{}, counted: map[int]bool{}, followed: map[int]bool{}}
	for i, p := range pages {
		a.index[p.ID] = i
		a.uplink[i] = -1
		if _, seen := a.hubs[p.ClusterID]; p.Live && p.Kind == site.KindHub && p.ClusterID != "" && !seen {
			a.hubs[p.ClusterID] = i
		}
		key := Path(p.URL)
		// A live page wins its path over a deleted one.
		if j, ok := a.path[key]; !ok || (!pages[j].Live && p.Live) {
			a.path[key] = i
		}
	}
	return a
}

// hubOf is the live hub of a cluster, -1 when it has none.
func (a *Auditor) hubOf(clusterID string) int {
	if i, ok := a.hubs[clusterID]; ok {
		return i
	}
	return -1
}

// AddPage reads the links of a live page. Each page is read once.
func (a *Auditor) AddPage(pageID string, links []Link) error {
	src, ok := a.index[pageID]
	if !ok || !a.pages[src].Live {
		return fmt.Errorf("audit: page %q is not a live page of the site", pageID)
	}
	if a.read[src] {
		return fmt.Errorf("audit: page %q read twice", pageID)
	}
	a.read[src] = true
	page := a.pages[src]
	hub := -1
	if page.Kind == site.KindSupporting {
		hub = a.hubOf(page.ClusterID)
	}
	counted, followed := a.counted, a.followed // a target counts one inbound link per source, and one edge of the link graph
	clear(counted)
	clear(followed)
	for _, l := range links {
		if !l.Internal || l.URL == "" {
			continue
		}
		a.links[src]++
		if l.InBody() {
			a.inBody[src]++
		}
		t, known := a.resolve(l.URL)
		switch {
		case !known:
			a.unverified = append(a.unverified, Finding{PageID: pageID, URL: l.URL, Anchor: l.Text,
				Detail: "links to a path that is no known page"})
			continue
		case !a.pages[t].Live:
			a.brokenFrom[src]++
			a.broken = append(a.broken, Finding{PageID: pageID, TargetID: a.pages[t].ID, URL: l.URL, Anchor: l.Text,
				Detail: "links to a deleted page"})
			continue
		case t == src:
			continue // a link to the page itself is not inbound
		}
		if !counted[t] {
			counted[t] = true
			a.inbound[t]++
			a.outbound[src]++
		}
		if l.Follow && !followed[t] {
			followed[t] = true
			a.edges = append(a.edges, linkscore.Edge{From: int32(src), To: int32(t)})
		}
		if l.Position != "navigation" && l.Position != "header" && l.Position != "footer" {
			a.bodyInbound[t]++
		}
		// Dominance counts in-body anchors: a menu or footer repeats its
		// one anchor on every page, which is no over-optimised anchor text.
		if text := anchors.Normalize(l.Text); text != "" && l.InBody() {
			if a.anchorsTo[t] == nil {
				a.anchorsTo[t] = map[string]int{}
			}
			a.anchorsTo[t][text]++
		}
		target := a.pages[t]
		if t == hub && l.InBody() && (a.uplink[src] < 0 || (l.Paragraph > 0 && l.Paragraph < a.uplink[src])) {
			a.uplink[src] = l.Paragraph
		}
		if page.Kind == site.KindHub && target.Kind == site.KindHub && target.ClusterID != page.ClusterID && l.InBody() {
			a.crossHub[src] = true
		}
		if page.Kind == site.KindTerm && target.Kind == site.KindHub {
			if a.termLinks[src] == nil {
				a.termLinks[src] = map[int]bool{}
			}
			a.termLinks[src][t] = true
		}
	}
	return nil
}

// resolve finds the page a link URL points to by its path.
func (a *Auditor) resolve(u string) (int, bool) {
	if i, ok := a.resolved[u]; ok {
		return i, i >= 0
	}
	i, ok := a.path[Path(u)]
	if !ok {
		i = -1
	}
	if len(a.resolved) >= maxResolved {
		clear(a.resolved)
	}
	a.resolved[u] = i
	return i, ok
}

// Report is the audit's figures and findings.
type Report struct {
	Pages              int
	TotalLinks         int
	Orphans            []string // live pages, home aside, no other live page links to
	NavigationOnly     []string // linked to only from navigation, header or footer
	MissingMandatory   []string // supporting articles with a live hub and no in-body link to it
	UplinkOutsideFirst []string // supporting articles whose uplink is only past paragraph 2
	OverLinked         []Finding
	UnderLinked        []Finding
	Broken             []Finding
	Unverified         []Finding
	DominantAnchors    []Finding
	Clusters           map[string]ClusterHealth
	// Health is the mean of the clusters' scores; 0 for a site without
	// clusters.
	Health float64
	// LinkScores are the live pages' link scores, highest first.
	LinkScores []PageScore
}

// PageScore is a page's link score: its internal PageRank among the live
// pages (Rank, the site's summing to 1) and on a 0–100 log scale against
// the best page (Score).
type PageScore struct {
	PageID string
	Rank   float64
	Score  float64
}

// linkScores ranks the live pages over the follow links between them.
func (a *Auditor) linkScores() ([]PageScore, error) {
	live := make([]int32, len(a.pages)) // page position → position among live pages
	var ids []string
	for i, p := range a.pages {
		live[i] = -1
		if p.Live {
			live[i] = int32(len(ids))
			ids = append(ids, p.ID)
		}
	}
	edges := make([]linkscore.Edge, len(a.edges))
	for i, e := range a.edges {
		edges[i] = linkscore.Edge{From: live[e.From], To: live[e.To]}
	}
	g, err := linkscore.NewGraph(len(ids), edges)
	if err != nil {
		return nil, fmt.Errorf("audit: link graph: %w", err)
	}
	ranks := linkscore.PageRank(g).Ranks
	scaled := linkscore.Scaled(ranks)
	out := make([]PageScore, len(ids))
	for i, id := range ids {
		out[i] = PageScore{PageID: id, Rank: ranks[i], Score: scaled[i]}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Rank != out[j].Rank {
			return out[i].Rank > out[j].Rank
		}
		return out[i].PageID < out[j].PageID
	})
	return out, nil
}

// ClusterHealth is a cluster's link health (SAG §2.5): points per factor
// out of 100, the mandatory links it misses and what cost it points.
type ClusterHealth struct {
	Score   float64
	Missing int
	Issues  []string
}

// Report works out the site's figures from the pages read.
func (a *Auditor) Report() (Report, error) { return a.ReportFor("") }

// ReportFor works out the figures of one cluster's pages ("" for the whole
// site). Links from anywhere on the site count towards them: a cluster's
// page linked only from another cluster is not an orphan.
func (a *Auditor) ReportFor(clusterID string) (Report, error) {
	if clusterID != "" {
		if _, ok := a.st.Cluster(clusterID); !ok {
			return Report{}, fmt.Errorf("audit: unknown cluster %q", clusterID)
		}
	}
	inScope := func(i int) bool { return clusterID == "" || a.pages[i].ClusterID == clusterID }
	r := Report{Clusters: map[string]ClusterHealth{}}
	for _, f := range a.broken {
		if inScope(a.index[f.PageID]) {
			r.Broken = append(r.Broken, f)
		}
	}
	for _, f := range a.unverified {
		if inScope(a.index[f.PageID]) {
			r.Unverified = append(r.Unverified, f)
		}
	}
	for i, p := range a.pages {
		if !p.Live || !inScope(i) {
			continue
		}
		r.Pages++
		r.TotalLinks += a.links[i]
		if p.Kind != site.KindHome {
			switch {
			case a.inbound[i] == 0:
				r.Orphans = append(r.Orphans, p.ID)
			case a.bodyInbound[i] == 0:
				r.NavigationOnly = append(r.NavigationOnly, p.ID)
			}
		}
		if p.Kind == site.KindSupporting && a.hubOf(p.ClusterID) >= 0 {
			switch {
			case a.uplink[i] < 0:
				r.MissingMandatory = append(r.MissingMandatory, p.ID)
			case a.uplink[i] == 0 || a.uplink[i] > 2:
				r.UplinkOutsideFirst = append(r.UplinkOutsideFirst, p.ID)
			}
		}
		if rng, ok := a.densityRange(p); ok {
			switch {
			case rng.Max > 0 && a.inBody[i] > rng.Max:
				r.OverLinked = append(r.OverLinked, Finding{PageID: p.ID, Count: a.inBody[i], Limit: rng.Max,
					Detail: fmt.Sprintf("%d in-body links, over the maximum of %d for a %s page of %d words", a.inBody[i], rng.Max, p.Kind, p.WordCount)})
			case a.inBody[i] < rng.Min:
				r.UnderLinked = append(r.UnderLinked, Finding{PageID: p.ID, Count: a.inBody[i], Limit: rng.Min,
					Detail: fmt.Sprintf("%d in-body links, under the minimum of %d for a %s page of %d words", a.inBody[i], rng.Min, p.Kind, p.WordCount)})
			}
		}
		if f, ok := a.dominant(i); ok {
			r.DominantAnchors = append(r.DominantAnchors, f)
		}
	}
	// Each cluster's pages and each value's term pages, gathered once.
	members := map[string][]int{}
	termsOf := map[string][]int{}
	for i, p := range a.pages {
		if !p.Live {
			continue
		}
		if p.ClusterID != "" {
			members[p.ClusterID] = append(members[p.ClusterID], i)
		}
		if p.Kind == site.KindTerm {
			for _, v := range p.Values {
				termsOf[v] = append(termsOf[v], i)
			}
		}
	}
	total := 0.0
	for _, c := range a.st.Clusters {
		if clusterID != "" && c.ID != clusterID {
			continue
		}
		h := a.clusterHealth(c, members[c.ID], termsOf)
		r.Clusters[c.ID] = h
		total += h.Score
	}
	if len(r.Clusters) > 0 {
		r.Health = total / float64(len(r.Clusters))
	}
	scores, err := a.linkScores()
	for _, s := range scores {
		if inScope(a.index[s.PageID]) {
			r.LinkScores = append(r.LinkScores, s)
		}
	}
	return r, err
}

// densityRange is the density table's range for a page; false for kinds
// the table leaves unbounded.
func (a *Auditor) densityRange(p Page) (policy.DensityRange, bool) {
	switch p.Kind {
	case site.KindHome, site.KindSector:
		return policy.DensityRange{}, false
	}
	r := a.pol.Density(planning.DensityClass(p.Kind), p.WordCount)
	return r, r.Min > 0 || r.Max > 0
}

// dominant reports a target at least anchor_dominance_min_inbound in-body
// links point to, one exact anchor of which carries more than
// anchor_dominance_flag_share of them.
func (a *Auditor) dominant(t int) (Finding, bool) {
	counts := a.anchorsTo[t]
	links := 0
	for _, n := range counts {
		links += n
	}
	if links < a.pol.AnchorDominanceMinInbound {
		return Finding{}, false
	}
	texts := make([]string, 0, len(counts))
	for text := range counts {
		texts = append(texts, text)
	}
	sort.Strings(texts)
	for _, text := range texts {
		if share := float64(counts[text]) / float64(links); share > a.pol.AnchorDominanceFlagShare {
			return Finding{PageID: a.pages[t].ID, Anchor: text, Count: counts[text], Limit: links, Detail: fmt.Sprintf("%q carries %d of its %d inbound links (%.0f%%, over %.0f%%)",
				text, counts[text], links, 100*share, 100*a.pol.AnchorDominanceFlagShare)}, true
		}
	}
	return Finding{}, false
}

// Cluster health factors and their points (SAG §2.5).
const (
	pointsHubLinked    = 25
	pointsUplinks      = 25
	pointsCrossCluster = 15
	pointsTermsLinkHub = 15
	pointsNoBroken     = 10
	pointsDensity      = 10
)

// clusterHealth scores a cluster on the seed's six factors:
//   - its hub is live and linked: it links to a live page and a live page
//     links to it (25);
//   - every live supporting article links to the hub in its body (25);
//   - the hub links in its body to another cluster's hub (15);
//   - every live term page of one of the cluster's attribute values links
//     to the hub; a cluster with no such term page has nothing to miss
//     and keeps the points, noted as an issue (15);
//   - no link on the cluster's pages is broken (10);
//   - every live page of the cluster is within its density range (10).
func (a *Auditor) clusterHealth(c site.Cluster, members []int, termsOf map[string][]int) ClusterHealth {
	h := ClusterHealth{Issues: []string{}}
	hub := a.hubOf(c.ID)
	if hub >= 0 && a.inbound[hub] > 0 && a.outbound[hub] > 0 {
		h.Score += pointsHubLinked
	} else if hub < 0 {
		h.Issues = append(h.Issues, "the cluster has no live hub")
	} else {
		h.Issues = append(h.Issues, "the hub is not both linking and linked to")
	}

	articles, without := 0, 0
	for _, i := range members {
		if a.pages[i].Kind == site.KindSupporting {
			articles++
			if hub < 0 || a.uplink[i] < 0 {
				without++
			}
		}
	}
	h.Missing = without
	if without == 0 {
		h.Score += pointsUplinks
	} else {
		h.Issues = append(h.Issues, fmt.Sprintf("%d of %d supporting articles have no in-body link to the hub", without, articles))
	}

	if hub >= 0 && a.crossHub[hub] {
		h.Score += pointsCrossCluster
	} else {
		h.Issues = append(h.Issues, "the hub links to no other cluster's hub")
	}

	terms, linking := 0, 0
	counted := map[int]bool{}
	for _, v := range a.st.Facets(c.Attributes) {
		for _, i := range termsOf[v] {
			if counted[i] {
				continue
			}
			counted[i] = true
			terms++
			if hub >= 0 && a.termLinks[i][hub] {
				linking++
			}
		}
	}
	switch {
	case terms == 0:
		h.Score += pointsTermsLinkHub
		h.Issues = append(h.Issues, "no term page carries the cluster's values (nothing to link the hub)")
	case linking == terms:
		h.Score += pointsTermsLinkHub
	default:
		h.Issues = append(h.Issues, fmt.Sprintf("%d of %d term pages of its values do not link to the hub", terms-linking, terms))
	}

	broken := 0
	for _, i := range members {
		broken += a.brokenFrom[i]
	}
	if broken == 0 {
		h.Score += pointsNoBroken
	} else {
		h.Issues = append(h.Issues, fmt.Sprintf("%d broken link(s) on the cluster's pages", broken))
	}

	outOfRange := 0
	for _, i := range members {
		if rng, ok := a.densityRange(a.pages[i]); ok && ((rng.Max > 0 && a.inBody[i] > rng.Max) || a.inBody[i] < rng.Min) {
			outOfRange++
		}
	}
	if outOfRange == 0 {
		h.Score += pointsDensity
	} else {
		h.Issues = append(h.Issues, fmt.Sprintf("%d page(s) outside their link density range", outOfRange))
	}
	return h
}

// Resolve names the page a link's URL points to, and whether that page is
// live; ok is false for a path that is no known page.
func (a *Auditor) Resolve(u string) (pageID string, live, ok bool) {
	i, ok := a.path[Path(u)]
	if !ok {
		return "", false, false
	}
	return a.pages[i].ID, a.pages[i].Live, true
}

// Hub is the live hub of a cluster, "" when it has none.
func (a *Auditor) Hub(clusterID string) string {
	if i := a.hubOf(clusterID); i >= 0 {
		return a.pages[i].ID
	}
	return ""
}
