// Package planning decides which internal links a page should carry, with
// which candidate anchors and where, from the site's structure, its policy
// and the target pages the store's index found for the page.
package planning

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/scoring"
	"github.com/interlinker/interlinker/domain/site"
)

// Target is a live page the index found as a possible link target, with
// what scoring needs to know of it. Its HTML is not loaded.
type Target struct {
	site.Page
	// Inbound is the target's inbound links in the site's link graph that
	// scores read.
	Inbound int
	// UnplannedInbound is its live inbound links from the pages we do not
	// plan: a settle pass adds the planned graph to them, so each source
	// page counts once.
	UnplannedInbound int
	// CommittedInbound is its inbound links in the plans of the pages we
	// plan, as committed so far (review suggestions aside).
	CommittedInbound int
	// SettledInbound is its inbound links in the planned graph of its
	// site's last settle pass; -1 when no pass counted it.
	SettledInbound int
	// LinkScore is its link score (0–100) from the site's last whole-site
	// audit; 0 when it has none.
	LinkScore float64
}

// Input is everything planning one page needs; the caller loads it.
type Input struct {
	Structure site.Structure
	Policy    policy.Policy
	Page      site.Page
	// Hub is the live hub page of the page's cluster, nil when the cluster
	// has none yet.
	Hub *site.Page
	// Targets are the live pages found through Lookup, the page itself and
	// deleted pages excluded.
	Targets []Target
	// Texts are the visible texts of the page's paragraphs
	// (markup.ParagraphTexts): natural anchors are found in them.
	Texts []string
	// WordCount is the page's visible words; ExistingLinks the internal
	// links its own HTML already has in the content. Both bound density.
	WordCount     int
	ExistingLinks int
	// AuthorLinks are the page paths (markup.PagePath) the page's own
	// content already links to: no optional link and no Related Reading
	// entry links a target a second time.
	AuthorLinks map[string]bool
	// Decisions are the page's links decided by hand, kept by every plan.
	Decisions []Decision
	// AtCap holds, by target id, the anchors (folded, anchors.Normalize)
	// that in-body links on other pages already use for that target as
	// often as the exact-anchor cap allows. The inject stage places no
	// more of them, so the trial placement leaves them out too, and a link
	// whose anchors are all at the cap gives way to one the text can still
	// carry (PlanUnderCap).
	AtCap map[string]map[string]bool
	// SectionsUnwritten says the plan's generated sections will not be
	// written into the page: an audit's fixes add links to a live page's
	// text alone, so a hub's Related Articles list links none of its
	// articles there, and the text is where they are recommended.
	SectionsUnwritten bool
	// RelatedPending says Targets lack the related clusters' pages
	// (Lookup.Deferred): a plan that would draw on them stops and asks for
	// them (Plan.NeedsRelated) instead of planning without them.
	RelatedPending bool
}

// Plan is the links chosen for a page, in placement order, its breadcrumb
// trail, and notes on links the rules call for that could not be planned.
// Links scored for review (40–59) are in Links with status review.
type Plan struct {
	Links       []link.Link
	Breadcrumbs []Crumb
	Notes       []string
	// NeedsRelated: the input's related clusters' pages were pending and
	// the plan draws on them, so it is unfinished (PlanDeferring).
	NeedsRelated bool
	// Uncarried holds the in-body links (by id) the page's text cannot
	// carry by the rules, no anchor or no room found in the planner's
	// trial: they stay planned for the LLM fallback.
	Uncarried map[string]bool
}

// Review returns the plan's review suggestions.
func (p Plan) Review() []link.Link {
	var out []link.Link
	for _, l := range p.Links {
		if l.Status == link.StatusReview {
			out = append(out, l)
		}
	}
	return out
}

// PlanPage plans a page's links under its site's policy. The same input
// always gives the same plan.
//
// A hub scores every article of its cluster and a term page every hub of
// its values, each against the page's whole text, so planning can take a
// while on a large site; it looks at ctx every checkEvery targets and
// returns ctx's error, wrapped, when ctx ends first. That is its only error.
func PlanPage(ctx context.Context, in Input) (Plan, error) {
	if err := ctx.Err(); err != nil {
		return Plan{}, fmt.Errorf("plan page %s: %w", in.Page.ID, err)
	}
	pl := newPlanner(in)
	pl.ctx = ctx
	if in.Policy.Name == policy.Silo {
		pl.silo()
	} else {
		pl.sag()
	}
	if pl.err != nil {
		return Plan{}, fmt.Errorf("plan page %s: %w", in.Page.ID, pl.err)
	}
	if pl.plan.NeedsRelated {
		return Plan{NeedsRelated: true}, nil
	}
	pl.applyDecisions()
	pl.plan.Uncarried = pl.uncarried
	return pl.plan, nil
}

// PlanDeferring plans the page from in, whose targets lack the pages of
// its related clusters (Lookup.Deferred), and reads them with readRelated
// only when the plan draws on them: a supporting article's Related
// Reading section that its siblings leave room in. A cluster of any size
// seldom does, and reading and naming a related cluster's pages was a
// third of what a page cost the pipeline. Without them, the plan's
// anchors are owned (anchors.Owners) among the pages it can link in its
// body, which a related cluster's pages are not.
//
// An article with fewer siblings than Related Reading lists
// (surelyNeedsRelated) reads them before it is planned: its plan without
// them would only find the room its siblings leave. In a burst of new
// clusters a third of the articles were such, and planning each twice
// cost a twentieth of the service's time.
func PlanDeferring(ctx context.Context, in Input, readRelated func() ([]Target, error)) (Plan, error) {
	if readRelated == nil || !surelyNeedsRelated(in) {
		in.RelatedPending = readRelated != nil
		plan, err := PlanPage(ctx, in)
		if err != nil || !plan.NeedsRelated {
			return plan, err
		}
	}
	related, err := readRelated()
	if err != nil {
		return Plan{}, fmt.Errorf("read the related clusters' pages of page %s: %w", in.Page.ID, err)
	}
	seen := make(map[string]bool, len(in.Targets))
	for _, t := range in.Targets {
		seen[t.ID] = true
	}
	in.Targets = slices.Clip(in.Targets)
	for _, t := range related {
		if !seen[t.ID] {
			seen[t.ID] = true
			in.Targets = append(in.Targets, t)
		}
	}
	in.RelatedPending = false
	return PlanPage(ctx, in)
}

// surelyNeedsRelated reports whether a plan of in with its related
// clusters' pages pending would ask for them (Plan.NeedsRelated): a
// supporting article under the SAG policy whose targets hold fewer
// articles of its cluster than Related Reading lists, so its siblings
// cannot fill the section (relatedReading).
func surelyNeedsRelated(in Input) bool {
	if in.Policy.Name == policy.Silo || in.Page.Kind != site.KindSupporting || in.Policy.RelatedReadingMax == 0 {
		return false
	}
	siblings := 0
	for _, t := range in.Targets {
		if t.Kind == site.KindSupporting && t.ClusterID == in.Page.ClusterID && t.ID != in.Page.ID {
			siblings++
		}
	}
	return siblings < in.Policy.RelatedReadingMax
}

// AsPlannedGraph gives the targets their inbound links in the site's planned
// link graph: the live links of the pages we do not plan, and the links of
// the pages we plan as the last settle pass's graph counted them, or for a
// page no pass counted, as the plans committed so far hold them. A page
// planned as it arrives on a site that settles scores so, as its settle
// pass did or will: counting the live links alone, a new site's pages
// scored target authority 0, and a page planned again on a settled site
// dropped links the pass then put back; counting the committed plans, a
// hub planned again reordered its Related Articles, since the pass's
// graph is drawn by a first pass without the anchor cap (trial Y3).
func AsPlannedGraph(targets []Target) {
	for i := range targets {
		planned := targets[i].CommittedInbound
		if targets[i].SettledInbound >= 0 {
			planned = targets[i].SettledInbound
		}
		targets[i].Inbound = targets[i].UnplannedInbound + planned
	}
}

// AnchorCounts counts, for each target id asked, how many in-body links
// on pages other than the one planned use each of the asked anchors
// (folded), up to the exact-anchor cap.
type AnchorCounts func(asked map[string][]string) (map[string]map[string]int, error)

// maxCapRounds bounds how often PlanUnderCap plans a page again: each
// round can only add anchors at the cap for targets a round before it
// chose.
const maxCapRounds = 3

// PlanUnderCap plans the page with plan, asks count how often other pages
// use the anchors of the optional in-body links it planned, and plans again with
// those at the cap (policy max_exact_anchor_per_target) left out of the
// trial placement (Input.AtCap), until a plan's links turn up no anchor at
// the cap it did not know of. A hub whose best cross-cluster hubs' anchors
// are all used up on other pages then links the next hub its text names,
// where planning blind to the cap left both links planned and the page
// without one.
func PlanUnderCap(ctx context.Context, in Input, plan func(Input) (Plan, error), count AnchorCounts) (Plan, error) {
	maxExact := in.Policy.MaxExactAnchorPerTarget
	for round := 0; ; round++ {
		p, err := plan(in)
		if err != nil || maxExact <= 0 || round == maxCapRounds {
			return p, err
		}
		asked := map[string][]string{}
		limits := map[string]int{} // by target: a page links a target once in its body
		capOf := AnchorCap{MaxExact: maxExact, Unreserved: unreserved(in.Targets)}
		for _, l := range p.Links {
			// The mandatory uplink is planned whatever its anchors' use (the
			// inject stage picks its least used one), so only the optional
			// links are asked: a large cluster's hub has its anchors at the
			// cap for most of its articles, which would plan each twice.
			if l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned || l.Mandatory {
				continue
			}
			limits[l.TargetPageID] = capOf.Limit(l)
			for _, c := range l.Candidates {
				if f := anchors.Normalize(c.Text); f != "" && !in.AtCap[l.TargetPageID][f] && !slices.Contains(asked[l.TargetPageID], f) {
					asked[l.TargetPageID] = append(asked[l.TargetPageID], f)
				}
			}
		}
		if len(asked) == 0 {
			return p, nil
		}
		counts, err := count(asked)
		if err != nil {
			return Plan{}, fmt.Errorf("count the anchors of page %s's links: %w", in.Page.ID, err)
		}
		atCap := make(map[string]map[string]bool, len(in.AtCap))
		for target, texts := range in.AtCap {
			atCap[target] = maps.Clone(texts)
		}
		added := false
		for target, texts := range asked {
			for _, f := range texts {
				if counts[target][f] >= limits[target] {
					if atCap[target] == nil {
						atCap[target] = map[string]bool{}
					}
					atCap[target][f] = true
					added = true
				}
			}
		}
		if !added {
			return p, nil
		}
		in.AtCap = atCap
	}
}

// unreserved are the targets no link of the site's hierarchy reaches
// (AnchorCap.Unreserved).
func unreserved(targets []Target) map[string]bool {
	var out map[string]bool
	for _, t := range targets {
		if !ReachedByHierarchy(t.Page) {
			if out == nil {
				out = map[string]bool{}
			}
			out[t.ID] = true
		}
	}
	return out
}

