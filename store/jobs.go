package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// APIJob is work an HTTP API request started.
type APIJob struct {
	SiteID string
	ID     string
	Kind   JobKind
	Ref    string // the audit's id, or the apply's event identity
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
	err := t.queryRow(ctx, `INSERT INTO api_jobs (site_id, id, kind, ref, consumer, event_source, event_ids, idempotency_key, request_hash)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (site_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
		RETURNING created_at`, j.SiteID, j.ID, string(j.Kind), j.Ref, j.Consumer, j.EventSource, nonNil(j.EventIDs), key,
		j.RequestHash).Scan(&j.CreatedAt)
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
	err := s.pool.QueryRow(ctx, `SELECT j.site_id, j.id, j.kind, j.ref, j.consumer, j.event_source, j.event_ids,
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
		Scan(&j.SiteID, &j.ID, &kind, &j.Ref, &j.Consumer, &j.EventSource, &j.EventIDs, &j.IdempotencyKey, &j.CreatedAt,
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
