package validation

import (
	"fmt"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
)

// This file holds the checks only the SAG policy applies: the mandatory
// uplink, the density table and the per-type caps of SAG §2.1.

func mandatoryUplink(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleMandatoryUplink, Severity: SeverityError}
	if in.Hub == nil {
		r.Detail = fmt.Sprintf("cluster %s has no live hub page (none is published yet, or it was deleted)", in.Page.ClusterID)
		return r
	}
	// The author's own link to the hub in the first paragraphs is the
	// page's uplink: the placer adds none beside it.
	for _, f := range found {
		if !f.Inserted && f.Position == "content" && f.InBlock == "" && f.ContentParagraph > 0 &&
			f.ContentParagraph <= in.Policy.UplinkParagraphs && linksToPage(f, in.Hub.URL) {
			r.Passed = true
			r.Detail = fmt.Sprintf("the page's own link to hub %s in paragraph %d is its uplink", in.Hub.ID, f.ContentParagraph)
			return r
		}
	}
	for _, l := range in.Links {
		// A writer's link to the hub past the first paragraphs is no
		// uplink (the audit reports it as one outside them): only the
		// found one above counts of theirs.
		if l.Type != link.TypeVerticalUp || l.Placement == link.PlacementExisting {
			continue
		}
		if l.Placed() {
			r.Passed = true
			r.Detail = fmt.Sprintf("links to hub %s in paragraph %d with anchor %q", in.Hub.ID, l.Paragraph, l.Anchor)
			return r
		}
		r.Detail = fmt.Sprintf("uplink to hub %s not placed: %s", in.Hub.ID, l.Reason)
		r.LinkIDs = []string{l.ID}
		return r
	}
	r.Detail = fmt.Sprintf("no uplink to hub %s planned", in.Hub.ID)
	return r
}

// densityRange: the page's outbound links fall in the density table's range
// for its type and length. Counted are the content links outside generated
// blocks, ours and pre-existing. The generated sections are not: the
// Related Articles list, taxonomy lists and breadcrumbs are uncapped link
// types, and the Related Reading section (2–3 entries, its own cap in
// linkTypeCaps) is listed by the seed apart from the density table, so the
// planner does not count it either and a short article keeps it. Too many
// is an error that flags our optional in-body links; too few is a warning,
// since a page may lack good targets.
func densityRange(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleDensityRange, Severity: SeverityError, Passed: true}
	words := in.WordCount
	if words == 0 {
		words = markup.WordCount(in.HTML)
	}
	class := planning.DensityClass(in.Page.Kind)
	want := in.Policy.Density(class, words)

	n := len(contentLinks(found))
	inReading, listed := 0, 0
	for _, f := range found {
		if f.Href == "" || !f.Internal {
			continue
		}
		switch f.InBlock {
		case markup.BlockRelatedReading:
			inReading++
		case markup.BlockRelatedArticles:
			listed++
		}
	}
	counted := fmt.Sprintf("%d outbound link(s) in the content on a %s of %d words", n, in.Page.Kind.Page(), words)
	if inReading > 0 {
		counted = fmt.Sprintf("%d outbound link(s) in the content (Related Reading's %d not counted) on a %s of %d words",
			n, inReading, in.Page.Kind.Page(), words)
	}
	if !planning.LinksByList(in.Page.Kind) {
		listed = 0
	} else if listed > 0 {
		counted += fmt.Sprintf(", and %d in its list", listed)
	}
	switch {
	case !planning.DensityHeld(in.Page.Kind, in.Page.ClusterID != ""):
		r.Detail = fmt.Sprintf("%s: a %s page is held to no row of the density table", counted, in.Page.Kind)
	case want.Max > 0 && n > want.Max:
		r.Passed = false
		r.Detail = fmt.Sprintf("%s: above the maximum of %d", counted, want.Max)
		for _, l := range in.Links {
			if l.Placed() && isOptionalInBody(l) {
				r.LinkIDs = append(r.LinkIDs, l.ID)
			}
		}
	case n+listed < want.Min:
		r.Passed = false
		r.Severity = SeverityWarning
		r.Detail = fmt.Sprintf("%s: below the minimum of %d", counted, want.Min)
		// A planned in-body link to a target a generated section lists is
		// placed by no one, the LLM fallback included (an electronics
		// trial's 26 warnings counted such siblings as work to come).
		listedIn := map[string]bool{}
		for _, l := range in.Links {
			if l.Zone == link.ZoneRelatedSection {
				listedIn[l.TargetPageID] = true
			}
		}
		waiting, listedInstead := 0, 0
		for _, l := range in.Links {
			// One whose target the page links already (markup.LinkedAlready:
			// the writer's own link, or another of ours) is carried by that
			// link, which the count above holds: a trial's article linking
			// its hub itself was told its uplink waited.
			if l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned || markup.LinkedAlready(l.Reason) {
				continue
			}
			if listedIn[l.TargetPageID] {
				listedInstead++
			} else {
				waiting++
			}
		}
		if waiting > 0 {
			// The planner counted them against density: what would bring
			// the page up is theirs to place. Their reasons say why they are
			// not: some wait for the LLM fallback, some are at the anchor cap.
			r.Detail += fmt.Sprintf("; %d more in-body link(s) are planned and not placed (their reasons say why)", waiting)
		}
		if listedInstead > 0 {
			r.Detail += fmt.Sprintf("; %d planned in-body link(s) stay unplaced for good: a generated section of the page lists their targets", listedInstead)
		}
	default:
		r.Detail = fmt.Sprintf("%s: within %s", counted, rangeText(want))
	}
	return r
}

