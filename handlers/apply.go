package handlers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/validation"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// AuditReason is the reason links.inserted gives for a page an audit's
// fixes changed: "audit <id>".
func AuditReason(auditID string) string { return "audit " + auditID }

// runApply applies an audit's recommendations, a page per transaction:
// each page's fixes are spliced into its current live HTML (or what
// earlier fixes made of that version), the page is validated and goes out
// as links.inserted. audit.applied then says what was applied and what
// could not be. An apply whose audit is still running waits for it.
func (p *Pipeline) runApply(ctx context.Context, job store.Job, req events.Event) (bool, error) {
	data, err := events.DecodeData[events.AuditApplyData](req)
	if err != nil {
		return false, err
	}
	result := events.AuditAppliedData{AuditID: data.AuditID, Failed: []events.ApplyFailure{}}
	a, found, err := p.Store.Audit(ctx, job.SiteID, data.AuditID)
	switch {
	case err != nil:
		return false, err
	case !found:
		result.Failed = append(result.Failed, events.ApplyFailure{ID: data.AuditID,
			Reason: fmt.Sprintf("unknown audit %q of site %s", data.AuditID, job.SiteID)})
		return p.finishApply(ctx, job, req, result)
	case a.Status == store.AuditRunning:
		return false, nil // the audit is not done: the next round tries again
	case a.Status == store.AuditFailed:
		result.Failed = append(result.Failed, events.ApplyFailure{ID: data.AuditID,
			Reason: fmt.Sprintf("audit %q failed and has no recommendations", data.AuditID)})
		return p.finishApply(ctx, job, req, result)
	}
	var ids []string
	if !data.All {
		ids = data.RecommendationIDs
	}
	recs, err := p.Store.Recommendations(ctx, job.SiteID, data.AuditID, ids)
	if err != nil {
		return false, err
	}
	known := make(map[string]bool, len(recs))
	byPage := map[string][]store.StoredRecommendation{}
	var pages []string
	for _, r := range recs {
		known[r.ID] = true
		if byPage[r.PageID] == nil {
			pages = append(pages, r.PageID)
		}
		byPage[r.PageID] = append(byPage[r.PageID], r)
	}
	for _, id := range ids {
		if !known[id] {
			result.Failed = append(result.Failed, events.ApplyFailure{ID: id,
				Reason: fmt.Sprintf("unknown recommendation of audit %q", data.AuditID)})
		}
	}
	// Mandatory uplinks go first: under the anchor cap, which the pages
	// fixed before count towards, an optional link must not take the
	// last use of an anchor a missing uplink needs, as the recommender
	// gave them theirs first.
	sort.SliceStable(pages, func(i, j int) bool {
		return hasUplinkFix(byPage[pages[i]]) && !hasUplinkFix(byPage[pages[j]])
	})
	placed := newAnchorTally() // the anchors this apply added, for the anchor cap
	for _, pageID := range pages {
		applied, failed, err := p.applyPage(ctx, job, req, data.AuditID, pageID, byPage[pageID], placed)
		if err != nil {
			return false, err
		}
		result.Applied += applied
		result.Failed = append(result.Failed, failed...)
	}
	return p.finishApply(ctx, job, req, result)
}

// awaitsAnchor reports whether a fix places a link on an anchor the
// audit did not find in the page: it applies only if the page's text
// has one by then, where the fixes before it leave room.
func awaitsAnchor(r store.StoredRecommendation) bool {
	return !r.Found && (r.Action == audit.ActionAdd || r.Action == audit.ActionVaryAnchor)
}

func (p *Pipeline) finishApply(ctx context.Context, job store.Job, req events.Event, result events.AuditAppliedData) (bool, error) {
	err := p.Store.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.FinishApply(ctx, job.SiteID, job.ID, result); err != nil {
			return err
		}
		return emit(ctx, tx, req, events.AuditApplied, events.DerivedID(req, events.AuditApplied), "", result)
	})
	if err != nil {
		return false, err
	}
	if p.Notify != nil {
		p.Notify()
	}
	p.Logger.InfoContext(ctx, "audit fixes applied", "site_id", job.SiteID, "audit_id", result.AuditID, "applied", result.Applied,
		"failed", len(result.Failed))
	return true, nil
}

