package handlers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/validation"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// orphanSources is how many pages an orphan is recommended inbound links
// from; orphanCandidates how many of its best-scoring related pages are
// tried for them.
const (
	orphanSources    = 2
	orphanCandidates = 8
)

// recommender turns an audit's findings into recommendations: what the
// planner would do for each page today, set against what the page has.
// Additions are placed on the page's live HTML as apply will place them,
// so the suggested anchor is text found in the page wherever there is one.
type recommender struct {
	p        *Pipeline
	tx       *store.Tx
	sc       siteContext
	siteID   string
	auditor  *audit.Auditor
	report   audit.Report
	progress *auditProgress

	recs []audit.Recommendation
	// proposed counts the anchors the additions so far place, by target:
	// with the live site's, they are what the anchor cap leaves the next.
	proposed anchorTally
	// needs are the add recommendations without an anchor in their page's
	// text, for the model to suggest one after the audit's transaction.
	needs []anchorNeed
	// removing are the links the removals so far take out, so no other
	// fix is recommended on them.
	removing map[linkKey]bool
	// moving are the links a move into the first paragraphs takes
	// (lateUplink), which no anchor variation takes too.
	moving map[linkKey]bool
	// templateFixes are the recommendations, by index in recs, that point
	// a menu's, header's or footer's link elsewhere: no link of the page's
	// text, so none a fix of its text counts.
	templateFixes map[int]bool
	// neighbours are the pages a plan of each page reads first, kept
	// for the next proposal from it (targetAmongNeighbours): an orphan's
	// sources are tried for every orphan of their cluster.
	neighbours map[string][]planning.Target
}

// neighbourPagesKept bounds recommender.neighbours: a page's proposals
// mostly come together, and a site of a million pages must not be held.
const neighbourPagesKept = 256

// linkKey is a link of a page as apply finds it: path, text, occurrence.
type linkKey struct {
	page, path, text string
	occurrence       int
}

func keyOf(pageID string, l pageLink) linkKey { return linkKey{pageID, l.path, l.Text, l.occurrence} }

// remove records the removal of a page's link, once, as a fix of problem.
func (r *recommender) remove(problem audit.Problem, page site.Page, l pageLink, typ link.Type, weight float64, reason string) {
	k := keyOf(page.ID, l)
	if r.removing[k] {
		return
	}
	if r.removing == nil {
		r.removing = map[linkKey]bool{}
	}
	r.removing[k] = true
	r.recs = append(r.recs, audit.Recommendation{Problem: problem, PageID: page.ID,
		Action: audit.ActionRemove, LinkType: typ, TargetID: l.targetID, Anchor: l.Text, Found: true, LinkPath: l.path, LinkText: l.Text,
		Occurrence: l.occurrence, Weight: weight, Reason: reason})
}

// cluster is a page's cluster, deleted pages' too.
func (r *recommender) cluster(id string) string {
	p, _ := r.auditor.Page(id)
	return p.ClusterID
}

// linkScore is a page's link score on 0–1.
func (r *recommender) linkScore(id string) float64 { return r.auditor.LinkScore(id) / 100 }

func (r *recommender) recommend(ctx context.Context) ([]audit.Recommendation, error) {
	rep := r.report
	total := len(rep.MissingMandatory) + len(rep.Orphans) + len(rep.UnderLinked) + len(rep.Duplicates) + len(rep.OverCap) + len(rep.CrossClusterOverCap) +
		len(rep.SiloCrossings) + len(rep.OverLinked) + len(rep.Broken) + len(rep.Redirects) + len(rep.UplinkOutsideFirst) + len(rep.DominantAnchors)
	r.progress.stage(ctx, events.AuditStageRecommendations, total)
	done := 0
	step := func(err error) error {
		done++
		r.progress.step(ctx, done)
		if err != nil {
			return err
		}
		return ctx.Err()
	}
	for _, id := range rep.MissingMandatory {
		if err := step(r.uplink(ctx, id)); err != nil {
			return nil, err
		}
	}
	for _, id := range rep.Orphans {
		if err := step(r.orphan(ctx, id)); err != nil {
			return nil, err
		}
	}
	for _, f := range rep.UnderLinked {
		if err := step(r.underLinked(ctx, f)); err != nil {
			return nil, err
		}
	}
	// Duplicates and sibling links over the cap go first: an over-linked
	// page loses those before any link validation would let it keep.
	for _, f := range rep.Duplicates {
		if err := step(r.duplicate(ctx, f)); err != nil {
			return nil, err
		}
	}
	for _, f := range rep.OverCap {
		if err := step(r.overCapOfType(ctx, f, link.TypeHorizontal, r.sc.policy.MaxSiblingLinks, "sibling pages")); err != nil {
			return nil, err
		}
	}
	for _, f := range rep.CrossClusterOverCap {
		if err := step(r.overCapOfType(ctx, f, link.TypeCrossCluster, r.sc.policy.MaxCrossClusterPerHub, "other clusters' hubs")); err != nil {
			return nil, err
		}
	}
	// Links leaving their silo go before an over-linked page's weakest:
	// validation fails the page on them, whatever its count.
	if err := r.crossings(ctx); err != nil {
		return nil, err
	}
	done += len(rep.SiloCrossings)
	for _, f := range rep.OverLinked {
		if err := step(r.overLinked(ctx, f)); err != nil {
			return nil, err
		}
	}
	if err := r.broken(ctx); err != nil {
		return nil, err
	}
	done += len(rep.Broken)
	if err := r.redirected(ctx); err != nil {
		return nil, err
	}
	done += len(rep.Redirects)
	// After the removals, which a late uplink's link may be one of, and
	// before the variations, which then leave it to the move.
	for _, id := range rep.UplinkOutsideFirst {
		if err := step(r.lateUplink(ctx, id)); err != nil {
			return nil, err
		}
	}
	uses, err := r.anchorUses(ctx, rep.DominantAnchors)
	if err != nil {
		return nil, err
	}
	for i := range rep.DominantAnchors {
		if err := step(r.dominant(ctx, &rep.DominantAnchors[i], uses[rep.DominantAnchors[i].PageID])); err != nil {
			return nil, err
		}
	}
	r.progress.done(ctx, done)
	if err := r.versions(ctx); err != nil {
		return nil, err
	}
	return audit.Prioritise(r.recs), nil
}

// versions gives each recommendation its page's live version, read in the
// audit's snapshot: the audit does not hold a version a page, and only
// the pages it recommends for need one.
func (r *recommender) versions(ctx context.Context) error {
	ids := make([]string, 0, len(r.recs))
	for _, rec := range r.recs {
		ids = append(ids, rec.PageID)
	}
	slices.Sort(ids)
	versions, err := r.tx.LiveVersions(ctx, r.siteID, slices.Compact(ids))
	if err != nil {
		return err
	}
	for i := range r.recs {
		r.recs[i].PageVersion = versions[r.recs[i].PageID]
	}
	return nil
}

// livePage reads a page as it is live, its HTML included.
func (r *recommender) livePage(ctx context.Context, id string) (site.Page, bool, error) {
	page, found, err := r.tx.LivePage(ctx, r.siteID, id, false)
	if err != nil || !found {
		return page, found, err
	}
	page.SiteID = r.siteID
	return page, true, nil
}

// input is what planning the page needs, over the given targets.
func (r *recommender) input(ctx context.Context, page site.Page, targets []planning.Target) (planning.Input, error) {
	in, err := planning.NewInput(r.sc.structure, r.sc.policy, page, targets)
	if err != nil {
		return planning.Input{}, fmt.Errorf("page %s: %w", page.ID, err)
	}
	// Apply adds links to the live page's text and writes no generated
	// section: what a section would list is recommended in the text.
	in.SectionsUnwritten = true
	// What a person decided for the page holds for its recommendations too.
	if in.Decisions, err = r.tx.PlanDecisions(ctx, r.siteID, page.ID); err != nil {
		return planning.Input{}, err
	}
	return in, nil
}

func (r *recommender) targets(ctx context.Context, ids ...string) ([]planning.Target, error) {
	live, err := r.tx.LiveTargets(ctx, r.siteID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]planning.Target, 0, len(live))
	for _, id := range ids {
		if t, ok := live[id]; ok {
			out = append(out, t)
		}
	}
	r.asAudited(out)
	return out, nil
}

// asAudited gives targets the inbound links the audit counted in its
// snapshot. The projected counts catch up with the link map a moment after
// pages are published, so scores from them made two audits of the same
// site recommend different links.
func (r *recommender) asAudited(targets []planning.Target) {
	for i := range targets {
		targets[i].Inbound = r.auditor.LinksIn(targets[i].ID)
	}
}

