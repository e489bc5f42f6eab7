package handlers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// projectPublished records what went live: the page version and every link
// in its published HTML, which become its link map rows and counts. What
// went live is tracked apart from the draft being planned: a version
// older than a newer draft still records its link map.
func (p *Pipeline) projectPublished(ctx context.Context, ev events.Event) error {
	return p.onPageVersion(ctx, ConsumerPublished, ev, func(tx *store.Tx, sc siteContext, page site.Page) error {
		found, err := markup.Links([]byte(page.HTML), strings.TrimRight(sc.structure.Site.BaseURL, "/")+page.URL, sc.structure.Site.Host())
		if err != nil {
			return badInput("page %s: read links: %v", page.ID, err)
		}
		stored, err := tx.PlannedVersion(ctx, page.SiteID, page.ID)
		if err != nil {
			return err
		}
		before, planned, known := stored.Version, stored.Planned, stored.Found
		if known && page.Version >= before {
			page = page.KeepingNamesOf(stored.Names)
		}
		if known && page.Version < before {
			applied, err := tx.RecordLive(ctx, page.SiteID, page.ID, page.Version, page.HTML)
			if err != nil {
				return err
			}
			if !applied {
				return p.stale(ctx, tx, ConsumerPublished, ev, page)
			}
			return p.recordLinkMap(ctx, tx, sc, page, found, ev)
		}
		// A newer version than the one we planned went live: it is planned
		// again, and the plan it replaces is kept before the save clears it.
		replan := known && planned && page.Version > before
		planID := ""
		if replan {
			planID = events.DerivedID(ev, events.LinksPlanned)
			reason := fmt.Sprintf("re-planned: version %d published, newer than version %d, which the plan was made for", page.Version, before)
			if _, err := tx.ReplacePlan(ctx, page.SiteID, page.ID, planID, reason); err != nil {
				return err
			}
		}
		applied, err := tx.SavePageVersion(ctx, page, store.StatePublished, planID, markup.WordCount([]byte(page.HTML)),
			markup.NoIndex([]byte(page.HTML)), planning.IndexTerms(sc.structure, page))
		if err != nil {
			return err
		}
		if !applied {
			return p.stale(ctx, tx, ConsumerPublished, ev, page)
		}
		if replan {
			if err := p.replanPublished(ctx, tx, sc, page, planID, before, ev); err != nil {
				return err
			}
		}
		return p.recordLinkMap(ctx, tx, sc, page, found, ev)
	})
}

// stale passes over a page version older than the one the store holds.
// A page deleted before any version of it arrived takes its address from
// this one (store.Tx.NameTombstone): links to that address are then found
// broken, as when the deletion came last (a trial's audit found them
// broken or not by the order of the events, and its pages' verdicts
// differed), and the site's next settle pass validates its pages again.
func (p *Pipeline) stale(ctx context.Context, tx *store.Tx, consumer string, ev events.Event, page site.Page) error {
	named, err := tx.NameTombstone(ctx, page)
	if err != nil {
		return err
	}
	if named {
		p.markChanged(tx, page.SiteID, page.ID)
	}
	p.skipped(consumer, "stale", ev)
	return nil
}

