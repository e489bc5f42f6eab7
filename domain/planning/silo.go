package planning

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/scoring"
	"github.com/interlinker/interlinker/domain/site"
)

// silo plans a page under the strict-silo policy: no link leaves the
// page's silo (its cluster, or the flat set of pages outside any cluster),
// and a page carries at most budget_max links in its body.
func (pl *planner) silo() {
	page := pl.in.Page
	if pl.in.Policy.BreadcrumbHTML {
		// The silo seed has no breadcrumbs; a silo site that asks for the
		// trail in its HTML gets SAG's (a trial's breadcrumb_html did
		// nothing). Its links are no silo link: the rules pass over them.
		pl.breadcrumbs()
	}
	switch {
	case page.Kind == site.KindHome:
		// The site's hierarchy enters every silo from above (EntersSilo):
		// the sections the home page names come before its flat links.
		// A page outside the clusters that no other such page may link
		// (it shares its labels with none) has the home page alone: its
		// link comes before the sections', which the sector pages link
		// too (a silo trial's lock, named on the home page, was left an
		// orphan by a budget spent on hubs). Such a page the home page
		// links whatever labels the two share (onlyHomeMayLink).
		first := pl.siloFlat(func(s siloScored) bool { return pl.linkedOnlyFromHome(s.Target) }, true)
		pl.homeLinks()
		pl.siloFlat(func(s siloScored) bool { return pl.sharesLabels(s) && !first[s.ID] }, false)
	case page.Kind == site.KindSector:
		pl.sectorHubs()
		pl.siloFlat(nil, false)
	case page.ClusterID == "":
		pl.siloFlat(nil, false)
	case page.Kind == site.KindHub:
		pl.siloParent()
	default:
		pl.verticalUp()
		pl.siloSiblings()
	}
}

// EntersSilo reports whether a link from a page of kind from to a page of
// kind to is the site's hierarchy leading into a silo from above: the home
// page to a sector page or a hub, a sector page to a hub. A strict silo
// forbids links across silos, not the way in at its top, as the trail
// Home → Sector → Hub reads it (the breadcrumb is the way back out): a
// silo trial's home page named its five hubs and linked none, and its
// sector pages listed none of theirs.
func EntersSilo(from, to site.Kind) bool {
	switch from {
	case site.KindHome:
		return to == site.KindSector || to == site.KindHub
	case site.KindSector:
		return to == site.KindHub
	}
	return false
}

// siloScored is a target with its silo score.
type siloScored struct {
	Target
	score   float64
	overlap int
}