// proposal is a link the planner proposes for a page, with where it
// would go in the page's live HTML.
type proposal struct {
	link      link.Link
	placement markup.Placement
	// capped are the candidates held back at the anchor cap; dominant
	// those held back because they would carry too large a share of the
	// target's links (audit.WouldDominate).
	capped, dominant []string
}

// place tries the links on the page's HTML as apply would, all at once
// (each respects the ones before), and reports where each went. A
// candidate that other live pages and the additions proposed so far use
// max_exact_anchor_per_target times for its target is not offered (SAG
// §2.3), as the inject stage offers none; the candidates left are the
// link's anchors. Nor is one that would then carry more than
// anchor_dominance_flag_share of the target's in-body links, or of
// anchor_dominance_min_inbound links while it has fewer (the additions
// after it may bring it there): the next audit would report the anchor
// the fix added (a trial's re-audit found 3 of 7 links to a hub so). A
// mandatory link takes such a one last rather than not at all.
func (r *recommender) place(ctx context.Context, page site.Page, links []link.Link) ([]proposal, error) {
	used, err := r.anchorsUsed(ctx, page.ID, links)
	if err != nil {
		return nil, err
	}
	inbound, err := r.inBodyInbound(ctx, page.ID, links)
	if err != nil {
		return nil, err
	}
	limit := r.sc.policy.MaxExactAnchorPerTarget
	links = slices.Clone(links)
	capped, dominant := make([][]string, len(links)), make([][]string, len(links))
	reqs := make([]markup.LinkRequest, len(links))
	for i := range links {
		l := &links[i]
		var last []link.Anchor
		l.Candidates = slices.DeleteFunc(slices.Clone(l.Candidates), func(c link.Anchor) bool {
			n := used[l.TargetPageID][anchors.Normalize(c.Text)]
			switch {
			case n >= limit:
				capped[i] = append(capped[i], c.Text)
				return true
			case inbound != nil && audit.WouldDominate(r.sc.policy, n+1, inbound[l.TargetPageID]+1):
				if l.Mandatory {
					last = append(last, c)
				} else {
					dominant[i] = append(dominant[i], c.Text)
				}
				return true
			}
			return false
		})
		// A mandatory link takes an anchor over the share only when its
		// text holds no other: a page without its uplink is worse than a
		// dominant anchor, which the next audit varies.
		l.Candidates = append(l.Candidates, last...)
		// Apply places each fix alone (placeFixAt), bound to no other link.
		reqs[i] = planning.Request(*l, planning.CandidateTexts(l.Candidates), "")
	}
	// The additions recommended for the page so far are placed first, on
	// the anchors they were found on: apply places them before these, and
	// a trial's hub was offered two additions 12 words apart in one
	// paragraph, of which apply could place one.
	prior := r.additionsTo(page.ID)
	_, placements, err := planning.PlaceHoldingBack([]byte(page.HTML), append(prior, reqs...), func(k int, placed string) bool {
		return k >= len(prior) && used[links[k-len(prior)].TargetPageID][placed] >= limit
	}, markupOptions(r.sc, page))
	if err != nil {
		return nil, fmt.Errorf("place links in page %s: %w", page.ID, err)
	}
	placements = placements[len(prior):]
	out := make([]proposal, len(links))
	for i := range links {
		out[i] = proposal{links[i], placements[i], capped[i], dominant[i]}
		if pl := placements[i]; pl.Placed {
			// The candidate placed goes first (add), by its index in what
			// the placer was offered at last.
			out[i].placement.CandidateIndex = slices.IndexFunc(links[i].Candidates, func(c link.Anchor) bool {
				return c.Text == reqs[i].Anchors[pl.CandidateIndex]
			})
		}
	}
	return out, nil
}

// anchorsUsed counts, for the links' candidates, the in-body links to
// their targets that carry them on the live site's other pages and in
// the additions proposed so far.
func (r *recommender) anchorsUsed(ctx context.Context, pageID string, links []link.Link) (map[string]map[string]int, error) {
	var uses []store.AnchorUse
	for _, l := range links {
		for _, c := range l.Candidates {
			uses = append(uses, store.AnchorUse{TargetPageID: l.TargetPageID, Text: c.Text})
		}
	}
	used, err := r.tx.LiveAnchorUsage(ctx, r.siteID, pageID, uses, r.sc.policy.MaxExactAnchorPerTarget)
	if err != nil {
		return nil, err
	}
	for target, texts := range r.proposed.counts {
		for text, n := range texts {
			if used[target] == nil {
				used[target] = map[string]int{}
			}
			used[target][text] += n
		}
	}
	return used, nil
}

// inBodyInbound counts the in-body links to the links' targets on the
// live site's other pages and in the additions proposed so far, enough
// of them to tell whether one more anchor would dominate (audit.Dominates);
// nil when the policy flags no share.
func (r *recommender) inBodyInbound(ctx context.Context, pageID string, links []link.Link) (map[string]int, error) {
	pol := r.sc.policy
	if pol.AnchorDominanceFlagShare <= 0 || pol.AnchorDominanceFlagShare >= 1 {
		return nil, nil
	}
	// An anchor used n times of links dominates only while links is below
	// n over the share; n is under the cap.
	atMost := pol.AnchorDominanceMinInbound + int(math.Ceil(float64(max(pol.MaxExactAnchorPerTarget, 1)+1)/pol.AnchorDominanceFlagShare))
	targets := make([]string, 0, len(links))
	for _, l := range links {
		targets = append(targets, l.TargetPageID)
	}
	inbound, err := r.tx.LiveInBodyInbound(ctx, r.siteID, pageID, targets, atMost)
	if err != nil {
		return nil, err
	}
	for target, texts := range r.proposed.counts {
		for _, n := range texts {
			inbound[target] += n
		}
	}
	return inbound, nil
}

// refusedByValidation places a proposed link in the page as apply would,
// after the additions recommended for the page before it, and says which
// validation rule it makes the page fail that the page with those passes
// ("" when none): apply refuses such a link, so a recommendation should
// not offer it. Apply places the page's fixes one after another, so a
// sibling link that follows the uplink recommended with it is no breach
// of the first-link rule (a cycling trial's audit told the writer to
// "work" into the text a sibling's keyword it held, which apply then
// placed).
func (r *recommender) refusedByValidation(ctx context.Context, page site.Page, pr proposal) (string, error) {
	l := pr.link
	base, prior := []byte(page.HTML), []link.Link(nil)
	for _, rec := range r.foundAdditions(page.ID) {
		// One that no longer places after those before it (its words
		// taken) is one apply fails too: the page goes on without it.
		if next, added, err := placeFix(base, r.sc, page, rec); err == nil {
			base, prior = next, append(prior, *added)
		}
	}
	html, added, err := placeFix(base, r.sc, page, audit.Recommendation{ID: l.ID, LinkType: l.Type,
		TargetID: l.TargetPageID, TargetURL: l.TargetURL, Anchors: planning.CandidateTexts(l.Candidates),
		NotWithin: planning.NotWithin(l, planning.CandidateTexts(l.Candidates)), Names: planning.Names(l), FirstParagraphs: l.FirstParagraphs})
	if err != nil {
		return err.Error(), nil
	}
	return r.refusedChange(ctx, page, base, prior, html, added)
}

// refusedVariation makes an anchor variation in the page as apply would
// (the dominant link unwrapped, the link placed on its new anchor) and
// says which validation rule the page would newly fail ("" when none):
// moving a page's first link, its uplink, past another link breaks the
// first-link rule, and apply would refuse the fix.
func (r *recommender) refusedVariation(ctx context.Context, page site.Page, rec audit.Recommendation) (string, error) {
	rec.ID = "variation-check"
	html, added, err := applyRecommendation([]byte(page.HTML), r.sc, page, rec)
	if err != nil {
		return err.Error(), nil
	}
	return r.refusedChange(ctx, page, []byte(page.HTML), nil, html, added)
}

// refusedChange says which validation rule the page's changed HTML (with
// the link added, if any) fails that the HTML it was changed from (base,
// with the links the fixes before added) passes ("" when none): apply
// refuses such a change.
func (r *recommender) refusedChange(ctx context.Context, page site.Page, base []byte, baseAdded []link.Link, html []byte, added *link.Link) (string, error) {
	before, _, err := validateFixed(ctx, r.tx, r.sc, page, base, baseAdded)
	if err != nil {
		return "", err
	}
	addedLinks := slices.Clip(baseAdded)
	if added != nil {
		addedLinks = append(addedLinks, *added)
	}
	after, _, err := validateFixed(ctx, r.tx, r.sc, page, html, addedLinks)
	if err != nil {
		return "", err
	}
	if worse := validation.Worse(before, after); len(worse) > 0 {
		return "validation would refuse it: " + ruleReasons(worse), nil
	}
	return "", nil
}

