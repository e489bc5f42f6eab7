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
// Memory follows the number of pages and of distinct (target, in-body
// anchor) pairs, and the link graph the link score needs: 4 bytes a link
// between two live pages (120 MB for a million pages of 30 links), never
// the links' text.
package audit

import (
	"fmt"
	"hash/maphash"
	"math"
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
	// Version is the live version a recommendation for the page is made
	// from.
	Version int64
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
	index map[string]int32 // page id → position in pages
	path  map[string]int32 // Path → position in pages
	hubs  map[string]int   // cluster id → its live hub's position

	stats []pageStats // by page position
	// counted[t] == src+1 while AddPage reads src and has counted its
	// link to t: a target counts one inbound link per source.
	counted []int32
	tos     []int32 // AddPage's follow-link targets, kept for reuse
	// prev is what AddPage made of the links of the page before, by
	// position in the page: a menu repeats its links at the same places on
	// every page, and a string compare costs less than a look-up.
	prev []seenLink

	termLinks map[int]map[int]bool // term page → hubs it links to
	// anchorsTo counts in-body links by target and folded anchor, the
	// anchor held as a hash; anchorText keeps the text of those counted
	// often enough that they may come to dominate (dominanceFloor times),
	// so a site's many anchors used once or twice cost no text.
	anchorsTo      map[targetAnchor]int32
	anchorText     map[targetAnchor]string
	dominanceFloor int32
	seed           maphash.Seed
	// folded caches the folded anchor (and its hash) of link texts: a
	// menu's texts recur on every page. It is emptied when it reaches
	// maxResolved.
	folded map[string]foldedAnchor

	// graph gathers the follow links between different live pages, a
	// source's to one target once, for the link score: the one part of
	// the audit that holds every link (an int32 each).
	graph   *linkscore.Builder
	livePos []int32 // page position → position among the live pages, the graph's, -1 not live
	// scores are the live pages' link scores, highest first, once worked
	// out (nil before); scoreOf is each page's scaled score by page
	// position.
	scores  []PageScore
	scoreOf []float64

	broken     []Finding
	unverified []Finding
	redirects  []Finding

	// checks is what HTTP checks found of link targets, by URL (nil: the
	// audit was not asked to verify; links are judged by the pages the
	// site has).
	checks func(url string) (Check, bool)

	// resolved caches the page a link URL points to (-1: no known page):
	// a menu and footer repeat the same URLs on every page, and parsing a
	// URL costs more than the rest of reading its link. It is emptied
	// when it reaches maxResolved, so it stays small whatever the site.
	resolved map[string]int32
}

// pageStats are what AddPage gathers about a page, as int32s: a site of a
// million pages holds a million of them.
type pageStats struct {
	inbound     int32 // other live pages linking to it, any position
	outbound    int32 // other live pages it links to, any position
	bodyInbound int32 // of which outside navigation, header and footer
	inBody      int32 // the page's own in-body internal links
	links       int32 // the page's internal links
	brokenFrom  int32 // broken links on the page
	anchored    int32 // in-body links to it with an anchor text
	linksIn     int32 // internal links to it from live pages, every one, as the link counts projection counts them
	uplink      int32 // for a supporting article: paragraph of its first in-body link to its hub, -1 none
	read        bool  // AddPage was called for it
	crossHub    bool  // for a hub: an in-body link to another cluster's hub
}

type targetAnchor struct {
	target int32
	anchor uint64 // maphash of the folded anchor
}

type seenLink struct {
	url    string
	target int32
	known  bool
	text   string
	folded foldedAnchor
}

