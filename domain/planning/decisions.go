package planning

import (
	"fmt"
	"slices"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/site"
)

// DecisionAction is what a person decided about a page's link to a target.
type DecisionAction string

const (
	// DecisionAccept accepts a review suggestion: it is planned, and placed.
	DecisionAccept DecisionAction = "accept"
	// DecisionReject rejects a review suggestion: it is not offered again.
	DecisionReject DecisionAction = "reject"
	// DecisionAdd adds a link chosen by hand, under its anchor.
	DecisionAdd DecisionAction = "add"
	// DecisionRemove takes a link out by hand: it is not planned again.
	DecisionRemove DecisionAction = "remove"
)

// Decision is a person's choice about the page's link to one target.
// Every plan of the page keeps it, whatever the scores say, until it is
// reverted.
type Decision struct {
	Target site.Page // a live page
	Action DecisionAction
	// Anchor is the text to place: an added link's, or an accepted
	// suggestion's when the plan no longer suggests it.
	Anchor string
	// Zone is the zone of the link a removal or rejection was made on: a
	// hub's in-body link taken out leaves its Related Articles entry
	// (listedApart). Empty: every zone.
	Zone link.Zone
}

// listedApart reports a hub's Related Articles entry that a decision on
// its link in another zone leaves: the list names every article of the
// cluster, and a person taking an in-body link out took the entry with it
// (an API client trial). A Related Reading entry goes with the link, as
// the page is not to link the target.
func listedApart(d Decision, l link.Link) bool {
	return d.Zone != "" && l.Zone != d.Zone && l.Zone == link.ZoneRelatedSection && l.Type == link.TypeVerticalDown
}

// Why a decided link is as it is, in its reason.
const (
	reasonAccepted = "accepted by hand"
	reasonAdded    = "added by hand"
)

// applyDecisions makes the plan keep the page's decisions: links removed
// or rejected by hand leave it (breadcrumbs aside, which are the site's
// structure, and a hub's list entry for a link taken out of its text), accepted suggestions are planned, and links added by hand
// are planned under their anchor, first among the candidates.
func (pl *planner) applyDecisions() {
	for _, d := range pl.in.Decisions {
		switch d.Action {
		case DecisionReject, DecisionRemove:
			pl.plan.Links = slices.DeleteFunc(pl.plan.Links, func(l link.Link) bool {
				return l.TargetPageID == d.Target.ID && l.Type != link.TypeBreadcrumb && !listedApart(d, l)
			})
			pl.note("link to %s left out: %s by hand", d.Target.ID, map[DecisionAction]string{DecisionReject: "rejected", DecisionRemove: "removed"}[d.Action])
		case DecisionAccept, DecisionAdd:
			reason := reasonAccepted
			if d.Action == DecisionAdd {
				reason = reasonAdded
			}
			i := slices.IndexFunc(pl.plan.Links, func(l link.Link) bool {
				return l.TargetPageID == d.Target.ID && l.Zone == link.ZoneInBody
			})
			if i < 0 {
				t := Target{Page: d.Target}
				l := pl.newLink(t, Relation(pl.in.Page, d.Target), link.ZoneInBody)
				l.Candidates = pl.anchorCandidates(t)
				l.Score = 100
				l.Factors = map[string]float64{"decided_by_hand": 1}
				pl.plan.Links = append(pl.plan.Links, l)
				i = len(pl.plan.Links) - 1
			}
			l := &pl.plan.Links[i]
			l.Status, l.Reason = link.StatusPlanned, reason
			if l.Explanation == "" {
				l.Explanation = reason
			} else if !strings.HasPrefix(l.Explanation, reason) {
				l.Explanation = reason + "; " + l.Explanation
			}
			if d.Anchor != "" {
				l.Candidates = slices.DeleteFunc(l.Candidates, func(a link.Anchor) bool { return a.Text == d.Anchor })
				l.Candidates = append([]link.Anchor{{Text: d.Anchor, Type: link.AnchorNatural}}, l.Candidates...)
				if !containsWords(pl.text, anchors.Normalize(d.Anchor)) {
					// Said where the person who asked looks (trial O saw only the placer's reason).
					l.Explanation += fmt.Sprintf("; the anchor %q asked for is not in the page's text, so the link takes another of its anchors the text holds, or is left for the LLM fallback", d.Anchor)
					pl.note("link to %s %s: the anchor %q is not in the page's text", d.Target.ID, reason, d.Anchor)
				}
			}
		}
	}
}