// add records an addition the planner proposes for a page.
func (r *recommender) add(problem audit.Problem, page site.Page, pr proposal, weight float64, reason string) {
	l, pl := pr.link, pr.placement
	anchors := planning.CandidateTexts(l.Candidates)
	rec := audit.Recommendation{Problem: problem, PageID: page.ID, Action: audit.ActionAdd,
		LinkType: l.Type, TargetID: l.TargetPageID, TargetURL: l.TargetURL, Anchors: anchors,
		NotWithin: planning.NotWithin(l, anchors), Names: planning.Names(l), FirstParagraphs: l.FirstParagraphs, Weight: weight}
	switch {
	case pl.Placed:
		rec.Anchor, rec.Found = pl.AnchorText, true
		r.proposed.add([]link.Link{{TargetPageID: l.TargetPageID, Anchor: pl.AnchorText, Zone: link.ZoneInBody, Status: link.StatusInserted}})
		// The anchor found goes first, so apply places what was suggested.
		rec.Anchors = append([]string{anchors[pl.CandidateIndex]}, without(anchors, pl.CandidateIndex)...)
		reason += fmt.Sprintf("; anchor %q found in paragraph %d", pl.AnchorText, pl.ContentParagraph)
	case len(anchors) > 0:
		// A writer works in a name, best the target's keyword: a French
		// trial was told to work in "Isolation de la maison : le guide", a
		// title with its subtitle, where "isolation de la maison" was free.
		text, _ := writersAnchor(l.Candidates, func(link.Anchor) bool { return true })
		first := max(slices.Index(anchors, text), 0)
		rec.Anchor = anchors[first]
		rec.Anchors = append([]string{anchors[first]}, without(anchors, first)...)
		reason += fmt.Sprintf("; no anchor for it found in the page (%s)%s: work %q into the text", pl.Reason, r.heldBack(l, pr), anchors[first])
		r.needAnchor(page, l)
	default:
		why := ""
		if l.Reason != "" {
			why = " (" + l.Reason + ")" // planning.ProposeLink says why when it can
		}
		reason += "; the planner has no anchor for it" + why + r.heldBack(l, pr) + ": write one"
		r.needAnchor(page, l)
	}
	rec.Reason = reason
	r.recs = append(r.recs, rec)
}

// heldBack says which of a link's candidates the anchor cap or an
// anchor's share held back, "" for none: a writer told to work a name in
// should not pick one of them.
func (r *recommender) heldBack(l link.Link, pr proposal) string {
	var out string
	if len(pr.capped) > 0 {
		out += fmt.Sprintf(" (anchor cap: other live pages or fixes already link to %s %d times with %s; max_exact_anchor_per_target)",
			l.TargetPageID, r.sc.policy.MaxExactAnchorPerTarget, quotedList(pr.capped))
	}
	if len(pr.dominant) > 0 {
		out += fmt.Sprintf(" (anchor share: one more link to %s with %s would carry more than %.0f%% of its in-body links, counted as at least %d, as the fixes after it may bring them; anchor_dominance_flag_share)",
			l.TargetPageID, quotedList(pr.dominant), 100*r.sc.policy.AnchorDominanceFlagShare, r.sc.policy.AnchorDominanceMinInbound)
	}
	return out
}

func without(s []string, i int) []string {
	out := make([]string, 0, len(s))
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}

// uplink recommends the missing link to its hub of a page that must link
// up to it (planning.NeedsUplink, as the audit's MissingMandatory holds).
func (r *recommender) uplink(ctx context.Context, pageID string) error {
	page, found, err := r.livePage(ctx, pageID)
	if err != nil || !found {
		return err
	}
	hubID := r.auditor.Hub(page.ClusterID)
	l, ok, err := r.proposeLink(ctx, page, hubID)
	if err != nil || !ok {
		return err
	}
	prs, err := r.place(ctx, page, []link.Link{l})
	if err != nil {
		return err
	}
	who := "supporting article"
	if r.sc.policy.Name == policy.Silo {
		who = fmt.Sprintf("%s page, a child of its cluster,", page.Kind)
	}
	r.add(audit.ProblemMissingUplink, page, prs[0], l.Score/100,
		fmt.Sprintf("%s has no in-body link to its hub %s (mandatory, in paragraphs 1–%d)", who, hubID, l.FirstParagraphs))
	return nil
}

// additionsTo are the requests that place the additions recommended so
// far for a page whose anchor its text holds, each on that anchor.
func (r *recommender) additionsTo(pageID string) []markup.LinkRequest {
	var out []markup.LinkRequest
	for _, rec := range r.foundAdditions(pageID) {
		out = append(out, fixRequest(rec, rec.Anchors))
	}
	return out
}

// foundAdditions are the additions recommended for the page so far whose
// anchor the audit found, in the order they were made, each on that
// anchor alone, as apply places them.
func (r *recommender) foundAdditions(pageID string) []audit.Recommendation {
	var out []audit.Recommendation
	for i, rec := range r.recs {
		if rec.PageID == pageID && rec.Action == audit.ActionAdd && rec.Found {
			rec.ID = fmt.Sprintf("recommended-%d", i) // ids are given once all are made (audit.Prioritise)
			rec.Anchors = []string{rec.Anchor}
			out = append(out, rec)
		}
	}
	return out
}

// whereLate says where a late uplink is: in a paragraph past the first
// ones, or in none (a heading, a list, a table: a French trial's heading
// link was said to be "in paragraph 0, past the first 2").
func whereLate(paragraph, first int) string {
	if paragraph == 0 {
		return fmt.Sprintf("outside the page's paragraphs (in a heading, a list or a table), not in its first %d", first)
	}
	return fmt.Sprintf("in paragraph %d, past the first %d", paragraph, first)
}

