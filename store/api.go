package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
)

// Reads the HTTP API serves that the pipeline does not need.

// LinksTo reads the links other pages have planned or placed to a page,
// by source page and then in each source's order. A deleted page's links
// are none: its rows stay, removed, only when it was planned before it
// was deleted, and two trials' replays of the same events in one burst
// listed different inbound links for it.
func (s *Store) LinksTo(ctx context.Context, siteID, pageID string) ([]link.Link, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, source_page_id, target_page_id, target_url, type, anchor, anchor_type,
		candidates, zone, first_paragraphs, COALESCE(paragraph, 0), score, factors, mandatory, placement, status, reason,
		failed_rules, explanation FROM links l WHERE site_id = $1 AND target_page_id = $2 AND source_page_id <> $2
		AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.site_id = $1 AND p.id = l.source_page_id AND p.state = 'deleted')
		ORDER BY source_page_id, position`, siteID, pageID)
	if err != nil {
		return nil, fmt.Errorf("load links to page %s: %w", pageID, err)
	}
	links, err := pgx.CollectRows(rows, scanLink)
	if err != nil {
		return nil, fmt.Errorf("load links to page %s: %w", pageID, err)
	}
	return links, nil
}

// LatestSiteAudit reads the site's latest completed whole-site audit
// (completedWholeSiteAudit): what the site's "latest audit" means. A
// cluster audit covers part of the site and a failed one has no figures;
// either is read by its id (Audit).
func (s *Store) LatestSiteAudit(ctx context.Context, siteID string) (AuditRecord, bool, error) {
	var a AuditRecord
	err := s.pool.QueryRow(ctx, `SELECT site_id, id, cluster_id, status, report, requested_at, completed_at
		FROM audits WHERE site_id = $1 AND `+completedWholeSiteAudit+` ORDER BY completed_at DESC, id DESC LIMIT 1`, siteID).
		Scan(&a.SiteID, &a.ID, &a.ClusterID, &a.Status, &a.Report, &a.RequestedAt, &a.CompletedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return AuditRecord{}, false, nil
	}
	if err != nil {
		return AuditRecord{}, false, fmt.Errorf("read latest audit of site %s: %w", siteID, err)
	}
	return a, true, nil
}

// RecommendationFilter narrows a page of an audit's recommendations.
type RecommendationFilter struct {
	Action      string  // "" for any
	MinPriority float64 // 0 for any
	After       int     // the ordinal the previous page ended at; -1 for the first page
	Limit       int
}

// RecommendationPage reads a page of an audit's recommendations in report
// order.
func (s *Store) RecommendationPage(ctx context.Context, siteID, auditID string, f RecommendationFilter) ([]StoredRecommendation, error) {
	q := listQuery{args: []any{siteID, auditID, f.After, f.MinPriority, f.Limit}}
	q.filter("action = $%d", f.Action)
	rows, err := s.pool.Query(ctx, `SELECT `+recommendationColumns+`
		FROM audit_recommendations WHERE site_id = $1 AND audit_id = $2 AND ordinal > $3
		  AND priority >= $4`+q.where+`
		ORDER BY ordinal LIMIT $5`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("read recommendations of audit %s: %w", auditID, err)
	}
	recs, err := pgx.CollectRows(rows, scanRecommendation)
	if err != nil {
		return nil, fmt.Errorf("read recommendations of audit %s: %w", auditID, err)
	}
	return recs, nil
}

// LinkFilter narrows a page of a site's links; the zero value is all of
// them from the start.
type LinkFilter struct {
	Type, Status, ClusterID string // "" for any; ClusterID is the source page's cluster
	Source, Target          string // page ids, "" for any
	// AfterPage and AfterPosition are where the previous page ended.
	AfterPage     string
	AfterPosition int
	Limit         int
}

// LinkRow is a link with its place in the list.
type LinkRow struct {
	link.Link
	Position int
}

// LinkPage reads a page of a site's links, by source page and then in each
// page's order.
func (s *Store) LinkPage(ctx context.Context, siteID string, f LinkFilter) ([]LinkRow, error) {
	q := listQuery{args: []any{siteID, f.AfterPage, f.AfterPosition, f.Limit}}
	q.filter("l.type = $%d", f.Type)
	q.filter("l.status = $%d", f.Status)
	q.filter("l.source_page_id = $%d", f.Source)
	q.filter("l.target_page_id = $%d", f.Target)
	q.filter("EXISTS (SELECT 1 FROM pages p WHERE p.site_id = l.site_id AND p.id = l.source_page_id AND p.cluster_id = $%d)", f.ClusterID)
	rows, err := s.pool.Query(ctx, `SELECT l.position, l.id, l.source_page_id, l.target_page_id, l.target_url, l.type, l.anchor,
			l.anchor_type, l.candidates, l.zone, l.first_paragraphs, COALESCE(l.paragraph, 0), l.score, l.factors, l.mandatory,
			l.placement, l.status, l.reason, l.failed_rules, l.explanation
		FROM links l
		WHERE l.site_id = $1 AND (l.source_page_id, l.position) > ($2, $3)`+q.where+`
		ORDER BY l.source_page_id, l.position LIMIT $4`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("list links of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkRow, error) {
		var l LinkRow
		var typ, anchorType, zone, status string
		err := r.Scan(&l.Position, &l.ID, &l.SourcePageID, &l.TargetPageID, &l.TargetURL, &typ, &l.Anchor, &anchorType,
			&l.Candidates, &zone, &l.FirstParagraphs, &l.Paragraph, &l.Score, &l.Factors, &l.Mandatory, &l.Placement,
			&status, &l.Reason, &l.FailedRules, &l.Explanation)
		l.Type, l.AnchorType, l.Zone, l.Status = link.Type(typ), link.AnchorType(anchorType), link.Zone(zone), link.Status(status)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("list links of site %s: %w", siteID, err)
	}
	return out, nil
}

// LinkMapEntry is an <a> found in a live page's HTML.
type LinkMapEntry struct {
	SourcePageID     string
	Ordinal          int // its place among the page's links, from 0
	TargetURL        string
	TargetPageID     string
	Anchor           string
	Internal, Follow bool
	Position         string
	InBlock          string
	ContentParagraph int
}

// LinkMapFilter picks the link map entries a page of it holds: those of
// one source page or to one target page (empty: any), after the entry
// (AfterPage, AfterOrdinal), at most Limit.
type LinkMapFilter struct {
	Source, Target string
	AfterPage      string
	AfterOrdinal   int
	Limit          int
}

// LinkMapPage reads a page of the link map of the site's live pages, by
// source page and then in page order.
func (s *Store) LinkMapPage(ctx context.Context, siteID string, f LinkMapFilter) ([]LinkMapEntry, error) {
	q := listQuery{args: []any{siteID, f.AfterPage, f.AfterOrdinal, f.Limit}}
	q.filter("lm.source_page_id = $%d", f.Source)
	q.filter("lm.target_page_id = $%d", f.Target)
	rows, err := s.pool.Query(ctx, `SELECT lm.source_page_id, lm.ordinal, lm.target_url, lm.target_page_id, lm.anchor, lm.internal,
			lm.follow, lm.position, lm.in_block, lm.content_paragraph
		FROM link_map lm JOIN pages p ON p.site_id = lm.site_id AND p.id = lm.source_page_id
		WHERE lm.site_id = $1 AND (lm.source_page_id, lm.ordinal) > ($2, $3)`+q.where+`
		  AND p.state <> 'deleted' AND `+liveVersionSQLOf("p")+` IS NOT NULL
		ORDER BY lm.source_page_id, lm.ordinal LIMIT $4`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("read link map of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LinkMapEntry, error) {
		var e LinkMapEntry
		return e, r.Scan(&e.SourcePageID, &e.Ordinal, &e.TargetURL, &e.TargetPageID, &e.Anchor, &e.Internal, &e.Follow,
			&e.Position, &e.InBlock, &e.ContentParagraph)
	})
	if err != nil {
		return nil, fmt.Errorf("read link map of site %s: %w", siteID, err)
	}
	return out, nil
}

// Link reads one link of a site by its id.
func (s *Store) Link(ctx context.Context, siteID, id string) (link.Link, bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, source_page_id, target_page_id, target_url, type, anchor, anchor_type,
		candidates, zone, first_paragraphs, COALESCE(paragraph, 0), score, factors, mandatory, placement, status, reason,
		failed_rules, explanation FROM links WHERE site_id = $1 AND id = $2`, siteID, id)
	if err != nil {
		return link.Link{}, false, fmt.Errorf("read link %s: %w", id, err)
	}
	links, err := pgx.CollectRows(rows, scanLink)
	if err != nil {
		return link.Link{}, false, fmt.Errorf("read link %s: %w", id, err)
	}
	if len(links) == 0 {
		return link.Link{}, false, nil
	}
	return links[0], true, nil
}

