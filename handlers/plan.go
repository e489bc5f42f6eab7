package handlers

import (
	"context"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// planPage stores a generated page version and plans its links; the plan
// starts the inject stage through links.planned.
func (p *Pipeline) planPage(ctx context.Context, ev events.Event) error {
	return p.onPageVersion(ctx, ConsumerPlanner, ev, func(tx *store.Tx, sc siteContext, page site.Page, hub *site.Page) error {
		planID := events.DerivedID(ev.ID, events.LinksPlanned)
		applied, err := tx.SavePageVersion(ctx, page, store.StateGenerated, planID, markup.WordCount([]byte(page.HTML)))
		if err != nil {
			return err
		}
		if !applied {
			p.skipped(ConsumerPlanner, "stale", ev)
			return nil
		}
		plan := planning.PlanPage(planning.Input{Structure: sc.structure, Policy: sc.policy, Page: page, Hub: hub})
		for _, note := range plan.Notes {
			p.Logger.Info("planning note", "site_id", page.SiteID, "page_id", page.ID, "note", note)
		}
		if err := tx.ReplaceLinks(ctx, page.SiteID, page.ID, page.Version, plan.Links); err != nil {
			return err
		}
		out, err := events.New(events.LinksPlanned, page.SiteID, planID, ev.Correlation(),
			events.StageData{PageID: page.ID, Version: page.Version, PlanID: planID})
		if err != nil {
			return err
		}
		return tx.Enqueue(ctx, out, correlationHeader(ev))
	})
}

func correlationHeader(ev events.Event) map[string]string {
	return map[string]string{"correlation_id": ev.Correlation()}
}