func rangeText(d policy.DensityRange) string {
	if d.Max == 0 {
		return fmt.Sprintf("%d or more", d.Min)
	}
	return fmt.Sprintf("%d–%d", d.Min, d.Max)
}

// isOptionalInBody reports the in-body links a page can do without: every
// type but the mandatory uplink.
func isOptionalInBody(l link.Link) bool {
	if l.Zone != link.ZoneInBody {
		return false
	}
	switch l.Type {
	case link.TypeHorizontal, link.TypeCrossCluster, link.TypeRelated, link.TypeVerticalDown:
		return true
	}
	return false
}

// linkTypeCaps enforces SAG §2.1's per-type limits: siblings and
// cross-cluster links up to their caps, one uplink, and a Related Reading
// section of RelatedReadingMin to RelatedReadingMax entries when there is
// one. The links past a cap, in Links order, are flagged. A Related Reading
// section that is too short is a warning only: there may not be enough
// related pages yet.
func linkTypeCaps(in Input) RuleResult {
	r := RuleResult{Name: RuleLinkTypeCaps, Severity: SeverityError, Passed: true}
	p := in.Policy
	caps := []struct {
		name  string
		limit int
		is    func(link.Link) bool
	}{
		{"sibling (horizontal)", p.MaxSiblingLinks, func(l link.Link) bool { return l.Type == link.TypeHorizontal }},
		{"cross-cluster", p.MaxCrossClusterPerHub, func(l link.Link) bool { return l.Type == link.TypeCrossCluster }},
		{"vertical_up", 1, func(l link.Link) bool { return l.Type == link.TypeVerticalUp }},
		{"Related Reading", p.RelatedReadingMax, isRelatedReading},
	}
	var errs, warnings, counts []string
	for _, c := range caps {
		n := 0
		for _, l := range in.Links {
			if !l.Placed() || !c.is(l) {
				continue
			}
			n++
			if n > c.limit {
				r.LinkIDs = append(r.LinkIDs, l.ID)
			}
		}
		counts = append(counts, fmt.Sprintf("%d %s (max %d)", n, c.name, c.limit))
		if n > c.limit {
			errs = append(errs, fmt.Sprintf("%d %s links, max %d", n, c.name, c.limit))
		}
	}
	related := 0
	for _, l := range in.Links {
		if l.Placed() && isRelatedReading(l) {
			related++
		}
	}
	if related > 0 && related < p.RelatedReadingMin {
		warnings = append(warnings, fmt.Sprintf("%d Related Reading links, min %d", related, p.RelatedReadingMin))
	}
	switch {
	case len(errs) > 0:
		r.Passed = false
		r.Detail = "over the cap: " + strings.Join(errs, "; ")
	case len(warnings) > 0:
		r.Passed = false
		r.Severity = SeverityWarning
		r.Detail = strings.Join(warnings, "; ")
	default:
		r.Detail = "within the caps: " + strings.Join(counts, ", ")
	}
	return r
}

// isRelatedReading reports an entry of the Related Reading section.
func isRelatedReading(l link.Link) bool {
	return l.Type == link.TypeRelated && l.Zone == link.ZoneRelatedSection
}