// applyPage applies one page's recommendations in one transaction. A
// recommendation this apply already applied (its request delivered again)
// counts as applied; one applied by another apply, or made from another
// version of the page, is refused with the reason.
//
// A link added with an anchor that other live pages and the pages this
// apply fixed before (placed, which it adds the page's links to) already
// use max_exact_anchor_per_target times for its target is refused, the
// mandatory uplink's too: the cap holds for every link (SAG §2.3).
func (p *Pipeline) applyPage(ctx context.Context, job store.Job, req events.Event, auditID, pageID string,
	recs []store.StoredRecommendation, placed anchorTally) (applied int, failed []events.ApplyFailure, err error) {
	var kept []link.Link
	err = p.Store.InTx(ctx, func(tx *store.Tx) error {
		applied, failed = 0, nil
		fail := func(id, format string, args ...any) {
			failed = append(failed, events.ApplyFailure{ID: id, Reason: fmt.Sprintf(format, args...)})
		}
		page, found, err := tx.LivePage(ctx, job.SiteID, pageID, true)
		if err != nil {
			return err
		}
		if !found {
			for _, r := range recs {
				fail(r.ID, "page %s is no longer live", pageID)
			}
			return nil
		}
		page.SiteID = job.SiteID
		sc, found, err := currentSite(ctx, tx, job.SiteID)
		if err != nil {
			return err
		}
		if !found {
			for _, r := range recs {
				fail(r.ID, "site %s is no longer known", job.SiteID)
			}
			return nil
		}
		// A page interlinker plans is made again from its plan at each
		// re-plan: a fix spliced into its live HTML would be gone at the
		// next one (an API client trial). Its fixes are checked on the live
		// HTML as any page's are, then kept where plans start from:
		// decisions, and the author's own links edited in its base HTML.
		stored, err := tx.PlannedVersion(ctx, job.SiteID, pageID)
		if err != nil {
			return err
		}
		plannedVersion, planned := stored.Version, stored.Planned
		var base []byte
		var decisions []store.LinkDecision
		if planned {
			b, err := tx.BaseHTML(ctx, job.SiteID, pageID)
			if err != nil {
				return err
			}
			base = []byte(b)
		}
		baseBefore := string(base)
		var pending []store.StoredRecommendation
		for _, r := range recs {
			switch {
			case r.AppliedBy == job.ID:
				applied++ // this apply, delivered again
			case r.AppliedBy != "":
				fail(r.ID, "already applied")
			case r.PageVersion != page.Version:
				fail(r.ID, "stale: made from version %d of page %s, which is now at version %d", r.PageVersion, pageID, page.Version)
			case planned && plannedVersion != page.Version:
				// Its plans start from a newer version than the live one
				// the fix was made from: the fix may not fit it.
				fail(r.ID, "stale: made from version %d of page %s, which interlinker now plans at version %d", r.PageVersion, pageID, plannedVersion)
			default:
				pending = append(pending, r)
			}
		}
		// The fixes whose anchor the audit found in the page go first, in
		// the report's order: the audit found each with the additions
		// recommended before it in place, and one whose anchor it did not
		// find, crowded out by them or not in the text, must not take the
		// room a found one was given (a cooking trial's hub took a link on
		// "lattice tops", which the audit had found no room for, and then
		// refused the "Blind baking" the audit had placed).
		sort.SliceStable(pending, func(i, j int) bool { return !awaitsAnchor(pending[i]) && awaitsAnchor(pending[j]) })
		// Each fix is applied on what the fixes before it made of the page
		// and the page validated again: a fix that makes a rule worse
		// (validation.Worse: a rule the page passed fails, or one it
		// failed flags more links), whatever link it adds, retargets or
		// removes, is refused with the rules' reasons, and the page's
		// other fixes apply without it. A rule the live page already
		// failed no worse is not the fixes' doing (a page over its
		// density before any fix). So the page that goes out never fails
		// a rule worse than it came in, however its fixes combine.
		html := []byte(page.HTML)
		report, links, err := validateFixed(ctx, tx, sc, page, html, nil)
		if err != nil {
			return err
		}
		var added []link.Link
		var done []string
		// A fix names an existing link by its occurrence among the live
		// page's links with its path and text; the links of those the fixes
		// before it took out (removed, retargeted, moved to another anchor)
		// are no longer counted.
		gone := map[[2]string][]int{}
		for _, r := range pending {
			rec := r.Recommendation
			if rec.LinkPath != "" {
				key := [2]string{rec.LinkPath, rec.LinkText}
				for _, o := range gone[key] {
					if o < r.Occurrence {
						rec.Occurrence--
					}
				}
			}
			next, l, err := applyRecommendation(html, sc, page, rec)
			if err != nil {
				fail(r.ID, "%s", err.Error())
				continue
			}
			withFix := added
			if l != nil {
				capped, err := overCap(ctx, tx, sc, page, added, *l, placed)
				if err != nil {
					return err
				}
				if capped {
					fail(r.ID, "anchor cap: %q already links to page %s %d times on other pages (max_exact_anchor_per_target)",
						l.Anchor, l.TargetPageID, sc.policy.MaxExactAnchorPerTarget)
					continue
				}
				withFix = append(slices.Clip(added), *l)
			}
			nextReport, nextLinks, err := validateFixed(ctx, tx, sc, page, next, withFix)
			if err != nil {
				return err
			}
			if worse := validation.Worse(report, nextReport); len(worse) > 0 {
				fail(r.ID, "refused by validation: %s", ruleReasons(worse))
				continue
			}
			if planned {
				keep, err := keepInPlan(ctx, tx, html, base, sc, page, rec, l)
				if err != nil {
					fail(r.ID, "%s", err.Error())
					continue
				}
				for _, d := range keep.decisions {
					d.SiteID, d.SourcePageID, d.DecidedBy = job.SiteID, pageID, AuditReason(auditID)
					decisions = append(decisions, d)
				}
				base = keep.base
			}
			html, added, report, links = next, withFix, nextReport, nextLinks
			done = append(done, r.ID)
			if r.LinkPath != "" {
				key := [2]string{r.LinkPath, r.LinkText}
				gone[key] = append(gone[key], r.Occurrence)
			}
		}
		if len(done) == 0 {
			return nil
		}
		kept = added
		if planned {
			if err := tx.MarkApplied(ctx, job.SiteID, auditID, job.ID, done); err != nil {
				return err
			}
			applied += len(done)
			return p.replanWithFixes(ctx, tx, req, auditID, pageID, decisions, base, string(base) != baseBefore)
		}
		seq, err := tx.SaveFixedPage(ctx, job.SiteID, pageID, page.Version, string(html))
		if err != nil {
			return err
		}
		if err := tx.MarkApplied(ctx, job.SiteID, auditID, job.ID, done); err != nil {
			return err
		}
		applied += len(done)
		fixed := store.PageRecord{Page: page, LinkedHTML: string(html)}
		data := insertedData(fixed, seq, linksToLivePages(links), report, AuditReason(auditID))
		out, err := p.fitEventID(req, events.DerivedID(req, events.LinksInserted+"/"+pageID), data)
		if err != nil {
			return err
		}
		return enqueue(ctx, tx, req, out, pageID)
	})
	if err == nil {
		placed.add(kept)
	}
	return applied, failed, err
}