// AnchorLimit is how many uses by in-body links on other pages leave an
// exact anchor to a target out of reach of a link of type t: the policy's
// max_exact_anchor_per_target, less one for an optional link (a sibling's,
// or a related page's in the body), whose last use is kept for the links
// the site's hierarchy asks for (an uplink, a parent's, hub's or the home
// page's link down, a cross-cluster link). Without it a silo's children
// used up a priority child's name among themselves before their parent
// was planned, and the parent could not link it (trial T).
func AnchorLimit(t link.Type, maxExact int) int {
	if maxExact > 1 && (t == link.TypeHorizontal || t == link.TypeRelated) {
		return maxExact - 1
	}
	return maxExact
}

// AnchorCap is the anchor cap a page's in-body links meet: the policy's
// max_exact_anchor_per_target, each link held to its AnchorLimit, but
// for the targets no link of the site's hierarchy reaches.
type AnchorCap struct {
	MaxExact int
	// Unreserved are those targets, by page id (ReachedByHierarchy is
	// false): keeping a use back for a link that never comes would only
	// starve them. A silo trial's glossary page, outside every cluster and
	// reached by related links alone, got none once two pages used its
	// name.
	Unreserved map[string]bool
}

// Limit is how many uses by other pages leave an anchor out of l's reach.
func (c AnchorCap) Limit(l link.Link) int {
	if c.Unreserved[l.TargetPageID] {
		return c.MaxExact
	}
	return AnchorLimit(l.Type, c.MaxExact)
}

// ReachedByHierarchy reports whether a link the site's hierarchy asks for
// may lead to the page: an uplink, cross-cluster link or a hub's or
// parent's link down goes to a page of a cluster, the home page's link
// down to a hub or a sector page. Generated lists and breadcrumbs, which
// reach the others, count towards no cap.
func ReachedByHierarchy(p site.Page) bool {
	return p.ClusterID != "" || p.Kind == site.KindSector
}

// AnchorLimitNote is what a reason adds to "N times" when the limit is
// below the policy's cap.
func AnchorLimitNote(limit, maxExact int) string {
	if limit < maxExact {
		return fmt.Sprintf("; an optional link takes at most %d, the last kept for the site's hierarchy", limit)
	}
	return ""
}

// checkEvery is how many targets planning handles between looks at its
// context. A target costs microseconds (a score, or a search of the page's
// text for its anchors), so this stops a plan within milliseconds.
const checkEvery = 64

// NeedsUplink reports whether the rules of the policy require the page to
// link to its cluster hub. Under SAG every supporting article does (link
// type 1, mandatory); its products and services are linked by hubs and
// link no hub themselves. Under silo every page of a cluster but its
// parent is a child, and a child links first to its parent: the silo
// knows parents and children, not page kinds.
func NeedsUplink(pol string, p site.Page) bool {
	if pol == policy.Silo {
		return SiloChild(p)
	}
	return p.Kind == site.KindSupporting && p.ClusterID != ""
}

// SiloChild reports whether the page is a child of its cluster under the
// silo policy: any page of a cluster but the hub.
func SiloChild(p site.Page) bool {
	return p.ClusterID != "" && p.Kind != site.KindHub
}

// unlimited stands for a density table entry without a maximum.
const unlimited = 1 << 30

type planner struct {
	in      Input
	plan    Plan
	cluster site.Cluster
	facets  []string // the page's facets: its cluster's and its own
	text    string   // the paragraphs' text, normalised, for mention checks (containsWords)
	// singularText is text with every word singular (textNamesWhole),
	// made when first asked.
	singularText string
	// wholeText is the page's visible text, headings, lists and menus
	// too, normalised; read only for a note (namesOutsideParagraphs).
	wholeText     string
	wholeTextRead bool
	words         *anchors.Text
	now           time.Time
	// budget is how many more optional links density allows.
	budget  int
	linked  map[string]bool // targets linked from the body already
	offered map[string]bool // targets planned in any zone
	// noRoom: targets the trial placement (placeable) found no room for
	// in the text. One whose in-body link is planned all the same waits
	// for the LLM fallback, and Related Reading may list it meanwhile.
	noRoom map[string]bool
	// crowded: those of noRoom the density limits left out, where the
	// text has their anchors (markup.LeftNoRoom).
	crowded map[string]bool
	// refused: why the trial placement took none of the others of noRoom
	// (the placer's reason), for a note to tell.
	refused map[string]string
	// uncarried holds the in-body links (by id) that a trial placement
	// did not carry (carriedFirst).
	uncarried map[string]bool
	maxIn     int
	targets   []Target
	// owners decides which target a natural phrase names best: the
	// targets in order, then the page itself, whose own names link
	// nowhere; ownerOf is each target's index in it.
	owners  *anchors.Owners
	ownerOf map[string]int
	// clusterNames are the names of the site's clusters (otherClusters).
	clusterNames *anchors.Contenders
	scores       map[string]scoring.Score // by target id, as scoreAll scored them
	// articles is clusterArticles' list, nil until it is first asked for.
	articles []Target

	// ctx is the context of the one PlanPage call the planner lives for;
	// err is its error once stopped saw it end, and the loops over
	// targets then stop short.
	ctx   context.Context
	err   error
	steps int
}

// stopped counts one target handled and reports whether planning must
// stop because its context ended. What was planned until then is dropped.
func (pl *planner) stopped() bool {
	if pl.err != nil {
		return true
	}
	pl.steps++
	if pl.steps%checkEvery == 0 {
		pl.err = pl.ctx.Err()
	}
	return pl.err != nil
}

func newPlanner(in Input) *planner {
	pl := &planner{in: in, linked: map[string]bool{}, offered: map[string]bool{}, noRoom: map[string]bool{}, crowded: map[string]bool{}, refused: map[string]string{},
		uncarried: map[string]bool{}, scores: map[string]scoring.Score{}}
	pl.cluster, _ = in.Structure.Cluster(in.Page.ClusterID)
	pl.facets = unionSorted(in.Structure.ClusterFacets(pl.cluster), in.Structure.Facets(in.Page.Attributes))
	pl.text = anchors.Normalize(strings.Join(in.Texts, " "))
	pl.words = anchors.NewTextIn(in.Texts, in.Policy.Language)
	pl.now = in.Page.PublishedAt
	// Targets are put in id order, so the plan does not depend on the order
	// the store returned them in; indexes are sorted, not the large structs.
	order := make([]int, 0, len(in.Targets))
	for i, t := range in.Targets {
		if t.ID == in.Page.ID {
			continue
		}
		order = append(order, i)
		if t.PublishedAt.After(pl.now) {
			pl.now = t.PublishedAt
		}
		if t.Inbound > pl.maxIn {
			pl.maxIn = t.Inbound
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return in.Targets[order[i]].ID < in.Targets[order[j]].ID })
	pl.targets = make([]Target, len(order))
	for k, i := range order {
		pl.targets[k] = in.Targets[i]
	}
	pl.budget = pl.densityMax() - in.ExistingLinks
	named := make([]anchors.Target, 0, len(pl.targets)+1)
	pl.ownerOf = make(map[string]int, len(pl.targets))
	for i, t := range pl.targets {
		named = append(named, pl.anchorTarget(t))
		pl.ownerOf[t.ID] = i
	}
	contenders, linked := pl.otherClusters()
	pl.clusterNames = contenders
	pl.owners = anchors.NewOwnersAmong(named, pl.anchorTarget(Target{Page: in.Page}), contenders, linked)
	return pl
}

// otherClusters are the names of the site's clusters, and which of them
// stand for a hub that is a target of the page, or for the page itself
// (by cluster position; nil when none does): a phrase one of the others
// names best is that hub's, and links none of the page's targets (a
// trial's home page, under silo, linked its Payments sector on "[card
// payments]", the card payments hub's keyword). The names are read once
// per structure (site.Structure.Derived).
func (pl *planner) otherClusters() (*anchors.Contenders, []bool) {
	st, language := pl.in.Structure, pl.in.Policy.Language
	names := st.Derived(clusterNamesKey, func() any {
		targets := make([]anchors.Target, len(st.Clusters))
		for i, c := range st.Clusters {
			targets[i] = anchors.Target{PrimaryKeywords: []string{c.PrimaryKeyword}, Variations: c.Keywords, Title: c.Name, Language: language}
		}
		return anchors.NewContenders(targets)
	}).(*anchors.Contenders)
	hubs := map[string]bool{}
	if pl.in.Page.Kind == site.KindHub {
		hubs[pl.in.Page.ClusterID] = true
	}
	for _, t := range pl.targets {
		if t.Kind == site.KindHub {
			hubs[t.ClusterID] = true
		}
	}
	var linked []bool
	for i, c := range st.Clusters {
		if hubs[c.ID] {
			if linked == nil {
				linked = make([]bool, len(st.Clusters))
			}
			linked[i] = true
		}
	}
	return names, linked
}

// clusterNamesKey is the key of otherClusters' names in site.Structure.Derived.
const clusterNamesKey = "planning: cluster names"

// budgetTaken says what took the page's density budget: its own links
// and the in-body links planned so far, of which those its text cannot
// carry yet wait for the LLM fallback. They count because the fallback
// writes them in, so validation may still find the linked page below its
// minimum until it does.
func (pl *planner) budgetTaken() string {
	planned, waiting, listed := 0, 0, 0
	for _, l := range pl.plan.Links {
		if l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned {
			continue
		}
		planned++
		switch {
		case !pl.uncarried[l.ID]:
		case pl.listsInSection(l.TargetPageID):
			listed++
		default:
			waiting++
		}
	}
	limit := "density maximum"
	if pl.in.Policy.Name == policy.Silo {
		limit = "budget"
	}
	why := fmt.Sprintf("the page's %s of %d in-body links is taken by %d of its own and %d planned",
		limit, pl.densityMax(), pl.in.ExistingLinks, planned)
	// The fallback leaves a link its generated list names to the list (a
	// trial's note said such links waited for it).
	switch {
	case waiting > 0 && listed > 0:
		why += fmt.Sprintf(", %d of which its text has no anchor or room for: %d wait for the LLM fallback, and its generated list already names %d",
			waiting+listed, waiting, listed)
	case waiting > 0:
		why += fmt.Sprintf(", %d of which its text has no anchor or room for: they wait for the LLM fallback", waiting)
	case listed > 0:
		why += fmt.Sprintf(", %d of which its text has no anchor or room for: its generated list already names them", listed)
	}
	return why
}

// refusedWhy is the placer's reason for taking no anchor of the target
// the text names, in brackets, or "": a parenting trial's hub was told
// only that its text named a page "with no anchor the placer may take
// there", and could not tell why.
func (pl *planner) refusedWhy(targetID string) string {
	if r := pl.refused[targetID]; r != "" {
		return " (" + r + ")"
	}
	return ""
}

// listsInSection reports whether the page's plan lists the target in a
// generated section (a hub's Related Articles), which the inject stage's
// LLM fallback leaves an in-body link to it to. An audit writes no
// section (Input.SectionsUnwritten): a German trial's hub that linked 2
// of its 6 articles was recommended other clusters' hubs and none of its
// own articles.
func (pl *planner) listsInSection(targetID string) bool {
	if pl.in.SectionsUnwritten {
		return false
	}
	return slices.ContainsFunc(pl.plan.Links, func(l link.Link) bool {
		return l.Zone == link.ZoneRelatedSection && l.TargetPageID == targetID
	})
}

