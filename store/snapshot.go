package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
)

// PageSnapshot is what a stage reads before it decides anything: whether
// the event is new to the consumer, the page (locked for the transaction)
// and its links, and the version of its site's structure.
type PageSnapshot struct {
	Claimed     bool
	Page        PageRecord
	Found       bool
	Links       []link.Link
	SiteVersion int64
	SiteFound   bool
	Hub         site.Page // the live hub of the page's cluster, if HubFound
	HubFound    bool
	// Targets are the live pages its links point to, by id, when asked.
	Targets map[string]planning.Target
}

// hubOfClusterSQL finds the live hub of a cluster ($2); hubOfPageSQL finds
// the hub of the cluster page $2 is in.
const (
	hubOfClusterSQL = `SELECT ` + pageColumnsWithoutHTML + ` FROM pages
		WHERE site_id = $1 AND cluster_id = $2 AND cluster_id <> '' AND kind = 'hub' AND state <> 'deleted'
		ORDER BY id LIMIT 1`
	hubOfPageSQL = `SELECT ` + pageColumnsWithoutHTML + ` FROM pages
		WHERE site_id = $1 AND kind = 'hub' AND state <> 'deleted' AND cluster_id <> ''
		  AND cluster_id = (SELECT cluster_id FROM pages WHERE site_id = $1 AND id = $2)
		ORDER BY id LIMIT 1`
)

// queueHub reads a hub into *hub and *found when the batch runs.
func queueHub(b *pgx.Batch, sql, siteID, key string, hub *site.Page, found *bool) {
	b.Queue(sql, siteID, key).QueryRow(func(row pgx.Row) error {
		p, err := scanPage(row)
		if err == pgx.ErrNoRows {
			return nil
		}
		*hub, *found = p.Page, err == nil
		return err
	})
}

// ClaimAndReadPage claims the event for the consumer, locks and reads the
// page with its links and its cluster's hub, and reads the site's structure
// version, all in one round trip. When the event was claimed before, the
// rest is read anyway and the caller changes nothing. With a planID, the
// page is read only while that plan is current: an event about a replaced
// plan does not queue behind the transaction replacing it (a hub
// re-planned as its articles arrive gets many such events).
// withTargets reads the live pages its links point to as well.
func (t *Tx) ClaimAndReadPage(ctx context.Context, consumer string, ev events.Identity, pageID, planID string, withTargets bool) (PageSnapshot, error) {
	var snap PageSnapshot
	var b pgx.Batch
	siteID := ev.SiteID
	t.queueClaimAndLockPage(&b, &snap, consumer, ev, pageID, planID)
	held := t.heldPlan(siteID, pageID)
	if held != nil && consumer == "" {
		links, err := held.readBack()
		if err != nil {
			return PageSnapshot{}, err
		}
		snap.Links = links
	} else {
		held = nil
		b.Queue(linksFromSQL, siteID, pageID).Query(func(rows pgx.Rows) error {
			links, err := pgx.CollectRows(rows, scanLink)
			snap.Links = links
			return err
		})
	}
	queueHub(&b, hubOfPageSQL, siteID, pageID, &snap.Hub, &snap.HubFound)
	if withTargets {
		collectTargets := func(rows pgx.Rows) error {
			var err error
			snap.Targets, err = targetsByID(rows)
			return err
		}
		if held != nil {
			b.Queue(`SELECT `+targetColumns+` FROM pages WHERE site_id = $1 AND state <> 'deleted' AND id = ANY($2)`,
				siteID, held.targetIDs()).Query(collectTargets)
		} else {
			// An array, not IN (subquery): the generic plan of the join
			// scanned every page of the site; this one looks each target up
			// by key.
			b.Queue(`SELECT `+targetColumns+` FROM pages WHERE site_id = $1 AND state <> 'deleted'
				AND id = ANY(ARRAY(SELECT target_page_id FROM links WHERE site_id = $1 AND source_page_id = $2))`, siteID, pageID).
				Query(collectTargets)
		}
	}
	if err := t.sendBatch(ctx, &b); err != nil {
		return PageSnapshot{}, fmt.Errorf("claim %s and read page %s: %w", ev.MsgID(), pageID, err)
	}
	return snap, nil
}

