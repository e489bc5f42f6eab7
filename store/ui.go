package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
)

// Reads the web UI needs besides the HTTP API's: the link map drawn by
// cluster, page search and the overview's counts. Each reads one site and
// is bounded, whatever the site's size: the UI never draws every page.

// MapCluster is a cluster of the link map with its live pages.
type MapCluster struct {
	ID, Name string // ID "" holds the pages of no cluster (home, sectors, ...)
	Pages    int
}

// MapClusters lists the site's clusters in the structure's order, each
// with its pages that are not deleted, and last the pages of no known
// cluster, when there are any.
func (s *Store) MapClusters(ctx context.Context, siteID string) ([]MapCluster, error) {
	rows, err := s.pool.Query(ctx, `WITH n AS (SELECT cluster_id, count(*) AS pages FROM pages
			WHERE site_id = $1 AND state <> 'deleted' GROUP BY cluster_id)
		SELECT c.id, c.name, COALESCE(n.pages, 0) FROM clusters c LEFT JOIN n ON n.cluster_id = c.id
		WHERE c.site_id = $1
		UNION ALL
		SELECT '', '', COALESCE(sum(n.pages), 0)::int FROM n
		WHERE NOT EXISTS (SELECT 1 FROM clusters c WHERE c.site_id = $1 AND c.id = n.cluster_id)`, siteID)
	if err != nil {
		return nil, fmt.Errorf("list clusters of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MapCluster, error) {
		var c MapCluster
		return c, r.Scan(&c.ID, &c.Name, &c.Pages)
	})
	if err != nil {
		return nil, fmt.Errorf("list clusters of site %s: %w", siteID, err)
	}
	// The clusters come in the structure's order (position); the pages of
	// no cluster last, and only when there are some.
	if n := len(out); n > 0 && out[n-1].ID == "" && out[n-1].Pages == 0 {
		out = out[:n-1]
	}
	return out, nil
}

// MapFilter narrows the links the map counts and draws; "" for any.
type MapFilter struct {
	Type, Status string
}

// ClusterEdge counts the links from the pages of one cluster to those of
// another (the same one for links within a cluster).
type ClusterEdge struct {
	From, To string
	Links    int
}

// LiveLinkType is the type the map gives a link found in a live page's
// HTML that interlinker did not plan: one a person wrote (existing-content
// mode). Such links have no type or status of the planner's, so they are
// left out whenever the map is filtered by either.
const LiveLinkType = "live"

// mapLinksSQL is the map's links of site $1, filtered by type ($2) and
// status ($3): the planner's, and the in-body internal links of live pages
// it did not plan (menus, headers, footers and generated blocks left out,
// as the audit leaves them out of a page's own links).
const mapLinksSQL = `SELECT l.id, l.source_page_id, l.target_page_id, l.type, l.status, l.position FROM links l
	WHERE l.site_id = $1 AND ($2 = '' OR l.type = $2) AND ($3 = '' OR l.status = $3)
	UNION ALL
	SELECT 'lm:' || lm.source_page_id || ':' || lm.ordinal, lm.source_page_id, lm.target_page_id, '` + LiveLinkType + `', 'live', 100000 + lm.ordinal
	FROM link_map lm
	WHERE lm.site_id = $1 AND $2 = '' AND $3 = '' AND lm.internal AND lm.target_page_id <> '' AND lm.position = 'content' AND lm.in_block = ''
	  AND NOT EXISTS (SELECT 1 FROM links l WHERE l.site_id = lm.site_id AND l.source_page_id = lm.source_page_id
	                  AND l.target_page_id = lm.target_page_id)`

