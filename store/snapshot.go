package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/interlinker/interlinker/domain/link"
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
}

// ClaimAndReadPage claims the event for the consumer, locks and reads the
// page with its links and reads the site's structure version, all in one
// round trip. When the event was claimed before, the rest is read anyway and
// the caller changes nothing.
func (t *Tx) ClaimAndReadPage(ctx context.Context, consumer, eventID, siteID, pageID string) (PageSnapshot, error) {
	var snap PageSnapshot
	var b pgx.Batch
	b.Queue(`INSERT INTO inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, consumer, eventID).
		Exec(func(ct pgconn.CommandTag) error { snap.Claimed = ct.RowsAffected() == 1; return nil })
	b.Queue(`SELECT structure_version FROM sites WHERE id = $1`, siteID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&snap.SiteVersion)
		if err == pgx.ErrNoRows {
			return nil
		}
		snap.SiteFound = err == nil
		return err
	})
	b.Queue(`SELECT `+pageColumns+` FROM pages WHERE site_id = $1 AND id = $2 FOR UPDATE`, siteID, pageID).
		QueryRow(func(row pgx.Row) error {
			p, err := scanPage(row)
			if err == pgx.ErrNoRows {
				return nil
			}
			snap.Page, snap.Found = p, err == nil
			return err
		})
	b.Queue(linksFromSQL, siteID, pageID).Query(func(rows pgx.Rows) error {
		links, err := pgx.CollectRows(rows, scanLink)
		snap.Links = links
		return err
	})
	if err := t.sendBatch(ctx, &b); err != nil {
		return PageSnapshot{}, fmt.Errorf("claim %s and read page %s: %w", eventID, pageID, err)
	}
	return snap, nil
}

// ClaimAndReadSite claims the event and reads the site's structure version
// in one round trip.
func (t *Tx) ClaimAndReadSite(ctx context.Context, consumer, eventID, siteID string) (claimed bool, siteVersion int64, siteFound bool, err error) {
	var b pgx.Batch
	b.Queue(`INSERT INTO inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, consumer, eventID).
		Exec(func(ct pgconn.CommandTag) error { claimed = ct.RowsAffected() == 1; return nil })
	b.Queue(`SELECT structure_version FROM sites WHERE id = $1`, siteID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&siteVersion)
		if err == pgx.ErrNoRows {
			return nil
		}
		siteFound = err == nil
		return err
	})
	if err := t.sendBatch(ctx, &b); err != nil {
		return false, 0, false, fmt.Errorf("claim %s and read site %s: %w", eventID, siteID, err)
	}
	return claimed, siteVersion, siteFound, nil
}