// keptFix is how a fix to a page interlinker plans outlives its plans:
// the decisions its plans keep, and its base HTML with the author's own
// link the fix changes edited.
type keptFix struct {
	decisions []store.LinkDecision
	base      []byte
}

// keepInPlan turns a fix checked on the page's live HTML (html, before
// the fix; placed is the link an addition or a variation placed) into
// what its plans keep. A link of ours changes by decision: an addition or
// a variation is planned by hand under the anchor the fix placed, a
// removal leaves the target out, a retarget does both. A link the author
// wrote is edited in base, as the fix edits it in the live HTML.
func keepInPlan(ctx context.Context, tx *store.Tx, html, base []byte, sc siteContext, page site.Page, r audit.Recommendation, placed *link.Link) (keptFix, error) {
	keep := keptFix{base: base}
	if r.Action == audit.ActionAdd {
		keep.decisions = []store.LinkDecision{{TargetPageID: r.TargetID, Action: planning.DecisionAdd, Anchor: placed.Anchor}}
		return keep, nil
	}
	live, ok, err := findLink(html, sc, page, r.LinkPath, r.LinkText, r.Occurrence)
	if err != nil {
		return keptFix{}, err
	}
	if !ok {
		return keptFix{}, fmt.Errorf("the link to %s (%q) is no longer in the page", r.LinkPath, r.LinkText)
	}
	if live.Inserted {
		ids, err := tx.PagesByPath(ctx, page.SiteID, []string{r.LinkPath})
		if err != nil {
			return keptFix{}, err
		}
		zone := link.ZoneInBody
		if live.InBlock != "" {
			zone = "" // a generated block's entry: the target leaves every zone
		}
		if old := ids[r.LinkPath]; old != "" && r.Action != audit.ActionVaryAnchor {
			keep.decisions = append(keep.decisions, store.LinkDecision{TargetPageID: old, Action: planning.DecisionRemove, Zone: string(zone)})
		}
		switch r.Action {
		case audit.ActionRetarget:
			keep.decisions = append(keep.decisions, store.LinkDecision{TargetPageID: r.TargetID, Action: planning.DecisionAdd, Anchor: live.Text})
		case audit.ActionVaryAnchor:
			keep.decisions = append(keep.decisions, store.LinkDecision{TargetPageID: r.TargetID, Action: planning.DecisionAdd, Anchor: placed.Anchor})
		}
		return keep, nil
	}
	// The author's link is found in base by its occurrence among the
	// author's links with its path and text: ours are not in base.
	links, err := markup.Links(html, strings.TrimRight(sc.structure.Site.BaseURL, "/")+page.URL, sc.structure.Site.Host())
	if err != nil {
		return keptFix{}, fmt.Errorf("read links of page %s: %w", page.ID, err)
	}
	occurrence := r.Occurrence
	for _, l := range links {
		if l.Start >= live.Start {
			break
		}
		if l.Inserted && l.Internal && markup.PagePath(l.URL) == r.LinkPath && l.Text == r.LinkText {
			occurrence--
		}
	}
	authors, ok, err := findLink(base, sc, page, r.LinkPath, r.LinkText, occurrence)
	if err != nil {
		return keptFix{}, err
	}
	if !ok {
		return keptFix{}, fmt.Errorf("the link to %s (%q) is not in the HTML the page's plans start from", r.LinkPath, r.LinkText)
	}
	edit := markup.LinkEdit{Start: authors.Start}
	if r.Action == audit.ActionRetarget {
		edit.Href = r.TargetURL
	}
	if keep.base, err = markup.EditLinks(base, []markup.LinkEdit{edit}); err != nil {
		return keptFix{}, fmt.Errorf("edit the link to %s in the page's base HTML: %w", r.LinkPath, err)
	}
	if r.Action == audit.ActionVaryAnchor {
		keep.decisions = []store.LinkDecision{{TargetPageID: r.TargetID, Action: planning.DecisionAdd, Anchor: placed.Anchor}}
	}
	return keep, nil
}

