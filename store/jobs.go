package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
)

// APIJob is work an HTTP API request started.
type APIJob struct {
	SiteID string
	ID     string
	Kind   JobKind
	Ref    string // the audit's id, or the apply's event identity
	// PageIDs are the pages of a plan or restore job, in the order of
	// EventIDs: its command for PageIDs[i] is EventIDs[i].
	PageIDs []string
	// Consumer, EventSource and EventIDs are the command events of a job
	// of another kind, done once Consumer has taken them.
	Consumer       string
	EventSource    string
	EventIDs       []string
	IdempotencyKey string
	RequestHash    []byte
	CreatedAt      time.Time
}

// Kinds of API jobs besides audits and applies: commands a consumer takes.
const (
	JobPlan    JobKind = "plan"    // re-plan pages (links.replan)
	JobRestore JobKind = "restore" // restore a kept plan (links.restore)
)

// ErrIdempotencyConflict is a key already used for another request.
var ErrIdempotencyConflict = errors.New("idempotency key already used for another request")

// CreateAPIJob records a job in the transaction that enqueues its
// command. With an idempotency key already used for the same request it
// returns that job and created false (the caller enqueues nothing); used
// for another request, ErrIdempotencyConflict.
func (t *Tx) CreateAPIJob(ctx context.Context, j APIJob) (APIJob, bool, error) {
	var key any
	if j.IdempotencyKey != "" {
		key = j.IdempotencyKey
	}
	err := t.queryRow(ctx, `INSERT INTO api_jobs (site_id, id, kind, ref, consumer, event_source, event_ids, page_ids,
			idempotency_key, request_hash)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (site_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
		RETURNING created_at`, j.SiteID, j.ID, string(j.Kind), j.Ref, j.Consumer, j.EventSource, nonNil(j.EventIDs),
		nonNil(j.PageIDs), key, j.RequestHash).Scan(&j.CreatedAt)
	if err == nil {
		return j, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return APIJob{}, false, fmt.Errorf("record job %s: %w", j.ID, err)
	}
	var first APIJob
	var kind string
	err = t.queryRow(ctx, `SELECT site_id, id, kind, ref, idempotency_key, request_hash, created_at FROM api_jobs
		WHERE site_id = $1 AND idempotency_key = $2`, j.SiteID, j.IdempotencyKey).
		Scan(&first.SiteID, &first.ID, &kind, &first.Ref, &first.IdempotencyKey, &first.RequestHash, &first.CreatedAt)
	if err != nil {
		return APIJob{}, false, fmt.Errorf("read the job of idempotency key %q: %w", j.IdempotencyKey, err)
	}
	first.Kind = JobKind(kind)
	if !bytes.Equal(first.RequestHash, j.RequestHash) {
		return first, false, ErrIdempotencyConflict
	}
	return first, false, nil
}

// JobOfKey reads the job an idempotency key started on a site, if any.
func (s *Store) JobOfKey(ctx context.Context, siteID, key string) (APIJob, bool, error) {
	var j APIJob
	var kind string
	err := s.pool.QueryRow(ctx, `SELECT site_id, id, kind, ref, idempotency_key, request_hash, created_at FROM api_jobs
		WHERE site_id = $1 AND idempotency_key = $2`, siteID, key).
		Scan(&j.SiteID, &j.ID, &kind, &j.Ref, &j.IdempotencyKey, &j.RequestHash, &j.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return APIJob{}, false, nil
	}
	if err != nil {
		return APIJob{}, false, fmt.Errorf("read the job of idempotency key %q: %w", key, err)
	}
	j.Kind = JobKind(kind)
	return j, true, nil
}

// JobState is how far a job has come.
type JobState struct {
	APIJob
	// Status: queued (its command not yet taken), running, or the
	// finished work's status (complete, inconclusive, failed; done for an
	// apply).
	Status      string
	Stage       string
	Done, Total int
	Result      json.RawMessage // an apply's audit.applied data once done
	CompletedAt *time.Time
}

// APIJobState reads a job and the state of the work it started. A
// command job found done is marked finished, so it stays done after the
// inbox forgets its events.
func (s *Store) APIJobState(ctx context.Context, siteID, id string) (JobState, bool, error) {
	var j JobState
	var kind string
	var status, stage *string
	var done, total *int
	var taken int
	err := s.pool.QueryRow(ctx, `SELECT j.site_id, j.id, j.kind, j.ref, j.consumer, j.event_source, j.event_ids, j.page_ids,
			COALESCE(j.idempotency_key, ''), j.created_at,
			COALESCE(a.status, ap.status), a.progress_stage, a.progress_done, a.progress_total, ap.result,
			COALESCE(a.completed_at, ap.completed_at, j.finished_at),
			CASE WHEN j.consumer = '' OR j.finished_at IS NOT NULL THEN cardinality(j.event_ids) ELSE
				(SELECT count(*) FROM inbox i WHERE i.consumer = j.consumer AND i.site_id = j.site_id
				   AND i.source = j.event_source AND i.event_id = ANY(j.event_ids)) END
		FROM api_jobs j
		LEFT JOIN audits a ON j.kind = 'audit' AND a.site_id = j.site_id AND a.id = j.ref
		LEFT JOIN audit_applies ap ON j.kind = 'apply' AND ap.site_id = j.site_id AND ap.id = j.ref
		WHERE j.site_id = $1 AND j.id = $2`, siteID, id).
		Scan(&j.SiteID, &j.ID, &kind, &j.Ref, &j.Consumer, &j.EventSource, &j.EventIDs, &j.PageIDs, &j.IdempotencyKey, &j.CreatedAt,
			&status, &stage, &done, &total, &j.Result, &j.CompletedAt, &taken)
	if errors.Is(err, pgx.ErrNoRows) {
		return JobState{}, false, nil
	}
	if err != nil {
		return JobState{}, false, fmt.Errorf("read job %s: %w", id, err)
	}
	j.Kind = JobKind(kind)
	j.Status = "queued"
	switch {
	case status != nil:
		j.Status = *status
		if stage != nil {
			j.Stage, j.Done, j.Total = *stage, *done, *total
		}
	case j.Consumer != "":
		j.Done, j.Total = taken, len(j.EventIDs)
		switch {
		case taken == len(j.EventIDs):
			j.Status = "done"
			if j.CompletedAt == nil {
				now := time.Now()
				j.CompletedAt = &now
				if _, err := s.pool.Exec(ctx, `UPDATE api_jobs SET finished_at = $3 WHERE site_id = $1 AND id = $2
					AND finished_at IS NULL`, siteID, id, now); err != nil {
					return JobState{}, false, fmt.Errorf("mark job %s finished: %w", id, err)
				}
			}
		case taken > 0:
			j.Status = "running"
		}
	}
	return j, true, nil
}

