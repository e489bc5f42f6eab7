package validation

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
)

// This file holds the rules both policies share: no self links, no
// duplicate links, paragraph density, anchor diversity and the first-link
// rule.

func noSelfLinks(in Input) RuleResult {
	r := RuleResult{Name: RuleNoSelfLinks, Severity: SeverityError, Passed: true, Detail: "no link points to the page itself"}
	for _, l := range in.Links {
		if l.Placed() && l.TargetPageID == in.Page.ID {
			r.Passed = false
			r.LinkIDs = append(r.LinkIDs, l.ID)
		}
	}
	if !r.Passed {
		r.Detail = fmt.Sprintf("%d link(s) point to page %s itself: %s", len(r.LinkIDs), in.Page.ID, strings.Join(r.LinkIDs, ", "))
	}
	return r
}

// noDuplicateTargets judges in-body links only: a hub lists every
// supporting article in its Related Articles section and may also link to
// one from its body (SAG §2.1, vertical downward), and a Related Reading
// entry or breadcrumb may repeat a body link; those are separate link types,
// not duplicates. Links are grouped by duplicateTarget. A writer's own
// content link to a target one of ours links too (a hub linked in a
// heading, and the uplink the opening paragraphs must hold) is reported
// as a warning: the writer's link is theirs to take out, as the audit
// recommends (its duplicate_links), and the page is otherwise sound.
func noDuplicateTargets(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleNoDuplicateTargets, Severity: SeverityError, Passed: true, Detail: "no target is linked twice by the in-body links placed"}
	byTarget := map[string][]string{}
	for _, l := range in.Links {
		if target := duplicateTarget(l); target != "" && l.Placed() && l.Zone == link.ZoneInBody {
			byTarget[target] = append(byTarget[target], l.ID)
		}
	}
	var dups []string
	for target, ids := range byTarget {
		if len(ids) > 1 {
			dups = append(dups, fmt.Sprintf("%s (%d links)", target, len(ids)))
			r.LinkIDs = append(r.LinkIDs, ids[1:]...)
		}
	}
	if len(dups) > 0 {
		sort.Strings(dups)
		sort.Strings(r.LinkIDs)
		r.Passed = false
		r.Detail = "linked more than once in the body: " + strings.Join(dups, ", ")
		return r
	}
	if twice := alsoLinkedByTheWriter(in, found); len(twice) > 0 {
		r.Passed, r.Severity = false, SeverityWarning
		r.Detail = "linked in the body by the writer's own link as well as ours: " + strings.Join(twice, ", ") +
			"; the writer's link is theirs to take out (the audit recommends it), ours is the one the rules ask for"
	}
	return r
}

// alsoLinkedByTheWriter names the targets of our placed in-body links that
// a writer's own content link (outside the generated blocks) leads to as
// well, with that link's text.
func alsoLinkedByTheWriter(in Input, found []markup.Link) []string {
	ours := map[string]string{} // page path → target
	for _, l := range in.Links {
		if l.Placed() && l.Zone == link.ZoneInBody && l.Placement != link.PlacementExisting && l.TargetURL != "" {
			ours[markup.PagePath(l.TargetURL)] = duplicateTarget(l)
		}
	}
	var twice []string
	for _, f := range found {
		if f.MarkerID != "" || f.InBlock != "" || f.Position != "content" || !f.Internal || f.URL == "" || markup.IsFileURL(f.URL) {
			continue
		}
		if target, ok := ours[markup.PagePath(f.URL)]; ok {
			twice = append(twice, fmt.Sprintf("%s (the writer's %q)", target, f.Text))
		}
	}
	sort.Strings(twice)
	return twice
}

// noBrokenLinks is a warning: the link is the writer's, the planner
// neither placed it nor may take it out of their text, and the page is
// otherwise sound. Only a deleted page counts, not a path no page was
// ever sent for: a pipeline need not send its about or contact page.
func noBrokenLinks(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleNoBrokenLinks, Severity: SeverityWarning, Passed: true, Detail: "no content link leads to a deleted page"}
	var broken, paths []string
	for _, f := range authorLinks(found) {
		path := markup.PagePath(f.URL)
		id, gone := in.DeletedAuthorTargets[path]
		if !gone || slices.Contains(paths, path) {
			continue
		}
		paths = append(paths, path)
		broken = append(broken, fmt.Sprintf("%s (page %s)", f.Href, id))
	}
	if len(broken) > 0 {
		r.Passed = false
		r.Detail = "the page's own links lead to deleted pages: " + strings.Join(broken, ", ")
	}
	return r
}

