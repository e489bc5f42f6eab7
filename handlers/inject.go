package handlers

import (
	"context"
	"fmt"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// injectLinks places a page's planned in-body links into its original HTML.
// It always starts from the HTML the page arrived with, so injecting the same
// plan twice gives the same bytes.
func (p *Pipeline) injectLinks(ctx context.Context, ev events.Event) error {
	return p.onCurrentPlan(ctx, ConsumerInjector, ev, func(tx *store.Tx, st planStage) error {
		links := st.links
		var reqs []markup.LinkRequest
		var placing []int
		for i, l := range links {
			if l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned {
				continue
			}
			anchors := make([]string, len(l.Candidates))
			for j, c := range l.Candidates {
				anchors[j] = c.Text
			}
			reqs = append(reqs, markup.LinkRequest{ID: l.ID, Href: l.TargetURL, Anchors: anchors,
				Position: markup.Position{FirstParagraphs: l.FirstParagraphs}})
			placing = append(placing, i)
		}
		html, placements, err := markup.Place([]byte(st.page.HTML), reqs, markupOptions(st.site))
		if err != nil {
			return fmt.Errorf("%w: place links in page %s: %v", ErrPermanent, st.page.ID, err)
		}
		for k, pl := range placements {
			applyPlacement(&links[placing[k]], pl)
		}
		if err := tx.SaveLinkOutcomes(ctx, ev.SiteID, links); err != nil {
			return err
		}
		if err := tx.SetLinkedHTML(ctx, ev.SiteID, st.page.ID, string(html)); err != nil {
			return err
		}
		id := events.DerivedID(ev.ID, events.LinksInjected)
		out, err := events.New(events.LinksInjected, ev.SiteID, id, ev.Correlation(), st.data)
		if err != nil {
			return err
		}
		return tx.Enqueue(ctx, out, correlationHeader(ev))
	})
}

func applyPlacement(l *link.Link, pl markup.Placement) {
	if !pl.Placed {
		l.Status = link.StatusPlanned
		l.Reason = pl.Reason
		return
	}
	l.Status = link.StatusInserted
	l.Reason = ""
	l.Anchor = pl.AnchorText // decoded and whitespace-collapsed: what a reader sees
	l.Paragraph = pl.ContentParagraph
	l.Placement = link.PlacementRuleBased
	if pl.Variation {
		l.Placement = link.PlacementVariation
	}
	if pl.CandidateIndex >= 0 && pl.CandidateIndex < len(l.Candidates) {
		l.AnchorType = l.Candidates[pl.CandidateIndex].Type
	}
}