// lateUplink recommends moving a page's link to its hub from past the
// first paragraphs, where the audit found it (Report.UplinkOutsideFirst),
// into them, where the uplink goes: the link is unwrapped and placed
// again on the planner's uplink anchors, as an anchor variation is
// (vary_anchor, in the missing uplink's band). Where the first paragraphs
// hold no anchor for the hub, none is recommended: the finding says it.
// A German trial's audit reported two such pages and fixed neither.
func (r *recommender) lateUplink(ctx context.Context, pageID string) error {
	page, found, err := r.livePage(ctx, pageID)
	if err != nil || !found {
		return err
	}
	hubID := r.auditor.Hub(page.ClusterID)
	links, err := r.pageLinks(ctx, page.ID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(links, func(l pageLink) bool { return l.targetID == hubID && l.InBody() })
	if i < 0 || r.removing[keyOf(page.ID, links[i])] {
		return nil
	}
	late := links[i]
	l, ok, err := r.proposeLink(ctx, page, hubID)
	if err != nil || !ok {
		return err
	}
	// Apply places a moved link, as a varied one, on other text than the
	// link's own (applyRecommendation).
	l.Candidates = slices.DeleteFunc(slices.Clone(l.Candidates), func(a link.Anchor) bool {
		return anchors.Normalize(a.Text) == anchors.Normalize(late.Text)
	})
	unwrapped := page
	if html, ok, err := unwrapLink([]byte(page.HTML), r.sc, page, late.path, late.Text, late.occurrence); err != nil {
		return err
	} else if ok {
		unwrapped.HTML = string(html)
	}
	prs, err := r.place(ctx, unwrapped, []link.Link{l})
	if err != nil {
		return err
	}
	pl := prs[0].placement
	if !pl.Placed {
		return nil
	}
	texts := planning.CandidateTexts(prs[0].link.Candidates)
	rec := audit.Recommendation{Problem: audit.ProblemMissingUplink, PageID: page.ID, Action: audit.ActionVaryAnchor,
		LinkType: link.TypeVerticalUp, TargetID: hubID, TargetURL: l.TargetURL, Anchor: pl.AnchorText, Found: true,
		Anchors: append([]string{texts[pl.CandidateIndex]}, without(texts, pl.CandidateIndex)...), NotWithin: planning.NotWithin(l, texts),
		Names: planning.Names(prs[0].link), FirstParagraphs: l.FirstParagraphs, LinkPath: late.path, LinkText: late.Text, Occurrence: late.occurrence,
		// Below the missing uplinks of its band: the page has one, late.
		Weight: l.Score / 200,
		Reason: fmt.Sprintf("the page's link to its hub %s is %s, where its uplink goes; move it to %q, found in paragraph %d",
			hubID, whereLate(late.Paragraph, l.FirstParagraphs), pl.AnchorText, pl.ContentParagraph)}
	if refused, err := r.refusedVariation(ctx, page, rec); err != nil || refused != "" {
		return err
	}
	if r.moving == nil {
		r.moving = map[linkKey]bool{}
	}
	r.moving[keyOf(page.ID, late)] = true
	r.proposed.add([]link.Link{{TargetPageID: hubID, Anchor: pl.AnchorText, Zone: link.ZoneInBody, Status: link.StatusInserted}})
	r.recs = append(r.recs, rec)
	return nil
}

// proposeLink is the link the planner would give page to the live page
// targetID today (planning.ProposeLink); ok is false when it gives none or
// the target is not live.
func (r *recommender) proposeLink(ctx context.Context, page site.Page, targetID string) (link.Link, bool, error) {
	targets, err := r.targetAmongNeighbours(ctx, page, targetID)
	if err != nil || len(targets) == 0 {
		return link.Link{}, false, err
	}
	in, err := r.input(ctx, page, targets)
	if err != nil {
		return link.Link{}, false, err
	}
	l, ok := planning.ProposeLink(in, targetID)
	return l, ok, nil
}

// targetAmongNeighbours is the live page targetID with the pages a plan
// of page reads first (planning.Lookup.Deferred), or nil when targetID is
// not live. The planner gives a phrase to the page it names best among
// those it plans over (anchors.Owners): over the target alone, a cooking
// trial's audit offered a hub's uplink "all-butter pie crust", a
// sibling's keyword, and "gluten-free flour" inside a sibling's
// "gluten-free flour blend", which the planner refuses a new page. The
// scores are measured against the same pages as the planner's too.
func (r *recommender) targetAmongNeighbours(ctx context.Context, page site.Page, targetID string) ([]planning.Target, error) {
	target, err := r.targets(ctx, targetID)
	if err != nil || len(target) == 0 {
		return nil, err
	}
	neighbours, kept := r.neighbours[page.ID]
	if !kept {
		first, _ := planning.LookupFor(r.sc.structure, r.sc.policy, page).Deferred()
		if neighbours, _, err = r.tx.PlanningTargets(ctx, r.siteID, page.ID, first, planning.Locks{}); err != nil {
			return nil, err
		}
		r.asAudited(neighbours)
		if len(r.neighbours) >= neighbourPagesKept || r.neighbours == nil {
			r.neighbours = make(map[string][]planning.Target, neighbourPagesKept)
		}
		r.neighbours[page.ID] = neighbours
	}
	out := make([]planning.Target, 0, len(neighbours)+1)
	out = append(out, target...)
	for _, t := range neighbours {
		if t.ID != targetID {
			out = append(out, t)
		}
	}
	return out, nil
}

// orphan recommends inbound links to an orphan from the related pages the
// planner scores best for it, up to orphanSources that have an anchor for
// it in their text; when none has, the best one, for a writer.
func (r *recommender) orphan(ctx context.Context, pageID string) error {
	page, found, err := r.livePage(ctx, pageID)
	if err != nil || !found {
		return err
	}
	lookup := planning.LookupFor(r.sc.structure, r.sc.policy, page)
	related, _, err := r.tx.PlanningTargets(ctx, r.siteID, page.ID, lookup, planning.Locks{})
	if err != nil {
		return err
	}
	r.asAudited(related)
	in, err := r.input(ctx, page, related)
	if err != nil {
		return err
	}
	scores := planning.TargetScores(in)
	var sources []planning.Target
	for _, t := range related {
		if p, known := r.auditor.Page(t.ID); known && p.Live {
			sources = append(sources, t)
		}
	}
	// Its own cluster's pages are tried first, its hub before its
	// siblings: the site's structure links them, where the best scores
	// of a site with menus are other clusters' hubs (a test site's orphan
	// tried eight hubs and never the sibling that named it).
	sort.SliceStable(sources, func(i, j int) bool {
		ri, rj := orphanSourceRank(sources[i].Page, page), orphanSourceRank(sources[j].Page, page)
		if ri != rj {
			return ri < rj
		}
		if scores[sources[i].ID] != scores[sources[j].ID] {
			return scores[sources[i].ID] > scores[sources[j].ID]
		}
		return sources[i].ID < sources[j].ID
	})
	var fallback *struct {
		page site.Page
		pr   proposal
	}
	added := 0
	var blocked []string // sources naming the orphan where no link may go, with why
	for i, s := range sources {
		if i == orphanCandidates || added == orphanSources {
			break
		}
		src, found, err := r.livePage(ctx, s.ID)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		targets, err := r.targetAmongNeighbours(ctx, src, page.ID)
		if err != nil {
			return err
		}
		sin, err := r.input(ctx, src, targets)
		if err != nil {
			return err
		}
		l, ok := planning.ProposeLink(sin, page.ID)
		if !ok {
			continue
		}
		prs, err := r.place(ctx, src, []link.Link{l})
		if err != nil {
			return err
		}
		if prs[0].placement.Placed {
			// A link apply would have to refuse is no recommendation: the
			// next source is tried instead.
			why, err := r.refusedByValidation(ctx, src, prs[0])
			if err != nil {
				return err
			}
			if why != "" {
				prs[0].placement = markup.Placement{ID: l.ID, CandidateIndex: -1, Reason: why}
			}
		}
		if !prs[0].placement.Placed {
			if fallback == nil {
				fallback = &struct {
					page site.Page
					pr   proposal
				}{src, prs[0]}
			} else if why := prs[0].placement.Reason; markup.AnchorFoundButHeld(why) {
				blocked = append(blocked, fmt.Sprintf("%s (%s)", src.ID, why))
			}
			continue
		}
		r.add(audit.ProblemOrphan, src, prs[0], l.Score/100, fmt.Sprintf("%s is an orphan: no live page links to it", page.ID))
		added++
	}
	if added == 0 && fallback != nil {
		// The pages whose text names the orphan where the policy leaves
		// no room are said: a recipe trial's editor, told to work the
		// name into the hub, did not learn that two siblings said it in
		// paragraphs that already held their links.
		why := fmt.Sprintf("%s is an orphan: no live page links to it", page.ID)
		if len(blocked) > 0 {
			why += "; other pages name it where no link may go: " + strings.Join(blocked, "; ")
		}
		r.add(audit.ProblemOrphan, fallback.page, fallback.pr, fallback.pr.link.Score/100, why)
	}
	return nil
}

// orphanSourceRank orders the pages that may link an orphan by what the
// site's structure makes of the link: a link down the hierarchy first (a
// hub's to its article, the home or a sector page's to a hub), then an
// article's up to its hub, a sibling's, another hub's, a term page's, and
// any other.
func orphanSourceRank(source, orphan site.Page) int {
	switch planning.Relation(source, orphan) {
	case link.TypeVerticalDown:
		return 0
	case link.TypeVerticalUp:
		return 1
	case link.TypeHorizontal:
		return 2
	case link.TypeCrossCluster:
		return 3
	case link.TypeTaxonomy:
		return 4
	}
	return 5
}

// underLinked recommends the links the planner would give an under-linked
// page that it lacks, as many as bring it to its minimum.
func (r *recommender) underLinked(ctx context.Context, f audit.Finding) error {
	page, found, err := r.livePage(ctx, f.PageID)
	if err != nil || !found {
		return err
	}
	has, err := r.linkedTargets(ctx, page.ID)
	if err != nil {
		return err
	}
	// As the pipeline plans it (planDeferring), so the audit recommends
	// what the planner would link.
	lookup, _ := planning.LookupFor(r.sc.structure, r.sc.policy, page).Deferred()
	targets, _, err := r.tx.PlanningTargets(ctx, r.siteID, page.ID, lookup, planning.Locks{})
	if err != nil {
		return err
	}
	r.asAudited(targets)
	in, err := r.input(ctx, page, targets)
	if err != nil {
		return err
	}
	// The page's own links count towards its density already; planning
	// for what it lacks sees the range's whole room.
	in.ExistingLinks = 0
	plan, _, err := planDeferring(ctx, r.tx, r.sc, in, r.asAudited, nil)
	if err != nil {
		return err
	}
	// What the planner would place comes first, then what it would leave
	// for review: an audit's recommendations are reviewed by a person anyway.
	var lacking, review []link.Link
	for _, l := range plan.Links {
		if l.Zone != link.ZoneInBody || has[l.TargetPageID] {
			continue
		}
		switch l.Status {
		case link.StatusPlanned:
			lacking = append(lacking, l)
		case link.StatusReview:
			review = append(review, l)
		}
	}
	lacking = append(lacking, review...)
	prs, err := r.place(ctx, page, lacking)
	if err != nil {
		return err
	}
	need := f.Limit - f.Count
	reason := fmt.Sprintf("page has %d in-body links, under its minimum of %d", f.Count, f.Limit)
	var unplaced []proposal
	for _, pr := range prs {
		if need == 0 {
			break
		}
		if pr.placement.Placed {
			why, err := r.refusedByValidation(ctx, page, pr)
			if err != nil {
				return err
			}
			if why != "" {
				pr.placement = markup.Placement{ID: pr.link.ID, CandidateIndex: -1, Reason: why}
			}
		}
		if !pr.placement.Placed {
			// A target the page links already, in a list or block of its
			// own, is none a writer can add: apply refuses it (an API
			// client trial's 27 of 38 fixes were such).
			if !markup.LinkedAlready(pr.placement.Reason) {
				unplaced = append(unplaced, pr)
			}
			continue
		}
		r.add(audit.ProblemUnderLinked, page, pr, pr.link.Score/100, reason)
		need--
	}
	// What the page cannot take as it is written is still what it lacks:
	// the best of it is recommended for a writer to work in, a hub's own
	// articles first (the list that links them in new content is no part
	// of a fix).
	slices.SortStableFunc(unplaced, func(a, b proposal) int {
		return cmp.Compare(typeRankForWriter(a.link.Type), typeRankForWriter(b.link.Type))
	})
	for _, pr := range unplaced[:min(need, len(unplaced))] {
		r.add(audit.ProblemUnderLinked, page, pr, pr.link.Score/100, reason)
	}
	return nil
}

// typeRankForWriter orders the links a page lacks and its text cannot
// carry: a hub's links down to its own cluster first.
func typeRankForWriter(t link.Type) int {
	if t == link.TypeVerticalDown {
		return 0
	}
	return 1
}

// pageLink is a link of a page as apply finds it again: the path it
// points to, its text and which such link of the page it is.
type pageLink struct {
	audit.Link
	path       string
	occurrence int
	targetID   string
	live       bool
}

// pageLinks reads a page's links from its link map, each with its target
// and occurrence.
func (r *recommender) pageLinks(ctx context.Context, pageID string) ([]pageLink, error) {
	links, err := r.tx.PageLinkMap(ctx, r.siteID, pageID)
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]int{}
	out := make([]pageLink, 0, len(links))
	for _, l := range links {
		if !l.Internal || l.URL == "" {
			continue
		}
		path := markup.PagePath(l.URL)
		key := [2]string{path, l.Text}
		pl := pageLink{Link: l, path: path, occurrence: seen[key]}
		seen[key]++
		pl.targetID, pl.live, _ = r.auditor.Resolve(l.URL)
		out = append(out, pl)
	}
	return out, nil
}