// ReadPlanPage is ClaimAndReadPage for a stage run in the transaction of
// the stage before it, which claimed the event that started them both.
// The links of a plan the transaction holds (ReplaceLinks) are read from
// it, as the statement will write them.
func (t *Tx) ReadPlanPage(ctx context.Context, siteID, pageID, planID string, withTargets bool) (PageSnapshot, error) {
	return t.ClaimAndReadPage(ctx, "", events.Identity{SiteID: siteID}, pageID, planID, withTargets)
}

// ClaimAndLockPage is ClaimAndReadPage without the page's links and hub,
// for handlers that decide on the page row alone: a hub's re-plans read
// none of its many links before they find the plan already answers them.
func (t *Tx) ClaimAndLockPage(ctx context.Context, consumer string, ev events.Identity, pageID string) (PageSnapshot, error) {
	var snap PageSnapshot
	var b pgx.Batch
	t.queueClaimAndLockPage(&b, &snap, consumer, ev, pageID, "")
	if err := t.sendBatch(ctx, &b); err != nil {
		return PageSnapshot{}, fmt.Errorf("claim %s and lock page %s: %w", ev.MsgID(), pageID, err)
	}
	return snap, nil
}

// queueClaimAndLockPage queues the inbox claim, the site version and the
// page read under a row lock (only while planID, if given, is current).
func (t *Tx) queueClaimAndLockPage(b *pgx.Batch, snap *PageSnapshot, consumer string, ev events.Identity, pageID, planID string) {
	siteID := ev.SiteID
	t.queueClaimAndSiteVersion(b, consumer, ev, &snap.Claimed, &snap.SiteVersion, &snap.SiteFound)
	b.Queue(`SELECT `+pageColumns+` FROM pages WHERE site_id = $1 AND id = $2 AND ($3 = '' OR plan_id = $3) FOR UPDATE`,
		siteID, pageID, planID).
		QueryRow(func(row pgx.Row) error {
			p, err := scanPage(row)
			if err == pgx.ErrNoRows {
				return nil
			}
			snap.Page, snap.Found = p, err == nil
			return err
		})
}

// SiteSnapshot is what a page-event handler reads first.
type SiteSnapshot struct {
	Claimed     bool
	SiteVersion int64
	SiteFound   bool
	Hub         site.Page // the live hub of the asked cluster, if HubFound
	HubFound    bool
}

// ClaimAndReadSite claims the event and reads the site's structure version
// and, for a non-empty clusterID, the cluster's live hub, in one round trip.
func (t *Tx) ClaimAndReadSite(ctx context.Context, consumer string, ev events.Identity, clusterID string) (SiteSnapshot, error) {
	var snap SiteSnapshot
	var b pgx.Batch
	siteID := ev.SiteID
	t.queueClaimAndSiteVersion(&b, consumer, ev, &snap.Claimed, &snap.SiteVersion, &snap.SiteFound)
	if clusterID != "" {
		queueHub(&b, hubOfClusterSQL, siteID, clusterID, &snap.Hub, &snap.HubFound)
	}
	if err := t.sendBatch(ctx, &b); err != nil {
		return SiteSnapshot{}, fmt.Errorf("claim %s and read site %s: %w", ev.MsgID(), siteID, err)
	}
	return snap, nil
}

// queueClaimAndSiteVersion queues the inbox claim and the read of the site's
// structure version, which every stage's opening batch starts with. No
// consumer claims nothing (ReadPlanPage): the transaction claimed already.
func (t *Tx) queueClaimAndSiteVersion(b *pgx.Batch, consumer string, ev events.Identity, claimed *bool, version *int64, found *bool) {
	if consumer == "" {
		*claimed = true
	} else {
		b.Queue(claimSQL, t.store.claimArgs(consumer, ev)...).
			Exec(func(ct pgconn.CommandTag) error { *claimed = ct.RowsAffected() == 1; return nil })
	}
	b.Queue(`SELECT structure_version FROM sites WHERE id = $1`, ev.SiteID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(version)
		if err == pgx.ErrNoRows {
			return nil
		}
		*found = err == nil
		return err
	})
}