// noteLeftToTheList says why a link the page's text names is left to its
// generated list: a Spanish trial's hub named two of its articles within
// 50 words, and the plan linked one from the text and said nothing of the
// other.
func (pl *planner) noteLeftToTheList(l link.Link, t link.Type) {
	if !pl.mentions(l) {
		return
	}
	heading := pl.in.Policy.RelatedArticlesHeading
	if !pl.crowded[l.TargetPageID] {
		pl.note("%s link to %s not planned in the text: the text names it, with no anchor the placer may take there%s; the %q list links it",
			t, l.TargetPageID, pl.refusedWhy(l.TargetPageID), heading)
		return
	}
	maxLinks, minWords := ParagraphLimits(pl.in.Policy, pl.in.Page.Kind)
	pl.note("%s link to %s not planned in the text: where the text names it, the links planned before it leave no room "+
		"(%d link(s) a paragraph at most, %d words between two); the %q list links it", t, l.TargetPageID, maxLinks, minWords, heading)
}

// densityMax is the most outbound links the density table allows the page.
func (pl *planner) densityMax() int {
	if pl.in.Policy.Name == policy.Silo {
		return pl.in.Policy.Budget().Max
	}
	r := pl.in.Policy.Density(DensityClass(pl.in.Page.Kind), pl.in.WordCount)
	if r.Max == 0 {
		return unlimited
	}
	return r.Max
}

// DensityClass is the row of the density table a page kind falls in. The
// seed's table has no row for the home page; the planner takes the hub's
// for what it adds there: it is the hub of the whole site, linking from
// its text to the sectors and hubs it names (Home → Sector → Hub), and a
// blog article's 2–5 would leave all but five of them unlinked. Neither
// the home page nor a sector page is judged by a row (DensityHeld).
func DensityClass(k site.Kind) policy.DensityClass {
	switch k {
	case site.KindHub, site.KindHome:
		return policy.ClassHub
	case site.KindProduct, site.KindService:
		return policy.ClassProduct
	case site.KindTerm:
		return policy.ClassTerm
	default:
		return policy.ClassArticle
	}
}

// DensityHeld reports whether the density table holds a page of the kind.
// A sector page is not, nor the home page: the seed's table has no row for
// either, and each lists the hubs (the home page also the sectors) of the
// site, however many there are, beside whatever its own text links. The
// article row called a sector page whose text links its six hubs
// over-linked; the hub row called one listing its three hubs
// under-linked, and a home page whose text links twelve sections
// over-linked, flagging the links we had placed there. The audit holds
// them to none either. Nor is a plain page outside every cluster (an
// about, contact, privacy or imprint page): the site's furniture, not its
// content; a German trial's audit called Impressum and Datenschutz
// under-linked.
func DensityHeld(k site.Kind, inCluster bool) bool {
	return k != site.KindSector && k != site.KindHome && (k != site.KindPage || inCluster)
}

// LinksByList reports whether a page of the kind links by its generated
// list: a term page lists the hubs of its value (the seed's "Term Page
// (taxonomy): 3+" counts those), a sector page its hubs. Its list counts
// towards the minimum of the density table, so a term page is not called
// under-linked for the way it is built, by validation or by the audit;
// the maximum still counts the links in its text alone, the list being
// uncapped. A sector page, held to no row (DensityHeld), has its list
// reported beside its links.
func LinksByList(k site.Kind) bool { return k == site.KindTerm || k == site.KindSector }

func (pl *planner) note(format string, args ...any) {
	pl.plan.Notes = append(pl.plan.Notes, fmt.Sprintf(format, args...))
}

// sag plans the seven link types of the SAG policy that apply to the page.
func (pl *planner) sag() {
	pl.breadcrumbs()
	switch pl.in.Page.Kind {
	case site.KindSupporting:
		pl.verticalUp()
		pl.siblings()
		pl.relatedReading()
	case site.KindHub:
		pl.relatedArticles()
		pl.adoptedOfferings()
		// The hub's in-body links to its own members come last: its
		// Related Articles list links every one of them already, and a
		// home-services trial's term pages, which only hubs link from
		// their text, were orphans because the one link a paragraph had
		// room for went to an article the list linked.
		pl.crossCluster()
		pl.offerings()
		pl.termPages()
		pl.contextualDown()
	case site.KindTerm:
		pl.taxonomy()
	case site.KindSector:
		pl.sectorHubs()
	case site.KindHome:
		pl.homeLinks()
	case site.KindProduct, site.KindService, site.KindPage:
		pl.relatedInBody()
	}
}

// verticalUp is SAG link type 1: the mandatory link from a supporting
// article to its hub, placed in the first paragraphs.
func (pl *planner) verticalUp() {
	page, hub := pl.in.Page, pl.in.Hub
	if !NeedsUplink(pl.in.Policy.Name, page) {
		if page.Kind == site.KindSupporting && page.ClusterID == "" {
			// Nothing else would say why such an article has no uplink
			// and no hub lists it: a trial's ended orphans without a note.
			pl.note("supporting article outside every cluster (no cluster_id): it has no hub to link up to and no hub lists it, " +
				"so only another article's Related Reading (pages sharing its attribute values), another page's text or a link added by hand can link to it; " +
				"give it the cluster_id of the hub it supports")
		}
		return
	}
	if hub == nil {
		// A hub deleted since leaves its articles so too: "yet" told a
		// trial's articles, after their hub's deletion, to wait for one.
		pl.note("cluster %s has no live hub page (none is published yet, or it was deleted): vertical_up link not planned; publish its hub, or give the page another cluster", page.ClusterID)
		return
	}
	if hub.ID == page.ID {
		return
	}
	l := pl.newLink(Target{Page: *hub}, link.TypeVerticalUp, link.ZoneInBody)
	l.Candidates = pl.rankAnchors(hub.ID, pl.anchorCandidates(Target{Page: *hub}), &l)
	l.FirstParagraphs = pl.in.Policy.UplinkParagraphs
	l.Mandatory = true
	if !pl.mentions(l) {
		pl.uncarried[l.ID] = true
	}
	// A trial's article named its hub only as "vélotaf" and was told no
	// more than that no candidate was found; a baking trial's, only as
	// "croissants" in its first paragraphs, though a longer name came
	// further down. A page whose writer links the hub needs no hint: its
	// own link may be the uplink (validation reads one in paragraphs 1-2
	// so), and a health trial's note told of a name inside another
	// page's while the writer's link in paragraph 1 passed as the uplink.
	hubTarget := Target{Page: *hub}
	switch {
	case pl.linkedByAuthor(hubTarget):
	case !pl.mentions(l):
		if name, ok := pl.shortNameOnly(hubTarget); ok {
			pl.note("vertical_up link to hub %s has no anchor in the text: it names the hub only as %q, shorter than the %d words an anchor needs; %s",
				hub.ID, name, pl.in.Policy.AnchorMinWords, pl.longerPhraseHint(name))
		}
	default:
		// The opening paragraphs are read apart only for a hub the text
		// names somewhere in fewer words than an anchor's: few hubs are.
		if _, ok := pl.shortNameOnly(hubTarget); !ok {
			break
		}
		opening := anchors.Normalize(strings.Join(pl.in.Texts[:max(0, min(l.FirstParagraphs, len(pl.in.Texts)))], " "))
		if pl.mentionsIn(l, opening) {
			break
		}
		if name, ok := pl.shortNameIn(hubTarget, opening); ok {
			pl.note("vertical_up link to hub %s has no anchor in paragraphs 1-%d: they name the hub only as %q, shorter than the %d words an anchor needs; %s",
				hub.ID, l.FirstParagraphs, name, pl.in.Policy.AnchorMinWords, pl.longerPhraseHint(name))
		}
	}
	l.Explanation = fmt.Sprintf("vertical_up: every %s of a cluster links to its hub (%s), in paragraph 1–%d; %s",
		page.Kind.Page(), page.ClusterID, l.FirstParagraphs, l.Explanation)
	pl.add(l)
	pl.budget--
}

// siblings is SAG link type 3: up to max_sibling_links other supporting
// articles of the cluster, chosen by score.
func (pl *planner) siblings() {
	if pl.in.Page.ClusterID == "" {
		return
	}
	pl.pickScored(pl.clusterArticles(), link.TypeHorizontal, link.ZoneInBody, pl.in.Policy.MaxSiblingLinks, "sibling in cluster "+pl.in.Page.ClusterID)
}

// clusterArticles is the supporting articles among the targets that are in
// the page's cluster, gathered once a plan: sibling links, Related Reading,
// a hub's contextual links and the silo's children all start from them,
// and in a cluster of thousands copying them for each was a fifth of the
// bytes a plan allocated. Callers must not change the list.
func (pl *planner) clusterArticles() []Target {
	if pl.articles == nil {
		pl.articles = make([]Target, 0, len(pl.targets))
		for _, t := range pl.targets {
			if t.Kind == site.KindSupporting && t.ClusterID == pl.in.Page.ClusterID {
				pl.articles = append(pl.articles, t)
			}
		}
	}
	return pl.articles
}

// relatedGroup is where a page of another cluster sharing a value comes
// in a Related Reading section: on topic before off, in the page's sector
// before outside it (relatedReading).
type relatedGroup int

const (
	relatedOnTopic relatedGroup = iota
	relatedOffTopic
	// relatedOtherSector is added to either for a page of another sector.
	relatedOtherSector
	relatedGroups = 2 * relatedOtherSector
)

// says what put a page in its group, for a link's explanation; sectors
// tells whether the page is in a sector, and word is the content word of
// its names the page's share (relatedReading).
func (g relatedGroup) says(sectors bool, word string) string {
	topic := fmt.Sprintf(" and the word %q of its title or keywords", word)
	if g%relatedOtherSector == relatedOffTopic {
		topic = ""
	}
	switch {
	case !sectors:
		return topic
	case g >= relatedOtherSector:
		return topic + ", from another sector"
	}
	return topic + ", in its sector"
}