// linkedTargets are the pages a page links to in its body, and those the
// recommendations made so far add or retarget a link of it to. A menu,
// header or footer link is none: the checks a fix answers (the uplink,
// no_duplicate_links, the density range) count in-body links alone.
func (r *recommender) linkedTargets(ctx context.Context, pageID string) (map[string]bool, error) {
	links, err := r.pageLinks(ctx, pageID)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range links {
		if l.targetID != "" && l.InBody() {
			out[l.targetID] = true
		}
	}
	for i, rec := range r.recs {
		if rec.PageID == pageID && (rec.Action == audit.ActionAdd || rec.Action == audit.ActionRetarget) && !r.templateFixes[i] {
			out[rec.TargetID] = true
		}
	}
	return out, nil
}

// scoredBodyLinks reads a live page, its links, the live pages its
// in-body links point to and the planner's scores of them from the page:
// what a removal chooses the weakest links by.
func (r *recommender) scoredBodyLinks(ctx context.Context, pageID string) (page site.Page, links []pageLink, targets []planning.Target, scores map[string]float64, found bool, err error) {
	page, found, err = r.livePage(ctx, pageID)
	if err != nil || !found {
		return page, nil, nil, nil, found, err
	}
	if links, err = r.pageLinks(ctx, page.ID); err != nil {
		return page, nil, nil, nil, false, err
	}
	var ids []string
	for _, l := range links {
		if l.InBody() && l.live && l.targetID != page.ID && !slices.Contains(ids, l.targetID) {
			ids = append(ids, l.targetID)
		}
	}
	if targets, err = r.targets(ctx, ids...); err != nil {
		return page, nil, nil, nil, false, err
	}
	in, err := r.input(ctx, page, targets)
	if err != nil {
		return page, nil, nil, nil, false, err
	}
	return page, links, targets, planning.TargetScores(in), true, nil
}

// overLinked recommends removing the weakest in-body links of a page over
// its maximum: those whose targets the planner scores lowest from it.
func (r *recommender) overLinked(ctx context.Context, f audit.Finding) error {
	page, links, targets, scores, found, err := r.scoredBodyLinks(ctx, f.PageID)
	if err != nil || !found {
		return err
	}
	hub := ""
	if planning.NeedsUplink(r.sc.policy.Name, page) {
		hub = r.auditor.Hub(page.ClusterID)
	}
	// The duplicates and sibling links over the cap already recommended
	// for removal count towards the excess; the weakest of the rest make
	// up what is left of it.
	excess := f.Count - f.Limit
	// A link that is all its target has of inbound links is kept: a
	// trial's trim of an over-linked hub made two new orphans of the term
	// pages only that hub linked, and orphans rank above over-linked pages.
	fromHere := map[string]int{}
	for _, l := range links {
		fromHere[l.targetID]++
	}
	var scored []audit.ScoredLink
	byKey := map[linkKey]pageLink{}
	types := map[string]link.Type{} // by target: the link's relation from the page
	for _, l := range links {
		if !l.InBody() || l.live && l.targetID == page.ID || !l.live && l.targetID != "" {
			continue // a link to a deleted page has a fix of its own (broken)
		}
		if r.removing[keyOf(page.ID, l)] {
			excess--
			continue
		}
		byKey[keyOf(page.ID, l)] = l
		// A link to no known page scores 0: the same trial's trim kept
		// three such links and took links to live pages out.
		score := 0.0
		if l.live {
			score = scores[l.targetID]
		}
		onlyInbound := l.live && r.auditor.LinksIn(l.targetID) <= fromHere[l.targetID]
		typ := link.TypeRelated
		if t, ok := find(targets, l.targetID); ok {
			typ = planning.Relation(page, t.Page)
		}
		types[l.targetID] = typ
		scored = append(scored, audit.ScoredLink{Path: l.path, Text: l.Text, Occurrence: l.occurrence, TargetID: l.targetID,
			Score: score, Mandatory: hub != "" && l.targetID == hub || onlyInbound,
			OutsideStructure: page.ClusterID != "" && typ == link.TypeRelated})
	}
	for _, w := range audit.Weakest(scored, max(excess, 0)) {
		l := byKey[linkKey{page.ID, w.Path, w.Text, w.Occurrence}]
		if w.TargetID == "" {
			r.remove(audit.ProblemOverLinked, page, l, link.TypeRelated, 1,
				fmt.Sprintf("page has %d in-body links, over its maximum of %d; the link to %s (%q) leads to no known page of the site",
					f.Count, f.Limit, w.Path, w.Text))
			continue
		}
		why := fmt.Sprintf("scores %.1f, among its weakest", w.Score)
		if w.OutsideStructure {
			why = fmt.Sprintf("leaves cluster %s for a page no in-body link type of the site's structure leads to (another cluster's pages belong in Related Reading); it scores %.1f", page.ClusterID, w.Score)
		}
		r.remove(audit.ProblemOverLinked, page, l, types[w.TargetID], 1-w.Score/100,
			fmt.Sprintf("page has %d in-body links, over its maximum of %d; the link to %s (%q) %s",
				f.Count, f.Limit, w.TargetID, w.Text, why))
	}
	return nil
}

