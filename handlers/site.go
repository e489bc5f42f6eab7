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
// applied.
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
	return p.apply(ctx, ConsumerSiteProjector, ev, func(tx *store.Tx) (bool, error) {
		claimed, err := tx.ClaimEvent(ctx, ConsumerSiteProjector, ev.Identity())
		if err != nil || !claimed {
			return claimed, err
		}
		pos := streamPosition(ctx)
		applied, err := tx.SaveStructure(ctx, st, data.Site.Overrides,
			store.StructureOrder{StreamCreated: pos.Epoch, Seq: pos.Seq}, ev.Time)
		if err != nil {
			return true, err
		}
		if !applied {
			p.skipped(ConsumerSiteProjector, "stale", ev)
			return true, nil
		}
		for _, w := range planning.UnlinkableKeywords(st, pol) {
			p.Logger.WarnContext(ctx, "site structure: a hub no keyword can link", "site_id", ev.SiteID, "warning", w)
		}
		if pol.Authority == policy.AuthorityLinkScore {
			return true, tx.PagesTakeLinkScores(ctx, ev.SiteID)
		}
		return true, nil
	})
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
