package handlers

import (
	"context"
	"fmt"

	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// projectSite replaces a site's structure with the one in site.updated,
// unless a later one (in the order the broker stored them) is already
// applied. When what planning reads of the site changed (its structure or
// resolved policy), every planned page of the site is asked to plan again.
func (p *Pipeline) projectSite(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.SiteUpdatedData](ev)
	if err != nil {
		return err
	}
	if data.Site.ID != ev.SiteID {
		return badInput("data.site.id %q differs from siteid %q", data.Site.ID, ev.SiteID)
	}
	pol, err := policy.Resolve(data.Site.Policy, data.Site.Overrides)
	if err != nil {
		return badInput("site %s: %v", ev.SiteID, err)
	}
	st := structureFromEvent(data)
	if err := st.Validate(ctx); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("site %s: %w", ev.SiteID, ctxErr) // out of time: retried, not refused
		}
		return badInput("site %s: %v", ev.SiteID, err)
	}
	digest, err := planning.StructureDigest(st, pol)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerSiteProjector, ev, func(tx *store.Tx) (bool, error) {
		claimed, err := tx.ClaimEvent(ctx, ConsumerSiteProjector, ev.Identity())
		if err != nil || !claimed {
			return claimed, err
		}
		pos := streamPosition(ctx)
		saved, err := tx.SaveStructure(ctx, st, data.Site.Overrides, digest,
			store.StructureOrder{StreamCreated: pos.Epoch, Seq: pos.Seq}, ev.Time)
		if err != nil {
			return true, err
		}
		if !saved.Applied {
			p.skipped(ConsumerSiteProjector, "stale", ev)
			return true, nil
		}
		for _, w := range planning.UnlinkableKeywords(st, pol) {
			p.Logger.WarnContext(ctx, "site structure: a cluster keyword no anchor can use", "site_id", ev.SiteID, "warning", w)
		}
		if pol.Authority == policy.AuthorityLinkScore {
			if err := tx.PagesTakeLinkScores(ctx, ev.SiteID); err != nil {
				return true, err
			}
		}
		if saved.Changed {
			return true, p.replanSite(ctx, tx, ev)
		}
		return true, nil
	})
}

// replanSite asks every planned page of the site to plan again, because
// the structure or policy they were planned under changed: the first page
// of them in the site.updated's own transaction, the rest through
// links.fanout, a page of them per transaction, so a site of a million
// pages is never asked in one. Each request carries this transaction's
// number, so a page planned again meanwhile, under the new structure,
// skips it. A site's first structure finds no planned page.
func (p *Pipeline) replanSite(ctx context.Context, tx *store.Tx, ev events.Event) error {
	d := planning.Dependants{Site: true}
	ids, err := tx.Dependants(ctx, ev.SiteID, d, "", p.fanoutPage())
	if err != nil || len(ids) == 0 {
		return err
	}
	cause, err := tx.ChangeNumber(ctx)
	if err != nil {
		return err
	}
	return p.askToReplan(ctx, tx, ev, events.FanoutData{
		Cause:       events.CauseIdentity{Source: ev.Source, Type: ev.Type, ID: ev.ID},
		CauseChange: cause,
		Reason:      fmt.Sprintf("site structure or policy changed (site.updated %s)", ev.ID),
		Dependants:  dependantsRef(d),
	}, ids)
}

func structureFromEvent(d events.SiteUpdatedData) site.Structure {
	st := site.Structure{Site: site.Site{ID: d.Site.ID, BaseURL: d.Site.BaseURL, Name: d.Site.Name, Policy: d.Site.Policy}}
	for _, s := range d.Sectors {
		st.Sectors = append(st.Sectors, site.Sector{ID: s.ID, Name: s.Name, URL: s.URL})
	}
	for _, a := range d.Attributes {
		st.Attributes = append(st.Attributes, site.Attribute{ID: a.ID, Name: a.Name, Values: a.Values})
	}
	for _, c := range d.Clusters {
		st.Clusters = append(st.Clusters, site.Cluster{ID: c.ID, SectorID: c.SectorID, Name: c.Name,
			PrimaryKeyword: c.PrimaryKeyword, Keywords: c.Keywords, Attributes: c.Attributes})
	}
	return st
}
