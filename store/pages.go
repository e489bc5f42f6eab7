package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
)

// Page states.
const (
	StateGenerated = "generated"
	StatePublished = "published"
	StateDeleted   = "deleted"
)

// PageRecord is a stored page with what interlinker made of it.
type PageRecord struct {
	site.Page
	State         string
	LinkedHTML    string
	PublishedHTML string
	PlanID        string
	PlanHorizon   planning.Horizon // what the current plan saw of the site
	WordCount     int
	InsertedSeq   int64  // the sequence of the links.inserted of its current linked HTML
	DeliveryError string // why its latest result could not be published, if it could not
	Inbound       int
	Outbound      int
	Breadcrumbs   []planning.Crumb
	// PlanNotes are what the planner noted about the current plan (RecordPlan).
	PlanNotes []string
	// SentSeq and SentDigest are the sequence and result digest of the
	// last links.inserted the pipeline sent (RecordSent); 0 when none.
	SentSeq, SentDigest int64
}

// pageColumns read a whole page; pageColumnsWithoutHTML read it with its
// three HTML columns empty, for a page read as another's hub: a hub's
// linked HTML grows with its Related Articles list, and no stage needs it.
const (
	pageColumns            = pageColumnsHead + `html, COALESCE(linked_html, ''), COALESCE(published_html, ''),` + pageColumnsTail
	pageColumnsWithoutHTML = pageColumnsHead + `'', '', '',` + pageColumnsTail
	pageColumnsHead        = `site_id, id, url, title, kind, cluster_id, sector_id, primary_keyword, keywords, labels,
	attributes, priority, published_at, version, `
	pageColumnsTail = `
	state, plan_id, COALESCE(plan_horizon::text, ''), word_count, inbound_link_count, outbound_link_count, breadcrumbs,
	inserted_seq, delivery_error, COALESCE(plan_notes, '{}'), sent_seq, COALESCE(sent_digest, 0)`
)

func scanPage(row pgx.Row) (PageRecord, error) {
	var p PageRecord
	var kind, horizon string
	var publishedAt *time.Time
	err := row.Scan(&p.SiteID, &p.ID, &p.URL, &p.Title, &kind, &p.ClusterID, &p.SectorID, &p.PrimaryKeyword,
		&p.Keywords, &p.Labels, &p.Attributes, &p.Priority, &publishedAt, &p.Version, &p.HTML, &p.LinkedHTML,
		&p.PublishedHTML, &p.State, &p.PlanID, &horizon, &p.WordCount, &p.Inbound, &p.Outbound, &p.Breadcrumbs, &p.InsertedSeq, &p.DeliveryError, &p.PlanNotes,
		&p.SentSeq, &p.SentDigest)
	if err != nil {
		return p, err
	}
	p.Kind = site.Kind(kind)
	if publishedAt != nil {
		p.PublishedAt = *publishedAt
	}
	if p.PlanHorizon, err = parseHorizon(horizon); err != nil {
		return p, fmt.Errorf("page %s: %w", p.ID, err)
	}
	return p, nil
}

// SavePageVersion stores a page version as the page's current state, with
// the terms the planning index finds it by, its words and whether its HTML
// asks not to be indexed (markup.NoIndex), unless the store already holds
// a newer version; then it changes nothing and reports false. The row stays
// locked until the transaction ends, so concurrent events for one page
// apply one after the other. A generated version replaces the page's plan:
// the plan it replaces (links, linked HTML, breadcrumbs) is kept as a
// snapshot, taken in the same statement so it is the state before.
func (t *Tx) SavePageVersion(ctx context.Context, p site.Page, state, planID string, wordCount int, noIndex bool, terms []string) (bool, error) {
	var applied bool
	if err := t.QueueSavePageVersion(p, state, planID, wordCount, noIndex, terms, &applied); err != nil {
		return false, err
	}
	if err := t.begin(ctx); err != nil {
		return false, err
	}
	return applied, nil
}

