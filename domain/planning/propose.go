package planning

import (
	"context"
	"fmt"
	"strings"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// ProposeLink is the in-body link the planner would make from in.Page to
// one of in.Targets, whatever the page's density budget: the audit asks
// it for a link a page lacks (an orphan's inbound link, a varied anchor)
// and weighs it against what the page has. Its type follows the two
// pages' places in the site, its score and anchors are the planner's.
// false when targetID is not among the targets, or under the silo policy
// when the silo planner would never make that link (siloAllows).
func ProposeLink(in Input, targetID string) (link.Link, bool) {
	pl := newPlanner(in)
	pl.ctx = context.Background()
	i, ok := pl.ownerOf[targetID]
	if !ok {
		return link.Link{}, false
	}
	t := pl.targets[i]
	if in.Policy.Name == policy.Silo && !pl.siloAllows(t) {
		return link.Link{}, false
	}
	typ := Relation(in.Page, t.Page)
	l := pl.newScoredLink(pl.scoreAll([]Target{t})[0], typ, link.ZoneInBody)
	if typ == link.TypeVerticalUp {
		l.FirstParagraphs = in.Policy.UplinkParagraphs
		l.Mandatory = true
	}
	l.Explanation = fmt.Sprintf("%s: proposed from %s to %s; score %.2f; %s", typ, in.Page.ID, t.ID, l.Score, l.Explanation)
	if len(l.Candidates) == 0 {
		l.Reason = pl.namesTooShort(t)
	}
	return l, true
}

// namesTooShort says, of a target every name of which is shorter than an
// anchor, what a writer could work in to carry a link to it; "" when one
// of its names is long enough, or it has none. A trial's audit told a
// page only to "write one" for a sector page named "Baking".
func (pl *planner) namesTooShort(t Target) string {
	short := ""
	for _, name := range pl.namesOf(t) {
		words := len(strings.Fields(anchors.Normalize(name)))
		if words >= pl.in.Policy.AnchorMinWords {
			return ""
		}
		if words > 0 && short == "" {
			short = name
		}
	}
	if short == "" {
		return ""
	}
	return fmt.Sprintf("every name of it is shorter than the %d words an anchor needs; %s", pl.in.Policy.AnchorMinWords, pl.longerPhraseHint(short))
}

// TargetScores are the SAG scores of links from in.Page to each of
// in.Targets, by target id, as the planner scores them: the audit ranks a
// page's existing links by them to name its weakest.
func TargetScores(in Input) map[string]float64 {
	pl := newPlanner(in)
	pl.ctx = context.Background()
	out := make(map[string]float64, len(pl.targets))
	for _, s := range pl.scoreAll(pl.targets) {
		out[s.ID] = s.score.Total
	}
	return out
}

// Relation is the SAG link type of an in-body link from one page to
// another: up to its hub, down to an article, across to a sibling, to
// another cluster's hub, to a term page, or related otherwise. The home
// page's links to sectors and hubs and a sector page's to hubs are down
// the site's hierarchy, as the planner types them (homeLinks,
// sectorHubs): an audit called a home page's link to a hub "related".
func Relation(from, to site.Page) link.Type {
	sameCluster := from.ClusterID != "" && from.ClusterID == to.ClusterID
	switch {
	case from.Kind == site.KindHome && (to.Kind == site.KindSector || to.Kind == site.KindHub),
		from.Kind == site.KindSector && to.Kind == site.KindHub:
		return link.TypeVerticalDown
	case sameCluster && to.Kind == site.KindHub && from.Kind != site.KindHub:
		return link.TypeVerticalUp
	case sameCluster && from.Kind == site.KindHub:
		return link.TypeVerticalDown
	case sameCluster:
		return link.TypeHorizontal
	case from.Kind == site.KindHub && to.Kind == site.KindHub:
		return link.TypeCrossCluster
	case to.Kind == site.KindTerm || from.Kind == site.KindTerm:
		return link.TypeTaxonomy
	}
	return link.TypeRelated
}