// relatedReading is SAG link type 7: a Related Reading section of 2–3
// links at the end of every supporting article that has at least 2
// eligible candidates. Siblings not already linked from the body come
// first, then supporting articles and hubs of other clusters sharing an
// attribute value with the page, in groups (relatedGroup), each best
// score first. A candidate
// is eligible when its score reaches review_score: the section is a
// generated list of further reading, not a claim made in the author's
// text, so the review band that holds back in-body links does not hold it
// back. The section needs no anchor in the text and does not count
// against density, which the seed keeps for links in the body: a short
// article does not lose it.
func (pl *planner) relatedReading() {
	p := pl.in.Policy
	if p.RelatedReadingMax == 0 {
		return
	}
	// A sibling whose in-body link the text has no room for is linked
	// nowhere unless the LLM fallback writes it in: the section lists it.
	eligible := func(t Target) bool {
		return (!pl.offered[t.ID] || pl.linked[t.ID] && pl.noRoom[t.ID]) && !pl.linkedByAuthor(t) &&
			t.ID != pl.hubID() && (t.Kind == site.KindSupporting || t.Kind == site.KindHub)
	}
	sibling := func(t Target) bool { return t.ClusterID == pl.in.Page.ClusterID && t.Kind == site.KindSupporting }
	var picked []scored
	group, topicWord := map[string]relatedGroup{}, map[string]string{}
	pickUpTo := func(ranked []scored, most int) {
		for _, s := range ranked {
			if len(picked) >= most || pl.stopped() {
				return
			}
			if eligible(*s.Target) && scoring.Decide(p, s.score.Total) != scoring.Drop {
				picked = append(picked, s)
			}
		}
	}
	pick := func(ranked []scored) { pickUpTo(ranked, p.RelatedReadingMax) }
	// Siblings are drawn as the other pages are (spread): in strict score
	// order, the best linked scoring best, a trial's cluster of nine
	// articles listed four of them in the others' sections and five in
	// none.
	pick(pl.spread(pl.scoreAll(pl.clusterArticles())))
	// Pages sharing a value are gathered and scored only when the siblings
	// leave room: in a cluster of any size they seldom do, and scoring
	// every related cluster's pages is most of what a plan costs.
	if len(picked) < p.RelatedReadingMax {
		if pl.in.RelatedPending {
			pl.plan.NeedsRelated = true
			return
		}
		mine := map[string]bool{}
		for _, f := range pl.facets {
			mine[f] = true
		}
		var sharing []Target
		for _, t := range pl.targets {
			if eligible(t) && !sibling(t) && pl.sharesFacet(t, mine) {
				sharing = append(sharing, t)
			}
		}
		// Those in the page's own sector come first: a checklist on power
		// outages reads oddly with a drain cleaner in its Related Reading
		// (a services trial), though both are urgent, and a cat article
		// with dog articles that share "senior" with it (a pet-care
		// trial). In each sector, those whose names share a content word
		// with the page's (no "in" or "at") come first: a page sharing
		// only a value and the site's most inbound links outscored every
		// one on topic (trial 16: "How long does cold brew keep" in the
		// Related Reading of four espresso articles). A word most of the
		// candidates' names hold marks no topic: on a running site
		// "running" is in half the titles, and an article on stretching
		// listed two running-shoe guides over the yoga articles sharing
		// all its values (trial F).
		// Common words are counted in each sector's own candidates: "cat"
		// in 12 of a cats sector's 15 marks no topic there, however many
		// dog pages the other sector adds (a pet-care trial).
		var groups [relatedGroups][]scored
		sector := pl.in.Structure.SectorOf(pl.in.Page)
		otherSector := func(t Target) bool {
			other := pl.in.Structure.SectorOf(t.Page)
			return other != "" && other != sector
		}
		var inSector, outside []*Target
		for i := range sharing {
			if t := &sharing[i]; otherSector(*t) {
				outside = append(outside, t)
			} else {
				inSector = append(inSector, t)
			}
		}
		own := pl.withoutSiteCommonWords(anchors.NewContentWords(append(append([]string{pl.in.Page.Title, pl.in.Page.PrimaryKeyword}, pl.in.Page.Keywords...), pl.cluster.PrimaryKeyword), pl.in.Policy.Language))
		ownIn, ownOutside := withoutCommonWords(own, inSector), withoutCommonWords(own, outside)
		apart := pl.contrastingClusterWords()
		for _, s := range pl.scoreAll(sharing) {
			g, words := relatedOnTopic, ownIn
			if otherSector(*s.Target) {
				g, words = relatedOnTopic+relatedOtherSector, ownOutside
			}
			shared := apart(s.ClusterID, words).SharedWord(PageNames(s.Page))
			if s.score.Factors[scoring.FactorKeywordOverlap] == 0 || shared == "" {
				g += relatedOffTopic
			}
			groups[g] = append(groups[g], s)
			group[s.ID], topicWord[s.ID] = g, shared
		}
		for g, ranked := range groups {
			// Past the section's minimum, only a page on the article's
			// topic and in its sector: a finance trial's budgeting
			// articles listed a student-loan forgiveness page third, after
			// two siblings, and its index-fund article a tax form, pages
			// sharing a value and no word of their topic.
			if relatedGroup(g) != relatedOnTopic {
				pickUpTo(pl.spread(ranked), p.RelatedReadingMin)
				continue
			}
			pick(pl.spread(ranked))
		}
	}
	if len(picked) < max(p.RelatedReadingMin, 1) {
		// Said even when no page qualifies: a reader missing the section
		// on one article of a cluster otherwise has no way to tell why.
		pl.note("related reading left out: %d eligible candidate(s) (score %.0f or more), the section needs %d",
			len(picked), p.ReviewScore, max(p.RelatedReadingMin, 1))
		return
	}
	for _, s := range picked {
		l := pl.newScoredLink(s, link.TypeRelated, link.ZoneRelatedSection)
		why := "a sibling in cluster " + pl.in.Page.ClusterID
		if s.ClusterID != pl.in.Page.ClusterID {
			why = "shares an attribute value with this page" + group[s.ID].says(pl.in.Structure.SectorOf(pl.in.Page) != "", topicWord[s.ID])
		}
		l.Explanation = fmt.Sprintf("related: the Related Reading section at the end of the article; %s; score %.2f ≥ %.0f; %s",
			why, l.Score, p.ReviewScore, l.Explanation)
		pl.add(l)
	}
}

// withoutCommonWords is own less the words that the names of at least
// half of the targets, and at least minCommonTargets of them, hold.
func withoutCommonWords(own anchors.ContentWords, targets []*Target) anchors.ContentWords {
	if len(own) == 0 || len(targets) < minCommonTargets {
		return own
	}
	held := map[string]int{}
	for _, t := range targets {
		own.CountHeldBy(PageNames(t.Page), held)
	}
	out := anchors.ContentWords{}
	for w := range own {
		if n := held[w]; n < minCommonTargets || 2*n < len(targets) {
			out[w] = true
		}
	}
	return out
}

// contrastingClusterWords returns, for a page of another cluster, the
// page's topic words less the head nouns both clusters' names end on:
// two clusters named "sleep training" and "potty training" are two
// topics, and the "training" they share is the head each sets apart with
// its own word (a parenting trial's sleep articles listed potty-training
// pages for it). A shared modifier is a shared topic ("sleep training"
// and "sleep regression" are both about sleep). Only English names are
// read so, their head coming last. Heads are read once a cluster.
func (pl *planner) contrastingClusterWords() func(clusterID string, words anchors.ContentWords) anchors.ContentWords {
	lang := pl.in.Policy.Language
	if !anchors.English(lang) {
		return func(_ string, words anchors.ContentWords) anchors.ContentWords { return words }
	}
	heads := func(c site.Cluster) anchors.ContentWords {
		var last []string
		for _, n := range append([]string{c.Name, c.PrimaryKeyword}, c.Keywords...) {
			if f := strings.Fields(n); len(f) > 1 {
				last = append(last, f[len(f)-1])
			}
		}
		return anchors.NewContentWords(last, lang)
	}
	var own anchors.ContentWords
	cache := map[string]anchors.ContentWords{}
	return func(clusterID string, words anchors.ContentWords) anchors.ContentWords {
		if clusterID == "" || clusterID == pl.cluster.ID || pl.cluster.ID == "" {
			return words
		}
		if own == nil {
			own = heads(pl.cluster)
		}
		apart, ok := cache[clusterID]
		if !ok {
			apart = anchors.ContentWords{}
			if c, found := pl.in.Structure.Cluster(clusterID); found {
				for w := range heads(c) {
					if own[w] {
						apart[w] = true
					}
				}
			}
			cache[clusterID] = apart
		}
		if len(apart) == 0 {
			return words
		}
		out := anchors.ContentWords{}
		for w := range words {
			if !apart[w] {
				out[w] = true
			}
		}
		return out
	}
}

// withoutSiteCommonWords is own less the words that the names (name,
// primary keyword, keywords) of at least half of the site's clusters, and
// at least minCommonClusters of them, hold in either number, as
// otherClusters reads them once a structure: on a travel site whose every
// cluster is "X travel guide", "travel" put 21 of a trial's 23 pages of
// other destinations in Related Reading as on its articles' topic.
func (pl *planner) withoutSiteCommonWords(own anchors.ContentWords) anchors.ContentWords {
	clusters := len(pl.in.Structure.Clusters)
	if len(own) == 0 || clusters < minCommonClusters {
		return own
	}
	out := anchors.ContentWords{}
	for w := range own {
		if n := pl.clusterNames.Holding(w); n < minCommonClusters || 2*n < clusters {
			out[w] = true
		}
	}
	return out
}

// minCommonClusters is the fewest clusters a word must be common to
// (withoutSiteCommonWords): two clusters of a small site may share a
// topic.
const minCommonClusters = 3

// minCommonTargets is the fewest targets a word must be common to: among
// two or three, sharing a word is still a sign of a topic.
const minCommonTargets = 4

// relatedSpread is how far below the best score of the pages sharing a
// value with an article its Related Reading still draws from: without it,
// the page that shares the most values with a site fills that slot on
// nearly every article (a trial site's one page on 18 of 24).
const relatedSpread = 10.0

// spread orders scored pages for Related Reading: those within
// relatedSpread of the best, in an order drawn per (source, target) pair
// like the anchor mix (so it does not depend on arrival order), then the
// rest by score.
func (pl *planner) spread(ranked []scored) []scored {
	if len(ranked) < 2 {
		return ranked
	}
	top := 0
	for top < len(ranked) && ranked[top].score.Total >= ranked[0].score.Total-relatedSpread {
		top++
	}
	type drawn struct {
		scored
		draw uint64
	}
	head := make([]drawn, top)
	for i, s := range ranked[:top] {
		head[i] = drawn{s, pairDraw(pl.in.Page.ID, s.ID)}
	}
	slices.SortStableFunc(head, func(a, b drawn) int { return cmp.Compare(a.draw, b.draw) })
	out := make([]scored, 0, len(ranked))
	for _, d := range head {
		out = append(out, d.scored)
	}
	return append(out, ranked[top:]...)
}

// pairDraw is the place a (source, target) pair draws in an order of
// near-equal candidates: a hash of the two ids, so it does not depend on
// arrival order.
func pairDraw(source, target string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(source + "\x00" + target))
	return h.Sum64()
}

// sharesFacet reports whether the target (its cluster's values and its
// own) has one of the facets.
func (pl *planner) sharesFacet(t Target, facets map[string]bool) bool {
	c, _ := pl.in.Structure.Cluster(t.ClusterID)
	for _, list := range [][]string{pl.in.Structure.ClusterFacets(c), pl.in.Structure.Facets(t.Attributes)} {
		for _, f := range list {
			if facets[f] {
				return true
			}
		}
	}
	return false
}

// relatedArticles is SAG link type 2's section: the hub lists every
// supporting article of its cluster, and every product, service or plain
// page the cluster holds, so none of them is left without a link. It has
// no cap and does not count against density.
func (pl *planner) relatedArticles() {
	var members []Target
	for _, t := range pl.targets {
		if t.ClusterID == pl.in.Page.ClusterID && isMember(t.Kind) {
			members = append(members, t)
		}
	}
	pl.list(members, link.TypeVerticalDown, func(t Target) string {
		return fmt.Sprintf("vertical_down: the hub's Related Articles section lists every %s of cluster %s", t.Kind, pl.in.Page.ClusterID)
	})
}