// duplicateTarget is what two links must share to be duplicates: the page
// a link points to, or, for a link to no known page (a media file, a path
// no page holds), its page path (markup.PagePath of its target URL). Links
// to unknown paths are never one target between them; a link with neither
// is no one's duplicate ("").
func duplicateTarget(l link.Link) string {
	if l.TargetPageID != "" {
		return l.TargetPageID
	}
	if l.TargetURL != "" {
		return markup.PagePath(l.TargetURL)
	}
	return ""
}

// paragraphDensity checks every paragraph holding one of our links: at most
// MaxLinksPerParagraph links in it and at least MinWordsBetweenLinks words
// between two of them, pre-existing links included, as the placer counted
// when it chose where to put ours. A paragraph without our links is the
// author's and is left to the audit, so a crowded footer never fails a page
// we only added a link to elsewhere.
func paragraphDensity(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleParagraphDensity, Severity: SeverityError, Passed: true}
	maxLinks, minWords := planning.ParagraphLimits(in.Policy, in.Page.Kind)
	byParagraph := map[int][]markup.Link{}
	for _, f := range found {
		// internal links to pages, as the seed counts them: a citation
		// elsewhere is not part of the site's linking, and a media file is
		// no page (the planner counts neither)
		if f.Paragraph > 0 && f.InBlock == "" && f.Internal && !markup.IsFileURL(f.URL) {
			byParagraph[f.Paragraph] = append(byParagraph[f.Paragraph], f)
		}
	}
	var paragraphs []int
	for p, links := range byParagraph {
		if hasOurs(links) {
			paragraphs = append(paragraphs, p)
		}
	}
	sort.Ints(paragraphs)

	var problems []string
	flag := func(links ...markup.Link) {
		for _, l := range links {
			if l.MarkerID != "" && !slices.Contains(r.LinkIDs, l.MarkerID) {
				r.LinkIDs = append(r.LinkIDs, l.MarkerID)
			}
		}
	}
	for _, p := range paragraphs {
		links := byParagraph[p]
		sort.Slice(links, func(i, j int) bool { return links[i].Start < links[j].Start })
		if len(links) > maxLinks {
			problems = append(problems, fmt.Sprintf("paragraph %d has %d links (max %d)", p, len(links), maxLinks))
			flag(links...)
		}
		if minWords <= 0 {
			continue
		}
		for i := 1; i < len(links); i++ {
			prev, next := links[i-1], links[i]
			if words := wordsBetween(in.HTML, prev, next); words < minWords {
				problems = append(problems, fmt.Sprintf("paragraph %d has %d words between %q and %q (min %d)",
					p, words, prev.Text, next.Text, minWords))
				flag(prev, next)
			}
		}
	}
	if len(problems) > 0 {
		r.Passed = false
		r.Detail = strings.Join(problems, "; ")
		return r
	}
	if in.Page.Kind == site.KindHome {
		// The home page's text is a list of the site's sections: its
		// paragraphs have no link limit (planning.ParagraphLimits).
		r.Detail = fmt.Sprintf("%d paragraph(s) with our links: the home page's paragraphs have no link limit", len(paragraphs))
		return r
	}
	r.Detail = fmt.Sprintf("%d paragraph(s) with our links: at most %d links each, %d+ words apart", len(paragraphs), maxLinks, minWords)
	return r
}

// wordsBetween counts the visible words between the end of one link and the
// start of the next. It uses markup's own word count so validation measures
// gaps exactly as the placer did (entities, apostrophes, scripts without
// spaces); a different tokenisation would flag links the placer had fitted
// at exactly the minimum.
func wordsBetween(html []byte, prev, next markup.Link) int {
	if prev.End >= next.Start || next.Start > len(html) {
		return 0
	}
	return markup.WordCount(html[prev.End:next.Start])
}

func hasOurs(links []markup.Link) bool {
	for _, l := range links {
		if l.MarkerID != "" {
			return true
		}
	}
	return false
}

