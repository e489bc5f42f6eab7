package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/site"
)

// MarkChanged records that the pipeline changed the page in this
// transaction, so its site settles again once it is quiet: the mark holds
// the transaction's id, which a settle pass compares with its snapshot
// (ClearSettled), and the time, which tells when the site went quiet.
func (t *Tx) MarkChanged(siteID, pageID string) {
	t.queuePageUpdate(siteID, pageID, changedSets...)
}

// changedSets are the assignments that mark a page changed (MarkChanged).
var changedSets = []pageSet{{"changed_xid", "pg_current_xact_id()", nil}, {"changed_at", "clock_timestamp()", nil}}

// RecordVerdict keeps the validation report the page's links.inserted
// carries (report, JSON), for the API, and its hash, for the settle pass
// to compare its own with; changed also marks the page for the pass, in
// the same statement.
func (t *Tx) RecordVerdict(siteID, pageID string, digest int64, report []byte, changed bool) {
	sets := []pageSet{{"validation_digest", "?", digest}, {"validation", "?::jsonb", string(report)}}
	if changed {
		sets = append(sets, changedSets...)
	}
	t.queuePageUpdate(siteID, pageID, sets...)
}

// PageValidation is the validation report (JSON) the page's last
// links.inserted carried; nil when it has none yet.
func (s *Store) PageValidation(ctx context.Context, siteID, pageID string) ([]byte, error) {
	var report []byte
	err := s.pool.QueryRow(ctx, `SELECT validation FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID).Scan(&report)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("read the validation of page %s: %w", pageID, err)
	}
	return report, nil
}

// UnsettledSites lists sites with pages changed since their last settle
// pass, none changed in the last quiet and no dependant's re-plan request
// waiting in the outbox: a site still receiving events waits, so one pass
// answers a whole burst, and a change whose dependants are yet to re-plan
// is theirs to carry (with its reason, "hub page … deleted") before the
// pass makes the result independent of order. A request waits the replan
// delay and the relay's next look, which can outlast the quiet time.
func (s *Store) UnsettledSites(ctx context.Context, quiet time.Duration, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT site_id FROM pages WHERE changed_xid IS NOT NULL
		GROUP BY site_id HAVING max(changed_at) < clock_timestamp() - make_interval(secs => $1)
		  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.site_id = pages.site_id AND o.replaces <> '')
		ORDER BY min(changed_at) LIMIT $2`, quiet.Seconds(), limit)
	if err != nil {
		return nil, fmt.Errorf("find unsettled sites: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find unsettled sites: %w", err)
	}
	return ids, nil
}

// Unsettled counts the pages changed since their site last settled.
func (s *Store) Unsettled(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pages WHERE changed_xid IS NOT NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count unsettled pages: %w", err)
	}
	return n, nil
}

// settlingLockClass is the first key of the advisory lock every settle
// pass holds, shared, while it runs (HoldSettling); it spells "ILST", apart
// from planningLockClass.
const settlingLockClass int32 = 0x494c5354