// QueueSavePageVersion is SavePageVersion queued ahead of the
// transaction's next round trip, which sets applied.
func (t *Tx) QueueSavePageVersion(p site.Page, state, planID string, wordCount int, noIndex bool, terms []string, applied *bool) error {
	attrs, err := json.Marshal(nonNilMap(p.Attributes))
	if err != nil {
		return fmt.Errorf("encode attributes of page %s: %w", p.ID, err)
	}
	var publishedAt *time.Time
	if !p.PublishedAt.IsZero() {
		publishedAt = &p.PublishedAt
	}
	var publishedHTML *string
	var liveVersion *int64
	if state == StatePublished {
		publishedHTML, liveVersion = &p.HTML, &p.Version
	}
	// A published version keeps the HTML we planned from (html) and records
	// what went live (published_html); a generated version starts over.
	q := t.ahead.Queue(`
		WITH snapshot AS (
			INSERT INTO link_snapshots (`+snapshotColumns+`)
			SELECT `+snapshotOfPage+`, 'replaced by version ' || $14::bigint || ' (plan ' || $18 || ')'
			FROM pages p
			WHERE p.site_id = $1 AND p.id = $2 AND $17 = 'generated' AND p.plan_id <> '' AND p.state <> 'deleted'
			  AND p.version <= $14 AND p.plan_id <> $18)
		INSERT INTO pages (site_id, id, url, title, kind, cluster_id, sector_id, primary_keyword, keywords, labels,
			attributes, priority, published_at, version, html, published_html, state, plan_id, word_count, terms, live_version, noindex, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, now())
		ON CONFLICT (site_id, id) DO UPDATE SET
			url = EXCLUDED.url, title = EXCLUDED.title, kind = EXCLUDED.kind, cluster_id = EXCLUDED.cluster_id,
			sector_id = EXCLUDED.sector_id, primary_keyword = EXCLUDED.primary_keyword, keywords = EXCLUDED.keywords,
			labels = EXCLUDED.labels, attributes = EXCLUDED.attributes, priority = EXCLUDED.priority,
			published_at = EXCLUDED.published_at, version = EXCLUDED.version, terms = EXCLUDED.terms,
			html = CASE WHEN EXCLUDED.state = 'published' AND pages.version = EXCLUDED.version THEN pages.html ELSE EXCLUDED.html END,
			linked_html = CASE WHEN EXCLUDED.state = 'published' AND pages.version = EXCLUDED.version THEN pages.linked_html ELSE NULL END,
			published_html = CASE WHEN EXCLUDED.state = 'published' THEN EXCLUDED.published_html ELSE pages.published_html END,
			live_version = COALESCE(EXCLUDED.live_version, pages.live_version),
			state = EXCLUDED.state,
			plan_id = CASE WHEN EXCLUDED.state = 'published' AND pages.version = EXCLUDED.version THEN pages.plan_id ELSE EXCLUDED.plan_id END,
			word_count = EXCLUDED.word_count, noindex = EXCLUDED.noindex, updated_at = now()
		WHERE pages.version < EXCLUDED.version
		   OR (pages.version = EXCLUDED.version AND pages.state <> 'deleted')`,
		p.SiteID, p.ID, p.URL, p.Title, string(p.Kind), p.ClusterID, p.SectorID, p.PrimaryKeyword,
		nonNil(p.Keywords), nonNil(p.Labels), attrs, p.Priority, publishedAt, p.Version, p.HTML, publishedHTML,
		state, planID, wordCount, nonNil(terms), liveVersion, noIndex)
	q.Fn = func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err != nil {
			return fmt.Errorf("save page %s v%d: %w", p.ID, p.Version, err)
		}
		*applied = tag.RowsAffected() == 1
		return nil
	}
	return nil
}

