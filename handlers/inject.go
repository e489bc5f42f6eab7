package handlers

import (
	"context"
	"errors"
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
	data, err := events.DecodeData[events.StageData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerInjector, ev, func(tx *store.Tx) error {
		page, err := currentPlan(ctx, tx, ev.SiteID, data)
		if errors.Is(err, errStale) {
			p.skipped(ConsumerInjector, "stale", ev)
			return nil
		}
		if err != nil {
			return err
		}
		sc, err := loadSite(ctx, tx, ev.SiteID)
		if err != nil {
			return err
		}
		links, err := tx.LinksFrom(ctx, ev.SiteID, page.ID)
		if err != nil {
			return err
		}
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
		html, placements, err := markup.Place([]byte(page.HTML), reqs, markupOptions(sc))
		if err != nil {
			return fmt.Errorf("%w: place links in page %s: %v", ErrPermanent, page.ID, err)
		}
		for k, pl := range placements {
			applyPlacement(&links[placing[k]], pl)
		}
		if err := tx.SaveLinkOutcomes(ctx, ev.SiteID, links); err != nil {
			return err
		}
		if err := tx.SetLinkedHTML(ctx, ev.SiteID, page.ID, string(html)); err != nil {
			return err
		}
		id := events.DerivedID(ev.ID, events.LinksInjected)
		out, err := events.New(events.LinksInjected, ev.SiteID, id, ev.Correlation(), data)
		if err != nil {
			return err
		}
		return tx.Enqueue(ctx, out, correlationHeader(ev))
	})
}

// currentPlan locks the page and returns it if the stage event still
// describes its current plan.
func currentPlan(ctx context.Context, tx *store.Tx, siteID string, data events.StageData) (store.PageRecord, error) {
	page, found, err := tx.LockPage(ctx, siteID, data.PageID)
	if err != nil {
		return store.PageRecord{}, err
	}
	if !found || page.State == store.StateDeleted || page.PlanID != data.PlanID || page.Version != data.Version {
		return store.PageRecord{}, errStale
	}
	return page, nil
}

func applyPlacement(l *link.Link, pl markup.Placement) {
	if !pl.Placed {
		l.Status = link.StatusPlanned
		l.Reason = pl.Reason
		return
	}
	l.Status = link.StatusInserted
	l.Reason = ""
	l.Anchor = pl.Anchor
	l.Paragraph = pl.Paragraph
	l.Placement = link.PlacementRuleBased
	if pl.Variation {
		l.Placement = link.PlacementVariation
	}
	if pl.CandidateIndex >= 0 && pl.CandidateIndex < len(l.Candidates) {
		l.AnchorType = l.Candidates[pl.CandidateIndex].Type
	}
}