// ClusterEdges counts the site's links between clusters (the map's links:
// mapLinksSQL), by source and target page's cluster, heaviest first.
// Links to pages not in the site's pages table count nowhere.
func (s *Store) ClusterEdges(ctx context.Context, siteID string, f MapFilter) ([]ClusterEdge, error) {
	rows, err := s.pool.Query(ctx, `SELECT sp.cluster_id, tp.cluster_id, count(*)::int
		FROM (`+mapLinksSQL+`) l
		JOIN pages sp ON sp.site_id = $1 AND sp.id = l.source_page_id
		JOIN pages tp ON tp.site_id = $1 AND tp.id = l.target_page_id
		WHERE sp.state <> 'deleted' AND tp.state <> 'deleted'
		GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2`, siteID, f.Type, f.Status)
	if err != nil {
		return nil, fmt.Errorf("count links between clusters of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ClusterEdge, error) {
		var e ClusterEdge
		return e, r.Scan(&e.From, &e.To, &e.Links)
	})
	if err != nil {
		return nil, fmt.Errorf("count links between clusters of site %s: %w", siteID, err)
	}
	return out, nil
}

// MapPage is a page as the map and search show it.
type MapPage struct {
	ID, Title, URL, Kind, ClusterID, State string
	Inbound, Outbound                      int
}

const mapPageColumns = `id, title, url, kind, cluster_id, state, inbound_link_count, outbound_link_count`

func scanMapPage(r pgx.CollectableRow) (MapPage, error) {
	var p MapPage
	return p, r.Scan(&p.ID, &p.Title, &p.URL, &p.Kind, &p.ClusterID, &p.State, &p.Inbound, &p.Outbound)
}

// ClusterPages reads at most limit pages of a cluster that are not
// deleted: the hub first, then the pages most linked to. total is how many
// the cluster has.
func (s *Store) ClusterPages(ctx context.Context, siteID, clusterID string, limit int) (pages []MapPage, total int, err error) {
	rows, err := s.pool.Query(ctx, `SELECT `+mapPageColumns+`, count(*) OVER ()::int FROM pages
		WHERE site_id = $1 AND cluster_id = $2 AND state <> 'deleted'
		ORDER BY kind = 'hub' DESC, inbound_link_count DESC, id LIMIT $3`, siteID, clusterID, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("list pages of cluster %s: %w", clusterID, err)
	}
	pages, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (MapPage, error) {
		var p MapPage
		return p, r.Scan(&p.ID, &p.Title, &p.URL, &p.Kind, &p.ClusterID, &p.State, &p.Inbound, &p.Outbound, &total)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list pages of cluster %s: %w", clusterID, err)
	}
	return pages, total, nil
}

// MapLink is a link between two pages as the map draws it.
type MapLink struct {
	ID, From, To, Type, Status string
}

