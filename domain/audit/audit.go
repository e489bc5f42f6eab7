// Package audit holds the definitions of existing-content mode's audit: what
// makes a page an orphan, over- or under-linked, missing its mandatory
// uplink, what makes a link broken or unverified and an anchor dominant,
// and how a cluster's link health is scored. It reads a site's pages and
// the links found in their live HTML; it does no I/O of its own.
//
// The figures are gathered as links are read, a page's at a time:
//
//	a := audit.New(structure, policy, spills)
//	for each page, live or not: a.Know(page)
//	for each live page: a.AddPage(pageID, itsLinks)
//	report, err := a.Report()
//
// Memory follows the number of pages, at a few dozen bytes a page besides
// its id (pageTable, pageStats), and never the number of links: the link
// graph the link score needs and the in-body anchors dominance counts go
// to spills (spill.Store; temporary files in the service), which are read
// back a round or a range of pages at a time.
package audit

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"iter"
	"math"
	"slices"

	"github.com/interlinker/interlinker/domain/spill"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/linkscore"
	"github.com/interlinker/interlinker/domain/markup"
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
	Values    []string // its attribute values as attribute=value (site.Structure.Facets); read of term pages only
	WordCount int
	// Live: published and not deleted. A deleted page is kept so links
	// to it are known to be broken.
	Live bool
	// NoIndex: its HTML asks search engines not to index it
	// (markup.NoIndex), so it is owed no links: never an orphan.
	NoIndex bool
}

// Link is an <a href> found in a live page's HTML (markup.Links).
type Link struct {
	URL       string // resolved against the page (and its <base>); "" when it could not be
	Internal  bool   // on the site's host
	Follow    bool   // no rel=nofollow
	Position  string // content, navigation, header, footer, aside, comments or comments
	InBlock   string // the generated block it is in, if any
	Paragraph int    // 1-based content paragraph, 0 outside any
	Text      string // visible anchor text
}

// InBody reports whether a link is in the page's own text: outside the
// navigation, header, footer and asides, and outside generated blocks.
func (l Link) InBody() bool { return l.Position == "content" && l.InBlock == "" }

// InTemplate reports whether a link is in the site's navigation, header or
// footer: the chrome its theme repeats on every page, which a fix changes
// alike on every page or not at all.
func (l Link) InTemplate() bool {
	return l.Position == "navigation" || l.Position == "header" || l.Position == "footer"
}

