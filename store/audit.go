package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/site"
)

// Audit and apply states.
const (
	AuditRunning      = "running"
	AuditComplete     = "complete"
	AuditInconclusive = "inconclusive"
	AuditFailed       = "failed"
	ApplyDone         = "done"
)

// Job is an audit or an apply waiting to be run: its site, its id and the
// event that asked for it.
type Job struct {
	SiteID  string
	ID      string
	AuditID string // for an apply, the audit it applies
	Request []byte
	// Failures counts the runs that failed for a reason other than an
	// outage (JobFailed).
	Failures int
	// RequestedAt is when the job was taken: what a run learns after it
	// (a link target's check) answers the request, and a run that starts
	// again after an interruption need not learn it twice.
	RequestedAt time.Time
}

// JobKind names the table of a job: an audit, an apply or a verification.
type JobKind string

const (
	JobAudit  JobKind = "audit"
	JobApply  JobKind = "apply"
	JobVerify JobKind = "verify"
)

func (k JobKind) table() string {
	switch k {
	case JobApply:
		return "audit_applies"
	case JobVerify:
		return "verifications"
	}
	return "audits"
}

// jobReady is the condition of a job a runner may take: running, and past
// its backoff, 2^attempts seconds after its last start and at most five
// minutes. A process that stopped mid-job is taken over after that too.
const jobReady = `status = 'running' AND (started_at IS NULL
	OR started_at <= now() - least(power(2, attempts), 300) * interval '1 second')`

