package handlers

import (
	"context"
	"errors"
	"fmt"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// planPage stores a generated page version and plans its links; the plan
// starts the inject stage through links.planned. The pages whose required
// links depend on this one are then asked to plan again.
func (p *Pipeline) planPage(ctx context.Context, ev events.Event) error {
	return p.onPageVersion(ctx, ConsumerPlanner, ev, func(tx *store.Tx, sc siteContext, page site.Page) error {
		planID := events.DerivedID(ev.ID, events.LinksPlanned)
		applied, err := tx.SavePageVersion(ctx, page, store.StateGenerated, planID,
			markup.WordCount([]byte(page.HTML)), planning.IndexTerms(sc.structure, page))
		if err != nil {
			return err
		}
		if !applied {
			p.skipped(ConsumerPlanner, "stale", ev)
			return nil
		}
		planSeq, err := p.plan(ctx, tx, sc, page, planID, ev, "")
		if err != nil {
			return err
		}
		return p.ripple(ctx, tx, sc, page, ev, "arrived", planSeq)
	})
}

// replanPage plans a page again because a page it depends on changed. The
// plan it replaces is kept as a snapshot.
func (p *Pipeline) replanPage(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.ReplanData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerReplanner, ev, func(tx *store.Tx) (bool, error) {
		snap, err := tx.ClaimAndReadPage(ctx, ConsumerReplanner, ev.ID, ev.SiteID, data.PageID, "")
		if err != nil || !snap.Claimed {
			return snap.Claimed, err
		}
		if !snap.Found || snap.Page.State == store.StateDeleted || snap.Page.PlanID == "" {
			p.skipped(ConsumerReplanner, "stale", ev)
			return true, nil
		}
		if planning.ReplanAnswered(data.CausePlanSeq, snap.Page.PlanSeq) {
			p.skipped(ConsumerReplanner, "coalesced", ev)
			return true, nil
		}
		sc, err := loadSite(ctx, tx, ev.SiteID, snap.SiteVersion, snap.SiteFound)
		if err != nil {
			return true, err
		}
		planID := events.DerivedID(ev.ID, events.LinksPlanned)
		replaced, err := tx.ReplacePlan(ctx, ev.SiteID, data.PageID, planID, "re-planned: "+data.Reason)
		if err != nil || !replaced {
			return true, err
		}
		_, err = p.plan(ctx, tx, sc, snap.Page.Page, planID, ev, data.Reason)
		return true, err
	})
}

// plan plans the page's links under its site's policy from the targets
// the index finds, stores them and queues links.planned. It returns the
// plan's number from plan_sequence, drawn once the plan held its locks.
func (p *Pipeline) plan(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, planID string, ev events.Event, reason string) (int64, error) {
	lookup := planning.LookupFor(sc.structure, sc.policy, page)
	targets, planSeq, err := tx.PlanningTargets(ctx, page.SiteID, page.ID, lookup, planning.LocksFor(sc.structure, page, false))
	if err != nil {
		return 0, err
	}
	in, err := planning.NewInput(sc.structure, sc.policy, page, targets)
	if err != nil {
		return 0, badInput("%v", err)
	}
	plan := planning.PlanPage(in)
	for _, note := range plan.Notes {
		p.Logger.Info("planning note", "site_id", page.SiteID, "page_id", page.ID, "note", note)
	}
	if err := tx.ReplaceLinks(ctx, page.SiteID, page.ID, page.Version, plan.Links); err != nil {
		return 0, err
	}
	if err := tx.RecordPlan(ctx, page.SiteID, page.ID, planSeq, plan.Breadcrumbs); err != nil {
		return 0, err
	}
	return planSeq, emit(ctx, tx, ev, events.LinksPlanned, planID,
		events.StageData{PageID: page.ID, Version: page.Version, PlanID: planID, Reason: reason})
}

// ripple asks every page whose required links depend on page to plan
// again, once per cause: the replan event's id derives from the cause's.
// causePlanSeq is the number the cause's plan drew (0 for a deletion, whose
// re-plans are never coalesced); a dependant planned after it skips the
// re-plan.
func (p *Pipeline) ripple(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, ev events.Event, change string, causePlanSeq int64) error {
	ids, err := tx.Dependants(ctx, page.SiteID, planning.DependantsOf(sc.structure, page, change == "deleted"))
	if err != nil {
		return err
	}
	for _, id := range ids {
		data := events.ReplanData{PageID: id, CauseEventID: ev.ID, CausePageID: page.ID, CausePlanSeq: causePlanSeq,
			Reason: fmt.Sprintf("%s page %s %s (event %s)", page.Kind, page.ID, change, ev.ID)}
		if err := emit(ctx, tx, ev, events.LinksReplan, events.DerivedID(ev.ID, events.LinksReplan+":"+id), data); err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		p.Metrics.Replans.Add(float64(len(ids)))
		p.Logger.Info("dependent pages re-planned", "site_id", page.SiteID, "page_id", page.ID, "change", change, "pages", len(ids))
	}
	return nil
}

// restorePlan makes a kept plan of a page current again and sends it to
// validation, which emits links.inserted with the restored HTML.
func (p *Pipeline) restorePlan(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.RestoreData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerRestorer, ev, func(tx *store.Tx) (bool, error) {
		snap, err := tx.ClaimAndReadPage(ctx, ConsumerRestorer, ev.ID, ev.SiteID, data.PageID, "")
		if err != nil || !snap.Claimed {
			return snap.Claimed, err
		}
		if !snap.Found {
			return true, badInput("page %s of site %s is unknown", data.PageID, ev.SiteID)
		}
		planID := events.DerivedID(ev.ID, events.LinksPlanned)
		if err := tx.RestoreSnapshot(ctx, ev.SiteID, data.PageID, data.SnapshotID, planID); err != nil {
			if errors.Is(err, store.ErrSnapshotUnusable) {
				return true, badInput("%v", err)
			}
			return true, err
		}
		return true, emit(ctx, tx, ev, events.LinksInjected, events.DerivedID(ev.ID, events.LinksInjected),
			events.StageData{PageID: data.PageID, Version: snap.Page.Version, PlanID: planID,
				Reason: fmt.Sprintf("restored snapshot %d", data.SnapshotID)})
	})
}