// replanWithFixes stores what a page interlinker plans keeps of an
// audit's fixes and asks for its re-plan, whose links.inserted gives the
// audit as its reason.
func (p *Pipeline) replanWithFixes(ctx context.Context, tx *store.Tx, req events.Event, auditID, pageID string, decisions []store.LinkDecision, base []byte, baseChanged bool) error {
	for _, d := range decisions {
		tx.SetDecision(ctx, d)
	}
	if baseChanged {
		if err := tx.SetBaseHTML(ctx, req.SiteID, pageID, string(base)); err != nil {
			return err
		}
	}
	out, err := followOn(req, events.LinksReplan, events.DerivedID(req, events.LinksReplan+"/"+pageID), events.ReplanData{
		PageID: pageID, CauseEventID: req.ID, CausePageID: pageID, Reason: AuditReason(auditID)})
	if err != nil {
		return err
	}
	return enqueue(ctx, tx, req, out, pageID)
}

// hasUplinkFix reports whether a page's recommendations add its missing
// uplink: a link up to its hub, which the recommender offers only to a
// page without one. It reads the action and link type, which the store
// keeps, not the problem, which it does not.
func hasUplinkFix(recs []store.StoredRecommendation) bool {
	return slices.ContainsFunc(recs, func(r store.StoredRecommendation) bool {
		return r.Action == audit.ActionAdd && r.LinkType == link.TypeVerticalUp
	})
}