// list plans a generated section listing every one of targets, best score
// first: no cap, no density, no anchor needed in the text. why says why
// each entry is there.
func (pl *planner) list(targets []Target, t link.Type, why func(Target) string) {
	pl.listRanked(pl.scoreAll(targets), t, why)
}

// listRanked lists ranked targets, in their order, in the page's
// generated section.
func (pl *planner) listRanked(ranked []scored, t link.Type, why func(Target) string) {
	for _, s := range ranked {
		if pl.stopped() {
			return
		}
		l := pl.newScoredLink(s, t, link.ZoneRelatedSection)
		l.Explanation = why(*s.Target) + "; " + l.Explanation
		pl.add(l)
	}
}

// isMember reports whether a page of a cluster is listed by its hub.
func isMember(k site.Kind) bool {
	switch k {
	case site.KindSupporting, site.KindProduct, site.KindService, site.KindPage:
		return true
	}
	return false
}

// adoptedOfferings lists in the hub's Related Articles section the products
// and services outside any cluster whose closest cluster is the hub's (the
// one sharing most of their attribute values: site.Structure.ClosestCluster).
// Each of them so has one hub that links it whatever the hubs' text says
// and whether or not a term page of its values exists; other hubs sharing
// a value still link it from their text by score (offerings).
func (pl *planner) adoptedOfferings() {
	var adopted []Target
	for _, t := range pl.targets {
		if t.ClusterID != "" || (t.Kind != site.KindProduct && t.Kind != site.KindService) {
			continue
		}
		if closest, ok := pl.in.Structure.ClosestCluster(pl.in.Structure.Facets(t.Attributes), t.SectorID, PageNames(t.Page)); ok && closest == pl.in.Page.ClusterID {
			adopted = append(adopted, t)
		}
	}
	pl.list(adopted, link.TypeVerticalDown, func(t Target) string {
		return fmt.Sprintf("vertical_down: the hub's Related Articles section lists the %s outside clusters whose attribute values cluster %s shares most", t.Kind, pl.in.Page.ClusterID)
	})
}

// offerings links a hub from its text to the products and services of
// other clusters or of none that share one of its cluster's attribute
// values, by score, within density: a product gets links from its
// cluster's hub (Related Articles) and from the hubs sharing its values.
// Those a term page or their closest cluster's hub lists stay linked even
// where the hub's text does not name them (adoptedOfferings).
//
// Only those on the hub's topic, as a product links a hub (relatedInBody):
// whose names share a content word with the hub's keyword or cluster
// name, or that the hub's text names. A Spanish trial's cat-food hub
// planned a link to a dog food, and its hygiene hub to a dog trainer,
// for the LLM fallback to write in.
func (pl *planner) offerings() {
	var cands []Target
	var offTopic, namedOutside []string
	mine := pl.clusterFacetSet()
	topic, _ := pl.hubTopic(pl.in.Page)
	for _, t := range pl.targets {
		if t.ClusterID == pl.in.Page.ClusterID || (t.Kind != site.KindProduct && t.Kind != site.KindService) || !pl.sharesFacet(t, mine) {
			continue
		}
		names := PageNames(t.Page)
		if !anchors.NewContentWords(names, pl.in.Policy.Language).SharedInEitherNumber(topic) && !pl.textNames(names) {
			switch {
			case pl.listsInSection(t.ID): // one the hub lists is linked: no note says otherwise
			case pl.namesOutsideParagraphs(names):
				namedOutside = append(namedOutside, t.ID)
			default:
				offTopic = append(offTopic, t.ID)
			}
			continue
		}
		cands = append(cands, t)
	}
	pl.pickScored(cands, link.TypeRelated, link.ZoneInBody, unlimited, "product or service sharing an attribute value with the hub's cluster")
	for _, left := range leftOffTopic(offTopic, namedOutside) {
		pl.note("products and services %s share an attribute value with this hub but no word of its topic, and %s: no link planned%s",
			strings.Join(left.ids, ", "), left.named, left.hint)
	}
}

// offTopicGroup is a note's group of targets left out for their topic:
// how the page names them, and what would change that.
type offTopicGroup struct {
	ids         []string
	named, hint string
}

// leftOffTopic groups the targets left out for their topic by how the page
// names them: never, or only outside its paragraphs, where no link goes
// (namesOutsideParagraphs), each non-empty group once.
func leftOffTopic(never, outside []string) []offTopicGroup {
	var out []offTopicGroup
	if len(never) > 0 {
		out = append(out, offTopicGroup{never, "its text names none of them", ""})
	}
	if len(outside) > 0 {
		out = append(out, offTopicGroup{outside, "it names them only outside its paragraphs (in a heading, list, table or menu), where no link goes",
			"; a paragraph naming them would make them candidates"})
	}
	return out
}

// namesOutsideParagraphs reports whether the page's visible text outside
// its paragraphs, where links go, names one of names; asked of a target
// no paragraph names: a note saying that the page's text names none of
// them misleads the writer whose page names one in a heading or a list.
func (pl *planner) namesOutsideParagraphs(names []string) bool {
	if pl.in.Page.HTML == "" {
		return false
	}
	if !pl.wholeTextRead {
		pl.wholeText = anchors.Normalize(markup.VisibleText([]byte(pl.in.Page.HTML)))
		pl.wholeTextRead = true
	}
	for _, n := range names {
		if f := anchors.Normalize(n); f != "" && containsWords(pl.wholeText, f) {
			return true
		}
	}
	return false
}

// clusterFacetSet is the set of the page's cluster's attribute values.
func (pl *planner) clusterFacetSet() map[string]bool {
	mine := map[string]bool{}
	for _, f := range pl.in.Structure.ClusterFacets(pl.cluster) {
		mine[f] = true
	}
	return mine
}

// termPages links a hub from its text to the term pages of its cluster's
// attribute values that the text names in words an anchor may take, best
// score first, with what density leaves after every other link of the
// hub. A term page lists the hubs of its value (taxonomy) and otherwise
// has only a breadcrumb's attribute step, which links it from the pages
// under its path alone: a baking trial's three term pages, at
// /glossary/..., ended with no inbound link though every hub of their
// values named them. As for cross-cluster links, sharing the value is what
// makes one a candidate and the score only orders them: a term page
// shares one value and few keyword words with a hub, and scores below
// review_score (35 in the test of it).
func (pl *planner) termPages() {
	mine := pl.clusterFacetSet()
	var cands []Target
	for _, t := range pl.targets {
		if t.Kind == site.KindTerm && pl.sharesFacet(t, mine) && pl.textNamesWhole(PageNames(t.Page)) {
			cands = append(cands, t)
		}
	}
	pl.pickScoredFrom(cands, link.TypeTaxonomy, link.ZoneInBody, unlimited,
		"term page of a value the hub's cluster has, which the hub's text names", 0)
}

// textNamesWhole is textNames for names of an anchor's length at least,
// each word in either number ("a planted nano tank" names "Nano Tanks"),
// as the placer finds a name by its stems.
func (pl *planner) textNamesWhole(names []string) bool {
	if pl.singularText == "" {
		pl.singularText = singularWords(pl.text)
	}
	for _, n := range names {
		f := anchors.Normalize(n)
		if len(strings.Fields(f)) < pl.in.Policy.AnchorMinWords {
			continue
		}
		if containsWords(pl.text, f) || containsWords(pl.singularText, singularWords(f)) {
			return true
		}
	}
	return false
}

// singularWords is text with each word made singular (anchors.Singular)
// and everything between words kept.
func singularWords(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			b.WriteString(anchors.Singular(text[start:i]))
			start = -1
		}
		b.WriteRune(r)
	}
	if start >= 0 {
		b.WriteString(anchors.Singular(text[start:]))
	}
	return b.String()
}

// sectorHubs lists, on a sector page, the hub of every cluster in the
// sector, as a generated section: the sector links down to its hubs, as
// the hierarchy Home → Sector → Hub asks. No cap.
func (pl *planner) sectorHubs() {
	var hubs []Target
	for _, t := range pl.targets {
		if t.Kind != site.KindHub {
			continue
		}
		if c, ok := pl.in.Structure.Cluster(t.ClusterID); ok && c.SectorID == pl.in.Page.SectorID {
			hubs = append(hubs, t)
		}
	}
	switch {
	case len(hubs) == 0 && pl.in.Page.SectorID == "":
		pl.note("sector page %s names no sector: it has no sector_id, and no sector of the site has its url %s",
			pl.in.Page.ID, pl.in.Page.URL)
	case len(hubs) == 0:
		pl.note("sector page %s: no hub of its sector %s is known yet", pl.in.Page.ID, pl.in.Page.SectorID)
	}
	// In the order the site declares its clusters, as a menu of the
	// sector reads: by score, a trial's Product sector listed its hubs in
	// neither that order nor by name, and each new hub's links reshuffled
	// the list.
	declared := map[string]int{}
	for i, c := range pl.in.Structure.Clusters {
		declared[c.ID] = i
	}
	ranked := pl.scoreAll(hubs)
	slices.SortStableFunc(ranked, func(a, b scored) int {
		return cmp.Compare(declared[a.ClusterID], declared[b.ClusterID])
	})
	pl.listRanked(ranked, link.TypeVerticalDown, func(Target) string {
		return "vertical_down: a sector page lists the hub of every cluster in sector " + pl.in.Page.SectorID
	})
}

// homeLinks links the home page from its text to the sectors and hubs it
// names, with their keyword or title anchors, up to its density maximum:
// the sectors first, the next step down the site's hierarchy, then the
// hubs, each best score first (trial N's home page named 3 sectors and 12
// hubs, and its 10 links went to hubs alone). The home page shares no attribute with anything, and
// naming a section of the site in the home page's own words is reason
// enough to link it; the per-paragraph limits do not apply to it
// (ParagraphLimits), so its text carries every section it names.
func (pl *planner) homeLinks() {
	var cands []Target
	for _, t := range pl.targets {
		if t.Kind == site.KindSector || t.Kind == site.KindHub {
			cands = append(cands, t)
		}
	}
	ranked := pl.scoreAll(cands)
	slices.SortStableFunc(ranked, func(a, b scored) int {
		return cmp.Compare(rankOnHome(a.Kind), rankOnHome(b.Kind))
	})
	links := make([]link.Link, len(ranked))
	for i, s := range ranked {
		if pl.stopped() {
			return
		}
		links[i] = pl.newScoredLink(s, link.TypeVerticalDown, link.ZoneInBody)
	}
	inflected := pl.namedInflected(links)
	inflectedAtCap := pl.namedInflectedAtCap(links, inflected)
	var named []link.Link
	kinds := map[string]site.Kind{}
	for i, s := range ranked {
		l := links[i]
		if pl.linked[s.ID] || pl.linkedByAuthor(*s.Target) {
			continue
		}
		if !pl.mentions(l) && !inflected[l.ID] {
			if used := pl.mentionedAtCap(l); used != "" {
				pl.note("vertical_down link to %s not planned: the home page names it as %q, which other pages use for it %d times (anchor cap)",
					l.TargetPageID, used, pl.in.Policy.MaxExactAnchorPerTarget)
			} else if used := inflectedAtCap[l.ID]; used != "" {
				pl.note("vertical_down link to %s not planned: the home page names it as %q, a form of an anchor other pages use for it %d times (anchor cap)",
					l.TargetPageID, used, pl.in.Policy.MaxExactAnchorPerTarget)
			} else if !pl.noteTooShortName(*s.Target) && s.Kind == site.KindSector {
				// A site has few sectors, and each is a step of its
				// hierarchy: one the home page leaves out says why.
				pl.note("sector %s not linked: the home page's text does not name it (as %q)", s.ID, cmp.Or(pl.sectorName(*s.Target), s.Title))
			}
			continue
		}
		named = append(named, l)
		kinds[l.TargetPageID] = s.Kind
	}
	// The budget goes first to the sections the text can carry: a
	// help-center trial's home page spent 2 of its 5 links on hubs whose
	// anchors were at the cap, and left out 3 it named with anchors free.
	var overBudget []string
	for _, l := range pl.carriedFirst(named) {
		if pl.budget <= 0 {
			// Every section named and left out is named in the note
			// (trial Q saw two hubs dropped without a word).
			overBudget = append(overBudget, l.TargetPageID)
			continue
		}
		l.Explanation = fmt.Sprintf("vertical_down: the home page names this %s in its text; score %.2f, kept for the record; %s",
			kinds[l.TargetPageID], l.Score, l.Explanation)
		pl.add(l)
		pl.budget--
	}
	if len(overBudget) > 0 {
		pl.note("vertical_down links to %s not planned: %s", strings.Join(overBudget, ", "), pl.budgetTaken())
	}
}