// duplicate recommends removing a page's in-body links to a target it
// links in its body before (no_duplicate_links): the first, the one
// readers meet, is kept; of links to the page's hub, the first in the
// opening paragraphs, its uplink (a dental trial's page linked its hub in
// a heading and we placed the uplink in paragraph 1: the audit's fix took
// out the uplink).
func (r *recommender) duplicate(ctx context.Context, f audit.Finding) error {
	page, found, err := r.livePage(ctx, f.PageID)
	if err != nil || !found {
		return err
	}
	links, err := r.pageLinks(ctx, page.ID)
	if err != nil {
		return err
	}
	typ := link.TypeRelated
	if t, ok := r.auditor.Page(f.TargetID); ok {
		typ = planning.Relation(page, site.Page{ID: t.ID, Kind: t.Kind, ClusterID: t.ClusterID})
	}
	keep, kept := -1, "the first"
	for i, l := range links {
		if !l.InBody() || l.targetID != f.TargetID {
			continue
		}
		if keep < 0 {
			keep = i
		}
		if typ == link.TypeVerticalUp && audit.InOpening(l.Paragraph) {
			if i != keep {
				kept = "the uplink in the opening paragraphs"
			}
			keep = i
			break
		}
	}
	for i, l := range links {
		if !l.InBody() || l.targetID != f.TargetID || i == keep {
			continue
		}
		// Above every weakest link of an over-linked page: validation
		// fails the page for it whatever its density.
		r.remove(audit.ProblemOverLinked, page, l, typ, 1, fmt.Sprintf("page links %s %d times in its body (no_duplicate_links); keep %s (%q) and remove this one, keeping its text",
			f.TargetID, f.Count, kept, links[keep].Text))
	}
	return nil
}

// overCapOfType recommends removing the in-body links of one type (the
// siblings, or a hub's links to other clusters' hubs) whose targets the
// planner scores lowest from a page with more such targets than
// link_type_caps allows (limit), down to the cap.
func (r *recommender) overCapOfType(ctx context.Context, f audit.Finding, typ link.Type, limit int, what string) error {
	page, links, targets, scores, found, err := r.scoredBodyLinks(ctx, f.PageID)
	if err != nil || !found {
		return err
	}
	var scored []audit.ScoredLink
	for _, t := range targets {
		if planning.Relation(page, t.Page) == typ {
			scored = append(scored, audit.ScoredLink{TargetID: t.ID, Score: scores[t.ID]})
		}
	}
	for _, w := range audit.Weakest(scored, len(scored)-limit) {
		for _, l := range links {
			if l.InBody() && l.targetID == w.TargetID {
				r.remove(audit.ProblemOverLinked, page, l, typ, 1-w.Score/100,
					fmt.Sprintf("page links %d %s in its body, over the cap of %d (link_type_caps); %s scores %.1f, among the weakest",
						len(scored), what, limit, w.TargetID, w.Score))
			}
		}
	}
	return nil
}

func find(targets []planning.Target, id string) (planning.Target, bool) {
	for _, t := range targets {
		if t.ID == id {
			return t, true
		}
	}
	return planning.Target{}, false
}

// broken recommends, for each link to a deleted page, pointing it at the
// deleted page's cluster hub when that hub is live and the page does not
// link to it yet (in its body, by another broken link pointed at it, or
// by a fix recommended before: a page missing its uplink gets the
// uplink's addition, placed in paragraphs 1–2 on an anchor that names
// the hub, and the broken link is removed), else removing it: a retarget
// beside any of those would link the hub twice (no_duplicate_links, and
// for the page's own hub a second vertical_up link, link_type_caps).
func (r *recommender) broken(ctx context.Context) error {
	return r.eachLinkFinding(ctx, r.report.Broken, func(page site.Page, has map[string]bool, f audit.Finding, path string, occurrence int) error {
		src := page.ID
		rec := audit.Recommendation{Problem: audit.ProblemBroken, PageID: src,
			Action: audit.ActionRemove, LinkType: link.TypeRelated, Anchor: f.Anchor, Found: true, LinkPath: path, LinkText: f.Anchor,
			Occurrence: occurrence, Weight: r.linkScore(src),
			Reason: brokenReason(f)}
		hub := r.auditor.Hub(r.cluster(f.TargetID))
		var targets []planning.Target
		// A menu's or footer's link gets the same fix on every page, so
		// what else a page links does not decide it: a gardening trial's
		// menus came out different page by page.
		if hub != "" && (f.InTemplate || hub != src && !has[hub]) {
			var err error
			if targets, err = r.targets(ctx, hub); err != nil {
				return err
			}
		}
		switch {
		case len(targets) == 1 && f.InTemplate:
			rec.Action, rec.TargetID, rec.TargetURL = audit.ActionRetarget, hub, targets[0].URL
			rec.LinkType = planning.Relation(page, targets[0].Page)
			rec.Reason += fmt.Sprintf("; point it at %s, the hub of the deleted page's cluster, on every page: the link is in the site's menu, header or footer", hub)
			r.templateFixes[len(r.recs)] = true
		case len(targets) == 1:
			rec.Action, rec.TargetID, rec.TargetURL = audit.ActionRetarget, hub, targets[0].URL
			rec.LinkType = planning.Relation(page, targets[0].Page)
			rec.Reason += fmt.Sprintf("; point it at %s, the hub of the deleted page's cluster", hub)
			has[hub] = true
		case hub != "" && hub != src && has[hub]:
			rec.Reason += fmt.Sprintf("; remove the link, keeping its text: the page links %s, the hub of the deleted page's cluster, already or by another fix", hub)
		default:
			rec.Reason += "; remove the link, keeping its text"
		}
		r.recs = append(r.recs, rec)
		return nil
	})
}

// eachLinkFinding calls fix for each finding of a live page, page by page
// in the order the findings first name them, with the page, the targets
// it links (linkedTargets), and the finding's link as apply finds it: its
// path, and its occurrence among the page's links with that path and
// text.
func (r *recommender) eachLinkFinding(ctx context.Context, findings []audit.Finding,
	fix func(page site.Page, has map[string]bool, f audit.Finding, path string, occurrence int) error) error {
	bySource := map[string][]audit.Finding{}
	var order []string
	for _, f := range findings {
		if bySource[f.PageID] == nil {
			order = append(order, f.PageID)
		}
		bySource[f.PageID] = append(bySource[f.PageID], f)
	}
	for _, src := range order {
		page, found, err := r.livePage(ctx, src)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		has, err := r.linkedTargets(ctx, src)
		if err != nil {
			return err
		}
		seen := map[[2]string]int{}
		for _, f := range bySource[src] {
			path := markup.PagePath(f.URL)
			key := [2]string{path, f.Anchor}
			occurrence := seen[key]
			seen[key]++
			if err := fix(page, has, f, path, occurrence); err != nil {
				return err
			}
		}
	}
	return nil
}

// redirected recommends, for each link whose target answers through
// redirects, pointing it at the final URL (a path when the site's host
// answers it), or removing it, its text kept, when the page links that
// page already or a fix recommended before does: trial P's redirects were
// found and given no fix, and a post's link to an old URL of its own hub
// would, pointed at the hub, link it twice. A redirect is a lesser fault
// than a broken link and ranks below those of pages of equal score in
// the broken links' band.
func (r *recommender) redirected(ctx context.Context) error {
	host := r.sc.structure.Site.Host()
	return r.eachLinkFinding(ctx, r.report.Redirects, func(page site.Page, has map[string]bool, f audit.Finding, path string, occurrence int) error {
		src := page.ID
		if f.FinalURL == "" || r.removing[linkKey{src, path, f.Anchor, occurrence}] {
			return nil
		}
		href := f.FinalURL
		if u, err := url.Parse(f.FinalURL); err == nil && strings.EqualFold(u.Host, host) {
			href = u.RequestURI()
		}
		finalPath := markup.PagePath(f.FinalURL)
		byPath, err := r.tx.PagesByPath(ctx, r.siteID, []string{finalPath})
		if err != nil {
			return err
		}
		finalID := byPath[finalPath]
		rec := audit.Recommendation{Problem: audit.ProblemBroken, PageID: src, Action: audit.ActionRetarget,
			LinkType: link.TypeRelated, TargetID: finalID, TargetURL: href, Anchor: f.Anchor, Found: true, LinkPath: path,
			LinkText: f.Anchor, Occurrence: occurrence, Weight: r.linkScore(src) / 2, Reason: f.Detail}
		linked := false
		// A menu's or footer's link is pointed where it ends on every page:
		// removed from pages that link there in their text, it left a
		// gardening trial's menus different page by page.
		if finalID != "" && finalID != src && has[finalID] && !f.InTemplate {
			// The link itself may be what has counts: "/carrelage" answers
			// through a redirect to "/carrelage/", and both name the page
			// (a French trial's hub lost its only link to another hub so).
			if linked, err = r.linksOtherwise(ctx, page.ID, finalID, f.URL); err != nil {
				return err
			}
		}
		switch {
		case finalID != "" && !f.InTemplate && (finalID == src || linked):
			rec.Action, rec.TargetID, rec.TargetURL = audit.ActionRemove, "", ""
			rec.Reason += fmt.Sprintf("; remove the link, keeping its text: the page links %s, where it ends, already or by another fix", finalID)
		default:
			if finalID != "" {
				targets, err := r.targets(ctx, finalID)
				if err != nil {
					return err
				}
				if len(targets) == 1 {
					rec.LinkType = planning.Relation(page, targets[0].Page)
				}
				if !f.InTemplate {
					full, what, err := r.atTypeCap(ctx, page, rec.LinkType)
					if err != nil {
						return err
					}
					if full {
						rec.Action, rec.TargetID, rec.TargetURL = audit.ActionRemove, "", ""
						rec.Reason += fmt.Sprintf("; remove the link, keeping its text: it ends on %s, and the page links %s in its body already (link_type_caps)", finalID, what)
						r.recs = append(r.recs, rec)
						return nil
					}
					has[finalID] = true
				}
			}
			if f.InTemplate {
				r.templateFixes[len(r.recs)] = true
			}
			rec.Reason += fmt.Sprintf("; point it at %s", href)
		}
		r.recs = append(r.recs, rec)
		return nil
	})
}