// overCap reports whether a link to add carries an anchor that other
// live pages, the pages fixed before in the same apply (placed), and the
// links added before it on this page already use
// max_exact_anchor_per_target times for its target.
func overCap(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, added []link.Link, l link.Link, placed anchorTally) (bool, error) {
	limit := sc.policy.MaxExactAnchorPerTarget
	f := anchors.Normalize(l.Anchor)
	live, err := tx.LiveAnchorUsage(ctx, page.SiteID, page.ID, []store.AnchorUse{{TargetPageID: l.TargetPageID, Text: l.Anchor}}, limit)
	if err != nil {
		return false, err
	}
	onPage := 0
	for _, a := range added {
		if a.TargetPageID == l.TargetPageID && anchors.Normalize(a.Anchor) == f {
			onPage++
		}
	}
	return live[l.TargetPageID][f]+placed.counts[l.TargetPageID][f]+onPage >= limit, nil
}

// applyRecommendation makes one recommendation's change to a page's HTML.
// It returns the link it added, if any.
func applyRecommendation(html []byte, sc siteContext, page site.Page, r audit.Recommendation) ([]byte, *link.Link, error) {
	switch r.Action {
	case audit.ActionAdd:
		return placeFix(html, sc, page, r)
	case audit.ActionRemove:
		out, ok, err := unwrapLink(html, sc, page, r.LinkPath, r.LinkText, r.Occurrence)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fmt.Errorf("the link to %s (%q) is no longer in the page", r.LinkPath, r.LinkText)
		}
		return out, nil, nil
	case audit.ActionRetarget:
		l, ok, err := findLink(html, sc, page, r.LinkPath, r.LinkText, r.Occurrence)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fmt.Errorf("the link to %s (%q) is no longer in the page", r.LinkPath, r.LinkText)
		}
		out, err := markup.EditLinks(html, []markup.LinkEdit{{Start: l.Start, Href: r.TargetURL}})
		if err != nil {
			return nil, nil, fmt.Errorf("point the link at %s: %w", r.TargetURL, err)
		}
		return out, nil, nil
	case audit.ActionVaryAnchor:
		out, ok, err := unwrapLink(html, sc, page, r.LinkPath, r.LinkText, r.Occurrence)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fmt.Errorf("the link to %s (%q) is no longer in the page", r.LinkPath, r.LinkText)
		}
		// A candidate can land on the very anchor being varied through a
		// close variation ("bike light" on the text "bike lights" just
		// unwrapped): that is no variation, and the next candidate is tried.
		r.Anchors = slices.Clone(r.Anchors)
		for {
			fixed, l, i, err := placeFixAt(out, sc, page, r)
			if err != nil {
				return nil, nil, err
			}
			if anchors.Normalize(l.Anchor) != anchors.Normalize(r.LinkText) {
				return fixed, l, nil
			}
			if r.Anchors = slices.Delete(r.Anchors, i, i+1); len(r.Anchors) == 0 {
				return nil, nil, fmt.Errorf("the link to %s could not be placed under another anchor than %q", r.TargetID, r.LinkText)
			}
		}
	}
	return nil, nil, fmt.Errorf("unknown action %q", r.Action)
}