// rankOnHome orders the home page's targets by the site's hierarchy:
// sectors before hubs.
func rankOnHome(k site.Kind) int {
	if k == site.KindSector {
		return 0
	}
	return 1
}

// noteTooShortName says why the home page does not link a section whose
// name its text holds only as a word or words fewer than an anchor's
// minimum ("Everything starts with budgeting"): the seed's anchors have
// 2–8 words, and a writer who wants the link writes a longer phrase. It
// reports whether it wrote the note.
func (pl *planner) noteTooShortName(t Target) bool {
	name, ok := pl.shortNameOnly(t)
	if ok {
		pl.note("%s %s not linked: the home page names it only as %q, shorter than the %d words an anchor needs; %s",
			t.Kind, t.ID, name, pl.in.Policy.AnchorMinWords, pl.longerPhraseHint(name))
	}
	return ok
}

// shortNameOnly is a name of t that the page's text holds, in fewer words
// than an anchor's minimum: what the text names t by when none of its
// anchors is there.
func (pl *planner) shortNameOnly(t Target) (string, bool) {
	return pl.shortNameIn(t, pl.text)
}

// namesOf are the names a writer may call t by, as a hint about a short
// name reads them (shortNameIn, namesTooShort).
func (pl *planner) namesOf(t Target) []string {
	names := append([]string{t.PrimaryKeyword, pl.sectorName(t), anchors.ShortTitle(t.Title), t.Title}, t.Keywords...)
	return append(names, pl.hubsClusterName(t))
}

// hubsClusterName is the name of the cluster t is the hub of, a name a
// home page calls a hub by ("i pomodori" of the cluster "Pomodori": an
// Italian trial's home page named every hub so, and its plan said nothing
// of the hubs it could not link); "" for a page of another kind.
func (pl *planner) hubsClusterName(t Target) string {
	if t.Kind != site.KindHub {
		return ""
	}
	c, ok := pl.in.Structure.Cluster(t.ClusterID)
	if !ok {
		return ""
	}
	return c.Name
}

// shortNameIn is shortNameOnly within text (normalised).
func (pl *planner) shortNameIn(t Target, text string) (string, bool) {
	for _, name := range pl.namesOf(t) {
		n := anchors.Normalize(name)
		if n != "" && len(strings.Fields(n)) < pl.in.Policy.AnchorMinWords && containsWords(text, n) {
			return name, true
		}
	}
	return "", false
}

// longerPhraseHint says what would carry a link whose target the text
// names only as name. The example phrase is English; another language's
// site is told what to write, not given a phrase in a language it does
// not use.
func (pl *planner) longerPhraseHint(name string) string {
	if pl.in.Policy.Language == "" || pl.in.Policy.Language == policy.English {
		return fmt.Sprintf("a phrase such as \"our %s guide\" would carry the link", pl.asWritten(strings.TrimSpace(name)))
	}
	return fmt.Sprintf("a phrase of at least %d words that holds it would carry the link", pl.in.Policy.AnchorMinWords)
}

// asWritten is name as the page's text writes it, letter case and all,
// where the text holds it: a parenting trial's articles were told to
// write "our Teething guide" of a hub titled "Teething" that their text
// called "teething". Else name itself.
func (pl *planner) asWritten(name string) string {
	want := strings.ToLower(name)
	for _, text := range pl.in.Texts {
		lower := strings.ToLower(text)
		// the same byte offsets hold in text only when case folding kept
		// every rune's size
		if i := indexWords(lower, want); i >= 0 && len(lower) == len(text) {
			return uncapitalizedAtStart(text, i, text[i:i+len(want)])
		}
	}
	return name
}

// uncapitalizedAtStart is written, found at text[i:], with its capital
// taken off when a sentence opens on it and its first word is no name
// ("Commuting means…" writes "commuting"; "RSV spreads…" stays "RSV").
func uncapitalizedAtStart(text string, i int, written string) string {
	before := strings.TrimRightFunc(text[:i], unicode.IsSpace)
	if before != "" && !strings.HasSuffix(before, ".") && !strings.HasSuffix(before, "!") && !strings.HasSuffix(before, "?") {
		return written
	}
	first, size := utf8.DecodeRuneInString(written)
	rest, _, _ := strings.Cut(written[size:], " ")
	if !unicode.IsUpper(first) || rest == "" || strings.ToLower(rest) != rest {
		return written
	}
	return string(unicode.ToLower(first)) + written[size:]
}

// contextualDown is SAG link type 2's body links: the hub links from its
// text to the supporting articles it mentions, then to its cluster's
// products and services it mentions, as density allows. Its Related
// Articles list links them all; a law firm trial's hubs named their own
// services ("a car accident lawyer will…") and linked them in the list
// alone, while linking other clusters' services from their text
// (offerings).
func (pl *planner) contextualDown() {
	pl.pickScored(pl.clusterArticles(), link.TypeVerticalDown, link.ZoneInBody, unlimited, "supporting article of cluster "+pl.in.Page.ClusterID)
	var offered []Target
	for _, t := range pl.targets {
		if t.ClusterID == pl.in.Page.ClusterID && (t.Kind == site.KindProduct || t.Kind == site.KindService) {
			offered = append(offered, t)
		}
	}
	pl.pickScored(offered, link.TypeVerticalDown, link.ZoneInBody, unlimited, "product or service of cluster "+pl.in.Page.ClusterID)
}

// crossCluster is SAG link type 4: up to max_cross_cluster_per_hub hubs
// of other clusters that share an attribute value with this one.
func (pl *planner) crossCluster() {
	mine := pl.clusterFacetSet()
	var cands []Target
	for _, t := range pl.targets {
		if t.Kind != site.KindHub || t.ClusterID == pl.in.Page.ClusterID {
			continue
		}
		c, _ := pl.in.Structure.Cluster(t.ClusterID)
		for _, f := range pl.in.Structure.ClusterFacets(c) {
			if mine[f] {
				cands = append(cands, t)
				break
			}
		}
	}
	// Sharing a value is what makes a hub a candidate; the score only
	// orders the candidates. Two clusters on different subjects share few
	// keyword words, so a pair sharing one value (20 of the 40 points)
	// scores at most 55 without a keyword word in common and would never
	// pass auto_link_score: the best of them are planned from review_score
	// up.
	pl.pickScoredFrom(cands, link.TypeCrossCluster, link.ZoneInBody, pl.in.Policy.MaxCrossClusterPerHub, "hub sharing an attribute value",
		pl.in.Policy.ReviewScore)
}

// taxonomy is SAG link type 5: a term page links to every hub whose
// cluster has the term's attribute value. No cap.
func (pl *planner) taxonomy() {
	want := map[string]bool{}
	for _, f := range pl.in.Structure.Facets(pl.in.Page.Attributes) {
		want[f] = true
	}
	if len(want) == 0 {
		pl.note("term page %s has no attribute value: no taxonomy links", pl.in.Page.ID)
		return
	}
	var hubs []Target
	for _, t := range pl.targets {
		if t.Kind != site.KindHub {
			continue
		}
		c, _ := pl.in.Structure.Cluster(t.ClusterID)
		for _, f := range pl.in.Structure.ClusterFacets(c) {
			if want[f] {
				hubs = append(hubs, t)
				break
			}
		}
	}
	for _, t := range pl.targets {
		if t.ClusterID == "" && (t.Kind == site.KindProduct || t.Kind == site.KindService) && pl.sharesFacet(t, want) {
			hubs = append(hubs, t)
		}
	}
	pl.list(hubs, link.TypeTaxonomy, func(t Target) string {
		return fmt.Sprintf("taxonomy: a term page lists every hub, and every product and service outside a cluster, with its attribute value (this is a %s)", t.Kind)
	})
	// Two links lead to a term page: the breadcrumb's attribute step, on
	// the pages of the hubs under its path, and a hub's own text naming
	// it (termPages), which this plan cannot see.
	under := func(t Target) bool { return t.Kind == site.KindHub && onPath(pl.in.Page.URL, t.URL) }
	if !slices.ContainsFunc(hubs, under) {
		// A home-services trial's hubs named such a page, and the note,
		// which read as if they did not, was the wrong advice: it is about
		// the breadcrumb, and what the hubs' text does is theirs to tell.
		// A hub's plan tells only a link it planned: one whose text names
		// the term in too few words plans none (a parenting trial's hub
		// said "RSV" four times, and was said to tell why).
		pl.note("term page %s gets no breadcrumb link: a trail's attribute step links a term page "+
			"from the pages of the hubs under its path (%s), and no published hub with its value is there. "+
			"The hubs it lists link it only where their text names it in an anchor's words and a paragraph has room (a hub's plan tells the link it could not place); "+
			"if none does, name it in their text%s, link it from the site's navigation, or publish its hubs under its path",
			pl.in.Page.ID, pl.in.Page.URL, pl.namedInWordsHint())
	}
}

// namedInWordsHint is what a term page's note adds when none of its
// names has the words an anchor needs: a hub's text that says "miso"
// names it and still carries no link (a recipe trial's glossary pages
// were told to be named in text that named them).
func (pl *planner) namedInWordsHint() string {
	short := ""
	page := pl.in.Page
	for _, n := range append([]string{page.PrimaryKeyword, page.Title}, page.Keywords...) {
		words := len(strings.Fields(anchors.Normalize(n)))
		if words >= pl.in.Policy.AnchorMinWords {
			return ""
		}
		if short == "" && words > 0 {
			short = n
		}
	}
	if short == "" {
		return ""
	}
	return fmt.Sprintf(" in at least %d words (its names are shorter, and %q alone carries no link: %s, or set anchor_min_words)",
		pl.in.Policy.AnchorMinWords, short, pl.longerPhraseHint(short))
}