// siloRank scores targets as the silo design says: shared labels, plus
// priority_bonus for a priority page, minus a diversity penalty growing
// with the target's inbound links; best first, then by id.
func (pl *planner) siloRank(targets []Target) []siloScored {
	out := make([]siloScored, 0, len(targets))
	for _, t := range targets {
		if pl.stopped() {
			break
		}
		total, overlap := scoring.Silo(pl.in.Policy, pl.in.Page.Labels, t.Labels, t.Priority > 0, t.Inbound)
		out = append(out, siloScored{t, total, overlap})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// siloFlat links a page outside any cluster to the other such pages
// admit admits (nil: those it shares at least label_overlap_min labels
// with, sharesLabels). carriedOnly links only those its text can carry,
// leaving the rest to a later call. It returns the targets it linked.
func (pl *planner) siloFlat(admit func(siloScored) bool, carriedOnly bool) map[string]bool {
	if admit == nil {
		admit = pl.sharesLabels
	}
	var cands []Target
	for _, t := range pl.targets {
		if flatPeer(t) {
			cands = append(cands, t)
		}
	}
	var related []siloScored
	for _, s := range pl.siloRank(cands) {
		if admit(s) {
			related = append(related, s)
		}
	}
	if kind := pl.in.Page.Kind; len(related) == 0 && kind != site.KindHome && kind != site.KindSector {
		// Said, as sag says it of a plain page: trial Q's 14 pages outside
		// clusters went unlinked without a word. Not of the home page or a
		// sector page, which link and are linked by the structure: a
		// help-center trial's home page, linking 3 hubs, was told it
		// "links, and is linked by, no page".
		pl.note("no page outside the clusters shares %d or more labels with this one (it has %d): under silo it links, "+
			"and is linked by, no page but the home page where the home page's text names it; give it labels it shares, a cluster_id, "+
			"or a link added by hand",
			pl.in.Policy.LabelOverlapMin, len(pl.in.Page.Labels))
	}
	links := pl.siloLinks(related, link.TypeRelated, func(s siloScored) string {
		if !pl.sharesLabels(s) {
			return fmt.Sprintf("the home page alone may link it: it shares %d or more labels with no other page outside the clusters", pl.in.Policy.LabelOverlapMin)
		}
		return fmt.Sprintf("shares %d labels (at least %d needed)", s.overlap, pl.in.Policy.LabelOverlapMin)
	})
	linked := map[string]bool{}
	for _, l := range links {
		if pl.budget <= 0 {
			break
		}
		if carriedOnly && pl.uncarried[l.ID] {
			continue
		}
		pl.addSilo(l)
		linked[l.TargetPageID] = true
	}
	if !carriedOnly {
		pl.noteFlatLinksUncarried(links)
	}
	return linked
}

// sharesLabels reports whether the page shares label_overlap_min labels
// with a scored target, which a flat link needs.
func (pl *planner) sharesLabels(s siloScored) bool {
	return s.overlap >= pl.in.Policy.LabelOverlapMin
}

// flatPeer reports whether t is a page of the flat silo that a page
// outside the clusters may link by its labels: the home and sector pages
// are the site's structure, which the trail links, not a peer. A French
// trial's term page planned an in-body link to the home page, whose
// labels it shared, and its note asked the writer to name "(accueil)".
func flatPeer(t Target) bool {
	return t.ClusterID == "" && t.Kind != site.KindHome && t.Kind != site.KindSector
}

// onlyHomeMayLink reports whether the page is the home page and t a page
// outside the clusters that no other such page may link
// (linkedOnlyFromHome): the home page links it where its text names it,
// whatever labels the two share. The home page is the top of the flat
// silo as of every other; a French trial's home page, with no labels of
// its own, named a term page, a product and a service that shared theirs
// with no page, and all three ended orphans.
func (pl *planner) onlyHomeMayLink(t Target) bool {
	return pl.in.Page.Kind == site.KindHome && pl.linkedOnlyFromHome(t)
}

// linkedOnlyFromHome reports whether t, a page outside the clusters, is
// one no other such page may link under silo: it shares label_overlap_min
// labels with none but the home and sector pages.
func (pl *planner) linkedOnlyFromHome(t Target) bool {
	if !flatPeer(t) {
		return false
	}
	for _, u := range pl.targets {
		if u.ID == t.ID || !flatPeer(u) {
			continue
		}
		if _, overlap := scoring.Silo(pl.in.Policy, t.Labels, u.Labels, false, 0); overlap >= pl.in.Policy.LabelOverlapMin {
			return false
		}
	}
	return true
}

// noteFlatLinksUncarried says, of a page outside clusters whose text names
// none of the pages it is related to, that its links wait for the LLM
// fallback and that those pages alone may link it: a French trial's
// product and term page, related to each other only, ended orphans
// without a word.
func (pl *planner) noteFlatLinksUncarried(links []link.Link) {
	kind := pl.in.Page.Kind
	if len(links) == 0 || pl.in.Page.HTML == "" || kind == site.KindHome || kind == site.KindSector {
		return
	}
	ids := make([]string, 0, len(links))
	for _, l := range links {
		if !pl.uncarried[l.ID] {
			return
		}
		ids = append(ids, l.TargetPageID)
	}
	pl.note("its text names none of the pages outside the clusters it shares %d or more labels with (%s): its links to them wait for the LLM fallback, "+
		"and under silo only they may link to it, where their text names it; name them in its text, or link it from the site's navigation",
		pl.in.Policy.LabelOverlapMin, strings.Join(ids, ", "))
}

// siloAllows reports whether the silo planner would ever link the page to
// t: a page outside clusters to another sharing label_overlap_min labels
// (siloFlat), a parent to its children (siloParent), a child to its
// parent and siblings (siloSiblings), the home and sector pages down into
// a silo (EntersSilo); never across a silo.
func (pl *planner) siloAllows(t Target) bool {
	page := pl.in.Page
	switch {
	case EntersSilo(page.Kind, t.Kind):
		return true
	case page.ClusterID == "" && t.ClusterID == "":
		if !flatPeer(t) {
			return false
		}
		_, overlap := scoring.Silo(pl.in.Policy, page.Labels, t.Labels, t.Priority > 0, t.Inbound)
		return overlap >= pl.in.Policy.LabelOverlapMin || pl.onlyHomeMayLink(t)
	case page.ClusterID != t.ClusterID:
		return false
	case page.Kind == site.KindHub:
		return SiloChild(t.Page)
	}
	return t.Kind == site.KindHub || SiloChild(t.Page)
}

// siloParent links a cluster's parent to its children only. The children
// the budget leaves out are named in one note that says what holds the
// budget: the page's own links, and planned links its text may have no
// anchor for (trial Q read "budget reached" on a page showing one link
// of ours).
func (pl *planner) siloParent() {
	var left []link.Link
	noAnchor := map[string]bool{} // left out for want of an anchor, not of budget
	children := pl.siloChildren()
	for _, l := range pl.siloLinks(pl.siloRank(children), link.TypeVerticalDown, func(siloScored) string {
		return "the parent links to its children"
	}) {
		// A child the text has no anchor or no room for is listed too: an
		// Italian trial's five such children, planned in the parent's
		// text for the LLM fallback, had no link from anywhere.
		if pl.budget <= 0 || pl.in.Page.HTML != "" && pl.uncarried[l.ID] {
			noAnchor[l.TargetPageID] = pl.budget > 0
			left = append(left, l)
			continue
		}
		pl.addSilo(l)
	}
	if len(left) == 0 {
		return
	}
	// A child its parent's budget or text leaves out of the text is listed
	// in the parent's Related Articles section, which the budget does not
	// count: else a child no sibling's text names had no link at all
	// (trials t14 and t16 each ended with such an orphan).
	var textless []link.Link
	var overBudget []string
	for _, l := range left {
		if noAnchor[l.TargetPageID] {
			textless = append(textless, l)
		} else {
			overBudget = append(overBudget, l.TargetPageID)
		}
		child := children[slices.IndexFunc(children, func(t Target) bool { return t.ID == l.TargetPageID })]
		listed := pl.newLink(child, link.TypeVerticalDown, link.ZoneRelatedSection)
		listed.Score, listed.Factors = l.Score, l.Factors
		listed.Candidates = []link.Anchor{{Text: listed.Anchor, Type: listed.AnchorType}}
		listed.Explanation = "vertical_down: the parent lists in its Related Articles section the children its budget leaves out of its text"
		if noAnchor[l.TargetPageID] {
			listed.Explanation = "vertical_down: the parent lists in its Related Articles section the children its text has no anchor or room for"
		}
		pl.add(listed)
	}
	// Each child is told its own cause: a silo trial's hubs blamed a
	// budget of 5 of which 1 was used for children their text did not name.
	pl.noteTextless(textless)
	if len(overBudget) > 0 {
		pl.note("children %s listed in the parent's Related Articles section, not linked in its text: %s", strings.Join(overBudget, ", "), pl.budgetTaken())
	}
}

// noteTextless says why the children a parent's text leaves out are
// listed: where its text names them, the density limits may leave no room
// for them beside the links planned first, which a German trial's hub,
// naming "Bügelschlösser" and "Faltschlösser" five words apart, read as
// a text with "no anchor or no room" and took for a fault.
func (pl *planner) noteTextless(children []link.Link) {
	var crowded, named, unnamed []string
	for _, l := range children {
		switch {
		case pl.crowded[l.TargetPageID]:
			crowded = append(crowded, l.TargetPageID)
		case pl.mentions(l):
			named = append(named, l.TargetPageID)
		default:
			unnamed = append(unnamed, l.TargetPageID)
		}
	}
	const listed = "children %s listed in the parent's Related Articles section, not linked in its text: "
	if len(crowded) > 0 {
		maxLinks, minWords := ParagraphLimits(pl.in.Policy, pl.in.Page.Kind)
		pl.note(listed+"where its text names them, the links planned before them leave no room (%d link(s) a paragraph at most, %d words between two)",
			strings.Join(crowded, ", "), maxLinks, minWords)
	}
	if len(named) > 0 {
		why := make([]string, len(named))
		for i, id := range named {
			why[i] = id + pl.refusedWhy(id)
		}
		pl.note(listed+"its text names them with no anchor the placer may take there", strings.Join(why, ", "))
	}
	if len(unnamed) > 0 {
		pl.note(listed+"its text has no anchor for them", strings.Join(unnamed, ", "))
	}
}

// siloSiblings links a child to its siblings after its parent link.
func (pl *planner) siloSiblings() {
	for _, l := range pl.siloLinks(pl.siloRank(pl.siloChildren()), link.TypeHorizontal, func(siloScored) string {
		return "a child links to its parent and its siblings"
	}) {
		if pl.budget <= 0 {
			break
		}
		pl.addSilo(l)
	}
}

// siloChildren are the children of the page's cluster among the targets:
// its supporting articles and also its products, services and plain pages,
// which a silo links as it links articles (SiloChild).
func (pl *planner) siloChildren() []Target {
	var out []Target
	for _, t := range pl.targets {
		if t.ClusterID == pl.in.Page.ClusterID && SiloChild(t.Page) {
			out = append(out, t)
		}
	}
	return out
}

// siloLinks are the links to the ranked targets, those the page's text
// can carry first (carriedFirst), then by silo score: the budget of 3–5
// links goes to links the text takes before those left for the LLM
// fallback.
func (pl *planner) siloLinks(ranked []siloScored, t link.Type, why func(siloScored) string) []link.Link {
	links := make([]link.Link, 0, len(ranked))
	for _, s := range ranked {
		if pl.stopped() {
			return nil
		}
		if pl.linkedByAuthor(s.Target) {
			// The page's own link already counts against its budget
			// (ExistingLinks); a second one would stay planned ("the page
			// already links to") and take a slot another target could use.
			continue
		}
		l := pl.newLink(s.Target, t, link.ZoneInBody)
		l.Score = s.score
		l.Factors = map[string]float64{"label_overlap": float64(s.overlap)}
		if s.Priority > 0 {
			l.Factors["priority_bonus"] = pl.in.Policy.PriorityBonus
		}
		if s.Inbound > 0 {
			l.Factors["diversity_penalty"] = -pl.in.Policy.DiversityPenaltyPerLink * float64(s.Inbound)
		}
		l.Candidates = pl.rankAnchors(s.ID, pl.anchorCandidates(s.Target), &l)
		l.Explanation = fmt.Sprintf("%s: %s, within silo %q; silo score %.2f; %s", t, why(s), siloName(pl.in.Page), s.score, l.Explanation)
		links = append(links, l)
	}
	return pl.carriedFirst(links)
}

func (pl *planner) addSilo(l link.Link) {
	pl.add(l)
	pl.budget--
}

func siloName(p site.Page) string {
	if p.ClusterID == "" {
		return "pages outside clusters"
	}
	return "cluster " + p.ClusterID
}