// atTypeCap reports whether a page's text links as many pages of a type
// as link_type_caps allows it (siblings, or a hub's links to other
// clusters' hubs), counting the fixes recommended before, and says how
// many: a redirecting shortlink that ends on a sibling links none until
// it is pointed there, and a craft trial's page at its sibling cap then
// had the fix refused.
func (r *recommender) atTypeCap(ctx context.Context, page site.Page, typ link.Type) (bool, string, error) {
	limit, what := 0, ""
	switch {
	case r.sc.policy.Name != policy.SAG:
		return false, "", nil
	case typ == link.TypeHorizontal:
		limit, what = r.sc.policy.MaxSiblingLinks, "sibling pages"
	case typ == link.TypeCrossCluster:
		limit, what = r.sc.policy.MaxCrossClusterPerHub, "other clusters' hubs"
	default:
		return false, "", nil
	}
	links, err := r.pageLinks(ctx, page.ID)
	if err != nil {
		return false, "", err
	}
	n := 0
	for _, l := range links {
		if !l.InBody() || !l.live || r.removing[keyOf(page.ID, l)] {
			continue
		}
		if t, ok := r.auditor.Page(l.targetID); ok && l.targetID != page.ID &&
			planning.Relation(page, site.Page{ID: t.ID, Kind: t.Kind, ClusterID: t.ClusterID}) == typ {
			n++
		}
	}
	for i, rec := range r.recs {
		if rec.PageID == page.ID && rec.LinkType == typ && !r.templateFixes[i] {
			switch rec.Action {
			case audit.ActionAdd, audit.ActionRetarget:
				n++
			}
		}
	}
	return n >= limit, fmt.Sprintf("%d %s, the cap", n, what), nil
}

// linksOtherwise reports whether a page links a target in its body by a
// link other than those to url, or a fix recommended before adds or
// retargets a link of it to the target.
func (r *recommender) linksOtherwise(ctx context.Context, pageID, targetID, url string) (bool, error) {
	links, err := r.pageLinks(ctx, pageID)
	if err != nil {
		return false, err
	}
	for _, l := range links {
		if l.targetID == targetID && l.InBody() && l.URL != url {
			return true, nil
		}
	}
	for i, rec := range r.recs {
		if rec.PageID == pageID && rec.TargetID == targetID && (rec.Action == audit.ActionAdd || rec.Action == audit.ActionRetarget) && !r.templateFixes[i] {
			return true, nil
		}
	}
	return false, nil
}

// crossings recommends removing, its text kept, each in-body link that
// leaves its page's silo (validation's silo_integrity): a pet store
// trial's audit counted them in its clusters' health and named and fixed
// none, and those of pages outside every cluster it did not count.
func (r *recommender) crossings(ctx context.Context) error {
	return r.eachLinkFinding(ctx, r.report.SiloCrossings, func(page site.Page, _ map[string]bool, f audit.Finding, path string, occurrence int) error {
		r.remove(audit.ProblemSiloCrossing, page, pageLink{Link: audit.Link{Text: f.Anchor}, path: path, occurrence: occurrence, targetID: f.TargetID}, link.TypeRelated,
			1-r.linkScore(page.ID), f.Detail+"; remove the link, keeping its text")
		return nil
	})
}

// brokenReason says why a link is broken: its target page was deleted,
// or, checked over HTTP, its URL answers an error (a page the site never
// sent has no id, only its URL).
func brokenReason(f audit.Finding) string {
	switch {
	case f.TargetID != "" && f.Detail == audit.DeletedTargetDetail:
		return fmt.Sprintf("links to %s, a deleted page (%q)", f.TargetID, f.Anchor)
	case f.TargetID != "":
		return fmt.Sprintf("links to %s at %s (%q): %s", f.TargetID, f.URL, f.Anchor, f.Detail)
	}
	return fmt.Sprintf("links to %s (%q): %s", f.URL, f.Anchor, f.Detail)
}

// anchorUse is an in-body link to a target with a dominant anchor: its
// source, and how apply finds it there.
type anchorUse struct {
	source     string
	path, text string
	occurrence int
}

// targetAnchors are a dominant target's in-body anchors, as dominance
// counts them, and the links that carry its dominant one.
type targetAnchors struct {
	counts map[string]int
	uses   []anchorUse
}

// anchorUses reads, in one pass over the link map, the in-body anchors of
// every target with a dominant anchor: a pass a target would make the
// recommendations quadratic in the site's size.
func (r *recommender) anchorUses(ctx context.Context, findings []audit.Finding) (map[string]*targetAnchors, error) {
	out := make(map[string]*targetAnchors, len(findings))
	dominant := make(map[string]string, len(findings))
	for _, f := range findings {
		out[f.PageID] = &targetAnchors{counts: map[string]int{}}
		dominant[f.PageID] = f.Anchor
	}
	if len(findings) == 0 {
		return out, nil
	}
	err := r.tx.EachLinkMap(ctx, r.siteID, func(pageID string, links []audit.Link) error {
		seen := map[[2]string]int{}
		for _, l := range links {
			if !l.Internal || l.URL == "" {
				continue
			}
			path := markup.PagePath(l.URL)
			key := [2]string{path, l.Text}
			occurrence := seen[key]
			seen[key]++
			id, _, _ := r.auditor.Resolve(l.URL)
			t, ok := out[id]
			if !ok || id == pageID || !l.InBody() {
				continue
			}
			text := anchors.Normalize(l.Text)
			t.counts[text]++
			if text == dominant[id] {
				t.uses = append(t.uses, anchorUse{pageID, path, l.Text, occurrence})
			}
		}
		return nil
	})
	return out, err
}