// CreateAudit takes an audit request. It reports false, changing nothing,
// when the site already has an audit of that id.
func (t *Tx) CreateAudit(ctx context.Context, siteID, auditID, clusterID string, request []byte) (bool, error) {
	tag, err := t.exec(ctx, `INSERT INTO audits (site_id, id, cluster_id, request, status) VALUES ($1, $2, $3, $4, 'running')
		ON CONFLICT DO NOTHING`, siteID, auditID, clusterID, request)
	if err != nil {
		return false, fmt.Errorf("take audit %s: %w", auditID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// CreateApply takes an audit.apply, under its event's identity.
func (t *Tx) CreateApply(ctx context.Context, siteID, id, auditID string, request []byte) error {
	t.queue(`INSERT INTO audit_applies (site_id, id, audit_id, request, status) VALUES ($1, $2, $3, $4, 'running')
		ON CONFLICT DO NOTHING`, siteID, id, auditID, request)
	return nil
}

// RunningAudits lists audits taken and not finished, oldest first.
// Those waiting out their backoff are left out.
func (s *Store) RunningAudits(ctx context.Context, limit int) ([]Job, error) {
	return s.jobs(ctx, `SELECT site_id, id, id, request, failures, requested_at FROM audits WHERE `+jobReady+`
		ORDER BY requested_at, site_id, id LIMIT $1`, limit)
}

// RunningApplies lists applies taken and not finished, oldest first; those
// waiting out their backoff, or for their audit to finish, are left out.
func (s *Store) RunningApplies(ctx context.Context, limit int) ([]Job, error) {
	return s.jobs(ctx, `SELECT site_id, id, audit_id, request, failures, requested_at FROM audit_applies ap WHERE `+jobReady+`
		AND NOT EXISTS (SELECT 1 FROM audits a WHERE a.site_id = ap.site_id AND a.id = ap.audit_id AND a.status = 'running')
		ORDER BY requested_at, site_id, id LIMIT $1`, limit)
}

// StartJob counts an attempt at a job. It reports false when the job is
// no longer running (another runner finished it).
func (s *Store) StartJob(ctx context.Context, kind JobKind, siteID, id string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE `+kind.table()+` SET attempts = attempts + 1, started_at = now()
		WHERE site_id = $1 AND id = $2 AND status = 'running'`, siteID, id)
	if err != nil {
		return false, fmt.Errorf("start %s %s: %w", kind, id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// JobFailed records why a run of a job failed; failures counts it.
func (s *Store) JobFailed(ctx context.Context, kind JobKind, siteID, id, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE `+kind.table()+` SET failures = failures + 1, last_error = $3
		WHERE site_id = $1 AND id = $2 AND status = 'running'`, siteID, id, reason)
	if err != nil {
		return fmt.Errorf("record the failure of %s %s: %w", kind, id, err)
	}
	return nil
}

func (s *Store) jobs(ctx context.Context, sql string, limit int) ([]Job, error) {
	rows, err := s.pool.Query(ctx, sql, limit)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Job, error) {
		var j Job
		return j, r.Scan(&j.SiteID, &j.ID, &j.AuditID, &j.Request, &j.Failures, &j.RequestedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return jobs, nil
}

// PendingJobs counts audits, applies and verifications not finished, for Idle.
func (s *Store) PendingJobs(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM audits WHERE status = 'running')
		+ (SELECT count(*) FROM audit_applies WHERE status = 'running')
		+ (SELECT count(*) FROM verifications WHERE status = 'running')`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count audit jobs: %w", err)
	}
	return n, nil
}

// LockJob takes the job's lock for as long as the returned release is not
// called, on a connection of its own: a process that stops mid-job loses
// its connection, and with it the lock, so another runner takes the job
// over at once. ok is false when another runner holds it.
func (s *Store) LockJob(ctx context.Context, kind string, j Job) (release func(), ok bool, err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("acquire connection: %w", err)
	}
	// Length-prefixed, so no two jobs share a key's text.
	key := fmt.Sprintf("%d:%s/%d:%s/%s", len(kind), kind, len(j.SiteID), j.SiteID, j.ID)
	if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, key).Scan(&ok); err != nil {
		c.Release()
		return nil, false, fmt.Errorf("lock %s %s: %w", kind, j.ID, err)
	}
	if !ok {
		c.Release()
		return nil, false, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
		defer cancel()
		if _, err := c.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key); err != nil {
			// A connection whose lock cannot be let go must not serve again.
			_ = c.Conn().Close(ctx)
		}
		c.Release()
	}, true, nil
}

// FinishAudit stores an audit's whole report, its recommendations and
// link scores, in the caller's transaction: a report is either all there
// with its status or not there at all.
// With scoresToPages (a whole-site audit of a site whose planner takes
// the authority factor from link scores), the scores become the pages'
// link scores. Other sites' pages take them only if their policy comes to
// ask for them (PagesTakeLinkScores): writing a score into every page row
// was most of the time an audit of a large site took.
func (t *Tx) FinishAudit(ctx context.Context, siteID, auditID, status string, report any,
	recs []audit.Recommendation, scores iter.Seq[audit.PageScore], scoresToPages bool) (bool, error) {
	raw, err := json.Marshal(report)
	if err != nil {
		return false, fmt.Errorf("encode report of audit %s: %w", auditID, err)
	}
	tag, err := t.exec(ctx, `UPDATE audits SET status = $3, report = $4, completed_at = now()
		WHERE site_id = $1 AND id = $2 AND status = 'running'`, siteID, auditID, status, raw)
	if err != nil {
		return false, fmt.Errorf("finish audit %s: %w", auditID, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	_, err = t.copyFrom(ctx, pgx.Identifier{"audit_recommendations"},
		[]string{"site_id", "audit_id", "id", "ordinal", "content_id", "page_version", "action", "link_type", "target_id",
			"target_url", "anchor", "anchor_found", "suggested_by", "anchors", "not_within", "names", "first_paragraphs", "priority", "reason", "link_path", "link_text", "occurrence"},
		pgx.CopyFromSlice(len(recs), func(i int) ([]any, error) {
			r := recs[i]
			return []any{siteID, auditID, r.ID, i, r.PageID, r.PageVersion, string(r.Action), string(r.LinkType), r.TargetID,
				r.TargetURL, r.Anchor, r.Found, r.SuggestedBy, nonNil(r.Anchors), nonNil(r.NotWithin), nonNil(r.Names), r.FirstParagraphs, r.Priority, r.Reason, r.LinkPath, r.LinkText, r.Occurrence}, nil
		}))
	if err != nil {
		return false, fmt.Errorf("store recommendations of audit %s: %w", auditID, err)
	}
	// The scores are streamed: a site of a million pages has a million.
	if scores == nil {
		scores = func(func(audit.PageScore) bool) {}
	}
	next, stop := iter.Pull(scores)
	defer stop()
	// One row is reused, its numbers behind pointers: COPY encodes a row
	// before asking for the next, and boxing a million rows' values was
	// the most garbage a large audit made once its report was done.
	var score audit.PageScore
	ordinal := -1
	row := []any{siteID, auditID, &score.PageID, &ordinal, &score.Rank, &score.Score}
	_, err = t.copyFrom(ctx, pgx.Identifier{"audit_link_scores"}, []string{"site_id", "audit_id", "page_id", "ordinal", "rank", "score"},
		pgx.CopyFromFunc(func() ([]any, error) {
			s, ok := next()
			if !ok {
				return nil, nil
			}
			score = s
			ordinal++
			return row, nil
		}))
	if err != nil {
		return false, fmt.Errorf("store link scores of audit %s: %w", auditID, err)
	}
	if scoresToPages {
		t.queue(`UPDATE pages p SET link_score = s.score FROM audit_link_scores s
			WHERE s.site_id = $1 AND s.audit_id = $2 AND p.site_id = $1 AND p.id = s.page_id
			  AND p.link_score IS DISTINCT FROM s.score`, siteID, auditID)
	}
	return true, nil
}

// PagesTakeLinkScores gives the site's pages the link scores of its latest
// finished whole-site audit, for a policy that has come to plan with them
// (authority: link_score). Pages whose score is already that are left alone.
func (t *Tx) PagesTakeLinkScores(ctx context.Context, siteID string) error {
	_, err := t.exec(ctx, `UPDATE pages p SET link_score = s.score FROM audit_link_scores s
		WHERE s.site_id = $1 AND p.site_id = $1 AND p.id = s.page_id AND p.link_score IS DISTINCT FROM s.score
		  AND s.audit_id = (SELECT id FROM audits WHERE site_id = $1 AND `+completedWholeSiteAudit+`
			ORDER BY completed_at DESC, id DESC LIMIT 1)`, siteID)
	if err != nil {
		return fmt.Errorf("give the pages of site %s their link scores: %w", siteID, err)
	}
	return nil
}

// FinishApply records an apply's result.
func (t *Tx) FinishApply(ctx context.Context, siteID, id string, result any) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("encode result of apply %s: %w", id, err)
	}
	t.queue(`UPDATE audit_applies SET status = 'done', result = $3, completed_at = now()
		WHERE site_id = $1 AND id = $2`, siteID, id, raw)
	return nil
}

// AuditRecord is a stored audit.
type AuditRecord struct {
	SiteID      string
	ID          string
	ClusterID   string
	Status      string
	Report      json.RawMessage // the audit.completed data with every list whole; nil while running
	RequestedAt time.Time
	CompletedAt *time.Time
}

// completedWholeSiteAudit is the SQL condition on audits of one that
// covers the whole site and finished with a report: complete, or
// inconclusive (its figures stand, some link checks could not be made).
// A site's latest such audit is its latest audit, for the API and for
// link scores alike.
const completedWholeSiteAudit = `cluster_id = '' AND status IN ('` + AuditComplete + `', '` + AuditInconclusive + `')`

// Audit reads an audit.
func (s *Store) Audit(ctx context.Context, siteID, auditID string) (AuditRecord, bool, error) {
	var a AuditRecord
	err := s.pool.QueryRow(ctx, `SELECT site_id, id, cluster_id, status, report, requested_at, completed_at
		FROM audits WHERE site_id = $1 AND id = $2`, siteID, auditID).
		Scan(&a.SiteID, &a.ID, &a.ClusterID, &a.Status, &a.Report, &a.RequestedAt, &a.CompletedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return AuditRecord{}, false, nil
	}
	if err != nil {
		return AuditRecord{}, false, fmt.Errorf("read audit %s: %w", auditID, err)
	}
	return a, true, nil
}

// StoredRecommendation is a recommendation as stored, with who applied it.
type StoredRecommendation struct {
	audit.Recommendation
	AppliedBy string
	Ordinal   int // its place in the report, from 0
}

// Recommendations reads an audit's recommendations in report order: ids
// names them, or every one when ids is nil.
func (s *Store) Recommendations(ctx context.Context, siteID, auditID string, ids []string) ([]StoredRecommendation, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+recommendationColumns+`
		FROM audit_recommendations WHERE site_id = $1 AND audit_id = $2 AND ($3::text[] IS NULL OR id = ANY($3))
		ORDER BY ordinal`, siteID, auditID, ids)
	if err != nil {
		return nil, fmt.Errorf("read recommendations of audit %s: %w", auditID, err)
	}
	recs, err := pgx.CollectRows(rows, scanRecommendation)
	if err != nil {
		return nil, fmt.Errorf("read recommendations of audit %s: %w", auditID, err)
	}
	return recs, nil
}

// recommendationColumns are the columns of audit_recommendations that
// scanRecommendation reads, in its order.
const recommendationColumns = `ordinal, id, content_id, page_version, action, link_type, target_id, target_url, anchor,
	anchor_found, suggested_by, anchors, not_within, names, first_paragraphs, priority, reason, link_path, link_text, occurrence, applied_by`

// scanRecommendation reads a row of audit_recommendations selected with
// recommendationColumns.
func scanRecommendation(r pgx.CollectableRow) (StoredRecommendation, error) {
	var s StoredRecommendation
	var action, typ string
	err := r.Scan(&s.Ordinal, &s.ID, &s.PageID, &s.PageVersion, &action, &typ, &s.TargetID, &s.TargetURL, &s.Anchor, &s.Found,
		&s.SuggestedBy, &s.Anchors, &s.NotWithin, &s.Names, &s.FirstParagraphs, &s.Priority, &s.Reason, &s.LinkPath, &s.LinkText, &s.Occurrence, &s.AppliedBy)
	s.Action, s.LinkType = audit.Action(action), link.Type(typ)
	return s, err
}

// LinkScores reads an audit's link scores, highest first.
func (s *Store) LinkScores(ctx context.Context, siteID, auditID string) ([]audit.PageScore, error) {
	rows, err := s.pool.Query(ctx, `SELECT page_id, rank, score FROM audit_link_scores
		WHERE site_id = $1 AND audit_id = $2 ORDER BY ordinal`, siteID, auditID)
	if err != nil {
		return nil, fmt.Errorf("read link scores of audit %s: %w", auditID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.PageScore, error) {
		var p audit.PageScore
		return p, r.Scan(&p.PageID, &p.Rank, &p.Score)
	})
	if err != nil {
		return nil, fmt.Errorf("read link scores of audit %s: %w", auditID, err)
	}
	return out, nil
}

// MarkApplied records that an apply changed the pages of these
// recommendations.
func (t *Tx) MarkApplied(ctx context.Context, siteID, auditID, by string, ids []string) error {
	t.queue(`UPDATE audit_recommendations SET applied_by = $3, applied_at = now()
		WHERE site_id = $1 AND audit_id = $2 AND id = ANY($4) AND applied_by = ''`, siteID, auditID, by, ids)
	return nil
}

// AuditPage is a page as the audit reads it: every page the site has or
// had, so links to deleted ones are known to be broken.
type AuditPage struct {
	ID         string
	URL        string
	Kind       site.Kind
	ClusterID  string
	Attributes map[string][]string
	WordCount  int
	Live       bool
	NoIndex    bool // its HTML asks not to be indexed (markup.NoIndex)
}

// AuditPageCount is how many pages the site has, live and deleted: what
// an audit makes room for before it reads them.
func (t *Tx) AuditPageCount(ctx context.Context, siteID string) (int, error) {
	var pages int
	if err := t.queryRow(ctx, `SELECT count(*) FROM pages WHERE site_id = $1`, siteID).Scan(&pages); err != nil {
		return 0, fmt.Errorf("count pages of site %s: %w", siteID, err)
	}
	return pages, nil
}

// EachAuditPage streams the site's pages, live and deleted, in the byte
// order of their ids (Go's string order, whatever the database's collation):
// an audit of a site of a million pages holds what it needs of each, not
// the rows.
func (t *Tx) EachAuditPage(ctx context.Context, siteID string, fn func(AuditPage) error) error {
	rows, err := t.query(ctx, `SELECT id, url, kind, cluster_id, attributes, word_count,
			state <> 'deleted' AND `+liveVersionSQL+` IS NOT NULL, noindex
		FROM pages WHERE site_id = $1 ORDER BY id COLLATE "C"`, siteID)
	if err != nil {
		return fmt.Errorf("read pages of site %s: %w", siteID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var p AuditPage
		var kind string
		var raw []byte
		if err := rows.Scan(&p.ID, &p.URL, &kind, &p.ClusterID, &raw, &p.WordCount, &p.Live, &p.NoIndex); err != nil {
			return fmt.Errorf("read pages of site %s: %w", siteID, err)
		}
		p.Kind = site.Kind(kind)
		if p.Attributes, err = attributeSets.decode(raw); err != nil {
			return fmt.Errorf("read pages of site %s: page %s: %w", siteID, p.ID, err)
		}
		if err := fn(p); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read pages of site %s: %w", siteID, err)
	}
	return nil
}

// LiveVersions are the live versions of the site's pages of the ids, as
// EachAuditPage reads them; a page not live has none.
func (t *Tx) LiveVersions(ctx context.Context, siteID string, ids []string) (map[string]int64, error) {
	versions := make(map[string]int64, len(ids))
	if len(ids) == 0 {
		return versions, nil
	}
	rows, err := t.query(ctx, `SELECT id, `+liveVersionSQL+` FROM pages
		WHERE site_id = $1 AND id = ANY($2) AND state <> 'deleted' AND `+liveVersionSQL+` IS NOT NULL`, siteID, ids)
	if err == nil {
		err = collectByKey(rows, versions)
	}
	if err != nil {
		return nil, fmt.Errorf("read live versions of site %s: %w", siteID, err)
	}
	return versions, nil
}

// collectByKey reads rows of a key and a value into out, and closes them.
func collectByKey[V any](rows pgx.Rows, out map[string]V) error {
	defer rows.Close()
	for rows.Next() {
		var key string
		var v V
		if err := rows.Scan(&key, &v); err != nil {
			return err
		}
		out[key] = v
	}
	return rows.Err()
}

// EachLinkMap streams the link map of the site's live pages, a page at a
// time in page id order, with the links in page order. Only one page's
// links are held at once.
//
// It is the audit's hot loop: three rows in four are a menu, header or
// footer link that every page repeats. Rows are read raw and their texts
// interned (linkMapTexts), so a repeated URL, anchor or position costs a
// map look-up rather than an allocation; the links' strings are shared
// and must not be changed.
func (t *Tx) EachLinkMap(ctx context.Context, siteID string, fn func(pageID string, links []audit.Link) error) error {
	rows, err := t.query(ctx, `SELECT lm.source_page_id, lm.target_url, lm.internal, lm.follow, lm.position, lm.in_block,
			lm.content_paragraph, lm.anchor
		FROM link_map lm JOIN pages p ON p.site_id = lm.site_id AND p.id = lm.source_page_id
		WHERE lm.site_id = $1 AND p.state <> 'deleted' AND `+liveVersionSQLOf("p")+` IS NOT NULL
		ORDER BY lm.source_page_id, lm.ordinal`, siteID)
	if err != nil {
		return fmt.Errorf("read link map of site %s: %w", siteID, err)
	}
	defer rows.Close()
	texts := newLinkMapTexts()
	var current string
	var links []audit.Link
	// prev holds the links of the page before, by position in the page:
	// a menu's link at the same position on every page is mostly the same
	// row, and comparing bytes costs less than hashing them.
	var prev []audit.Link
	for rows.Next() {
		raw := rows.RawValues()
		fields := rows.FieldDescriptions()
		if len(raw) != 8 {
			return fmt.Errorf("read link map of site %s: %d columns, want 8", siteID, len(raw))
		}
		var l audit.Link
		var err error
		if l.Internal, err = rawBool(fields[2], raw[2]); err == nil {
			if l.Follow, err = rawBool(fields[3], raw[3]); err == nil {
				l.Paragraph, err = rawInt4(fields[6], raw[6])
			}
		}
		if err != nil {
			return fmt.Errorf("read link map of site %s: %w", siteID, err)
		}
		if string(raw[0]) != current {
			if current != "" {
				if err := fn(current, links); err != nil {
					return err
				}
				prev, links = links, prev[:0]
			}
			current = string(raw[0])
		}
		var same audit.Link
		if k := len(links); k < len(prev) {
			same = prev[k]
		}
		l.URL, l.Position = texts.like(same.URL, raw[1]), texts.like(same.Position, raw[4])
		l.InBlock, l.Text = texts.like(same.InBlock, raw[5]), texts.like(same.Text, raw[7])
		links = append(links, l)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read link map of site %s: %w", siteID, err)
	}
	if current != "" {
		return fn(current, links)
	}
	return nil
}

// linkMapTexts interns the texts of link-map rows. It forgets everything
// once it holds maxLinkMapTexts, so it stays small whatever the site;
// what a site repeats (its menus) is soon learnt again.
type linkMapTexts map[string]string

const maxLinkMapTexts = 1 << 12

func newLinkMapTexts() linkMapTexts { return make(linkMapTexts, 1024) }

// like is s when b holds its bytes, else b interned.
func (m linkMapTexts) like(s string, b []byte) string {
	if s == string(b) {
		return s
	}
	return m.of(b)
}

func (m linkMapTexts) of(b []byte) string {
	if s, ok := m[string(b)]; ok {
		return s
	}
	if len(m) >= maxLinkMapTexts {
		clear(m)
	}
	s := string(b)
	m[s] = s
	return s
}

// rawBool decodes a boolean column read raw, in either wire format.
func rawBool(f pgconn.FieldDescription, b []byte) (bool, error) {
	switch {
	case f.Format == pgx.BinaryFormatCode && len(b) == 1:
		return b[0] != 0, nil
	case f.Format == pgx.TextFormatCode && len(b) == 1:
		return b[0] == 't', nil
	}
	return false, fmt.Errorf("column %s: %q is no boolean", f.Name, b)
}

// rawInt4 decodes an int column read raw, in either wire format.
func rawInt4(f pgconn.FieldDescription, b []byte) (int, error) {
	if f.Format == pgx.BinaryFormatCode {
		if len(b) != 4 {
			return 0, fmt.Errorf("column %s: %d bytes for an int4", f.Name, len(b))
		}
		return int(int32(binary.BigEndian.Uint32(b))), nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return 0, fmt.Errorf("column %s: %w", f.Name, err)
	}
	return n, nil
}

// PageLinkMap reads one page's link map, in page order.
func (t *Tx) PageLinkMap(ctx context.Context, siteID, pageID string) ([]audit.Link, error) {
	rows, err := t.query(ctx, `SELECT target_url, internal, follow, position, in_block, content_paragraph, anchor
		FROM link_map WHERE site_id = $1 AND source_page_id = $2 ORDER BY ordinal`, siteID, pageID)
	if err != nil {
		return nil, fmt.Errorf("read link map of page %s: %w", pageID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (audit.Link, error) {
		var l audit.Link
		return l, r.Scan(&l.URL, &l.Internal, &l.Follow, &l.Position, &l.InBlock, &l.Paragraph, &l.Text)
	})
	if err != nil {
		return nil, fmt.Errorf("read link map of page %s: %w", pageID, err)
	}
	return out, nil
}

// LivePage reads a page as it is live: its metadata with its live HTML
// and version. With forFix, the HTML is what fixes made of that version,
// if any, and the row is locked until the transaction ends.
func (t *Tx) LivePage(ctx context.Context, siteID, pageID string, forFix bool) (site.Page, bool, error) {
	html := `COALESCE(published_html, html)`
	lock := ``
	if forFix {
		html = `CASE WHEN fixed_version = ` + liveVersionSQL + ` THEN fixed_html ELSE COALESCE(published_html, html) END`
		lock = ` FOR UPDATE`
	}
	var p site.Page
	var kind string
	var publishedAt *time.Time
	var attrs []byte
	err := t.queryRow(ctx, `SELECT id, url, title, kind, cluster_id, sector_id, primary_keyword, keywords, labels, attributes,
			priority, published_at, `+liveVersionSQL+`, `+html+`
		FROM pages WHERE site_id = $1 AND id = $2 AND state <> 'deleted' AND `+liveVersionSQL+` IS NOT NULL`+lock, siteID, pageID).
		Scan(&p.ID, &p.URL, &p.Title, &kind, &p.ClusterID, &p.SectorID, &p.PrimaryKeyword, &p.Keywords, &p.Labels, &attrs,
			&p.Priority, &publishedAt, &p.Version, &p.HTML)
	if errors.Is(err, pgx.ErrNoRows) {
		return site.Page{}, false, nil
	}
	if err != nil {
		return site.Page{}, false, fmt.Errorf("read live page %s: %w", pageID, err)
	}
	p.SiteID, p.Kind = siteID, site.Kind(kind)
	if publishedAt != nil {
		p.PublishedAt = *publishedAt
	}
	if err := json.Unmarshal(attrs, &p.Attributes); err != nil {
		return site.Page{}, false, fmt.Errorf("read live page %s: attributes: %w", pageID, err)
	}
	return p, true, nil
}

// SaveFixedPage stores what fixes made of a page's live version and
// numbers the links.inserted it goes out in, which it returns.
func (t *Tx) SaveFixedPage(ctx context.Context, siteID, pageID string, version int64, html string) (int64, error) {
	var seq int64
	err := t.queryRow(ctx, `UPDATE pages SET fixed_html = $4, fixed_version = $3, inserted_seq = inserted_seq + 1,
			fixed_seq = inserted_seq + 1, updated_at = now()
		WHERE site_id = $1 AND id = $2 RETURNING inserted_seq`, siteID, pageID, version, html).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("store fixed page %s: %w", pageID, err)
	}
	return seq, nil
}

// liveVersionSQLOf is liveVersionSQL of the pages row named alias.
func liveVersionSQLOf(alias string) string {
	return `COALESCE(` + alias + `.live_version, CASE WHEN ` + alias + `.state = 'published' THEN ` + alias + `.version END)`
}
