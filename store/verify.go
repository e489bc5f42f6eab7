package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// URLCheck is what an HTTP check learnt of one URL, as url_checks keeps it.
type URLCheck struct {
	URL       string
	Outcome   string // ok, redirect, broken, unverified or refused
	Status    int
	FinalURL  string
	Redirects []string
	Reason    string
	CheckedAt time.Time
}

// Conclusive reports whether a check says something of its target: ok,
// redirect or broken. An unverified or refused URL was not checked.
func (c URLCheck) Conclusive() bool {
	return c.Outcome == "ok" || c.Outcome == "redirect" || c.Outcome == "broken"
}

// CreateVerification takes a verify.requested. It reports false, changing
// nothing, when the site already has a verification of that id.
func (t *Tx) CreateVerification(ctx context.Context, siteID, id string, request []byte) (bool, error) {
	tag, err := t.exec(ctx, `INSERT INTO verifications (site_id, id, request, status) VALUES ($1, $2, $3, 'running')
		ON CONFLICT DO NOTHING`, siteID, id, request)
	if err != nil {
		return false, fmt.Errorf("take verification %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// RunningVerifications lists verifications taken and not finished, oldest
// first; those waiting out their backoff are left out.
func (s *Store) RunningVerifications(ctx context.Context, limit int) ([]Job, error) {
	return s.jobs(ctx, `SELECT site_id, id, id, request, failures, requested_at FROM verifications WHERE `+jobReady+`
		ORDER BY requested_at, site_id, id LIMIT $1`, limit)
}

// FinishVerification stores a verification's report with its status, in
// the caller's transaction. It reports false when the verification is no
// longer running (another runner finished it).
func (t *Tx) FinishVerification(ctx context.Context, siteID, id, status string, report any) (bool, error) {
	tag, err := t.exec(ctx, `UPDATE verifications SET status = $3, report = $4, completed_at = now()
		WHERE site_id = $1 AND id = $2 AND status = 'running'`, siteID, id, status, report)
	if err != nil {
		return false, fmt.Errorf("finish verification %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// VerificationRecord is a stored verification.
type VerificationRecord struct {
	SiteID, ID, Status string
	Report             []byte
	RequestedAt        time.Time
}

// Verification reads a verification of a site.
func (s *Store) Verification(ctx context.Context, siteID, id string) (VerificationRecord, bool, error) {
	r := VerificationRecord{SiteID: siteID, ID: id}
	err := s.pool.QueryRow(ctx, `SELECT status, COALESCE(report::text, ''), requested_at FROM verifications
		WHERE site_id = $1 AND id = $2`, siteID, id).Scan(&r.Status, &r.Report, &r.RequestedAt)
	if err == pgx.ErrNoRows {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read verification %s of site %s: %w", id, siteID, err)
	}
	return r, true, nil
}

// targetURLOf is the absolute URL of the pages row named alias on the
// sites row named site: its path under the site's base URL, unless the
// page's URL is absolute already.
func targetURLOf(page, site string) string {
	return `CASE WHEN ` + page + `.url ~* '^https?://' THEN ` + page + `.url ELSE rtrim(` + site + `.base_url, '/') || ` + page + `.url END`
}

// VerifyTargets lists, in URL order, the distinct URLs a verification of
// the site checks: the targets of its live pages' link map (internal
// links only, unless external) and the targets of its placed links.
// With clusterID, only the links on that cluster's pages count. Those
// checked conclusively since freshSince are returned as reused rather than
// due: a check is not repeated within the request's max_age.
func (s *Store) VerifyTargets(ctx context.Context, siteID, clusterID string, external bool, freshSince time.Time) (due []string, reused []URLCheck, err error) {
	rows, err := s.pool.Query(ctx, `WITH targets AS (
			SELECT lm.target_url AS url FROM link_map lm JOIN pages p ON p.site_id = lm.site_id AND p.id = lm.source_page_id
			WHERE lm.site_id = $1 AND lm.status <> 'removed' AND (lm.internal OR $2) AND lm.target_url ~* '^https?://'
				AND p.state <> 'deleted' AND `+liveVersionSQLOf("p")+` IS NOT NULL AND ($4 = '' OR p.cluster_id = $4)
			UNION
			SELECT `+targetURLOf("t", "s")+` FROM links l
				JOIN pages t ON t.site_id = l.site_id AND t.id = l.target_page_id
				JOIN sites s ON s.id = l.site_id
				JOIN pages src ON src.site_id = l.site_id AND src.id = l.source_page_id
			WHERE l.site_id = $1 AND ($4 = '' OR src.cluster_id = $4) AND l.status IN ('inserted', 'verified', 'flagged', 'broken') AND t.state <> 'deleted'
				AND `+liveVersionSQLOf("t")+` IS NOT NULL)
		SELECT tg.url, c.outcome, c.status_code, c.final_url, c.redirects, c.reason, c.checked_at
		FROM targets tg LEFT JOIN url_checks c ON c.site_id = $1 AND c.url = tg.url
			AND c.checked_at >= $3 AND c.outcome IN ('ok', 'redirect', 'broken')
		WHERE tg.url ~* '^https?://'
		ORDER BY tg.url`, siteID, external, freshSince, clusterID)
	if err != nil {
		return nil, nil, fmt.Errorf("list link targets of site %s: %w", siteID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c URLCheck
		var outcome, finalURL, reason *string
		var status *int
		var checkedAt *time.Time
		if err := rows.Scan(&c.URL, &outcome, &status, &finalURL, &c.Redirects, &reason, &checkedAt); err != nil {
			return nil, nil, fmt.Errorf("list link targets of site %s: %w", siteID, err)
		}
		if outcome == nil {
			due = append(due, c.URL)
			continue
		}
		c.Outcome, c.Status, c.FinalURL, c.Reason, c.CheckedAt = *outcome, *status, *finalURL, *reason, *checkedAt
		reused = append(reused, c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("list link targets of site %s: %w", siteID, err)
	}
	return due, reused, nil
}

// SaveURLChecks keeps checks of a site's URLs and carries their outcome
// to the links that point at them, in one transaction:
//   - link-map rows become active or broken, with the time of the check
//     and, for a target reached through redirects, the final URL;
//   - placed links whose target page is live (published, not deleted)
//     become broken when the check says so, and a link broken by an
//     earlier check that now answers is placed again (verified, or
//     flagged when it failed a rule); every such link records the time
//     of the check.
//
// An unverified or refused check is kept but changes no link: a URL not
// checked is neither active nor broken.
func (s *Store) SaveURLChecks(ctx context.Context, siteID string, checks []URLCheck) error {
	if len(checks) == 0 {
		return nil
	}
	n := len(checks)
	urls, outcomes, finals, reasons, redirects := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	statuses := make([]int32, n)
	times := make([]time.Time, n)
	for i, c := range checks {
		urls[i], outcomes[i], finals[i], reasons[i] = c.URL, c.Outcome, c.FinalURL, c.Reason
		statuses[i], times[i] = int32(c.Status), c.CheckedAt
		// Postgres has no array of arrays of varying length: the chain
		// travels as one text, split again on a character no URL holds.
		redirects[i] = strings.Join(c.Redirects, " ")
	}
	return s.InTx(ctx, func(tx *Tx) error {
		tx.queue(`INSERT INTO url_checks (site_id, url, outcome, status_code, final_url, redirects, reason, checked_at)
			SELECT $1, u.url, u.outcome, u.status, u.final, CASE WHEN u.chain = '' THEN '{}' ELSE string_to_array(u.chain, ' ') END,
				u.reason, u.at
			FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
				AS u(url, outcome, status, final, chain, reason, at)
			ON CONFLICT (site_id, url) DO UPDATE SET outcome = EXCLUDED.outcome, status_code = EXCLUDED.status_code,
				final_url = EXCLUDED.final_url, redirects = EXCLUDED.redirects, reason = EXCLUDED.reason,
				checked_at = EXCLUDED.checked_at`,
			siteID, urls, outcomes, statuses, finals, redirects, reasons, times)
		tx.queue(`UPDATE link_map lm SET status = CASE WHEN u.outcome = 'broken' THEN 'broken' ELSE 'active' END,
				last_verified = u.at, redirect_target = CASE WHEN u.outcome = 'redirect' THEN u.final ELSE '' END
			FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS u(url, outcome, final, at)
			WHERE lm.site_id = $1 AND lm.target_url = u.url AND lm.status <> 'removed'
				AND u.outcome IN ('ok', 'redirect', 'broken')
				-- a link to a deleted page stays broken, whatever its URL answers
				AND NOT (lm.status = 'broken' AND u.outcome <> 'broken' AND EXISTS (SELECT 1 FROM pages d
					WHERE d.site_id = lm.site_id AND d.id = lm.target_page_id AND d.state = 'deleted'))`,
			siteID, urls, outcomes, finals, times)
		// The checked URLs are resolved to the pages they name (by the
		// site's page-URL index), and their links found by target: a
		// site's every link is not read to match a few URLs.
		tx.queue(`UPDATE links l SET status = CASE
					WHEN tp.outcome = 'broken' THEN 'broken'
					WHEN l.status <> 'broken' THEN l.status
					WHEN cardinality(l.failed_rules) > 0 THEN 'flagged'
					ELSE 'verified' END,
				last_verified = tp.at, updated_at = now()
			FROM (SELECT t.id, u.outcome, u.at
				FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS u(url, outcome, at)
					JOIN sites s ON s.id = $1
					JOIN pages t ON t.site_id = $1 AND t.state <> 'deleted' AND `+liveVersionSQLOf("t")+` IS NOT NULL
						AND t.url IN (u.url, substr(u.url, length(rtrim(s.base_url, '/')) + 1))
				WHERE u.outcome IN ('ok', 'redirect', 'broken')
					AND `+targetURLOf("t", "s")+` = u.url) tp
			WHERE l.site_id = $1 AND l.target_page_id = tp.id
				AND l.status IN ('inserted', 'verified', 'flagged', 'broken')`,
			siteID, urls, outcomes, times)
		return nil
	})
}