// Auditor gathers a site's figures from its pages' links.
type Auditor struct {
	st     site.Structure
	pol    policy.Policy
	spills spill.Store

	pages  pageTable
	sealed bool
	// sealErr is why the audit could not start reading links.
	sealErr error
	hubs    map[string]int32 // cluster id → its live hub's position

	stats []pageStats // by page position
	// linksIn are the internal links to each page from live pages, every
	// one, as the link counts projection counts them; inBody each page's
	// own in-body internal links. A byte each: a page with 255 links or
	// more is a menu's target or a big cluster's hub, a few in a hundred
	// at most, and costs a map entry (narrow) where a second byte for
	// every page would cost more.
	linksIn narrow[uint8]
	inBody  narrow[uint8]
	// listed are the links in the generated list of each page that links
	// by one (planning.LinksByList), for the pages that have any: few.
	listed map[int32]int32
	// sums are clusterLinks by cluster (pageTable.cluster), and of the
	// pages of no cluster at [len(clusters)].
	sums []clusterLinks
	// tos are AddPage's follow links to other live pages, kept for reuse.
	tos []int32
	// prev is what AddPage made of the links of the page before, by
	// position in the page: a menu repeats its links at the same places on
	// every page, and a string compare costs less than a look-up.
	prev []seenLink

	termLinks map[int32]map[int32]bool // term page → hubs it links to in its body or its list
	// anchors counts in-body links with an anchor text by target and
	// folded anchor, spilled (anchorCounts).
	anchors        *anchorCounts
	dominanceFloor int32
	seed           maphash.Seed
	// folded caches the folded anchor (and its hash) of link texts: a
	// menu's texts recur on every page. It is emptied when it reaches
	// maxResolved.
	folded map[string]foldedAnchor

	// graph gathers the follow links between different live pages, a
	// source's to one target once, for the link score, in a spill: the
	// one part of the audit that sees every link.
	graph *linkscore.Builder
	// ranks are the live pages' PageRank by live position once worked
	// out (nil before), and scale puts one on 0–100.
	ranked bool
	ranks  []float64
	scale  func(rank float64) float64
	// rankErr is why the ranks could not be worked out. The link graph is
	// let go as they are made, so every later report gives the same error.
	rankErr error

	broken     []Finding
	unverified []Finding
	// duplicates are in-body links to a target a page links in its body
	// already (no_duplicate_links), a finding a page and target;
	// overCap the pages with more in-body sibling links than
	// link_type_caps allows. onPage counts the page being read's in-body
	// links by target, for both.
	duplicates []Finding
	overCap    []Finding
	// overCross are the hubs linking more other clusters' hubs in their
	// body than link_type_caps allows.
	overCross []Finding
	// crossings are the in-body links that leave their page's silo, under
	// silo (validation's silo_integrity).
	crossings []Finding
	onPage    map[int32]int32
	redirects []Finding

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

// pageStats are what AddPage gathers about a page besides its counts
// (Auditor.linksIn, Auditor.inBody), in a byte: a site of a million pages
// holds a million of them. What is only ever summed (a page's links, its
// broken links) is summed by cluster instead (clusterLinks).
type pageStats struct {
	flags pageFlags
}

type pageFlags uint8

const (
	flagRead       pageFlags = 1 << iota // AddPage was called for it
	flagCrossHub                         // for a hub: an in-body link to another cluster's hub
	flagLinksOut                         // it links to another live page, any position
	flagBodyLinked                       // a live page links to it outside navigation, header and footer
	flagLinkedIn                         // another live page links to it, any position: it is no orphan

	// The last two bits are where the best in-body link to its hub is,
	// for a page that must link up to it (uplinkAt): the audit asks only
	// whether one is in paragraphs 1–2, elsewhere, or nowhere.
	uplinkShift = 5
	uplinkBits  = pageFlags(3) << uplinkShift
)

// uplinkAt is where the uplink of a page that must link up to its hub
// (Auditor.needsUplink) is, the better the higher: a link in paragraphs
// 1–2 is what the seeds ask for, one elsewhere in the body (past
// paragraph 2, or in no paragraph) is a lesser finding, none is missing
// mandatory.
type uplinkAt uint8

const (
	uplinkNone uplinkAt = iota
	uplinkOutsideFirst
	uplinkInFirst
)

// uplinkAtParagraph is where an uplink in paragraph para (0: in no
// paragraph) is.
func uplinkAtParagraph(para int) uplinkAt {
	if InOpening(para) {
		return uplinkInFirst
	}
	return uplinkOutsideFirst
}

// InOpening reports whether paragraph para (0: in no paragraph) is one of
// the first two, where the audit looks for a page's uplink.
func InOpening(para int) bool { return para == 1 || para == 2 }

func (s *pageStats) uplink() uplinkAt { return uplinkAt((s.flags & uplinkBits) >> uplinkShift) }

// noteUplink keeps the best uplink seen.
func (s *pageStats) noteUplink(at uplinkAt) {
	if at > s.uplink() {
		s.flags = s.flags&^uplinkBits | pageFlags(at)<<uplinkShift
	}
}

func (s *pageStats) has(f pageFlags) bool { return s.flags&f != 0 }

// clusterLinks are the sums of a cluster's pages: their internal links,
// their broken links, and under the silo policy the pages with an in-body
// link across their silo.
type clusterLinks struct {
	links, broken, crossing int
}

type seenLink struct {
	url    string
	target int32 // -1: no known page
	text   string
	folded foldedAnchor
}

type foldedAnchor struct {
	text string
	hash uint64
}

const maxResolved = 1 << 12

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
	// FinalURL is where a redirected link's target ends up.
	FinalURL string
	// InTemplate reports whether the link is in the navigation, header or
	// footer (Link.InTemplate).
	InTemplate bool
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

// DeletedTargetDetail is the detail of a broken link whose target page the
// site deleted.
const DeletedTargetDetail = "links to a deleted page"

// checkFinding records the finding a check makes of a link (broken,
// redirecting or unverified; none for ok) and reports whether the link is
// broken.
func (a *Auditor) checkFinding(sums *clusterLinks, pageID, targetID string, l Link, c Check) (broken bool) {
	switch c.Outcome {
	case CheckBroken:
		sums.broken++
		detail := c.Reason
		if c.Status != 0 {
			detail = fmt.Sprintf("its target answers HTTP %d", c.Status)
		}
		a.broken = append(a.broken, Finding{PageID: pageID, TargetID: targetID, URL: l.URL, Anchor: l.Text, Detail: detail,
			InTemplate: l.InTemplate()})
		return true
	case CheckRedirect:
		a.redirects = append(a.redirects, Finding{PageID: pageID, TargetID: targetID, URL: l.URL, Anchor: l.Text,
			Detail: "points at a redirect; update it to the final URL " + c.FinalURL, FinalURL: c.FinalURL, InTemplate: l.InTemplate()})
	case CheckUnverified:
		a.unverified = append(a.unverified, Finding{PageID: pageID, TargetID: targetID, URL: l.URL, Anchor: l.Text,
			Detail: "not verified over HTTP: " + c.Reason, InTemplate: l.InTemplate()})
	}
	return false
}

// New starts an audit of a site. Its pages are given with Know, every
// page it has, live or deleted, so links can be resolved; then each live
// page's links with AddPage, then Report. What outgrows memory on a large
// site (the link graph, the anchors) goes to spills made by spills.
func New(st site.Structure, pol policy.Policy, spills spill.Store) *Auditor {
	return &Auditor{st: st, pol: pol, spills: spills, pages: newPageTable(), hubs: map[string]int32{},
		termLinks: map[int32]map[int32]bool{}, anchors: newAnchorCounts(spills), seed: maphash.MakeSeed(),
		dominanceFloor: dominanceFloor(pol), folded: map[string]foldedAnchor{}, resolved: map[string]int32{}}
}

// Know adds a page of the site, before the first AddPage.
func (a *Auditor) Know(p Page) error {
	if a.sealed {
		return fmt.Errorf("audit: page %q given after the links were read", p.ID)
	}
	i := int32(a.pages.len())
	a.pages.add(p)
	if _, seen := a.hubs[p.ClusterID]; p.Live && p.Kind == site.KindHub && p.ClusterID != "" && !seen {
		a.hubs[p.ClusterID] = i
	}
	return nil
}

// Grow makes room for n more pages: a caller that knows how many pages
// are coming spares the audit the copies of growing its columns.
func (a *Auditor) Grow(n int) {
	if n > 0 && !a.sealed {
		a.pages.grow(n)
	}
}

// seal indexes the pages known, once, before the first links are read.
func (a *Auditor) seal() error {
	if a.sealed {
		return a.sealErr
	}
	a.sealed = true
	words, err := a.spills.New()
	if err != nil {
		a.sealErr = fmt.Errorf("audit: spill the word counts: %w", err)
		return a.sealErr
	}
	if err := a.pages.setWordsAside(words); err != nil {
		a.sealErr = err
		return a.sealErr
	}
	a.pages.seal()
	n := a.pages.len()
	a.stats = make([]pageStats, n)
	a.linksIn.v = make([]uint8, n)
	a.inBody.v = make([]uint8, n)
	a.sums = make([]clusterLinks, len(a.pages.clusters)+1)
	live := a.pages.live.count()
	s, err := a.spills.New()
	if err != nil {
		a.sealErr = fmt.Errorf("audit: spill the link graph: %w", err)
		return a.sealErr
	}
	a.graph = linkscore.NewBuilder(int(live), s)
	return nil
}

// needsUplink reports whether a page of the kind in the cluster must link
// up to the cluster's hub, by the planner's rule (planning.NeedsUplink):
// under SAG a supporting article, under the silo policy every child
// (planning.SiloChild), products and services included.
func (a *Auditor) needsUplink(kind site.Kind, clusterID string) bool {
	return planning.NeedsUplink(a.pol.Name, site.Page{Kind: kind, ClusterID: clusterID})
}

// hubOf is the live hub of a cluster, -1 when it has none.
func (a *Auditor) hubOf(clusterID string) int32 {
	if i, ok := a.hubs[clusterID]; ok {
		return i
	}
	return -1
}

// sumsOf is the clusterLinks page i adds to.
func (a *Auditor) sumsOf(i int32) *clusterLinks {
	if c := a.pages.clusterIndex(i); c >= 0 {
		return &a.sums[c]
	}
	return &a.sums[len(a.pages.clusters)]
}

// AddPage reads the links of a live page. Each page is read once.
func (a *Auditor) AddPage(pageID string, links []Link) error {
	if err := a.seal(); err != nil {
		return err
	}
	src := a.pages.find(pageID)
	if src < 0 || !a.pages.live.has(src) {
		return fmt.Errorf("audit: page %q is not a live page of the site", pageID)
	}
	if a.stats[src].has(flagRead) {
		return fmt.Errorf("audit: page %q read twice", pageID)
	}
	if a.ranked || a.rankErr != nil {
		return fmt.Errorf("audit: page %q read after the report", pageID)
	}
	a.stats[src].flags |= flagRead
	kind, cluster := a.pages.kindOf(src), a.pages.clusterOf(src)
	hub := int32(-1)
	if a.needsUplink(kind, cluster) {
		hub = a.hubOf(cluster)
	}
	a.tos = a.tos[:0]
	if a.onPage == nil {
		a.onPage = map[int32]int32{}
	}
	clear(a.onPage)
	var firstTo []Link // the first in-body link to each target, in order
	var firstAt []int32
	siblings, crossHubs := 0, 0
	inBody, listed, linksOut, crosses := 0, 0, false, false
	silo := a.pol.Name == policy.Silo
	byList := planning.LinksByList(kind)
	st := &a.stats[src]
	sums := a.sumsOf(src)
	if len(a.prev) < len(links) {
		a.prev = append(a.prev, make([]seenLink, len(links)-len(a.prev))...)
	}
	for k, l := range links {
		if l.URL == "" {
			continue
		}
		check, checked := a.check(l.URL)
		if !l.Internal || markup.IsFileURL(l.URL) { // a file is no page: only its HTTP check counts
			if checked {
				a.checkFinding(sums, pageID, "", l, check)
			}
			continue
		}
		seen := &a.prev[k]
		sums.links++
		if l.InBody() {
			inBody++
		}
		if byList && l.InBlock == markup.BlockRelatedArticles {
			listed++
		}
		if seen.url != l.URL {
			seen.url, seen.target = l.URL, a.resolve(l.URL)
		}
		t := seen.target
		if checked {
			targetID := ""
			if t >= 0 {
				targetID = a.pages.id(t)
			}
			if a.checkFinding(sums, pageID, targetID, l, check) {
				continue
			}
		}
		switch {
		case t < 0:
			// A path the site's pages do not hold that answers over HTTP
			// is a page not imported, not a finding.
			if !checked {
				a.unverified = append(a.unverified, Finding{PageID: pageID, URL: l.URL, Anchor: l.Text,
					Detail: "links to a path that is no known page", InTemplate: l.InTemplate()})
			}
			continue
		case !a.pages.live.has(t):
			sums.broken++
			a.broken = append(a.broken, Finding{PageID: pageID, TargetID: a.pages.id(t), URL: l.URL, Anchor: l.Text,
				Detail: DeletedTargetDetail, InTemplate: l.InTemplate()})
			continue
		}
		ts := &a.stats[t]
		a.linksIn.inc(t)
		if t == src {
			// A link to the page itself is not inbound, and no link of the
			// page's density: a camera trial's article with a self-link
			// beside its uplink was not reported under its minimum of 2.
			if l.InBody() {
				inBody--
			}
			continue
		}
		ts.flags |= flagLinkedIn
		linksOut = true
		if l.Follow {
			a.tos = append(a.tos, a.pages.live.pos(t)) // the graph keeps one link per target
		}
		if !l.InTemplate() {
			ts.flags |= flagBodyLinked
		}
		// Dominance counts in-body anchors: a menu or footer repeats its
		// one anchor on every page, which is no over-optimised anchor text.
		if l.InBody() {
			if seen.text != l.Text { // a zero seenLink holds "" folded, as it should
				seen.text, seen.folded = l.Text, a.fold(l.Text)
			}
			if f := seen.folded; f.text != "" {
				if err := a.anchors.add(t, f); err != nil {
					return err
				}
			}
		}
		tkind := a.pages.kindOf(t)
		if l.InBody() {
			if a.onPage[t] == 0 {
				firstTo, firstAt = append(firstTo, l), append(firstAt, t)
				if a.sibling(kind, cluster, tkind, a.pages.clusterOf(t)) {
					siblings++
				}
				if kind == site.KindHub && tkind == site.KindHub && a.pages.clusterIndex(t) != a.pages.clusterIndex(src) {
					crossHubs++
				}
			}
			a.onPage[t]++
		}
		if t == hub && l.InBody() {
			st.noteUplink(uplinkAtParagraph(l.Paragraph))
		}
		if kind == site.KindHub && tkind == site.KindHub && a.pages.clusterIndex(t) != a.pages.clusterIndex(src) && l.InBody() {
			st.flags |= flagCrossHub
		}
		// Silo integrity as validation's silo_integrity judges a link: its
		// target is in the page's silo when both are in one cluster or
		// both outside any, or the link is the home or a sector page's
		// way into a silo from above (planning.EntersSilo).
		if silo && l.InBody() && a.pages.clusterIndex(t) != a.pages.clusterIndex(src) && !planning.EntersSilo(kind, tkind) {
			crosses = true
			a.crossings = append(a.crossings, Finding{PageID: pageID, TargetID: a.pages.id(t), URL: l.URL, Anchor: l.Text,
				Detail: fmt.Sprintf("links %s, %s, from %s: the link leaves its silo (silo_integrity)",
					a.pages.id(t), inCluster(a.pages.clusterOf(t)), inCluster(cluster))})
		}
		// A term page links its hubs in its text or by its generated list
		// (planning.LinksByList), as the other factors ask for in-body
		// links: a menu linking the hub from every page is no term page
		// linking it.
		if kind == site.KindTerm && tkind == site.KindHub && (l.InBody() || byList && l.InBlock == markup.BlockRelatedArticles) {
			if a.termLinks[src] == nil {
				a.termLinks[src] = map[int32]bool{}
			}
			a.termLinks[src][t] = true
		}
	}
	for k, l := range firstTo {
		if n := a.onPage[firstAt[k]]; n > 1 && !listsEntries(kind) {
			a.duplicates = append(a.duplicates, Finding{PageID: pageID, TargetID: a.pages.id(firstAt[k]), URL: l.URL, Anchor: l.Text,
				Count: int(n), Limit: 1, Detail: fmt.Sprintf("links %s %d times in its body (no_duplicate_links)", a.pages.id(firstAt[k]), n)})
		}
	}
	if a.pol.Name == policy.SAG && siblings > a.pol.MaxSiblingLinks {
		a.overCap = append(a.overCap, Finding{PageID: pageID, Count: siblings, Limit: a.pol.MaxSiblingLinks,
			Detail: fmt.Sprintf("links %d sibling pages in its body, over the cap of %d (link_type_caps, max_sibling_links)", siblings, a.pol.MaxSiblingLinks)})
	}
	// A gardening trial's hub linked 9 other hubs; the fix left 4, and
	// the fixed page failed validation's link_type_caps on them.
	if a.pol.Name == policy.SAG && crossHubs > a.pol.MaxCrossClusterPerHub {
		a.overCross = append(a.overCross, Finding{PageID: pageID, Count: crossHubs, Limit: a.pol.MaxCrossClusterPerHub,
			Detail: fmt.Sprintf("links %d other clusters' hubs in its body, over the cap of %d (link_type_caps, max_cross_cluster_per_hub)",
				crossHubs, a.pol.MaxCrossClusterPerHub)})
	}
	if linksOut {
		st.flags |= flagLinksOut
	}
	if crosses {
		sums.crossing++
	}
	a.inBody.set(src, int32(min(inBody, 1<<31-1)))
	if listed > 0 {
		if a.listed == nil {
			a.listed = map[int32]int32{}
		}
		a.listed[src] = int32(min(listed, 1<<31-1))
	}
	if err := a.graph.Links(a.pages.live.pos(src), a.tos); err != nil {
		return fmt.Errorf("audit: links of page %q: %w", pageID, err)
	}
	return nil
}

// sibling reports whether a link from a page of one kind and cluster to
// one of another is a sibling (horizontal) link, as validation types it
// (planning.Relation) for link_type_caps.
func (a *Auditor) sibling(kind site.Kind, cluster string, tkind site.Kind, tcluster string) bool {
	return planning.Relation(site.Page{Kind: kind, ClusterID: cluster}, site.Page{Kind: tkind, ClusterID: tcluster}) == link.TypeHorizontal
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
	if pol.MaxExactAnchorPerTarget > 0 {
		// An anchor over the exact-anchor cap is flagged at any share.
		floor = min(floor, int32(pol.MaxExactAnchorPerTarget)+1)
	}
	return max(floor, 1)
}

// resolve finds the page a link URL points to by its path, -1 for none.
func (a *Auditor) resolve(u string) int32 {
	if i, ok := a.resolved[u]; ok {
		return i
	}
	i := a.pages.atPath(markup.PagePath(u))
	if len(a.resolved) >= maxResolved {
		clear(a.resolved)
	}
	a.resolved[u] = i
	return i
}

// Report is the audit's figures and findings.
type Report struct {
	Pages              int
	TotalLinks         int
	Orphans            []string // live pages, home and noindex pages aside, no other live page links to
	NavigationOnly     []string // linked to only from navigation, header or footer
	MissingMandatory   []string // pages that must link their live hub (planning.NeedsUplink) and have no in-body link to it
	UplinkOutsideFirst []string // such pages whose uplink is only past paragraph 2
	OverLinked         []Finding
	UnderLinked        []Finding
	Broken             []Finding
	// Duplicates are a page's in-body links to a target it links in its
	// body more than once (validation's no_duplicate_links), a finding a
	// page and target, with the first link's URL and text and the count.
	Duplicates []Finding
	// OverCap are the pages with more in-body sibling links than
	// link_type_caps allows (Policy.MaxSiblingLinks; SAG only).
	OverCap []Finding
	// CrossClusterOverCap are the hubs linking more other clusters' hubs
	// in their body than link_type_caps allows
	// (Policy.MaxCrossClusterPerHub; SAG only).
	CrossClusterOverCap []Finding
	// SiloCrossings are the in-body links that leave their page's silo
	// (validation's silo_integrity; silo only), a finding a link.
	SiloCrossings   []Finding
	Unverified      []Finding
	Redirects       []Finding // links whose target answered through redirects
	DominantAnchors []Finding
	Clusters        map[string]ClusterHealth
	// Health is the mean of the clusters' scores; 0 for a site without
	// clusters.
	Health float64
	// LinkScores are the TopLinkScores highest of the live pages' link
	// scores, highest first; Auditor.EachLinkScore gives them all.
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
// once.
func (a *Auditor) linkScores() error {
	if a.ranked {
		return nil
	}
	if err := a.seal(); err != nil {
		return err
	}
	if a.rankErr == nil {
		a.rankErr = a.rank()
	}
	return a.rankErr
}

// rank works out the ranks from the link graph, which it lets go.
func (a *Auditor) rank() error {
	g, err := a.graph.Graph()
	if err != nil {
		return fmt.Errorf("audit: link graph: %w", err)
	}
	// No page is read after this: what AddPage kept for the next page
	// goes before the ranks are made, and the path index waits in a spill
	// while they are, so that the ranks' two float64s a page are not held
	// beside it.
	a.graph, a.folded, a.resolved, a.prev, a.tos = nil, nil, nil, nil, nil
	paths, err := a.spills.New()
	if err != nil {
		return fmt.Errorf("audit: spill the path index: %w", err)
	}
	if err := a.pages.setPathsAside(paths); err != nil {
		return err
	}
	res, err := linkscore.PageRank(g)
	if err != nil {
		return fmt.Errorf("audit: link scores: %w", err)
	}
	if err := a.pages.takePathsBack(paths); err != nil {
		return err
	}
	a.ranked, a.ranks = true, res.Ranks
	a.scale = linkscore.ScaleOf(a.ranks)
	return nil
}

// scoreOrder orders live pages by link score, highest first, then by id.
// It holds only the columns it reads, so LinkScores can outlive the rest
// of the audit.
type scoreOrder struct {
	ids     idColumn
	byID    []int32 // the pages in id order; nil when they are in it
	cluster packed
	live    liveSet
	ranks   []float64
	scale   func(rank float64) float64
	want    int32 // the cluster's index, -1 for every page
	none    bool  // no scores: none worked out, or an unknown cluster
}

func (a *Auditor) scoreOrder(clusterID string) scoreOrder {
	o := scoreOrder{ids: a.pages.ids, byID: a.pages.byID, cluster: a.pages.cluster, live: a.pages.live, ranks: a.ranks, scale: a.scale,
		want: -1, none: !a.ranked}
	if clusterID != "" {
		o.want = int32(slices.Index(a.pages.clusters, clusterID))
		o.none = o.none || o.want < 0
	}
	return o
}

// pages are the live pages it orders, in page order.
func (o scoreOrder) pages(yield func(int32) bool) {
	if o.none {
		return
	}
	for i := range int32(o.ids.len()) {
		if o.live.has(i) && (o.want < 0 || int32(o.cluster.at(int(i)))-1 == o.want) && !yield(i) {
			return
		}
	}
}

func (o scoreOrder) rank(i int32) float64 { return o.ranks[o.live.pos(i)] }

// compare orders pages i and j: higher rank first, then lower id.
func (o scoreOrder) compare(i, j int32) int {
	if c := cmp.Compare(o.rank(j), o.rank(i)); c != 0 {
		return c
	}
	return compareIDs(&o.ids, o.byID, i, j)
}

func (o scoreOrder) score(i int32) PageScore {
	r := o.rank(i)
	return PageScore{PageID: o.ids.id(i), Rank: r, Score: o.scale(r)}
}

// top are the first k pages, kept in order as they are found: the report
// lists them without ordering every page.
func (o scoreOrder) top(k int) []PageScore {
	if k <= 0 {
		return nil
	}
	best := make([]int32, 0, k+1)
	for i := range o.pages {
		if len(best) == k && o.compare(i, best[k-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, i, o.compare)
		best = slices.Insert(best, at, i)
		if len(best) > k {
			best = best[:k]
		}
	}
	var scores []PageScore
	for _, i := range best {
		scores = append(scores, o.score(i))
	}
	return scores
}

// TopLinkScores is how many link scores a Report lists; LinkScores gives
// them all.
const TopLinkScores = 100

// LinkScores are the link scores of the live pages of the cluster ("" for
// the whole site), highest first, once the report is made: none before.
//
// The sequence holds only what it reads (ids, clusters, ranks), not the
// Auditor: a caller that drops the Auditor once it has its report frees
// the rest of the audit while the scores are streamed.
func (a *Auditor) LinkScores(clusterID string) iter.Seq[PageScore] {
	o := a.scoreOrder(clusterID)
	return func(yield func(PageScore) bool) {
		// Ordered as they are streamed, not before: the order's four bytes
		// a page are not held alongside the report's columns.
		order := slices.Collect(o.pages)
		slices.SortFunc(order, o.compare)
		for _, i := range order {
			if !yield(o.score(i)) {
				return
			}
		}
	}
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

// clusterTally is what a cluster's health is scored from, gathered in one
// pass over the pages.
type clusterTally struct {
	articles, withoutUplink, broken, crossing, outOfRange int
}

// ReportFor works out the figures of one cluster's pages ("" for the whole
// site). Links from anywhere on the site count towards them: a cluster's
// page linked only from another cluster is not an orphan.
func (a *Auditor) ReportFor(clusterID string) (Report, error) {
	if clusterID != "" {
		if _, ok := a.st.Cluster(clusterID); !ok {
			return Report{}, fmt.Errorf("audit: unknown cluster %q", clusterID)
		}
	}
	if err := a.linkScores(); err != nil {
		return Report{}, err
	}
	if err := a.pages.takeWordsBack(); err != nil {
		return Report{}, err
	}
	inScope := func(pageID string) bool {
		return clusterID == "" || a.pages.clusterOf(a.pages.find(pageID)) == clusterID
	}
	r := Report{Clusters: map[string]ClusterHealth{}}
	for _, f := range a.broken {
		if inScope(f.PageID) {
			r.Broken = append(r.Broken, f)
		}
	}
	for _, f := range a.duplicates {
		if inScope(f.PageID) {
			r.Duplicates = append(r.Duplicates, f)
		}
	}
	for _, f := range a.overCap {
		if inScope(f.PageID) {
			r.OverCap = append(r.OverCap, f)
		}
	}
	for _, f := range a.overCross {
		if inScope(f.PageID) {
			r.CrossClusterOverCap = append(r.CrossClusterOverCap, f)
		}
	}
	for _, f := range a.crossings {
		if inScope(f.PageID) {
			r.SiloCrossings = append(r.SiloCrossings, f)
		}
	}
	for _, f := range a.unverified {
		if inScope(f.PageID) {
			r.Unverified = append(r.Unverified, f)
		}
	}
	for _, f := range a.redirects {
		if inScope(f.PageID) {
			r.Redirects = append(r.Redirects, f)
		}
	}
	dominant, err := a.dominantAnchors()
	if err != nil {
		return Report{}, err
	}
	tallies := make([]clusterTally, len(a.pages.clusters))
	// termsOf are the live term pages of each attribute value.
	termsOf := map[string][]int32{}
	for i := range int32(a.pages.len()) {
		if !a.pages.live.has(i) {
			continue
		}
		kind, c := a.pages.kindOf(i), a.pages.clusterIndex(i)
		if kind == site.KindTerm {
			for _, v := range a.pages.values[i] {
				termsOf[v] = append(termsOf[v], i)
			}
		}
		st := a.stats[i]
		held := a.linkRange(kind, c >= 0, a.pages.wordCount(i))
		rng, bounded := held.DensityRange, held.bounded
		inBody, listed := int(a.inBody.at(i)), 0
		if held.byList {
			listed = int(a.listed[i])
		}
		// As validation counts them: a page's list towards the minimum,
		// its text alone against the maximum.
		over, under := bounded && rng.Max > 0 && inBody > rng.Max, bounded && inBody+listed < rng.Min
		if c >= 0 {
			t := &tallies[c]
			if over || under {
				t.outOfRange++
			}
			if a.needsUplink(kind, a.pages.clusters[c]) {
				t.articles++
				if a.hubOf(a.pages.clusters[c]) < 0 || st.uplink() == uplinkNone {
					t.withoutUplink++
				}
			}
		}
		if clusterID != "" && (c < 0 || a.pages.clusters[c] != clusterID) {
			continue
		}
		id := a.pages.id(i)
		r.Pages++
		// A noindex page (a thank-you page, a tag archive) wants no search
		// traffic: a gardening trial's audit called one an orphan and had
		// the home page link it.
		if kind != site.KindHome && !a.pages.noIndex[i] {
			switch {
			case !st.has(flagLinkedIn):
				r.Orphans = append(r.Orphans, id)
			case !st.has(flagBodyLinked):
				r.NavigationOnly = append(r.NavigationOnly, id)
			}
		}
		if c >= 0 && a.needsUplink(kind, a.pages.clusters[c]) && a.hubOf(a.pages.clusters[c]) >= 0 {
			switch {
			case st.uplink() == uplinkNone:
				r.MissingMandatory = append(r.MissingMandatory, id)
			case st.uplink() == uplinkOutsideFirst:
				r.UplinkOutsideFirst = append(r.UplinkOutsideFirst, id)
			}
		}
		switch {
		case over:
			r.OverLinked = append(r.OverLinked, Finding{PageID: id, Count: inBody, Limit: rng.Max,
				Detail: fmt.Sprintf("%d in-body links, over the maximum of %d %s", inBody, rng.Max, held.of)})
		case under:
			counted := fmt.Sprintf("%d in-body links", inBody)
			if listed > 0 {
				counted += fmt.Sprintf(" and %d in its list", listed)
			}
			r.UnderLinked = append(r.UnderLinked, Finding{PageID: id, Count: inBody + listed, Limit: rng.Min,
				Detail: fmt.Sprintf("%s, under the minimum of %d %s", counted, rng.Min, held.of)})
		}
		if f, ok := dominant[i]; ok {
			r.DominantAnchors = append(r.DominantAnchors, f)
		}
	}
	for k, sums := range a.sums {
		if clusterID == "" || (k < len(a.pages.clusters) && a.pages.clusters[k] == clusterID) {
			r.TotalLinks += sums.links
		}
	}
	total := 0.0
	for _, c := range a.st.Clusters {
		if clusterID != "" && c.ID != clusterID {
			continue
		}
		var t clusterTally
		if k := slices.Index(a.pages.clusters, c.ID); k >= 0 {
			t = tallies[k]
			t.broken, t.crossing = a.sums[k].broken, a.sums[k].crossing
		}
		h := a.clusterHealth(c, t, termsOf)
		r.Clusters[c.ID] = h
		total += h.Score
	}
	if len(r.Clusters) > 0 {
		r.Health = total / float64(len(r.Clusters))
	}
	r.LinkScores = a.scoreOrder(clusterID).top(TopLinkScores)
	return r, nil
}

// heldRange is the range of in-body links a page is held to.
type heldRange struct {
	policy.DensityRange
	bounded bool   // false: the page is held to no range
	byList  bool   // its generated list counts towards the minimum (planning.LinksByList)
	of      string // what the range is, for findings: "for a hub page of 300 words"
}

// linkRange is the range of in-body links a page is held to, as
// validation holds it: under the silo policy the budget rule's
// (Policy.Budget), for every page, its content's links (and a sector
// page's list towards the minimum); under SAG
// density_range's row of the density table (planning.DensityClass), for
// the kinds it holds (planning.DensityHeld), a term page's list counting
// towards its minimum.
func (a *Auditor) linkRange(kind site.Kind, inCluster bool, words int) heldRange {
	if a.pol.Name == policy.Silo {
		b := a.pol.Budget()
		return heldRange{DensityRange: b, bounded: true, byList: planning.LinksByList(kind),
			of: fmt.Sprintf("of the silo budget (%d–%d)", b.Min, b.Max)}
	}
	if !planning.DensityHeld(kind, inCluster) {
		return heldRange{}
	}
	r := a.pol.Density(planning.DensityClass(kind), words)
	return heldRange{DensityRange: r, bounded: r.Min > 0 || r.Max > 0, byList: planning.LinksByList(kind),
		of: fmt.Sprintf("for a %s of %d words", kind.Page(), words)}
}

// Dominates reports whether one exact anchor carrying n of a target's
// links inbound links is over the diversification share
// (anchor_dominance_flag_share, for a target of at least
// anchor_dominance_min_inbound links).
func Dominates(p policy.Policy, n, links int) bool {
	return links > 0 && links >= p.AnchorDominanceMinInbound && float64(n)/float64(links) > p.AnchorDominanceFlagShare
}

// WouldDominate reports whether one exact anchor carrying n of a target's
// links inbound links would dominate it (Dominates) once the target had
// anchor_dominance_min_inbound links, if it has fewer: an audit adds its
// links one at a time, and the additions after one may bring its target
// up to the minimum. A solar trial's audit gave a hub of no links three
// uplinks on "heat pumps", each within the share of a target under the
// minimum, then three more links, and the re-audit found the anchor
// carrying 3 of 6.
func WouldDominate(p policy.Policy, n, links int) bool {
	return Dominates(p, n, max(links, p.AnchorDominanceMinInbound))
}

// dominantAnchors are the targets at least anchor_dominance_min_inbound
// in-body links point to, one exact anchor of which carries more than
// anchor_dominance_flag_share of them, and those one exact anchor links
// more often than max_exact_anchor_per_target allows, at any share (a
// trial's "pruning fruit trees" linked its page 4 times, 36% of its
// links, and went unreported); where two anchors do, the one that sorts
// first.
func (a *Auditor) dominantAnchors() (map[int32]Finding, error) {
	out := map[int32]Finding{}
	err := a.anchors.each(a.dominanceFloor, func(target int32, text string, n, links int32) {
		share := float64(n) / float64(links)
		dominates := Dominates(a.pol, int(n), int(links))
		overCap := a.pol.MaxExactAnchorPerTarget > 0 && int(n) > a.pol.MaxExactAnchorPerTarget
		if !dominates && !overCap {
			return
		}
		if f, ok := out[target]; ok && f.Anchor < text {
			return
		}
		var detail string
		switch {
		case dominates && overCap:
			detail = fmt.Sprintf("%q carries %d of its %d inbound links (%.0f%%, over %.0f%%; over the cap of %d uses of one exact anchor per target)",
				text, n, links, 100*share, 100*a.pol.AnchorDominanceFlagShare, a.pol.MaxExactAnchorPerTarget)
		case dominates:
			detail = fmt.Sprintf("%q carries %d of its %d inbound links (%.0f%%, over %.0f%%)",
				text, n, links, 100*share, 100*a.pol.AnchorDominanceFlagShare)
		default:
			detail = fmt.Sprintf("%q carries %d of its %d inbound links, over the cap of %d uses of one exact anchor per target (max_exact_anchor_per_target)",
				text, n, links, a.pol.MaxExactAnchorPerTarget)
		}
		out[target] = Finding{PageID: a.pages.id(target), Anchor: text, Count: int(n), Limit: int(links), Detail: detail}
	})
	return out, err
}

// Cluster health factors and their points (SAG §2.5).
const (
	pointsHubLinked    = 25
	pointsUplinks      = 25
	pointsCrossCluster = 15 // under the silo policy: silo integrity
	pointsTermsLinkHub = 15
	pointsNoBroken     = 10
	pointsDensity      = 10
)

// clusterHealth scores a cluster on the seed's six factors:
//   - its hub is live and linked: it links to a live page and a live page
//     links to it (25);
//   - every live page that must link up to the hub (planning.NeedsUplink:
//     a supporting article, under silo every child) does so in its body
//     (25);
//   - under SAG, the hub links in its body to another cluster's hub;
//     under the silo policy, where no link may cross a silo, silo
//     integrity instead: no in-body link of the cluster's live pages
//     leaves the cluster (15);
//   - every live term page of one of the cluster's attribute values links
//     to the hub; a cluster with no such term page has nothing to miss
//     and keeps the points, noted as an issue; under silo, where such a
//     link would cross the silo, the points are kept unasked (15);
//   - no link on the cluster's pages is broken (10);
//   - every live page of the cluster is within its density range (10).
func (a *Auditor) clusterHealth(c site.Cluster, t clusterTally, termsOf map[string][]int32) ClusterHealth {
	h := ClusterHealth{Issues: []string{}}
	hub := a.hubOf(c.ID)
	if hub >= 0 && a.stats[hub].has(flagLinkedIn) && a.stats[hub].has(flagLinksOut) {
		h.Score += pointsHubLinked
	} else if hub < 0 {
		h.Issues = append(h.Issues, "the cluster has no live hub")
	} else {
		h.Issues = append(h.Issues, "the hub is not both linking and linked to")
	}

	h.Missing = t.withoutUplink
	if t.withoutUplink == 0 {
		h.Score += pointsUplinks
	} else {
		pages := "supporting articles"
		if a.pol.Name == policy.Silo {
			pages = "child pages"
		}
		h.Issues = append(h.Issues, fmt.Sprintf("%d of %d %s have no in-body link to the hub", t.withoutUplink, t.articles, pages))
	}

	switch {
	case a.pol.Name == policy.Silo && t.crossing == 0:
		h.Score += pointsCrossCluster
	case a.pol.Name == policy.Silo:
		h.Issues = append(h.Issues, fmt.Sprintf("%d page(s) of the cluster link across its silo", t.crossing))
	case hub >= 0 && a.stats[hub].has(flagCrossHub):
		h.Score += pointsCrossCluster
	default:
		h.Issues = append(h.Issues, "the hub links to no other cluster's hub")
	}

	terms, linking := 0, 0
	counted := map[int32]bool{}
	for _, v := range a.st.ClusterFacets(c) {
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
	case a.pol.Name == policy.Silo:
		// A term page is outside every cluster: its link to the hub
		// would cross the silo.
		h.Score += pointsTermsLinkHub
	case terms == 0:
		h.Score += pointsTermsLinkHub
		h.Issues = append(h.Issues, "no live term page carries the cluster's values (nothing to link the hub)")
	case linking == terms:
		h.Score += pointsTermsLinkHub
	default:
		h.Issues = append(h.Issues, fmt.Sprintf("%d of %d term pages of its values do not link to the hub", terms-linking, terms))
	}

	if t.broken == 0 {
		h.Score += pointsNoBroken
	} else {
		h.Issues = append(h.Issues, fmt.Sprintf("%d broken link(s) on the cluster's pages", t.broken))
	}

	if t.outOfRange == 0 {
		h.Score += pointsDensity
	} else {
		h.Issues = append(h.Issues, fmt.Sprintf("%d page(s) outside their link density range", t.outOfRange))
	}
	return h
}

// Resolve names the page a link's URL points to, and whether that page is
// live; ok is false for a path that is no known page.
func (a *Auditor) Resolve(u string) (pageID string, live, ok bool) {
	if err := a.seal(); err != nil {
		return "", false, false
	}
	i := a.pages.atPath(markup.PagePath(u))
	if i < 0 {
		return "", false, false
	}
	return a.pages.id(i), a.pages.live.has(i), true
}

// Page is a page of the site by id; false for one the audit does not
// know. Its URL is not kept, and its Values only for a term page.
func (a *Auditor) Page(id string) (Page, bool) {
	if err := a.seal(); err != nil {
		return Page{}, false
	}
	i := a.pages.find(id)
	if i < 0 {
		return Page{}, false
	}
	// Before a report the word counts may still be aside; a page whose
	// words cannot be read back is no page the audit can give.
	if err := a.pages.takeWordsBack(); err != nil {
		return Page{}, false
	}
	return a.pages.page(i), true
}

// LinkScore is a live page's link score (0–100) once the report is made;
// 0 before, and for a page that is not live.
func (a *Auditor) LinkScore(id string) float64 {
	if !a.ranked {
		return 0
	}
	i := a.pages.find(id)
	if i < 0 || a.pages.live.pos(i) < 0 {
		return 0
	}
	return a.scale(a.ranks[a.pages.live.pos(i)])
}

// LinksIn is how many internal links of the live pages read point to a
// page, every one counted: the planner's inbound figure for the page as of
// the audit's snapshot (the live link counts it projects otherwise catch
// up a moment after a page is published).
func (a *Auditor) LinksIn(id string) int {
	if !a.sealed {
		return 0
	}
	if i := a.pages.find(id); i >= 0 {
		return int(a.linksIn.at(i))
	}
	return 0
}

// Hub is the live hub of a cluster, "" when it has none.
func (a *Auditor) Hub(clusterID string) string {
	if i := a.hubOf(clusterID); i >= 0 {
		return a.pages.id(i)
	}
	return ""
}

// listsEntries reports whether a page of the kind is a listing (the home
// page, a sector's or a term's archive), whose theme links each entry
// twice, by its title and a "Continue reading": no duplicate to remove
// (trial P's audit recommended stripping six such from a blog index).
func listsEntries(k site.Kind) bool {
	return k == site.KindHome || k == site.KindSector || k == site.KindTerm
}

// inCluster says where a page is: in a cluster, or outside every one.
func inCluster(clusterID string) string {
	if clusterID == "" {
		return "outside every cluster"
	}
	return "in cluster " + clusterID
}