type foldedAnchor struct {
	text string
	hash uint64
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

// CheckOutcome is what an HTTP check of a link target found.
type CheckOutcome uint8

const (
	CheckOK         CheckOutcome = iota + 1 // answered 2xx
	CheckRedirect                           // answered 2xx after redirects: the link should name the final URL
	CheckBroken                             // answered 4xx/5xx, or redirected in a loop
	CheckUnverified                         // could not be checked (rate-limited past the budget, timed out, refused)
)

// Check is an HTTP check of a link target.
type Check struct {
	Outcome  CheckOutcome
	Status   int
	FinalURL string
	Reason   string
}

// UseChecks makes the audit judge links by HTTP checks of their targets,
// looked up by the link's URL: a target that answers 4xx/5xx makes the
// link broken, one reached through redirects is reported for updating,
// and one that could not be checked is unverified. A link whose URL was
// not checked is judged by the pages the site has, as without checks.
// It is called before the first AddPage.
func (a *Auditor) UseChecks(checks func(url string) (Check, bool)) { a.checks = checks }

func (a *Auditor) check(u string) (Check, bool) {
	if a.checks == nil {
		return Check{}, false
	}
	return a.checks(u)
}

// checkFinding records the finding a check makes of a link (broken,
// redirecting or unverified; none for ok) and reports whether the link is
// broken.
func (a *Auditor) checkFinding(st *pageStats, pageID, targetID string, l Link, c Check) (broken bool) {
	switch c.Outcome {
	case CheckBroken:
		st.brokenFrom++
		detail := c.Reason
		if c.Status != 0 {
			detail = fmt.Sprintf("its target answers HTTP %d", c.Status)
		}
		a.broken = append(a.broken, Finding{PageID: pageID, TargetID: targetID, URL: l.URL, Anchor: l.Text, Detail: detail})
		return true
	case CheckRedirect:
		a.redirects = append(a.redirects, Finding{PageID: pageID, TargetID: targetID, URL: l.URL, Anchor: l.Text,
			Detail: "points at a redirect; update it to the final URL " + c.FinalURL})
	case CheckUnverified:
		a.unverified = append(a.unverified, Finding{PageID: pageID, TargetID: targetID, URL: l.URL, Anchor: l.Text,
			Detail: "not verified over HTTP: " + c.Reason})
	}
	return false
}

// New starts an audit of the site's pages: every page it knows of, live
// or deleted, so links can be resolved.
func New(st site.Structure, pol policy.Policy, pages []Page) *Auditor {
	n := len(pages)
	a := &Auditor{st: st, pol: pol, pages: pages, index: make(map[string]int32, n), path: make(map[string]int32, n), hubs: map[string]int{},
		stats: make([]pageStats, n), counted: make([]int32, n), termLinks: map[int]map[int]bool{},
		anchorsTo: map[targetAnchor]int32{}, anchorText: map[targetAnchor]string{}, seed: maphash.MakeSeed(),
		dominanceFloor: dominanceFloor(pol), folded: map[string]foldedAnchor{}, livePos: make([]int32, n),
		resolved: map[string]int32{}}
	live := int32(0)
	for i, p := range pages {
		a.livePos[i] = -1
		if p.Live {
			a.livePos[i] = live
			live++
		}
		a.index[p.ID] = int32(i)
		a.stats[i].uplink = -1
		if _, seen := a.hubs[p.ClusterID]; p.Live && p.Kind == site.KindHub && p.ClusterID != "" && !seen {
			a.hubs[p.ClusterID] = i
		}
		key := Path(p.URL)
		// A live page wins its path over a deleted one.
		if j, ok := a.path[key]; !ok || (!pages[j].Live && p.Live) {
			a.path[key] = int32(i)
		}
	}
	a.graph = linkscore.NewBuilder(int(live))
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
	i, ok := a.index[pageID]
	src := int(i)
	if !ok || !a.pages[src].Live {
		return fmt.Errorf("audit: page %q is not a live page of the site", pageID)
	}
	if a.stats[src].read {
		return fmt.Errorf("audit: page %q read twice", pageID)
	}
	if a.scores != nil {
		return fmt.Errorf("audit: page %q read after the report", pageID)
	}
	a.stats[src].read = true
	page := a.pages[src]
	hub := -1
	if page.Kind == site.KindSupporting {
		hub = a.hubOf(page.ClusterID)
	}
	stamp := int32(src) + 1
	a.tos = a.tos[:0]
	st := &a.stats[src]
	if len(a.prev) < len(links) {
		a.prev = append(a.prev, make([]seenLink, len(links)-len(a.prev))...)
	}
	for k, l := range links {
		if l.URL == "" {
			continue
		}
		check, checked := a.check(l.URL)
		if !l.Internal {
			if checked {
				a.checkFinding(st, pageID, "", l, check)
			}
			continue
		}
		seen := &a.prev[k]
		st.links++
		if l.InBody() {
			st.inBody++
		}
		if seen.url != l.URL {
			t, known := a.resolve(l.URL)
			seen.url, seen.target, seen.known = l.URL, int32(t), known
		}
		t, known := int(seen.target), seen.known
		if checked {
			targetID := ""
			if known {
				targetID = a.pages[t].ID
			}
			if a.checkFinding(st, pageID, targetID, l, check) {
				continue
			}
		}
		switch {
		case !known:
			// A path the site's pages do not hold that answers over HTTP
			// is a page not imported, not a finding.
			if !checked {
				a.unverified = append(a.unverified, Finding{PageID: pageID, URL: l.URL, Anchor: l.Text,
					Detail: "links to a path that is no known page"})
			}
			continue
		case !a.pages[t].Live:
			st.brokenFrom++
			a.broken = append(a.broken, Finding{PageID: pageID, TargetID: a.pages[t].ID, URL: l.URL, Anchor: l.Text,
				Detail: "links to a deleted page"})
			continue
		}
		ts := &a.stats[t]
		ts.linksIn++
		if t == src {
			continue // a link to the page itself is not inbound
		}
		if a.counted[t] != stamp {
			a.counted[t] = stamp
			ts.inbound++
			st.outbound++
		}
		if l.Follow {
			a.tos = append(a.tos, a.livePos[t]) // the graph keeps one link per target
		}
		if l.Position != "navigation" && l.Position != "header" && l.Position != "footer" {
			ts.bodyInbound++
		}
		// Dominance counts in-body anchors: a menu or footer repeats its
		// one anchor on every page, which is no over-optimised anchor text.
		if l.InBody() {
			if seen.text != l.Text { // a zero seenLink holds "" folded, as it should
				seen.text, seen.folded = l.Text, a.fold(l.Text)
			}
			if f := seen.folded; f.text != "" {
				ts.anchored++
				key := targetAnchor{int32(t), f.hash}
				a.anchorsTo[key]++
				if a.anchorsTo[key] == a.dominanceFloor {
					a.anchorText[key] = f.text
				}
			}
		}
		target := a.pages[t]
		if t == hub && l.InBody() && (st.uplink < 0 || (l.Paragraph > 0 && int32(l.Paragraph) < st.uplink)) {
			st.uplink = int32(l.Paragraph)
		}
		if page.Kind == site.KindHub && target.Kind == site.KindHub && target.ClusterID != page.ClusterID && l.InBody() {
			st.crossHub = true
		}
		if page.Kind == site.KindTerm && target.Kind == site.KindHub {
			if a.termLinks[src] == nil {
				a.termLinks[src] = map[int]bool{}
			}
			a.termLinks[src][t] = true
		}
	}
	if err := a.graph.Links(a.livePos[src], a.tos); err != nil {
		return fmt.Errorf("audit: links of page %q: %w", pageID, err)
	}
	return nil
}

// fold is anchors.Normalize of a link's text and its hash, cached.
func (a *Auditor) fold(text string) foldedAnchor {
	if f, ok := a.folded[text]; ok {
		return f
	}
	f := foldedAnchor{text: anchors.Normalize(text)}
	f.hash = maphash.String(a.seed, f.text)
	if len(a.folded) >= maxResolved {
		clear(a.folded)
	}
	a.folded[text] = f
	return f
}

// dominanceFloor is the fewest links one anchor of a target can have and
// dominate it: more than anchor_dominance_flag_share of at least
// anchor_dominance_min_inbound links.
func dominanceFloor(pol policy.Policy) int32 {
	floor := int32(math.Floor(float64(pol.AnchorDominanceMinInbound)*pol.AnchorDominanceFlagShare)) + 1
	return max(floor, 1)
}

// resolve finds the page a link URL points to by its path.
func (a *Auditor) resolve(u string) (int, bool) {
	if i, ok := a.resolved[u]; ok {
		return int(i), i >= 0
	}
	i, ok := a.path[Path(u)]
	if !ok {
		i = -1
	}
	if len(a.resolved) >= maxResolved {
		clear(a.resolved)
	}
	a.resolved[u] = i
	return int(i), ok
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
	Redirects          []Finding // links whose target answered through redirects
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

// linkScores ranks the live pages over the follow links between them,
// once: the graph's links are let go after.
func (a *Auditor) linkScores() []PageScore {
	if a.scores != nil {
		return a.scores
	}
	ranks := linkscore.PageRank(a.graph.Graph()).Ranks
	a.graph = nil
	scaled := linkscore.Scaled(ranks)
	a.scores = make([]PageScore, 0, len(ranks))
	a.scoreOf = make([]float64, len(a.pages))
	for i, p := range a.pages {
		if l := a.livePos[i]; l >= 0 {
			a.scores = append(a.scores, PageScore{PageID: p.ID, Rank: ranks[l], Score: scaled[l]})
			a.scoreOf[i] = scaled[l]
		}
	}
	sort.SliceStable(a.scores, func(i, j int) bool {
		if a.scores[i].Rank != a.scores[j].Rank {
			return a.scores[i].Rank > a.scores[j].Rank
		}
		return a.scores[i].PageID < a.scores[j].PageID
	})
	return a.scores
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
	inScope := func(i int32) bool { return clusterID == "" || a.pages[i].ClusterID == clusterID }
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
	for _, f := range a.redirects {
		if inScope(a.index[f.PageID]) {
			r.Redirects = append(r.Redirects, f)
		}
	}
	dominant := a.dominantAnchors()
	for i, p := range a.pages {
		if !p.Live || !inScope(int32(i)) {
			continue
		}
		st := a.stats[i]
		r.Pages++
		r.TotalLinks += int(st.links)
		if p.Kind != site.KindHome {
			switch {
			case st.inbound == 0:
				r.Orphans = append(r.Orphans, p.ID)
			case st.bodyInbound == 0:
				r.NavigationOnly = append(r.NavigationOnly, p.ID)
			}
		}
		if p.Kind == site.KindSupporting && a.hubOf(p.ClusterID) >= 0 {
			switch {
			case st.uplink < 0:
				r.MissingMandatory = append(r.MissingMandatory, p.ID)
			case st.uplink == 0 || st.uplink > 2:
				r.UplinkOutsideFirst = append(r.UplinkOutsideFirst, p.ID)
			}
		}
		if rng, ok := a.densityRange(p); ok {
			inBody := int(st.inBody)
			switch {
			case rng.Max > 0 && inBody > rng.Max:
				r.OverLinked = append(r.OverLinked, Finding{PageID: p.ID, Count: inBody, Limit: rng.Max,
					Detail: fmt.Sprintf("%d in-body links, over the maximum of %d for a %s page of %d words", inBody, rng.Max, p.Kind, p.WordCount)})
			case inBody < rng.Min:
				r.UnderLinked = append(r.UnderLinked, Finding{PageID: p.ID, Count: inBody, Limit: rng.Min,
					Detail: fmt.Sprintf("%d in-body links, under the minimum of %d for a %s page of %d words", inBody, rng.Min, p.Kind, p.WordCount)})
			}
		}
		if f, ok := dominant[int32(i)]; ok {
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
	scores := a.linkScores()
	if clusterID == "" {
		r.LinkScores = scores
		return r, nil
	}
	for _, s := range scores {
		if inScope(a.index[s.PageID]) {
			r.LinkScores = append(r.LinkScores, s)
		}
	}
	return r, nil
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

// dominantAnchors are the targets at least anchor_dominance_min_inbound
// in-body links point to, one exact anchor of which carries more than
// anchor_dominance_flag_share of them; where two anchors do, the one that
// sorts first.
func (a *Auditor) dominantAnchors() map[int32]Finding {
	out := map[int32]Finding{}
	for key, n := range a.anchorsTo {
		if n < a.dominanceFloor {
			continue
		}
		links := a.stats[key.target].anchored
		if int(links) < a.pol.AnchorDominanceMinInbound {
			continue
		}
		share := float64(n) / float64(links)
		if share <= a.pol.AnchorDominanceFlagShare {
			continue
		}
		text := a.anchorText[key]
		if f, ok := out[key.target]; ok && f.Anchor < text {
			continue
		}
		out[key.target] = Finding{PageID: a.pages[key.target].ID, Anchor: text, Count: int(n), Limit: int(links),
			Detail: fmt.Sprintf("%q carries %d of its %d inbound links (%.0f%%, over %.0f%%)",
				text, n, links, 100*share, 100*a.pol.AnchorDominanceFlagShare)}
	}
	return out
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
	if hub >= 0 && a.stats[hub].inbound > 0 && a.stats[hub].outbound > 0 {
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
			if hub < 0 || a.stats[i].uplink < 0 {
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

	if hub >= 0 && a.stats[hub].crossHub {
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
		broken += int(a.stats[i].brokenFrom)
	}
	if broken == 0 {
		h.Score += pointsNoBroken
	} else {
		h.Issues = append(h.Issues, fmt.Sprintf("%d broken link(s) on the cluster's pages", broken))
	}

	outOfRange := 0
	for _, i := range members {
		inBody := int(a.stats[i].inBody)
		if rng, ok := a.densityRange(a.pages[i]); ok && ((rng.Max > 0 && inBody > rng.Max) || inBody < rng.Min) {
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

// Page is a page of the site by id; false for one the audit does not know.
func (a *Auditor) Page(id string) (Page, bool) {
	i, ok := a.index[id]
	if !ok {
		return Page{}, false
	}
	return a.pages[i], true
}

// LinkScore is a live page's link score (0–100) once the report is made;
// 0 before, and for a page that is not live.
func (a *Auditor) LinkScore(id string) float64 {
	i, ok := a.index[id]
	if !ok || a.scoreOf == nil {
		return 0
	}
	return a.scoreOf[i]
}

// LinksIn is how many internal links of the live pages read point to a
// page, every one counted: the planner's inbound figure for the page as of
// the audit's snapshot (the live link counts it projects otherwise catch
// up a moment after a page is published).
func (a *Auditor) LinksIn(id string) int {
	if i, ok := a.index[id]; ok {
		return int(a.stats[i].linksIn)
	}
	return 0
}

// Hub is the live hub of a cluster, "" when it has none.
func (a *Auditor) Hub(clusterID string) string {
	if i := a.hubOf(clusterID); i >= 0 {
		return a.pages[i].ID
	}
	return ""
}