// LinksAround reads the map's links (mapLinksSQL) from and to the given
// pages (at most limit); the pages at their other ends may be anywhere.
func (s *Store) LinksAround(ctx context.Context, siteID string, pageIDs []string, f MapFilter, limit int) ([]MapLink, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, source_page_id, target_page_id, type, status FROM (`+mapLinksSQL+`) l
		WHERE l.source_page_id = ANY($4) OR l.target_page_id = ANY($4)
		ORDER BY source_page_id, position LIMIT $5`, siteID, f.Type, f.Status, pageIDs, limit)
	if err != nil {
		return nil, fmt.Errorf("read links of %d pages: %w", len(pageIDs), err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MapLink, error) {
		var l MapLink
		return l, r.Scan(&l.ID, &l.From, &l.To, &l.Type, &l.Status)
	})
	if err != nil {
		return nil, fmt.Errorf("read links of %d pages: %w", len(pageIDs), err)
	}
	return out, nil
}

// MapPages reads the pages of ids that exist, by id.
func (s *Store) MapPages(ctx context.Context, siteID string, ids []string) (map[string]MapPage, error) {
	out := make(map[string]MapPage, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+mapPageColumns+` FROM pages WHERE site_id = $1 AND id = ANY($2)`, siteID, ids)
	if err != nil {
		return nil, fmt.Errorf("read %d pages: %w", len(ids), err)
	}
	pages, err := pgx.CollectRows(rows, scanMapPage)
	if err != nil {
		return nil, fmt.Errorf("read %d pages: %w", len(ids), err)
	}
	for _, p := range pages {
		out[p.ID] = p
	}
	return out, nil
}

// SearchPages finds at most limit pages of a site whose title, URL or id
// holds q (case folded), titles starting with it first.
func (s *Store) SearchPages(ctx context.Context, siteID, q string, limit int) ([]MapPage, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return []MapPage{}, nil
	}
	like := "%" + escapeLike(q) + "%"
	rows, err := s.pool.Query(ctx, `SELECT `+mapPageColumns+` FROM pages
		WHERE site_id = $1 AND state <> 'deleted' AND (title ILIKE $2 OR url ILIKE $2 OR id ILIKE $2)
		ORDER BY lower(title) LIKE lower($3) DESC, length(title), id LIMIT $4`, siteID, like, escapeLike(q)+"%", limit)
	if err != nil {
		return nil, fmt.Errorf("search pages of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, scanMapPage)
	if err != nil {
		return nil, fmt.Errorf("search pages of site %s: %w", siteID, err)
	}
	return out, nil
}

// escapeLike makes s match itself in a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// SiteCounts are the overview's figures that come from the projections,
// not from an audit.
type SiteCounts struct {
	Pages  int // not deleted
	Links  int // in a page's HTML: inserted, verified or flagged
	Review int // scored for review, waiting for a person
	// Fixes are the audit recommendations applied to live pages, each
	// once whatever audits listed it: an existing site's links come that
	// way, and a Spanish trial's overview said "placed 0" after five.
	Fixes int
}

// CountSite reads a site's SiteCounts.
func (s *Store) CountSite(ctx context.Context, siteID string) (SiteCounts, error) {
	var c SiteCounts
	err := s.pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM pages WHERE site_id = $1 AND state <> 'deleted'),
			(SELECT count(*) FILTER (WHERE status = ANY($2)) FROM links WHERE site_id = $1),
			(SELECT count(*) FILTER (WHERE status = 'review') FROM links WHERE site_id = $1),
			(SELECT count(DISTINCT id) FROM audit_recommendations WHERE site_id = $1 AND applied_by <> '')`,
		siteID, placedStatuses).Scan(&c.Pages, &c.Links, &c.Review, &c.Fixes)
	if err != nil {
		return c, fmt.Errorf("count site %s: %w", siteID, err)
	}
	return c, nil
}

// ReviewOrder orders the review queue by score.
type ReviewOrder int

const (
	ReviewBestFirst ReviewOrder = iota
	ReviewWorstFirst
)

// ReviewQueue reads a page of the site's links scored for review, by
// score (then source page and place), from offset; total is the queue's
// length.
func (s *Store) ReviewQueue(ctx context.Context, siteID string, order ReviewOrder, offset, limit int) (links []LinkRow, total int, err error) {
	dir := "DESC"
	if order == ReviewWorstFirst {
		dir = "ASC"
	}
	rows, err := s.pool.Query(ctx, `SELECT l.position, l.id, l.source_page_id, l.target_page_id, l.target_url, l.type, l.anchor,
			l.anchor_type, l.candidates, l.zone, l.first_paragraphs, COALESCE(l.paragraph, 0), l.score, l.factors, l.mandatory,
			l.placement, l.status, l.reason, l.failed_rules, l.explanation, count(*) OVER ()::int
		FROM links l WHERE l.site_id = $1 AND l.status = 'review'
		ORDER BY l.score `+dir+`, l.source_page_id, l.position OFFSET $2 LIMIT $3`, siteID, offset, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("read the review queue of site %s: %w", siteID, err)
	}
	links, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkRow, error) {
		var l LinkRow
		var typ, anchorType, zone, status string
		err := r.Scan(&l.Position, &l.ID, &l.SourcePageID, &l.TargetPageID, &l.TargetURL, &typ, &l.Anchor, &anchorType,
			&l.Candidates, &zone, &l.FirstParagraphs, &l.Paragraph, &l.Score, &l.Factors, &l.Mandatory, &l.Placement,
			&status, &l.Reason, &l.FailedRules, &l.Explanation, &total)
		l.Type, l.AnchorType, l.Zone, l.Status = link.Type(typ), link.AnchorType(anchorType), link.Zone(zone), link.Status(status)
		return l, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read the review queue of site %s: %w", siteID, err)
	}
	return links, total, nil
}

