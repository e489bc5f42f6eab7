// Package planning decides which internal links a page should carry, with
// which candidate anchors and where, from the site's structure and policy.
package planning

import (
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Input is everything planning one page needs; the caller loads it.
type Input struct {
	Structure site.Structure
	Policy    policy.Policy
	Page      site.Page
	// Hub is the live hub page of the page's cluster, nil when the cluster
	// has none yet.
	Hub *site.Page
}

// Plan is the links chosen for a page, in placement order, and notes that
// explain links the rules call for but could not be planned.
type Plan struct {
	Links []link.Link
	Notes []string
}

// PlanPage plans a page's links. The same input always gives the same plan.
func PlanPage(in Input) Plan {
	var plan Plan
	if up, note, ok := verticalUp(in); ok {
		plan.Links = append(plan.Links, up)
	} else if note != "" {
		plan.Notes = append(plan.Notes, note)
	}
	return plan
}

// NeedsUplink reports whether the rules require the page to link to its
// cluster hub: every supporting article does (SAG link type 1, mandatory).
func NeedsUplink(p site.Page) bool {
	return p.Kind == site.KindSupporting && p.ClusterID != ""
}

// verticalUp is the mandatory link from a supporting article to its hub,
// placed in the first paragraphs with the hub's keyword as anchor.
func verticalUp(in Input) (link.Link, string, bool) {
	if !NeedsUplink(in.Page) {
		return link.Link{}, "", false
	}
	if in.Hub == nil {
		return link.Link{}, "cluster " + in.Page.ClusterID + " has no hub page yet: vertical_up link not planned", false
	}
	if in.Hub.ID == in.Page.ID {
		return link.Link{}, "", false
	}
	cluster, _ := in.Structure.Cluster(in.Page.ClusterID)
	return link.Link{
		ID:              link.NewID(in.Page.SiteID, in.Page.ID, in.Hub.ID, link.TypeVerticalUp, link.ZoneInBody),
		SourcePageID:    in.Page.ID,
		TargetPageID:    in.Hub.ID,
		TargetURL:       in.Hub.URL,
		Type:            link.TypeVerticalUp,
		Candidates:      UplinkAnchors(cluster, *in.Hub, in.Policy),
		Zone:            link.ZoneInBody,
		FirstParagraphs: in.Policy.UplinkParagraphs,
		Factors:         map[string]float64{},
		Mandatory:       true,
		Status:          link.StatusPlanned,
	}, "", true
}

// UplinkAnchors lists anchor candidates for a link to a hub, best first: the
// cluster's primary keyword, the hub's own primary keyword, the cluster's
// keyword variations, then the hub's title. Candidates outside the policy's
// word range and repeats (ignoring case) are left out.
func UplinkAnchors(c site.Cluster, hub site.Page, p policy.Policy) []link.Anchor {
	var out []link.Anchor
	seen := map[string]bool{}
	add := func(text string, t link.AnchorType) {
		text = strings.Join(strings.Fields(text), " ")
		key := strings.ToLower(text)
		words := len(strings.Fields(text))
		if text == "" || seen[key] || words < p.AnchorMinWords || words > p.AnchorMaxWords {
			return
		}
		seen[key] = true
		out = append(out, link.Anchor{Text: text, Type: t})
	}
	add(c.PrimaryKeyword, link.AnchorPrimaryKeyword)
	add(hub.PrimaryKeyword, link.AnchorPrimaryKeyword)
	for _, k := range c.Keywords {
		add(k, link.AnchorPrimaryKeyword)
	}
	for _, k := range hub.Keywords {
		add(k, link.AnchorPrimaryKeyword)
	}
	add(hub.Title, link.AnchorPageTitle)
	return out
}