// HoldSettling marks a settle pass under way, in every replica's sight,
// until release is called: it holds a shared advisory lock on a
// connection of its own, which a process that dies loses with the lock.
// A pass clears its site's marks when its transaction commits, then keeps
// its graph and asks the model: until it is done the site is not, though
// none of its pages is marked, and a replica that counted only its own
// passes called the pipeline idle while another's ran.
func (s *Store) HoldSettling(ctx context.Context) (release func(), err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	if _, err := c.Exec(ctx, `SELECT pg_advisory_lock_shared($1::int4, 0)`, settlingLockClass); err != nil {
		c.Release()
		return nil, fmt.Errorf("mark a settle pass under way: %w", err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
		defer cancel()
		if _, err := c.Exec(ctx, `SELECT pg_advisory_unlock_shared($1::int4, 0)`, settlingLockClass); err != nil {
			// A connection whose lock cannot be let go must not serve again.
			_ = c.Conn().Close(ctx)
		}
		c.Release()
	}, nil
}

// Settling reports whether a settle pass is under way in any process on
// this database (HoldSettling).
func (s *Store) Settling(ctx context.Context) (bool, error) {
	var held bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND classid::bigint = $1 AND objid = 0 AND objsubid = 2
		  AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`, int64(settlingLockClass)).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("look for settle passes under way: %w", err)
	}
	return held, nil
}

// InSnapshotTx runs fn in one REPEATABLE READ transaction: every read sees
// the database as of the first, and a write to a row another transaction
// changed since fails with a serialization error (ErrConcurrentChange)
// instead of overwriting it. A settle pass reads a whole site this way,
// planning every page with the event handlers' statements, so they run on
// generic plans as in InGenericTx.
func (s *Store) InSnapshotTx(ctx context.Context, fn func(*Tx) error) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer c.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ")
	b.Queue(genericPlans)
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("begin snapshot transaction: %w", err)
	}
	t := &Tx{conn: c.Conn(), store: s, begun: true, generic: true}
	if err := fn(t); err != nil {
		t.rollback(ctx)
		return concurrentChange(err)
	}
	return concurrentChange(t.commit(ctx))
}

// ErrConcurrentChange is a snapshot transaction's write losing to another
// transaction's; the work is done again later.
var ErrConcurrentChange = errors.New("a page changed while the site was read")

func concurrentChange(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01") {
		return fmt.Errorf("%w: %v", ErrConcurrentChange, err)
	}
	return err
}

// SettleSnapshot is the transaction's snapshot, in pg_snapshot's text
// form, for ClearSettled.
func (t *Tx) SettleSnapshot(ctx context.Context) (string, error) {
	var snap string
	if err := t.queryRow(ctx, `SELECT pg_current_snapshot()::text`).Scan(&snap); err != nil {
		return "", fmt.Errorf("read snapshot: %w", err)
	}
	return snap, nil
}

// ClearSettled clears the change marks of the site's pages that snapshot
// saw; a page changed by a transaction it did not see keeps its mark, so
// the site settles again.
func (t *Tx) ClearSettled(siteID, snapshot string) {
	t.queue(`UPDATE pages SET changed_xid = NULL, changed_at = NULL
		WHERE site_id = $1 AND changed_xid IS NOT NULL AND pg_visible_in_snapshot(changed_xid, $2::text::pg_snapshot)`,
		siteID, snapshot)
}

// LoadCurrentSite reads the site's structure at its current version.
func (t *Tx) LoadCurrentSite(ctx context.Context, siteID string) (SiteRecord, bool, error) {
	var version int64
	err := t.queryRow(ctx, `SELECT structure_version FROM sites WHERE id = $1`, siteID).Scan(&version)
	if err == pgx.ErrNoRows {
		return SiteRecord{}, false, nil
	}
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("read site %s: %w", siteID, err)
	}
	return t.LoadSiteAt(ctx, siteID, version)
}

// settleKindRank is the canonical order of page kinds in a settle pass,
// which decides who gets an anchor first when a target's exact anchors
// reach the cap: the pages whose rules require an uplink first
// (planning.NeedsUplink: supporting articles, and with $2 every page of a
// cluster but its hub, a silo's children), so their mandatory uplinks
// choose before anything else links their hub (a cluster of four articles
// that name their hub only by its keyword, with the home page first, left
// the fourth without its uplink; a silo trial's service page lost its
// uplink to the home page so), then the home page and sector pages,
// whose links to the hubs they name are optional, then the other members,
// then hubs and term pages, whose lists grow with the site.
const settleKindRank = `CASE WHEN kind = 'supporting' OR $2 AND cluster_id <> '' AND kind NOT IN ('hub', 'home', 'sector', 'term') THEN 0
	WHEN kind = 'home' THEN 1 WHEN kind = 'sector' THEN 2 WHEN kind IN ('product', 'service', 'page') THEN 3
	WHEN kind = 'hub' THEN 4 WHEN kind = 'term' THEN 5 ELSE 6 END`

// settleKey lists the columns of a page's place in the settle order
// (SettleOrder), for the pages of alias, with childrenFirst the parameter
// that stands for settleKindRank's $2: as a row value they compare as the
// order sorts, a page without a publication date after those with one.
func settleKey(alias, childrenFirst string) string {
	rank := strings.NewReplacer("kind", alias+".kind", "cluster_id", alias+".cluster_id", "$2", childrenFirst).Replace(settleKindRank)
	return rank + ", COALESCE(" + alias + ".published_at, 'infinity'::timestamptz), " + alias + ".id"
}

// SettleOrder lists the site's planned pages in the order a settle pass
// plans them: by kind (settleKindRank), then publication date, then id.
// The order depends on the pages alone, never on when they arrived.
// clusterChildrenFirst puts every page of a cluster but its hub with the
// supporting articles: under the silo policy each needs its uplink.
func (t *Tx) SettleOrder(ctx context.Context, siteID string, clusterChildrenFirst bool) ([]string, error) {
	ids, err := t.strings(ctx, `SELECT p.id FROM pages p WHERE p.site_id = $1 AND p.state <> 'deleted' AND p.plan_id <> ''
		ORDER BY `+settleKey("p", "$2"), siteID, clusterChildrenFirst)
	if err != nil {
		return nil, fmt.Errorf("order pages of site %s: %w", siteID, err)
	}
	return ids, nil
}

// SettlePage is a page as a settle pass reads it: the page, its current
// links and its cluster's live hub.
type SettlePage struct {
	Page  PageRecord
	Links []link.Link
	Hub   *site.Page
	// VerdictDigest is the hash of the validation report the page's last
	// links.inserted carried (RecordVerdict); 0 when none was kept.
	VerdictDigest int64
}

// ReadSettlePage reads a page with its links and its cluster's hub in one
// round trip; found is false when the page is gone.
func (t *Tx) ReadSettlePage(ctx context.Context, siteID, pageID string) (sp SettlePage, found bool, err error) {
	var b pgx.Batch
	b.Queue(`SELECT `+pageColumns+` FROM pages WHERE site_id = $1 AND id = $2 AND state <> 'deleted'`, siteID, pageID).
		QueryRow(func(row pgx.Row) error {
			p, err := scanPage(row)
			if err == pgx.ErrNoRows {
				return nil
			}
			sp.Page, found = p, err == nil
			return err
		})
	b.Queue(`SELECT COALESCE(validation_digest, 0) FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID).
		QueryRow(func(row pgx.Row) error {
			if err := row.Scan(&sp.VerdictDigest); err != nil && err != pgx.ErrNoRows {
				return err
			}
			return nil
		})
	b.Queue(linksFromSQL, siteID, pageID).Query(func(rows pgx.Rows) error {
		links, err := pgx.CollectRows(rows, scanLink)
		sp.Links = links
		return err
	})
	var hub site.Page
	var hubFound bool
	queueHub(&b, hubOfPageSQL, siteID, pageID, &hub, &hubFound)
	if err := t.sendBatch(ctx, &b); err != nil {
		return SettlePage{}, false, fmt.Errorf("read page %s to settle: %w", pageID, err)
	}
	if hubFound {
		sp.Hub = &hub
	}
	return sp, found, nil
}