// NameTombstone gives a page deleted before any version of it arrived
// (MarkPageDeleted's tombstone, with no address) the address and names of
// a version that arrives after the deletion. The page stays deleted; its
// address lets the pages and audits that link it find the link broken,
// as they do when the page came before its deletion. It reports whether
// it named a tombstone.
func (t *Tx) NameTombstone(ctx context.Context, p site.Page) (bool, error) {
	tag, err := t.exec(ctx, `UPDATE pages SET url = $3, title = $4, kind = $5, cluster_id = $6, sector_id = $7, updated_at = now()
		WHERE site_id = $1 AND id = $2 AND state = 'deleted' AND url = ''`,
		p.SiteID, p.ID, p.URL, p.Title, string(p.Kind), p.ClusterID, p.SectorID)
	if err != nil {
		return false, fmt.Errorf("name the tombstone of page %s: %w", p.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	// The live links to its address waited for a page there; they are
	// links to a deleted page, as MarkPageDeleted makes them, and their
	// sources have one live outbound link fewer.
	if _, err := t.exec(ctx, `WITH broken AS (
			UPDATE link_map SET target_page_id = $2, status = 'broken'
			WHERE site_id = $1 AND target_page_id = '' AND target_path = $3 AND status = 'active'
			RETURNING source_page_id)
		INSERT INTO link_count_queue (site_id, page_id) SELECT DISTINCT $1, source_page_id FROM broken`,
		p.SiteID, p.ID, markup.PagePath(p.URL)); err != nil {
		return false, fmt.Errorf("mark the links to deleted page %s broken: %w", p.ID, err)
	}
	return true, nil
}

// liveVersionSQL is the version of a page that is live: live_version, or
// for a row from before it was tracked, the version of a published page.
const liveVersionSQL = `COALESCE(live_version, CASE WHEN state = 'published' THEN version END)`

// RecordLive records that an older version than the one being planned
// went live (a draft is newer than what the site shows): the page keeps
// its draft and plan, and its published HTML becomes what went live. It
// reports false, changing nothing, when the page is deleted or a version
// as new already went live.
func (t *Tx) RecordLive(ctx context.Context, siteID, pageID string, version int64, html string) (bool, error) {
	tag, err := t.exec(ctx, `UPDATE pages SET live_version = $3, published_html = $4, updated_at = now()
		WHERE site_id = $1 AND id = $2 AND state <> 'deleted' AND COALESCE(`+liveVersionSQL+`, 0) < $3`,
		siteID, pageID, version, html)
	if err != nil {
		return false, fmt.Errorf("record live version %d of page %s: %w", version, pageID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// PlanHorizon reads what the page's current plan saw of the site, without
// a transaction or a lock: a committed plan that saw a re-plan's cause
// answers it, so the re-plan can be dropped on this read. (A restore may
// later make an older plan current; that is the restore's choice.)
func (s *Store) PlanHorizon(ctx context.Context, siteID, pageID string) (planning.Horizon, error) {
	var text string
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(plan_horizon::text, '') FROM pages WHERE site_id = $1 AND id = $2`,
		siteID, pageID).Scan(&text)
	if err == pgx.ErrNoRows {
		return planning.Horizon{}, nil
	}
	if err != nil {
		return planning.Horizon{}, fmt.Errorf("read plan horizon of page %s: %w", pageID, err)
	}
	return parseHorizon(text)
}

// Page reads a page without locking it.
func (s *Store) Page(ctx context.Context, siteID, pageID string) (PageRecord, bool, error) {
	p, err := scanPage(s.pool.QueryRow(ctx, `SELECT `+pageColumns+` FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID))
	if err == pgx.ErrNoRows {
		return PageRecord{}, false, nil
	}
	if err != nil {
		return PageRecord{}, false, fmt.Errorf("read page %s: %w", pageID, err)
	}
	return p, true, nil
}

// InsertedHTML is the HTML of a page's last links.inserted: its applied
// fixes when they went out last (SaveFixedPage), else its linked HTML, ""
// when it has neither; with the page's state and version.
func (s *Store) InsertedHTML(ctx context.Context, siteID, pageID string) (html, state string, version int64, found bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT CASE WHEN fixed_seq = inserted_seq THEN COALESCE(fixed_html, '') ELSE COALESCE(linked_html, '') END,
			state, version
		FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID).Scan(&html, &state, &version)
	if err == pgx.ErrNoRows {
		return "", "", 0, false, nil
	}
	if err != nil {
		return "", "", 0, false, fmt.Errorf("read the inserted HTML of page %s: %w", pageID, err)
	}
	return html, state, version, true, nil
}

// SetLinkedHTML stores the HTML with our links placed and numbers the
// links.inserted it will go out in: the page's next sequence (PageRecord's
// InsertedSeq once read back). The caller holds the page's row lock, so
// sequences never repeat, and numbering here spares the validate stage a
// write of the page row.
func (t *Tx) SetLinkedHTML(ctx context.Context, siteID, pageID, html string) error {
	t.queuePageUpdate(siteID, pageID, pageSet{"linked_html", "?", html},
		pageSet{"inserted_seq", "inserted_seq + 1", nil}, pageSet{"updated_at", "now()", nil})
	return nil
}

// RecordSent records that the page's links.inserted of sequence seq,
// whose result hashes to digest, goes out.
func (t *Tx) RecordSent(siteID, pageID string, seq, digest int64) {
	t.queuePageUpdate(siteID, pageID, pageSet{"sent_seq", "?", seq}, pageSet{"sent_digest", "?", digest})
}

// KeepSentSequence numbers the page's current linked HTML with the
// sequence of the last links.inserted sent, when its result is that one's
// and is not sent again: the next one sent follows it, and the stored
// sequence is the one the publisher last received.
func (t *Tx) KeepSentSequence(siteID, pageID string, seq int64) {
	t.queuePageUpdate(siteID, pageID, pageSet{"inserted_seq", "?", seq})
}

// MarkPageDeleted retires a page unless a newer version is stored. A page
// not seen yet gets a tombstone (state deleted, the version), so its
// generate or publish arriving later, no newer, changes nothing: the
// planner and the deletion consumers read CONTENT independently, and a
// delete may be handled first. The page's own links are removed and links
// pointing at it become broken.
func (t *Tx) MarkPageDeleted(ctx context.Context, siteID, pageID string, version int64) (bool, error) {
	tag, err := t.exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, version, html, state, updated_at)
		VALUES ($1, $2, '', '', 'page', $3, '', 'deleted', now())
		ON CONFLICT (site_id, id) DO UPDATE SET state = 'deleted', version = EXCLUDED.version, updated_at = now()
		WHERE pages.version <= EXCLUDED.version`, siteID, pageID, version)
	if err != nil {
		return false, fmt.Errorf("delete page %s: %w", pageID, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	stmts := []string{
		`UPDATE links SET status = 'removed', updated_at = now() WHERE site_id = $1 AND source_page_id = $2`,
		`UPDATE links SET status = 'broken', updated_at = now() WHERE site_id = $1 AND target_page_id = $2 AND status <> 'removed'`,
		`UPDATE link_map SET status = 'removed' WHERE site_id = $1 AND source_page_id = $2`,
		// the live pages linking to it have one live outbound link fewer
		`WITH broken AS (UPDATE link_map SET status = 'broken' WHERE site_id = $1 AND target_page_id = $2 AND status = 'active'
			RETURNING source_page_id)
		INSERT INTO link_count_queue (site_id, page_id) SELECT DISTINCT $1, source_page_id FROM broken`,
	}
	for _, q := range stmts {
		if _, err := t.exec(ctx, q, siteID, pageID); err != nil {
			return false, fmt.Errorf("retire links of deleted page %s: %w", pageID, err)
		}
	}
	return true, nil
}