// placeFix places a recommended link under its candidate anchors, as the
// pipeline places planned links.
func placeFix(html []byte, sc siteContext, page site.Page, r audit.Recommendation) ([]byte, *link.Link, error) {
	out, l, _, err := placeFixAt(html, sc, page, r)
	return out, l, err
}

// placeFixAt is placeFix, also saying which of r.Anchors was placed.
func placeFixAt(html []byte, sc siteContext, page site.Page, r audit.Recommendation) ([]byte, *link.Link, int, error) {
	if len(r.Anchors) == 0 {
		return nil, nil, -1, fmt.Errorf("no anchor text for %s: write one into the page", r.TargetID)
	}
	out, placements, err := markup.Place(html, []markup.LinkRequest{fixRequest(r, r.Anchors)}, markupOptions(sc, page))
	if err != nil {
		return nil, nil, -1, fmt.Errorf("place the link to %s: %w", r.TargetID, err)
	}
	pl := placements[0]
	if !pl.Placed {
		return nil, nil, -1, fmt.Errorf("the link to %s could not be placed: %s", r.TargetID, pl.Reason)
	}
	l := link.Link{ID: r.ID, SourcePageID: page.ID, TargetPageID: r.TargetID, TargetURL: r.TargetURL, Type: r.LinkType,
		Anchor: pl.AnchorText, Zone: link.ZoneInBody, Paragraph: pl.ContentParagraph, FirstParagraphs: r.FirstParagraphs,
		Mandatory: r.LinkType == link.TypeVerticalUp, Placement: link.PlacementAuditFix, Status: link.StatusInserted,
		Factors: map[string]float64{}}
	return out, &l, pl.CandidateIndex, nil
}

// fixRequest is the request that places a recommended link under texts.
func fixRequest(r audit.Recommendation, texts []string) markup.LinkRequest {
	return markup.LinkRequest{ID: r.ID, Href: r.TargetURL, Anchors: texts, NotWithin: r.NotWithin, Names: r.Names,
		Position:         markup.Position{FirstParagraphs: r.FirstParagraphs, First: r.LinkType == link.TypeVerticalUp},
		WholePhrase:      planning.WholePhrase(r.LinkType),
		WholePhraseFirst: !planning.WholePhrase(r.LinkType)}
}

// findLink finds a page's link by the path it points to, its text and
// which such link of the page it is, as the recommender numbered them.
func findLink(html []byte, sc siteContext, page site.Page, path, text string, occurrence int) (markup.Link, bool, error) {
	links, err := markup.Links(html, strings.TrimRight(sc.structure.Site.BaseURL, "/")+page.URL, sc.structure.Site.Host())
	if err != nil {
		return markup.Link{}, false, fmt.Errorf("read links of page %s: %w", page.ID, err)
	}
	n := 0
	for _, l := range links {
		if !l.Internal || l.URL == "" || markup.PagePath(l.URL) != path || l.Text != text {
			continue
		}
		if n == occurrence {
			return l, true, nil
		}
		n++
	}
	return markup.Link{}, false, nil
}

// unwrapLink removes a link found by findLink, keeping its text.
func unwrapLink(html []byte, sc siteContext, page site.Page, path, text string, occurrence int) ([]byte, bool, error) {
	l, ok, err := findLink(html, sc, page, path, text, occurrence)
	if err != nil || !ok {
		return nil, ok, err
	}
	out, err := markup.EditLinks(html, []markup.LinkEdit{{Start: l.Start}})
	if err != nil {
		return nil, false, fmt.Errorf("unwrap the link to %s: %w", path, err)
	}
	return out, true, nil
}

