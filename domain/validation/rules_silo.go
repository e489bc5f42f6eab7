package validation

import (
	"fmt"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
)

// This file holds the rules only the silo policy applies: the link budget,
// silo integrity and the parent/child direction rules.

// budget: a page carries the policy's Budget (budget_min to budget_max)
// of internal links in its content. Outside the range is a warning only
// (the seeds' scenario "Budget under minimum"): a short page may simply
// have few places for a link. A page that links by its generated list
// (planning.LinksByList: a sector page's hubs) counts the list towards
// the minimum, never the maximum, as SAG's density_range does: a silo
// trial's sector pages, listing their hubs, each warned of 0 links. The
// audit holds silo pages to the same range.
func budget(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleBudget, Severity: SeverityWarning, Passed: true}
	want := in.Policy.Budget()
	lo, hi := want.Min, want.Max
	n := len(contentLinks(found))
	counted := fmt.Sprintf("%d internal link(s) in the content", n)
	listed := 0
	if planning.LinksByList(in.Page.Kind) {
		for _, f := range found {
			if f.InBlock == markup.BlockRelatedArticles && f.Href != "" && f.Internal {
				listed++
			}
		}
		if listed > 0 {
			counted += fmt.Sprintf(", and %d in its list", listed)
		}
	}
	r.Detail = fmt.Sprintf("%s, within %d–%d", counted, lo, hi)
	if n+listed < lo || n > hi {
		r.Passed = false
		r.Detail = fmt.Sprintf("%s, outside the budget of %d–%d", counted, lo, hi)
	}
	return r
}

// siloIntegrity: every placed link stays in the page's silo, its cluster,
// or for a page without one the flat onboarding scope (where), and so does every
// link the writer put in the content to a page of the site
// (Input.AuthorTargets): the seed's "all link targets", as the audit
// counts them. Breadcrumbs are exempt: the trail climbs to home and sector
// by definition. So are the home and sector pages' links down to the top
// of a silo (planning.EntersSilo): the way into a silo crosses none.
func siloIntegrity(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleSiloIntegrity, Severity: SeverityError, Passed: true}
	var problems []string
	judged, entering := 0, 0
	for _, f := range authorLinks(found) {
		target, ok := in.AuthorTargets[markup.PagePath(f.URL)]
		if !ok || target.ID == in.Page.ID {
			continue
		}
		judged++
		if planning.EntersSilo(in.Page.Kind, target.Kind) {
			entering++
			continue
		}
		if target.ClusterID != in.Page.ClusterID {
			problems = append(problems, fmt.Sprintf("the page's own link to %s (page %s) leaves its silo: that page is %s, this one %s",
				f.Href, target.ID, where(target.ClusterID), where(in.Page.ClusterID)))
		}
	}
	for _, l := range in.Links {
		// A link to a path no page was ever sent for (a theme's "Back to
		// blog") leaves no silo we know of: a pet store trial's fixed
		// pages failed on "points to page , which no longer exists".
		if !l.Placed() || l.Zone == link.ZoneBreadcrumb || l.TargetPageID == in.Page.ID || l.TargetPageID == "" {
			continue
		}
		judged++
		target, ok := in.Targets[l.TargetPageID]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("link %s points to page %s, which no longer exists", l.ID, l.TargetPageID))
		case target.ClusterID != in.Page.ClusterID && !planning.EntersSilo(in.Page.Kind, target.Kind):
			problems = append(problems, fmt.Sprintf("link %s points to page %s, %s; this page is %s",
				l.ID, l.TargetPageID, where(target.ClusterID), where(in.Page.ClusterID)))
		case target.ClusterID != in.Page.ClusterID:
			entering++
			continue
		default:
			continue
		}
		r.LinkIDs = append(r.LinkIDs, l.ID)
	}
	if len(problems) > 0 {
		r.Passed = false
		r.Detail = strings.Join(problems, "; ")
		return r
	}
	r.Detail = fmt.Sprintf("%d link(s), all within the page's silo (%s)", judged, where(in.Page.ClusterID))
	if entering > 0 {
		r.Detail = fmt.Sprintf("%d link(s): %d within the page's silo (%s), %d into a silo from above (the %s page down to a sector page or hub)",
			judged, judged-entering, where(in.Page.ClusterID), entering, in.Page.Kind)
	}
	return r
}

// directionRules: in a cluster the parent (hub) links only down to its
// children, and a child only up to its parent and across to its siblings,
// with its own links as with ours. Targets that no longer exist are
// silo_integrity's to report.
func directionRules(in Input, found []markup.Link) RuleResult {
	r := RuleResult{Name: RuleDirection, Severity: SeverityError, Passed: true}
	cluster := in.Page.ClusterID
	var allowed func(site.Page) bool
	var want string
	if in.Page.Kind == site.KindHub {
		want = "children (the other pages of cluster " + cluster + ")"
		allowed = func(t site.Page) bool { return planning.SiloChild(t) && t.ClusterID == cluster }
	} else {
		want = "its parent hub and siblings in cluster " + cluster
		allowed = func(t site.Page) bool { return t.ClusterID == cluster }
	}
	var problems []string
	for _, f := range authorLinks(found) {
		if target, ok := in.AuthorTargets[markup.PagePath(f.URL)]; ok && target.ID != in.Page.ID && !allowed(target) {
			problems = append(problems, fmt.Sprintf("the page's own link to %s points to %s %s, %s",
				f.Href, target.Kind.Page(), target.ID, where(target.ClusterID)))
		}
	}
	for _, l := range in.Links {
		if !l.Placed() || l.Zone == link.ZoneBreadcrumb || l.TargetPageID == in.Page.ID {
			continue
		}
		target, ok := in.Targets[l.TargetPageID]
		if !ok || allowed(target) {
			continue
		}
		problems = append(problems, fmt.Sprintf("link %s points to %s %s, %s",
			l.ID, target.Kind.Page(), l.TargetPageID, where(target.ClusterID)))
		r.LinkIDs = append(r.LinkIDs, l.ID)
	}
	if len(problems) > 0 {
		r.Passed = false
		r.Detail = fmt.Sprintf("%s %s may link only to %s: %s", in.Page.Kind, in.Page.ID, want, strings.Join(problems, "; "))
		return r
	}
	r.Detail = fmt.Sprintf("%s %s links only to %s", in.Page.Kind, in.Page.ID, want)
	return r
}