// SetAuditProgress keeps an audit's progress for polling.
func (t *Tx) SetAuditProgress(ctx context.Context, siteID, auditID, stage string, done, total int) {
	t.queue(`UPDATE audits SET progress_stage = $3, progress_done = $4, progress_total = $5
		WHERE site_id = $1 AND id = $2 AND status = 'running'`, siteID, auditID, stage, done, total)
}

// SetVerificationProgress keeps a verification's progress for polling.
func (t *Tx) SetVerificationProgress(ctx context.Context, siteID, id, stage string, done, total int) {
	t.queue(`UPDATE verifications SET progress_stage = $3, progress_done = $4, progress_total = $5
		WHERE site_id = $1 AND id = $2 AND status = 'running'`, siteID, id, stage, done, total)
}

// PagePlan names the plan a command was to make for a page: a plan id
// derives from its command's identity.
type PagePlan struct {
	PageID, PlanID string
}

// Where a plan a command made is kept.
const (
	PlanCurrent  = "current"  // it is the page's plan: its links are the page's
	PlanReplaced = "replaced" // planned again since: its links are as its snapshot kept them
)

// PlanMade is a plan a command made, as it stands.
type PlanMade struct {
	PagePlan
	Kept  string // PlanCurrent, PlanReplaced, or "" when nothing holds the plan
	Links []link.Link
}

// jobPlansSQL finds the plans asked for ($2 pages, $3 plan ids) of site
// $1: those still current, and the newest snapshot of each replaced one.
const jobPlansSQL = `WITH asked AS (SELECT * FROM unnest($2::text[], $3::text[]) AS a(page_id, plan_id)),
	cur AS (SELECT a.page_id FROM asked a JOIN pages p ON p.site_id = $1 AND p.id = a.page_id AND p.plan_id = a.plan_id),
	snap AS (SELECT DISTINCT ON (a.page_id) a.page_id, s.links FROM asked a
		JOIN link_snapshots s ON s.site_id = $1 AND s.page_id = a.page_id AND s.plan_id = a.plan_id
		WHERE a.page_id NOT IN (SELECT page_id FROM cur) ORDER BY a.page_id, s.id DESC)
`

// PlansMade reads the plans commands made: a page's links while the plan
// is still its own, else the links the plan's newest snapshot kept. It
// reads both in one snapshot of the database, so a plan replaced meanwhile
// is read whole from one place or the other.
func (s *Store) PlansMade(ctx context.Context, siteID string, plans []PagePlan) ([]PlanMade, error) {
	out := make([]PlanMade, len(plans))
	pages, planIDs := make([]string, len(plans)), make([]string, len(plans))
	at := make(map[string]int, len(plans))
	for i, p := range plans {
		out[i].PagePlan = p
		pages[i], planIDs[i] = p.PageID, p.PlanID
		at[p.PageID] = i
	}
	if len(plans) == 0 {
		return out, nil
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("read %d plans of site %s: %w", len(plans), siteID, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	rows, err := tx.Query(ctx, jobPlansSQL+`SELECT page_id, '`+PlanCurrent+`' FROM cur
		UNION ALL SELECT page_id, '`+PlanReplaced+`' FROM snap`, siteID, pages, planIDs)
	if err != nil {
		return nil, fmt.Errorf("find %d plans of site %s: %w", len(plans), siteID, err)
	}
	kept, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ PageID, Kept string }])
	if err != nil {
		return nil, fmt.Errorf("find %d plans of site %s: %w", len(plans), siteID, err)
	}
	for _, k := range kept {
		out[at[k.PageID]].Kept = k.Kept
	}
	rows, err = tx.Query(ctx, jobPlansSQL+`SELECT id, source_page_id, target_page_id, target_url, type, anchor, anchor_type,
			candidates, zone, first_paragraphs, COALESCE(paragraph, 0), score, factors, mandatory, placement, status, reason,
			failed_rules, explanation
		FROM (SELECT l.* FROM cur JOIN links l ON l.site_id = $1 AND l.source_page_id = cur.page_id
			UNION ALL SELECT l.* FROM snap, json_populate_recordset(NULL::links, snap.links) l) AS l
		ORDER BY source_page_id, position`, siteID, pages, planIDs)
	if err != nil {
		return nil, fmt.Errorf("read the links of %d plans of site %s: %w", len(plans), siteID, err)
	}
	links, err := pgx.CollectRows(rows, scanLink)
	if err != nil {
		return nil, fmt.Errorf("read the links of %d plans of site %s: %w", len(plans), siteID, err)
	}
	for _, l := range links {
		if i, ok := at[l.SourcePageID]; ok {
			out[i].Links = append(out[i].Links, l)
		}
	}
	return out, nil
}