// SiteExists reports whether a site has been declared (site.updated).
func (s *Store) SiteExists(ctx context.Context, siteID string) (bool, error) {
	var found bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sites WHERE id = $1)`, siteID).Scan(&found); err != nil {
		return false, fmt.Errorf("look up site %s: %w", siteID, err)
	}
	return found, nil
}

// SitePolicy reads the policy a site chose and its overrides, unresolved
// (policy.Resolve), without its structure.
func (s *Store) SitePolicy(ctx context.Context, siteID string) (name string, overrides json.RawMessage, found bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT policy, overrides FROM sites WHERE id = $1`, siteID).Scan(&name, &overrides)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("read policy of site %s: %w", siteID, err)
	}
	return name, overrides, true, nil
}

// PageHead is what identifies a page, without its content.
type PageHead struct {
	ID, URL, Kind, ClusterID, State string
	Version                         int64
	Planned                         bool // interlinker has planned its links (it came as content.generated)
}

// PageHead reads a page's identity.
func (s *Store) PageHead(ctx context.Context, siteID, pageID string) (PageHead, bool, error) {
	var p PageHead
	err := s.pool.QueryRow(ctx, `SELECT id, url, kind, cluster_id, state, version, plan_id <> '' FROM pages WHERE site_id = $1 AND id = $2`,
		siteID, pageID).Scan(&p.ID, &p.URL, &p.Kind, &p.ClusterID, &p.State, &p.Version, &p.Planned)
	if errors.Is(err, pgx.ErrNoRows) {
		return PageHead{}, false, nil
	}
	if err != nil {
		return PageHead{}, false, fmt.Errorf("read page %s: %w", pageID, err)
	}
	return p, true, nil
}