// validateFixed validates a fixed page: its in-body links, those it had
// and those added, under the site's rules.
func validateFixed(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, html []byte, added []link.Link) (validation.Report, []link.Link, error) {
	found, err := markup.Links(html, strings.TrimRight(sc.structure.Site.BaseURL, "/")+page.URL, sc.structure.Site.Host())
	if err != nil {
		return validation.Report{}, nil, fmt.Errorf("read links of page %s: %w", page.ID, err)
	}
	byMarker := map[string]link.Link{}
	for _, l := range added {
		byMarker[l.ID] = l
	}
	paths := map[string]bool{}
	var ids []string
	var links []link.Link
	for i, f := range found {
		if !f.Internal || f.URL == "" || f.Position != "content" || f.InBlock != "" {
			continue
		}
		if l, ok := byMarker[f.MarkerID]; ok && f.Inserted {
			links = append(links, l)
			ids = append(ids, l.TargetPageID)
			continue
		}
		path := markup.PagePath(f.URL)
		paths[path] = true
		links = append(links, link.Link{ID: fmt.Sprintf("%s-existing-%d", page.ID, i), SourcePageID: page.ID, TargetURL: path,
			Anchor: f.Text, Zone: link.ZoneInBody, Paragraph: f.ContentParagraph, Placement: link.PlacementExisting,
			Status: link.StatusInserted, Factors: map[string]float64{}})
	}
	// Existing links are matched to the pages they point to by path.
	byPath, err := tx.PagesByPath(ctx, page.SiteID, slices.Collect(maps.Keys(paths)))
	if err != nil {
		return validation.Report{}, nil, err
	}
	for i := range links {
		if links[i].TargetPageID == "" {
			links[i].TargetPageID = byPath[links[i].TargetURL]
			ids = append(ids, links[i].TargetPageID)
		}
	}
	live, err := tx.LiveTargets(ctx, page.SiteID, ids)
	if err != nil {
		return validation.Report{}, nil, err
	}
	targets := make(map[string]site.Page, len(live))
	for id, t := range live {
		targets[id] = t.Page
	}
	var hub *site.Page
	for i := range links {
		t, ok := targets[links[i].TargetPageID]
		if !ok {
			continue
		}
		if links[i].Type == "" {
			links[i].Type = planning.Relation(page, t)
		}
		if t.Kind == site.KindHub && t.ClusterID == page.ClusterID && page.ClusterID != "" {
			h := t
			hub = &h
		}
	}
	if hub == nil && page.ClusterID != "" && page.Kind != site.KindHub {
		// The page links no hub of its own (a missing uplink whose fix was
		// refused): its rules still judge it against its cluster's live hub,
		// not as a page of a cluster without one.
		h, found, err := tx.ClusterHub(ctx, page.SiteID, page.ClusterID)
		if err != nil {
			return validation.Report{}, nil, err
		}
		if found {
			hub = &h.Page
		}
	}
	report, settled, err := validation.Validate(validation.Input{Structure: sc.structure, Policy: sc.policy, Page: page, Hub: hubFor(page, hub),
		HTML: html, SiteHost: sc.structure.Site.Host(), Links: links, Targets: targets})
	if err != nil {
		return validation.Report{}, nil, err
	}
	return report, settled, nil
}

// linksToLivePages leaves out of a fixed page's links those to no live
// page: an unverified or broken link the fixes left alone has no target
// and no type for links.inserted to report (the audit reports it).
func linksToLivePages(links []link.Link) []link.Link {
	out := make([]link.Link, 0, len(links))
	for _, l := range links {
		if l.Type != "" {
			out = append(out, l)
		}
	}
	return out
}

// ruleReasons names validation's rules with what each found.
func ruleReasons(rules []validation.RuleResult) string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Name + ": " + r.Detail
	}
	return strings.Join(out, "; ")
}