// hubTopic is a hub's topic, its keyword and its cluster's name and
// primary keyword, and all its names: a word its title or other keywords
// hold beside the topic ("Paint Like a Pro", "wallpaper installation")
// made a trial's chain checker and installation services on topic for
// unrelated hubs.
func (pl *planner) hubTopic(hub site.Page) (topic, names []string) {
	topic, names = []string{hub.PrimaryKeyword}, PageNames(hub)
	if c, ok := pl.in.Structure.Cluster(hub.ClusterID); ok {
		topic = append(topic, c.Name, c.PrimaryKeyword)
		names = append(names, c.Name, c.PrimaryKeyword)
	}
	return topic, names
}

// relatedInBody links a product, service or plain page to the hubs that
// share its attribute values, by score, within its density range.
//
// A hub of another cluster is linked only on its topic: one whose keyword
// or cluster name shares a content word with the page's names, or that
// the page's text names. Two broad values shared (a skill level and a
// room) and a hub's authority scored a home-improvement trial's flooring
// nailer 71 for the Wallpaper hub, a link the LLM fallback would have
// written into a page about nailers.
func (pl *planner) relatedInBody() {
	page := pl.in.Page
	own := anchors.NewContentWords(append(PageNames(page), pl.cluster.PrimaryKeyword), pl.in.Policy.Language)
	var cands []Target
	var offTopic, namedOutside []string
	for _, t := range pl.targets {
		if t.Kind != site.KindHub {
			continue
		}
		topic, names := pl.hubTopic(t.Page)
		if t.ClusterID != page.ClusterID && !own.SharedInEitherNumber(topic) && !pl.textNames(names) {
			if pl.namesOutsideParagraphs(names) {
				namedOutside = append(namedOutside, t.ID)
			} else {
				offTopic = append(offTopic, t.ID)
			}
			continue
		}
		cands = append(cands, t)
	}
	pl.pickScored(cands, link.TypeRelated, link.ZoneInBody, unlimited, "hub sharing an attribute value")
	for _, left := range leftOffTopic(offTopic, namedOutside) {
		// Said of the hubs' topic, which is what is compared: a gardening
		// trial's product read "no word of its names" of a hub whose
		// other keywords did share one.
		pl.note("hubs %s share an attribute value with this page, but no word of their topic (primary keyword or cluster name) "+
			"is a word of its names, and %s: no link planned%s", strings.Join(left.ids, ", "), left.named, left.hint)
	}
	pl.noteListingHub()
}

// textNames reports whether the page's text holds one of names as whole
// words.
func (pl *planner) textNames(names []string) bool {
	for _, n := range names {
		if f := anchors.Normalize(n); f != "" && containsWords(pl.text, f) {
			return true
		}
	}
	return false
}

// noteListingHub says why no hub lists a product or service outside
// clusters (adoptedOfferings) when none does: no cluster shares its values,
// or the hub of the cluster sharing most of them is not published. A term
// page of its values, or another page's text, may still link it. A plain
// page outside clusters has no link type at all that targets it.
func (pl *planner) noteListingHub() {
	p := pl.in.Page
	if p.ClusterID == "" && p.Kind == site.KindPage {
		pl.note("no link type of the sag policy links a plain page outside every cluster (an about or pricing page): " +
			"link it from the site's navigation, give it a cluster_id, or add a link to it by hand")
		return
	}
	if p.ClusterID != "" || (p.Kind != site.KindProduct && p.Kind != site.KindService) {
		return
	}
	closest, ok := pl.in.Structure.ClosestCluster(pl.in.Structure.Facets(p.Attributes), p.SectorID, PageNames(p))
	if !ok {
		pl.note("no cluster shares an attribute value with this %s: no hub lists it, so only a term page of its values, another page's text or a link added by hand can link to it", p.Kind)
		return
	}
	for _, t := range pl.targets {
		if t.Kind == site.KindHub && t.ClusterID == closest {
			return
		}
	}
	pl.note("cluster %s shares the most of this %s's attribute values, but has no hub page yet: its hub will list this page once published", closest, p.Kind)
}

func (pl *planner) hubID() string {
	if pl.in.Hub == nil {
		return ""
	}
	return pl.in.Hub.ID
}

// scored is a target with its SAG score.
type scored struct {
	// *Target, not a copy: a plan scores a few hundred targets several
	// times over, and copies of them were a tenth of a burst's
	// allocation. The targets are not changed while a plan lasts.
	*Target
	score scoring.Score
}