// PageSummary is a page as the site's page list shows it.
type PageSummary struct {
	PageHead
	Title, SectorID   string
	WordCount         int
	Inbound, Outbound int
	// Passed is whether its last validation passed; nil for a page never
	// validated (existing content, or not planned yet).
	Passed *bool
}

// PageFilter picks the pages a page of the site's page list holds: of one
// kind, cluster and state (empty: any), after the page with id After, at
// most Limit.
type PageFilter struct {
	Kind, ClusterID, State string
	After                  string
	Limit                  int
}

// PageList reads a page of the site's pages, by id (the primary key's
// order, so a page of the list is an index scan however large the site).
func (s *Store) PageList(ctx context.Context, siteID string, f PageFilter) ([]PageSummary, error) {
	q := listQuery{args: []any{siteID, f.After, f.Limit}}
	q.filter("kind = $%d", f.Kind)
	q.filter("cluster_id = $%d", f.ClusterID)
	q.filter("state = $%d", f.State)
	rows, err := s.pool.Query(ctx, `SELECT id, url, kind, cluster_id, state, version, plan_id <> '', title, sector_id,
			word_count, inbound_link_count, outbound_link_count, (validation->>'passed')::boolean
		FROM pages WHERE site_id = $1 AND id > $2`+q.where+` ORDER BY id LIMIT $3`, q.args...)
	if err != nil {
		return nil, fmt.Errorf("list pages of site %s: %w", siteID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PageSummary, error) {
		var p PageSummary
		err := r.Scan(&p.ID, &p.URL, &p.Kind, &p.ClusterID, &p.State, &p.Version, &p.Planned, &p.Title, &p.SectorID,
			&p.WordCount, &p.Inbound, &p.Outbound, &p.Passed)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list pages of site %s: %w", siteID, err)
	}
	return out, nil
}

// ScoredPage is a page with the link score an audit gave it.
type ScoredPage struct {
	PageHead
	LinkScore float64 // 0 when the audit scored it not
}

// PagesWithLinkScores reads the pages of ids that exist, with the link
// scores audit auditID gave them, by id.
func (s *Store) PagesWithLinkScores(ctx context.Context, siteID, auditID string, ids []string) (map[string]ScoredPage, error) {
	out := make(map[string]ScoredPage, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT p.id, p.url, p.kind, p.cluster_id, p.state, p.version, COALESCE(ls.score, 0)
		FROM pages p LEFT JOIN audit_link_scores ls ON ls.site_id = p.site_id AND ls.audit_id = $2 AND ls.page_id = p.id
		WHERE p.site_id = $1 AND p.id = ANY($3)`, siteID, auditID, ids)
	if err != nil {
		return nil, fmt.Errorf("read %d pages of site %s with their link scores: %w", len(ids), siteID, err)
	}
	pages, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ScoredPage, error) {
		var p ScoredPage
		return p, r.Scan(&p.ID, &p.URL, &p.Kind, &p.ClusterID, &p.State, &p.Version, &p.LinkScore)
	})
	if err != nil {
		return nil, fmt.Errorf("read %d pages of site %s with their link scores: %w", len(ids), siteID, err)
	}
	for _, p := range pages {
		out[p.ID] = p
	}
	return out, nil
}

// listQuery gathers the optional filters of a list's statement. A filter
// is written into the statement only when it is given, rather than as
// "$n = ” OR column = $n": a prepared statement's generic plan keeps that
// OR as a filter, and reads the site's list from its start through the
// keyset index to find one page's rows (EXPLAIN on 200,000 rows: 199,990
// removed by the filter, against an index condition when written in).
type listQuery struct {
	where string
	args  []any
}

// filter adds condition, whose %d is the next parameter's number, with
// value as that parameter, unless value is empty.
func (q *listQuery) filter(condition, value string) {
	if value == "" {
		return
	}
	q.args = append(q.args, value)
	q.where += " AND " + fmt.Sprintf(condition, len(q.args))
}