// dominant recommends moving enough of a target's links off its dominant
// anchor, the links from the pages with the lowest link score first.
func (r *recommender) dominant(ctx context.Context, finding *audit.Finding, t *targetAnchors) error {
	f := *finding // counted down by the fixes before it; the finding keeps the live figures
	uses, counts := t.uses, t.counts
	liveCount, liveLimit := f.Count, f.Limit
	sort.SliceStable(uses, func(i, j int) bool {
		if r.linkScore(uses[i].source) != r.linkScore(uses[j].source) {
			return r.linkScore(uses[i].source) < r.linkScore(uses[j].source)
		}
		return uses[i].source < uses[j].source
	})
	// A dominant link a removal takes out leaves the target's links and
	// the anchor's share both one fewer; another link to the target a
	// removal takes out leaves its links one fewer, so the anchor's share
	// grows (a trial's fix varied one "click here" of 4 in 9 links while
	// two others were removed, and left it at 3 of 7, still over 40%).
	dominantUse := map[linkKey]bool{}
	for _, u := range uses {
		k := linkKey{u.source, u.path, u.text, u.occurrence}
		dominantUse[k] = true
		if r.removing[k] {
			f.Count--
			f.Limit--
		}
	}
	for _, rec := range r.recs {
		if rec.Action == audit.ActionRemove && rec.TargetID == f.PageID &&
			!dominantUse[linkKey{rec.PageID, rec.LinkPath, rec.LinkText, rec.Occurrence}] {
			f.Limit--
		}
		// The fixes before add links to the target, and a late uplink's
		// move takes a dominant link to another anchor: a French trial's
		// audit asked for three variations where, with its own new uplink
		// and move counted, one was needed.
		if rec.TargetID != f.PageID {
			continue
		}
		switch {
		case rec.Action == audit.ActionAdd && rec.Found, rec.Action == audit.ActionRetarget:
			f.Limit++
			if anchors.Normalize(rec.Anchor) == f.Anchor {
				f.Count++
			}
		case rec.Action == audit.ActionVaryAnchor && dominantUse[linkKey{rec.PageID, rec.LinkPath, rec.LinkText, rec.Occurrence}] &&
			r.moving[linkKey{rec.PageID, rec.LinkPath, rec.LinkText, rec.Occurrence}]:
			f.Count--
		}
	}
	n := audit.ExcessAnchorLinks(f, r.sc.policy)
	keep := audit.AnchorKeep(f, r.sc.policy)
	// Links whose page has another anchor for the target are moved first;
	// those that need a writer only when there are too few of them.
	var placed []audit.Recommendation
	var unplaced []writerVariation
	for _, u := range uses {
		if len(placed) == n {
			break
		}
		if k := (linkKey{u.source, u.path, u.text, u.occurrence}); r.removing[k] || r.moving[k] {
			continue // a removal takes the link out, or a move its place: no anchor to vary
		}
		page, found, err := r.livePage(ctx, u.source)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		l, ok, err := r.proposeLink(ctx, page, f.PageID)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		var others []link.Anchor
		for _, c := range l.Candidates {
			if text := anchors.Normalize(c.Text); text != f.Anchor && counts[text] < keep {
				others = append(others, c)
			}
		}
		l.Candidates = others
		// The variation is placed as apply places it: on the page with the
		// dominant link unwrapped.
		unwrapped := page
		if html, ok, err := unwrapLink([]byte(page.HTML), r.sc, page, u.path, u.text, u.occurrence); err != nil {
			return err
		} else if ok {
			unwrapped.HTML = string(html)
		}
		// A candidate can land on the dominant anchor itself, or on one at
		// the share limit, through a close variation: "track pump" on the
		// text "track pumps" of the link just unwrapped. That varies
		// nothing: the candidate is dropped and the others are tried.
		var prs []proposal
		for {
			var err error
			if prs, err = r.place(ctx, unwrapped, []link.Link{l}); err != nil {
				return err
			}
			// place offers only the candidates under the anchor cap.
			l.Candidates = prs[0].link.Candidates
			pl := prs[0].placement
			if !pl.Placed {
				break
			}
			if text := anchors.Normalize(pl.AnchorText); text != f.Anchor && counts[text] < keep {
				break
			}
			l.Candidates = slices.Delete(slices.Clone(l.Candidates), pl.CandidateIndex, pl.CandidateIndex+1)
		}
		others = l.Candidates
		rec := audit.Recommendation{Problem: audit.ProblemDominantAnchor, PageID: page.ID,
			Action: audit.ActionVaryAnchor, LinkType: l.Type, TargetID: f.PageID, TargetURL: l.TargetURL,
			Anchors: planning.CandidateTexts(others), NotWithin: planning.NotWithin(l, planning.CandidateTexts(others)), Names: planning.Names(link.Link{Candidates: others}), LinkPath: u.path, LinkText: u.text, Occurrence: u.occurrence,
			Weight: 1 - r.linkScore(page.ID),
			Reason: dominantAnchorReason(r.sc.policy, f, f.Count != liveCount || f.Limit != liveLimit)}
		if pl := prs[0].placement; pl.Placed {
			rec.Anchor, rec.Found = pl.AnchorText, true
			rec.Anchors = append([]string{rec.Anchors[pl.CandidateIndex]}, without(rec.Anchors, pl.CandidateIndex)...)
			rec.Reason += fmt.Sprintf("; move this link to %q, found in paragraph %d", pl.AnchorText, pl.ContentParagraph)
			// A move apply would refuse is no fix: the next page's link
			// is varied instead.
			if refused, err := r.refusedVariation(ctx, page, rec); err != nil {
				return err
			} else if refused != "" {
				continue
			}
			counts[anchors.Normalize(pl.AnchorText)]++
			// The moved link counts against the anchor cap as an added one
			// does: trial P's audit moved three links to "soup recipes",
			// which two uplinks it recommended already carried.
			r.proposed.add([]link.Link{{TargetPageID: f.PageID, Anchor: pl.AnchorText, Zone: link.ZoneInBody, Status: link.StatusInserted}})
			placed = append(placed, rec)
			continue
		}
		if len(others) == 0 {
			// Nothing to move it to, nor to write in: no fix, only the
			// finding (trial P's apply refused 7 such of 27).
			continue
		}
		unplaced = append(unplaced, writerVariation{rec, others})
	}
	r.recs = append(r.recs, placed...)
	for _, w := range unplaced {
		if len(placed) == n {
			break
		}
		// Each anchor to work in counts as the moves do: a French trial's
		// audit told three writers to work in one anchor, which would
		// then carry 3 of 6 links (over the share), and its next audit
		// sent one of them to another.
		text, ok := writersAnchor(w.others, func(a link.Anchor) bool { return counts[anchors.Normalize(a.Text)] < keep })
		if !ok {
			continue
		}
		counts[anchors.Normalize(text)]++
		w.rec.Anchor = text
		if i := slices.Index(w.rec.Anchors, text); i > 0 {
			w.rec.Anchors = append([]string{text}, without(w.rec.Anchors, i)...)
		}
		w.rec.Reason += fmt.Sprintf("; no other anchor for the target found in the page: work %q into the text", text)
		placed = append(placed, w.rec)
		r.recs = append(r.recs, w.rec)
	}
	if len(placed) < n {
		// A Spanish trial's anchor on 5 of 5 links needed 3 moves and got
		// 2, and nothing said why the third link had none.
		finding.Detail += fmt.Sprintf("; %d of the %d links to move to another anchor have none, in their page's text or to write in (no other name of the target, or each at the share or the cap): no fix is recommended for them",
			n-len(placed), n)
	}
	return nil
}

// writerVariation is a dominant link's variation no text of its page
// carries yet, and the anchors a writer may work in for it.
type writerVariation struct {
	rec    audit.Recommendation
	others []link.Anchor
}

// writersAnchor is the anchor a writer is told to work in, of those ok
// takes: the target's keyword when it is one, else the first that is no
// title with its subtitle, else the first. A Spanish trial was told to
// work in "Camino Francés por etapas: de Saint-Jean a Santiago" where
// "Camino Francés por etapas" was a candidate too.
func writersAnchor(candidates []link.Anchor, ok func(link.Anchor) bool) (string, bool) {
	first, whole := "", ""
	for _, c := range candidates {
		if !ok(c) {
			continue
		}
		if c.Type == link.AnchorPrimaryKeyword {
			return c.Text, true
		}
		if first == "" {
			first = c.Text
		}
		if whole == "" && anchors.ShortTitle(c.Text) == "" {
			whole = c.Text
		}
	}
	return cmp.Or(whole, first), first != ""
}

// dominantAnchorReason says what makes an anchor one to vary: its share of
// the target's links, or, under that share, its uses over the exact-anchor
// cap (a German trial's "carries 4 of the 11 links (over 40%)" was 36%).
//
// afterFixes says the counts are those the fixes recommended before it
// leave, not the live site's (a French trial read "4 of the 8" where its
// site showed 5).
func dominantAnchorReason(p policy.Policy, f audit.Finding, afterFixes bool) string {
	after := ""
	if afterFixes {
		after = " once the fixes recommended before it are applied"
	}
	if audit.Dominates(p, f.Count, f.Limit) {
		// Over both, it says both, as the finding does (a Spanish trial's
		// 5 of 5 was said to be "over 40%" alone).
		overCap := ""
		if p.MaxExactAnchorPerTarget > 0 && f.Count > p.MaxExactAnchorPerTarget {
			overCap = fmt.Sprintf(" and over the cap of %d uses of one exact anchor per target", p.MaxExactAnchorPerTarget)
		}
		return fmt.Sprintf("anchor %q carries %d of the %d links to %s%s (over %.0f%%%s)", f.Anchor, f.Count, f.Limit, f.PageID, after,
			100*p.AnchorDominanceFlagShare, overCap)
	}
	return fmt.Sprintf("anchor %q carries %d of the %d links to %s%s, over the cap of %d uses of one exact anchor per target",
		f.Anchor, f.Count, f.Limit, f.PageID, after, p.MaxExactAnchorPerTarget)
}