// scoreAll scores targets with the SAG factors, best first, then by id.
func (pl *planner) scoreAll(targets []Target) []scored {
	source := scoring.PreparedSource(scoring.Candidate{
		AttributeValues: pl.facets,
		Keywords:        append(append([]string{pl.cluster.PrimaryKeyword}, pl.cluster.Keywords...), append([]string{pl.in.Page.PrimaryKeyword}, pl.in.Page.Keywords...)...),
		PublishedAt:     pl.in.Page.PublishedAt,
	}, pl.in.Policy.Language)
	ctx := scoring.Context{MaxInbound: pl.maxIn, Now: pl.now}
	out := make([]scored, 0, len(targets))
	for i := range targets {
		t := &targets[i]
		if pl.stopped() {
			break
		}
		// Sibling links, Related Reading and cross-cluster links score
		// some targets alike: each is scored once per plan.
		sc, ok := pl.scores[t.ID]
		if !ok {
			c, _ := pl.in.Structure.Cluster(t.ClusterID)
			keywords := append(append([]string{t.PrimaryKeyword, t.Title}, t.Keywords...), c.PrimaryKeyword)
			if t.Kind == site.KindHub {
				// A hub is named by its cluster's keywords too (anchorTarget):
				// an e-commerce trial's product linked another cluster's hub
				// over its own, whose keyword "single dose grinder" was its
				// cluster's and not its page's.
				keywords = append(keywords, c.Keywords...)
			}
			target := scoring.Candidate{
				AttributeValues: pl.in.Structure.ClusterFacets(c),
				Keywords:        keywords,
				Inbound:         t.Inbound,
				LinkScore:       t.LinkScore,
				PublishedAt:     t.PublishedAt,
			}
			if len(t.Attributes) > 0 {
				target.AttributeValues = unionSorted(target.AttributeValues, pl.in.Structure.Facets(t.Attributes))
			}
			sc = scoring.SAG(pl.in.Policy, source, target, ctx)
			pl.scores[t.ID] = sc
		}
		out = append(out, scored{t, sc})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score.Total != out[j].score.Total {
			return out[i].score.Total > out[j].score.Total
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// pickScored plans up to limit links of one type among the targets by
// their SAG score: at auto_link_score or above they are planned, those the
// page's text can carry first (placeable: a link is only placed where its
// anchor is found, and within the paragraph density), then those it
// mentions; between review_score and auto_link_score they become
// review suggestions, up to the same limit; below, they are dropped.
// In-body links and related reading count against density. It returns how
// many links it planned.
func (pl *planner) pickScored(targets []Target, t link.Type, z link.Zone, limit int, why string) int {
	return pl.pickScoredFrom(targets, t, z, limit, why, pl.in.Policy.AutoLinkScore)
}

// pickScoredFrom is pickScored planning the targets that score plan or
// more: auto_link_score for most link types, review_score for
// cross-cluster links (crossCluster). plan is at least review_score.
func (pl *planner) pickScoredFrom(targets []Target, t link.Type, z link.Zone, limit int, why string, plan float64) int {
	var auto, review []link.Link
	for _, s := range pl.scoreAll(targets) {
		if pl.stopped() {
			return 0
		}
		if z == link.ZoneInBody && (pl.linked[s.ID] || pl.linkedByAuthor(*s.Target)) {
			continue
		}
		switch {
		case s.score.Total >= plan:
			auto = append(auto, pl.newScoredLink(s, t, z))
		case scoring.Decide(pl.in.Policy, s.score.Total) == scoring.Review:
			review = append(review, pl.newScoredLink(s, t, z))
		}
	}
	if z == link.ZoneInBody {
		auto = pl.carriedFirst(auto)
	}
	p := pl.in.Policy
	planned := 0
	for _, l := range auto {
		if planned == limit {
			break
		}
		// The trial placement (carriedFirst) reads the text as the placer
		// will: a listed page it carried is named, in whatever form of a
		// candidate, where a literal search sees only some forms (a German
		// trial's bike-bags hub said "wasserdichte Packtaschen" and
		// "Lastenrad-Förderung" of its articles, and both were left to the
		// list). Without the page's HTML there is no trial to ask.
		leftToTheList := func() bool {
			if pl.in.Page.HTML != "" {
				return pl.uncarried[l.ID]
			}
			return !pl.mentions(l)
		}
		if z == link.ZoneInBody && pl.listsInSection(l.TargetPageID) && leftToTheList() {
			// The page's generated list links it already, its text does not
			// name it (or names it with no anchor or room the placer can
			// use), and the LLM fallback leaves it to the list: planned in
			// the body it would only hold a place of the density budget (an
			// automotive trial's hubs, whose Related Articles named 5 such
			// articles, left a product their text named unlinked for want
			// of room; a gardening trial's hub held 4 places so).
			pl.noteLeftToTheList(l, t)
			continue
		}
		if pl.budget <= 0 {
			// No score in the note: a page's notes are part of what a settle
			// pass compares, and a score moving alone is no reason to send
			// the page again (a trial's pages were, on "score 62.67" becoming
			// "62.72"). The score is in the plan's explanation.
			pl.note("%s link to %s not planned: %s", t, l.TargetPageID, pl.budgetTaken())
			break
		}
		l.Explanation = fmt.Sprintf("%s: %s; score %.2f ≥ %.0f, planned without review; %s", t, why, l.Score, plan, l.Explanation)
		pl.add(l)
		pl.budget--
		planned++
	}
	for i, l := range review {
		if i == limit {
			break
		}
		// A review suggestion is no link yet: Related Reading may still
		// list the target, and does once the suggestion is accepted no more.
		l.Status = link.StatusReview
		l.Explanation = fmt.Sprintf("%s: %s; score %.2f is between %.0f and %.0f: suggested for review; %s",
			t, why, l.Score, p.ReviewScore, p.AutoLinkScore, l.Explanation)
		// Said as the plan is made, as the inject stage would say it
		// (ReviewReason), so the stage rewrites no row to say it.
		if !pl.mentions(l) {
			gap := NoAnchorInText
			if pl.mentionedAtCap(l) != "" {
				gap = TextAnchorsAtCap
			}
			l.Reason = ReviewReason(gap)
		}
		pl.plan.Links = append(pl.plan.Links, l)
	}
	return planned
}

// AnchorGap is why a review suggestion has no anchor.
type AnchorGap int

const (
	// NoAnchorInText: the text holds none of its anchors.
	NoAnchorInText AnchorGap = iota
	// TextAnchorsAtCap: the text holds anchors for it, all used for its
	// target as often as the cap allows; the LLM fallback may write in
	// another of its anchors.
	TextAnchorsAtCap
	// EveryAnchorAtCap: every anchor it has is used up, so the LLM
	// fallback could write in none either.
	EveryAnchorAtCap
)

// ReviewReason says why a review suggestion has no anchor, which the
// person deciding should know: accepted as the text stands, it is placed
// nowhere (trial O accepted ten such and saw nothing change), and with
// every anchor at the cap not even the LLM fallback places it.
func ReviewReason(gap AnchorGap) string {
	switch gap {
	case TextAnchorsAtCap:
		return "every anchor the text holds for it is used for its target as often as the anchor cap allows: if accepted, it is left for the LLM fallback"
	case EveryAnchorAtCap:
		return "every anchor it has is used for its target as often as the anchor cap allows: if accepted, it stays planned"
	}
	return "no anchor for it in the page's text: if accepted, it is left for the LLM fallback; " +
		"or add the link by hand with an anchor the text holds"
}

// carriedFirst orders in-body links as the page's text can take them: the
// links a trial placement carries first, then those the text mentions but
// has no room for, then the rest (the LLM fallback's work), each group in
// the order given (best first). A target tried and not carried is
// remembered in noRoom.
func (pl *planner) carriedFirst(links []link.Link) []link.Link {
	named := make([]bool, len(links))
	for i, l := range links {
		named[i] = pl.mentions(l)
	}
	fits := pl.placeable(links, named)
	var carried, mentioned, rest []link.Link
	for i, l := range links {
		trial, tried := fits[l.ID]
		fit := trial.Placed
		if tried && !fit {
			pl.noRoom[l.TargetPageID] = true
		}
		// Only the density limits crowd a link out: a trial's note blamed
		// them for a product whose name the placer did not take ("The
		// Ridgeline tripod folds", read as a plural noun).
		if tried && markup.LeftNoRoom(trial.Reason) {
			pl.crowded[l.TargetPageID] = true
		} else if tried && !fit && trial.Reason != "" {
			pl.refused[l.TargetPageID] = trial.Reason
		}
		if !fit {
			pl.uncarried[l.ID] = true
		}
		switch {
		case fit:
			carried = append(carried, l)
		case named[i]:
			mentioned = append(mentioned, l)
		default:
			rest = append(rest, l)
		}
	}
	return append(append(carried, mentioned...), pl.spreadUnnamed(rest)...)
}

// spreadUnnamed orders the in-body links the text does not name, best
// first, as Related Reading orders its pages (spread): those within
// relatedSpread of the best in an order drawn per (source, target) pair.
// In strict score order every article of a trial's cluster of 60 left
// the same two siblings, the best scored, to the LLM fallback, and listed
// them in its Related Reading too. A silo's scores are on no 0–100 scale
// and keep their order.
func (pl *planner) spreadUnnamed(links []link.Link) []link.Link {
	if len(links) < 2 || pl.in.Policy.Name == policy.Silo {
		return links
	}
	top := 0
	for top < len(links) && links[top].Score >= links[0].Score-relatedSpread {
		top++
	}
	out := slices.Clone(links)
	slices.SortStableFunc(out[:top], func(a, b link.Link) int {
		return cmp.Compare(pairDraw(pl.in.Page.ID, a.TargetPageID), pairDraw(pl.in.Page.ID, b.TargetPageID))
	})
	return out
}

// mentions reports whether the page's text holds one of the link's anchors
// as whole words, as the placer will look for it: a name before a comma or
// at the end of a sentence ("our advice on road bikes, written by...") is
// mentioned; "road bikes" inside "railroad bikes" is not.
func (pl *planner) mentions(l link.Link) bool {
	return pl.mentionsIn(l, pl.text)
}

// mentionsIn is mentions within text (normalised).
func (pl *planner) mentionsIn(l link.Link, text string) bool {
	capped := pl.in.AtCap[l.TargetPageID]
	for _, a := range l.Candidates {
		if f := anchors.Normalize(a.Text); !capped[f] && containsWords(text, f) {
			return true
		}
	}
	return false
}

// mentionedAtCap is the first of the link's candidates the text holds
// that other pages have used up for its target (Input.AtCap); "" when
// there is none.
func (pl *planner) mentionedAtCap(l link.Link) string {
	for _, a := range l.Candidates {
		if f := anchors.Normalize(a.Text); pl.in.AtCap[l.TargetPageID][f] && containsWords(pl.text, f) {
			return a.Text
		}
	}
	return ""
}

// placeableTexts are the link's candidate texts the inject stage may still
// place: those other pages have not used up for its target (Input.AtCap).
func (pl *planner) placeableTexts(l link.Link) []string {
	capped := pl.in.AtCap[l.TargetPageID]
	if len(capped) == 0 {
		return CandidateTexts(l.Candidates) // the common case: no fold needed
	}
	texts := make([]string, 0, len(l.Candidates))
	for _, c := range l.Candidates {
		if !capped[anchors.Normalize(c.Text)] {
			texts = append(texts, c.Text)
		}
	}
	return texts
}

// containsWords reports whether phrase occurs in text with no letter or
// digit joined to either end (markup's whole-word rule; scripts written
// without spaces need no boundary). Both are normalised (anchors.Normalize).
func containsWords(text, phrase string) bool {
	return indexWords(text, phrase) >= 0
}

// indexWords is where phrase first occurs in text as containsWords finds
// it, or -1.
func indexWords(text, phrase string) int {
	if phrase == "" {
		return -1
	}
	for from := 0; from <= len(text)-len(phrase); {
		i := strings.Index(text[from:], phrase)
		if i < 0 {
			return -1
		}
		start, end := from+i, from+i+len(phrase)
		first, _ := utf8.DecodeRuneInString(phrase)
		last, _ := utf8.DecodeLastRuneInString(phrase)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !joinedRunes(before, first)) && (end == len(text) || !joinedRunes(last, after)) {
			return start
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return -1
}

// joinedRunes reports whether a and b side by side are one word.
func joinedRunes(a, b rune) bool {
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	noSpace := func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
	}
	return word(a) && word(b) && !noSpace(a) && !noSpace(b)
}

func (pl *planner) newScoredLink(s scored, t link.Type, z link.Zone) link.Link {
	l := pl.newLink(*s.Target, t, z)
	l.Score = s.score.Total
	l.Factors = s.score.Factors
	if z == link.ZoneRelatedSection {
		// A generated list names the page by its title (newLink) and needs
		// nothing of the text: searching the text for the anchors of every
		// article a hub lists cost a plan time for nothing.
		l.Candidates = []link.Anchor{{Text: l.Anchor, Type: l.AnchorType}}
		l.Explanation = "named by its title in the generated section"
		return l
	}
	l.Candidates = pl.rankAnchors(s.ID, pl.anchorCandidates(*s.Target), &l)
	return l
}

func (pl *planner) newLink(t Target, typ link.Type, z link.Zone) link.Link {
	l := link.Link{
		ID:           link.NewID(pl.in.Page.SiteID, pl.in.Page.ID, t.ID, typ, z),
		SourcePageID: pl.in.Page.ID,
		TargetPageID: t.ID,
		TargetURL:    t.URL,
		Type:         typ,
		Zone:         z,
		Factors:      map[string]float64{},
		Status:       link.StatusPlanned,
	}
	if z == link.ZoneRelatedSection {
		// A generated list names each entry by its title.
		l.Anchor, l.AnchorType = t.Title, link.AnchorPageTitle
		if l.Anchor == "" {
			l.Anchor = t.PrimaryKeyword
		}
	}
	return l
}

func (pl *planner) add(l link.Link) {
	pl.plan.Links = append(pl.plan.Links, l)
	pl.offered[l.TargetPageID] = true
	if l.Zone == link.ZoneInBody {
		pl.linked[l.TargetPageID] = true
	}
}

// anchorCandidates draws a target's anchors from its keywords (a hub's
// cluster keywords first), its title and the page's own text. A natural
// phrase is offered only to the target it names best among the page's
// targets (anchors.Owners), and never when it names the page itself.
func (pl *planner) anchorCandidates(t Target) []link.Anchor {
	if i, ok := pl.ownerOf[t.ID]; ok {
		return pl.owners.Candidates(i, pl.words, pl.in.Policy)
	}
	return anchors.Candidates(pl.anchorTarget(t), pl.words, pl.in.Policy)
}

// anchorTarget is what a target's anchors are drawn from.
func (pl *planner) anchorTarget(t Target) anchors.Target {
	at := anchors.Target{PrimaryKeywords: []string{t.PrimaryKeyword}, Variations: t.Keywords, Title: t.Title, Language: pl.in.Policy.Language}
	if t.Kind == site.KindHub {
		if c, ok := pl.in.Structure.Cluster(t.ClusterID); ok {
			at.PrimaryKeywords = []string{c.PrimaryKeyword, t.PrimaryKeyword}
			at.Variations = append(append([]string{}, c.Keywords...), t.Keywords...)
		}
	}
	if name := pl.sectorName(t); name != "" {
		// "Our hiking section" names the sector the site calls Hiking,
		// not the hub "Rain Jackets for Hiking" (trial U): the sector's
		// name is one of its page's names.
		at.Variations = append(append([]string{}, t.Keywords...), name)
	}
	if t.Kind == site.KindHome {
		at.Brand = pl.in.Structure.Site.Name
	}
	return at
}

// sectorName is the name site.updated gives the sector a sector page
// stands for; "" for any other page.
func (pl *planner) sectorName(t Target) string {
	if t.Kind != site.KindSector {
		return ""
	}
	s, ok := pl.in.Structure.Sector(pl.in.Structure.SectorOf(t.Page))
	if !ok {
		return ""
	}
	return s.Name
}

// rankAnchors orders a link's anchor candidates and records why in its
// explanation. Candidates outside the word range are refused. The order
// does not depend on which other pages were linked first, so the same site
// gives the same anchors however its events interleave: each (source,
// target) pair draws its preferred anchor type from a hash, weighted by the
// policy's mix (60% primary keyword, 30% title, 10% natural), and the
// remaining candidates follow as fallbacks in the seeds' order. Across a
// site the mix per target therefore tends to the policy's shares; the
// exact-match cap is checked by validation, which sees the placed anchors.
func (pl *planner) rankAnchors(targetID string, cands []link.Anchor, l *link.Link) []link.Anchor {
	ranked, refused := anchors.Rank(pl.in.Policy, cands, anchors.Usage{})
	preferred := anchors.PreferredType(pl.in.Policy, pl.in.Page.ID, targetID)
	if pl.in.Page.Kind == site.KindHome && preferred == link.AnchorNatural {
		// The home page names its sections by their names, branded or
		// keyword: a photography trial's linked its Techniques sector as
		// "[technique guides]" a paragraph before it said "photography
		// techniques".
		preferred = link.AnchorPrimaryKeyword
	}
	for i, a := range ranked {
		if a.Type == preferred {
			ranked = append(append([]link.Anchor{a}, ranked[:i]...), ranked[i+1:]...)
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d anchor candidate(s); this link's draw from the %.0f/%.0f/%.0f keyword/title/natural mix prefers %s",
		len(ranked), 100*pl.in.Policy.AnchorSharePrimary, 100*pl.in.Policy.AnchorShareTitle, 100*pl.in.Policy.AnchorShareNatural, preferred)
	if len(ranked) > 0 {
		fmt.Fprintf(&b, ", first %q (%s)", ranked[0].Text, ranked[0].Type)
	}
	for _, r := range refused {
		fmt.Fprintf(&b, "; refused %q: %s", r.Anchor.Text, r.Reason)
	}
	l.Explanation = b.String()
	return ranked
}

func unionSorted(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range [][]string{a, b} {
		for _, v := range list {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}
