package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
)

// Reads the HTTP API serves that the pipeline does not need.

// LinksTo reads the links other pages have planned or placed to a page,
// by source page and then in each source's order.
func (s *Store) LinksTo(ctx context.Context, siteID, pageID string) ([]link.Link, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, source_page_id, target_page_id, target_url, type, anchor, anchor_type,
		candidates, zone, first_paragraphs, COALESCE(paragraph, 0), score, factors, mandatory, placement, status, reason,
		failed_rules, explanation FROM links WHERE site_id = $1 AND target_page_id = $2 AND source_page_id <> $2
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

// LatestAudit reads the site's most recently finished audit.
func (s *Store) LatestAudit(ctx context.Context, siteID string) (AuditRecord, bool, error) {
	var a AuditRecord
	err := s.pool.QueryRow(ctx, `SELECT site_id, id, cluster_id, status, report, requested_at, completed_at
		FROM audits WHERE site_id = $1 AND status <> 'running' ORDER BY completed_at DESC, id DESC LIMIT 1`, siteID).
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
	rows, err := s.pool.Query(ctx, `SELECT ordinal, id, content_id, page_version, action, link_type, target_id, target_url, anchor,
			anchor_found, anchors, first_paragraphs, priority, reason, link_path, link_text, occurrence, applied_by
		FROM audit_recommendations WHERE site_id = $1 AND audit_id = $2 AND ordinal > $3
		  AND ($4 = '' OR action = $4) AND priority >= $5
		ORDER BY ordinal LIMIT $6`, siteID, auditID, f.After, f.Action, f.MinPriority, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("read recommendations of audit %s: %w", auditID, err)
	}
	recs, err := pgx.CollectRows(rows, scanRecommendation)
	if err != nil {
		return nil, fmt.Errorf("read recommendations of audit %s: %w", auditID, err)
	}
	return recs, nil
}