// ActiveJobs lists the site's API jobs that may still be running, newest
// first: audits and applies not finished, and plan and restore jobs not
// yet seen done, made in the last day (a job older than that whose work
// never started is not "running now").
func (s *Store) ActiveJobs(ctx context.Context, siteID string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT j.id FROM api_jobs j
		LEFT JOIN audits a ON j.kind = 'audit' AND a.site_id = j.site_id AND a.id = j.ref
		LEFT JOIN audit_applies ap ON j.kind = 'apply' AND ap.site_id = j.site_id AND ap.id = j.ref
		WHERE j.site_id = $1 AND j.finished_at IS NULL AND j.created_at > $2
		  AND COALESCE(a.status, ap.status, 'running') = 'running'
		ORDER BY j.created_at DESC, j.id LIMIT $3`, siteID, time.Now().Add(-24*time.Hour), limit)
	if err != nil {
		return nil, fmt.Errorf("list running jobs of site %s: %w", siteID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list running jobs of site %s: %w", siteID, err)
	}
	return ids, nil
}

// LiveLinks reads the <a>s of a page's live HTML in page order (its rows
// of the link map), at most limit.
func (s *Store) LiveLinks(ctx context.Context, siteID, pageID string, limit int) ([]LinkMapEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT source_page_id, ordinal, target_url, target_page_id, anchor, internal, follow, position,
			in_block, content_paragraph
		FROM link_map WHERE site_id = $1 AND source_page_id = $2 ORDER BY ordinal LIMIT $3`, siteID, pageID, limit)
	if err != nil {
		return nil, fmt.Errorf("read the live links of page %s: %w", pageID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkMapEntry, error) {
		var e LinkMapEntry
		return e, r.Scan(&e.SourcePageID, &e.Ordinal, &e.TargetURL, &e.TargetPageID, &e.Anchor, &e.Internal, &e.Follow,
			&e.Position, &e.InBlock, &e.ContentParagraph)
	})
	if err != nil {
		return nil, fmt.Errorf("read the live links of page %s: %w", pageID, err)
	}
	return out, nil
}

// BackgroundJob is an audit or verification running that no API job
// tracks: one an event asked for (the CLI, a scheduler, a producer).
type BackgroundJob struct {
	Kind, ID, Stage string // Kind: audit or verify
	Done, Total     int
	Status          string
}

// BackgroundJobs lists the site's audits and verifications running that
// no API job tracks, oldest first, at most limit; with kind and id set,
// that one job whatever its status.
func (s *Store) BackgroundJobs(ctx context.Context, siteID, kind, id string, limit int) ([]BackgroundJob, error) {
	rows, err := s.pool.Query(ctx, `SELECT kind, id, status, progress_stage, progress_done, progress_total FROM (
			SELECT 'audit' AS kind, a.id, a.status, a.progress_stage, a.progress_done, a.progress_total, a.requested_at
			FROM audits a WHERE a.site_id = $1 AND NOT EXISTS (SELECT 1 FROM api_jobs j
				WHERE j.site_id = a.site_id AND j.kind = 'audit' AND j.ref = a.id)
			UNION ALL
			SELECT 'verify', v.id, v.status, v.progress_stage, v.progress_done, v.progress_total, v.requested_at
			FROM verifications v WHERE v.site_id = $1) jobs
		WHERE ($2 = '' AND status = 'running') OR (kind = $2 AND id = $3)
		ORDER BY requested_at, kind, id LIMIT $4`, siteID, kind, id, limit)
	if err != nil {
		return nil, fmt.Errorf("list background jobs of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (BackgroundJob, error) {
		var j BackgroundJob
		return j, r.Scan(&j.Kind, &j.ID, &j.Status, &j.Stage, &j.Done, &j.Total)
	})
	if err != nil {
		return nil, fmt.Errorf("list background jobs of site %s: %w", siteID, err)
	}
	return out, nil
}