// anchorDiversity: the same anchor text may point to the same target at
// most MaxExactAnchorPerTarget times across the site (SAG §2.3). Only
// in-body links are judged: generated blocks and breadcrumbs name a target
// by its title on every page by design.
func anchorDiversity(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleAnchorDiversity, Severity: SeverityError, Passed: true}
	limit := in.Policy.MaxExactAnchorPerTarget
	textByMarker := map[string]string{}
	for _, f := range found {
		if f.MarkerID != "" {
			textByMarker[f.MarkerID] = f.Text
		}
	}
	type use struct{ target, anchor string }
	anchorOf := map[string]string{}
	onPage := map[use]int{}
	var judged []link.Link
	for _, l := range in.Links {
		if !l.Placed() || l.Zone != link.ZoneInBody {
			continue
		}
		anchor := l.Anchor
		if anchor == "" {
			anchor = textByMarker[l.ID]
		}
		anchor = normalise(anchor)
		if anchor == "" {
			continue
		}
		anchorOf[l.ID] = anchor
		onPage[use{l.TargetPageID, anchor}]++
		judged = append(judged, l)
	}
	var problems []string
	reported := map[use]bool{}
	onlyMandatory := true
	for _, l := range judged {
		u := use{l.TargetPageID, anchorOf[l.ID]}
		elsewhere := in.AnchorUsage[u.target][u.anchor]
		total := elsewhere + onPage[u]
		if total <= limit {
			continue
		}
		onlyMandatory = onlyMandatory && l.Mandatory
		if !l.Mandatory {
			// The mandatory uplink is reported, never flagged, even when
			// an optional link on the page fails the rule too.
			r.LinkIDs = append(r.LinkIDs, l.ID)
		}
		if !reported[u] {
			reported[u] = true
			if elsewhere > limit {
				// Usage elsewhere is counted only far enough to know it is over.
				problems = append(problems, fmt.Sprintf("anchor %q to page %s used over %d times on other pages (%d here; max %d)",
					u.anchor, u.target, limit, onPage[u], limit))
			} else {
				problems = append(problems, fmt.Sprintf("anchor %q to page %s used %d times (%d on other pages, %d here; max %d)",
					u.anchor, u.target, total, elsewhere, onPage[u], limit))
			}
		}
	}
	if len(problems) > 0 {
		r.Passed = false
		r.Detail = strings.Join(problems, "; ")
		if onlyMandatory {
			// The mandatory uplink can only use an anchor its first
			// paragraphs hold: having it outweighs anchor variety, so the
			// overuse is reported, for the diversification audit, not failed.
			r.Severity, r.LinkIDs = SeverityWarning, nil
			r.Detail += " (mandatory uplink: reported only)"
		}
		return r
	}
	r.Detail = fmt.Sprintf("%d in-body anchor(s), none used more than %d times for its target", len(judged), limit)
	return r
}

// firstLink: the first link in the page's content, generated blocks aside,
// must point to its hub. With FirstLinkCountsExternal off, external links
// are passed over, so a citation that happens to come first is no failure,
// and so are the writer's links to no page of the site when the pages
// they lead to are known (Input.AuthorTargets): a byline's "Written by
// <a href="/author/sam/">Sam</a>" that opens the content is no link
// between the site's pages (trial N's 12 articles failed on it).
func firstLink(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleFirstLink, Severity: SeverityError}
	if in.Hub == nil {
		r.Detail = fmt.Sprintf("cluster %s has no live hub to point to", in.Page.ClusterID)
		return r
	}
	for _, f := range found {
		if f.Position != "content" || f.InBlock != "" || f.Href == "" || markup.IsFileURL(f.URL) {
			continue
		}
		if !f.Internal && !in.Policy.FirstLinkCountsExternal {
			continue
		}
		if linksToPage(f, in.Hub.URL) {
			r.Passed = true
			r.Detail = fmt.Sprintf("first link points to hub %s", in.Hub.URL)
			return r
		}
		if !in.Policy.FirstLinkCountsExternal && f.MarkerID == "" && in.AuthorTargets != nil {
			if _, known := in.AuthorTargets[markup.PagePath(f.URL)]; !known {
				continue
			}
		}
		r.Detail = fmt.Sprintf("first link points to %s, not hub %s", f.Href, in.Hub.URL) + uplinkNotPlaced(in)
		if f.MarkerID != "" {
			r.LinkIDs = []string{f.MarkerID}
		} else {
			// A docs trial's writer linked a sibling first, and the page was
			// told no more than which link came first.
			r.Detail += "; that link is the writer's own: link the hub before it in the text, or move it after the hub's link"
		}
		return r
	}
	r.Detail = "page has no link in its content"
	if !in.Policy.FirstLinkCountsExternal {
		r.Detail = "page has no internal link in its content"
	}
	r.Detail += uplinkNotPlaced(in)
	return r
}

// uplinkNotPlaced says why the page's planned uplink is not in its
// content, when it is not: the first link rule fails because of it, and
// what would place it (the LLM fallback, say) is in its reason.
func uplinkNotPlaced(in Input) string {
	for _, l := range in.Links {
		if l.Type == link.TypeVerticalUp && l.Zone == link.ZoneInBody && !l.Placed() && l.Reason != "" {
			return fmt.Sprintf(" (the uplink to hub %s is not placed: %s)", in.Hub.ID, l.Reason)
		}
	}
	return ""
}