// recordLinkMap makes the links found in a page's live HTML its link map
// rows, and queues the counts they change. A jump within the page is no
// link between pages and has no row.
func (p *Pipeline) recordLinkMap(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, found []markup.Link, ev events.Event) error {
	found = slices.DeleteFunc(slices.Clone(found), markup.Link.JumpsWithinPage)
	// pageOf[i] is the page path of found[i] when it links this site.
	pageOf := make([]string, len(found))
	paths := map[string]bool{}
	for i, l := range found {
		if _, ok := sitePath(sc.structure.Site, l.URL); l.Internal && ok {
			pageOf[i] = markup.PagePath(l.URL)
			paths[pageOf[i]] = true
		}
	}
	ids, err := tx.PagesByPath(ctx, ev.SiteID, slices.Collect(maps.Keys(paths)))
	if err != nil {
		return err
	}
	previous, err := tx.LinkMapTargets(ctx, ev.SiteID, page.ID)
	if err != nil {
		return err
	}
	rows := make([]store.LinkMapRow, 0, len(found))
	touched := append([]string{page.ID}, previous...)
	for i, l := range found {
		row := store.LinkMapRow{TargetURL: l.URL, Anchor: l.Text, Internal: l.Internal,
			Follow: !l.Nofollow(), Position: l.Position, Paragraph: l.Paragraph,
			ContentParagraph: l.ContentParagraph, InBlock: l.InBlock}
		if row.TargetURL == "" {
			row.TargetURL = l.Href
		}
		if pageOf[i] != "" {
			row.TargetPageID, row.TargetPath = ids[pageOf[i]], pageOf[i]
			touched = append(touched, row.TargetPageID)
		}
		rows = append(rows, row)
	}
	if err := tx.ReplaceLinkMap(ctx, ev.SiteID, page.ID, rows); err != nil {
		return err
	}
	// Live inbound counts weigh in every score (authority, link-count gap).
	p.markChanged(tx, ev.SiteID, page.ID)
	return tx.QueueLinkCounts(ctx, ev.SiteID, touched)
}

// replanPublished plans a page whose newer version went live: the plan
// starts from the published HTML with the links we inserted stripped.
func (p *Pipeline) replanPublished(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, planID string, before int64, ev events.Event) error {
	page, err := withoutOurLinks(page)
	if err != nil {
		return err
	}
	if err := tx.SetBaseHTML(ctx, page.SiteID, page.ID, page.HTML); err != nil {
		return err
	}
	reads, err := p.readForPlan(ctx, tx, sc, page, planning.Arriving, nil)
	if err != nil {
		return err
	}
	planned, err := p.plan(ctx, tx, sc, page, reads, planID, ev, fmt.Sprintf("version %d published, newer than version %d, which the plan was made for", page.Version, before), false, nil)
	if err != nil {
		return err
	}
	return enqueue(ctx, tx, ev, planned, page.ID)
}

// retirePage marks a page deleted; links to it become broken, and every
// page that linked to it or depended on it plans again without it.
func (p *Pipeline) retirePage(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.ContentDeletedData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerDeletion, ev, func(tx *store.Tx) (bool, error) {
		snap, err := tx.ClaimAndLockPage(ctx, ConsumerDeletion, ev.Identity(), data.PageID)
		if err != nil || !snap.Claimed {
			return snap.Claimed, err
		}
		sc, err := loadSite(ctx, tx, ev.SiteID, snap.SiteVersion, snap.SiteFound)
		if err != nil {
			return true, err
		}
		page := snap.Page.Page
		if snap.Found && snap.Page.State == "deleted" {
			// Deleted already (a producer sent the deletion again under a
			// new id): nothing links it and nothing depends on it, so
			// nothing plans again. A newer version is still recorded.
			if _, err := tx.MarkPageDeleted(ctx, ev.SiteID, data.PageID, data.Version); err != nil {
				return true, err
			}
			p.skipped(ConsumerDeletion, "stale", ev)
			return true, nil
		}
		if snap.Found {
			if err := tx.Lock(ctx, ev.SiteID, planning.LocksFor(sc.structure, page, planning.Deleting)); err != nil {
				return true, err
			}
		} else {
			page.SiteID, page.ID = ev.SiteID, data.PageID // a tombstone: the page was never seen
		}
		targets, err := tx.LinkTargets(ctx, ev.SiteID, data.PageID)
		if err != nil {
			return true, err
		}
		applied, err := tx.MarkPageDeleted(ctx, ev.SiteID, data.PageID, data.Version)
		if err != nil {
			return true, err
		}
		if !applied {
			p.skipped(ConsumerDeletion, "stale", ev)
			return true, nil
		}
		if err := tx.QueueLinkCounts(ctx, ev.SiteID, append(targets, data.PageID)); err != nil {
			return true, err
		}
		p.markChanged(tx, ev.SiteID, data.PageID)
		return true, p.ripple(ctx, tx, sc, page, ev, "deleted")
	})
}
