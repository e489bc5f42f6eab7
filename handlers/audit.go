package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// Existing-content mode. An audit.requested is taken in its handler's
// transaction and run in the background (RunAudits) from one snapshot of
// the site: an audit of a large site outlasts any handler timeout, and a
// process that stops mid-audit leaves it taken, for the next runner to
// run again from the start. Its report is written whole, with its status,
// in one transaction, so a half-written report is never read as complete.

// Consumers of existing-content mode.
const (
	ConsumerAuditor = "auditor"
	ConsumerApplier = "audit-applier"
)

// reportLimit is how many recommendations and link scores audit.completed
// carries; the stored report has them all.
const reportLimit = 100

// Progress is sent at least every progressShare of a stage and every
// progressEvery.
const (
	progressShare = 0.05
	progressEvery = 2 * time.Second
)

// takeAudit takes an audit request: the audit runs in the background.
func (p *Pipeline) takeAudit(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.AuditRequestedData](ev)
	if err != nil {
		return err
	}
	auditID := data.AuditID
	if auditID == "" {
		auditID = ev.ID
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("%w: encode audit request %s: %v", ErrPermanent, ev.ID, err)
	}
	err = p.apply(ctx, ConsumerAuditor, ev, func(tx *store.Tx) (bool, error) {
		claimed, err := tx.ClaimEvent(ctx, ConsumerAuditor, ev.Identity())
		if err != nil || !claimed {
			return claimed, err
		}
		created, err := tx.CreateAudit(ctx, ev.SiteID, auditID, data.ClusterID, raw)
		if err == nil && !created {
			p.Logger.WarnContext(ctx, "audit id already used; request ignored", "site_id", ev.SiteID, "audit_id", auditID, "event_id", ev.ID)
		}
		return true, err
	})
	if err == nil && p.WakeJobs != nil {
		p.WakeJobs()
	}
	return err
}

// takeApply takes an audit.apply: it runs in the background once its
// audit is done.
func (p *Pipeline) takeApply(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.AuditApplyData](ev)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("%w: encode audit.apply %s: %v", ErrPermanent, ev.ID, err)
	}
	err = p.apply(ctx, ConsumerApplier, ev, func(tx *store.Tx) (bool, error) {
		claimed, err := tx.ClaimEvent(ctx, ConsumerApplier, ev.Identity())
		if err != nil || !claimed {
			return claimed, err
		}
		return true, tx.CreateApply(ctx, ev.SiteID, ev.Identity().MsgID(), data.AuditID, raw)
	})
	if err == nil && p.WakeJobs != nil {
		p.WakeJobs()
	}
	return err
}

// maxJobFailures is how many runs of an audit or apply may fail, for a
// reason other than an outage, before it is given up with its last error
// as the reason. An outage (isTransient) never counts: the job waits it
// out, backing off.
const maxJobFailures = 3

// jobLookahead is how many jobs past limit a runner looks at: one another
// runner holds is skipped, and the next is taken.
const jobLookahead = 8

// RunJobs runs the audits and applies waiting, oldest first, up to limit
// of each, and reports how many it finished. A job another runner holds is
// left to it; one that failed waits out its backoff (store.RunningAudits).
func (p *Pipeline) RunJobs(ctx context.Context, limit int) (int, error) {
	done := 0
	for _, kind := range []store.JobKind{store.JobAudit, store.JobApply, store.JobVerify} {
		list, run := p.Store.RunningAudits, p.runAudit
		switch kind {
		case store.JobApply:
			list, run = p.Store.RunningApplies, p.runApply
		case store.JobVerify:
			list, run = p.Store.RunningVerifications, p.runVerify
		}
		jobs, err := list(ctx, limit+jobLookahead)
		if err != nil {
			return done, err
		}
		ran := 0
		for _, job := range jobs {
			if ran == limit {
				break
			}
			locked, finished, err := p.runLocked(ctx, kind, job, run)
			if err != nil {
				return done, err
			}
			if locked {
				ran++
			}
			if finished {
				done++
			}
		}
	}
	return done, nil
}

// runLocked runs a job under its lock, counting the attempt. A run that
// fails for a reason other than an outage is recorded, and the
// maxJobFailures-th such failure finishes the job as failed, with the
// error as its reason, instead of retrying it for ever.
func (p *Pipeline) runLocked(ctx context.Context, kind store.JobKind, job store.Job,
	run func(context.Context, store.Job, events.Event) (bool, error)) (locked, finished bool, err error) {
	release, ok, err := p.Store.LockJob(ctx, string(kind), job)
	if err != nil || !ok {
		return false, false, err
	}
	defer release()
	started, err := p.Store.StartJob(ctx, kind, job.SiteID, job.ID)
	if err != nil || !started {
		return true, false, err
	}
	req, err := events.Decode(job.Request)
	if err != nil {
		return true, false, fmt.Errorf("%s %s: stored request: %w", kind, job.ID, err)
	}
	ctx, span := p.startJobSpan(ctx, string(kind), req)
	defer span.End()
	finished, err = run(ctx, job, req)
	if err == nil {
		return true, finished, nil
	}
	err = fmt.Errorf("%s %s of site %s: %w", kind, job.ID, job.SiteID, err)
	if isTransient(err) || ctx.Err() != nil {
		return true, false, err
	}
	if rerr := p.Store.JobFailed(ctx, kind, job.SiteID, job.ID, err.Error()); rerr != nil {
		return true, false, errors.Join(err, rerr)
	}
	if job.Failures+1 < maxJobFailures {
		return true, false, err
	}
	reason := fmt.Sprintf("gave up after %d failed runs; the last: %v", maxJobFailures, err)
	p.Logger.ErrorContext(ctx, "audit job given up", "kind", string(kind), "site_id", job.SiteID, "id", job.ID, "err", err)
	if kind == store.JobVerify {
		data, derr := events.DecodeData[events.VerifyRequestedData](req)
		if derr != nil {
			return true, false, errors.Join(err, derr)
		}
		finished, err = p.finishVerify(ctx, job, req, failedVerification(job.ID, data.Scope, reason))
		return true, finished, err
	}
	if kind == store.JobApply {
		// Pages fixed before the failure stay fixed; their recommendations
		// say so (applied_by).
		finished, err = p.finishApply(ctx, job, req, events.AuditAppliedData{AuditID: job.AuditID,
			Failed: []events.ApplyFailure{{ID: job.AuditID, Reason: reason}}})
		return true, finished, err
	}
	data, derr := events.DecodeData[events.AuditRequestedData](req)
	if derr != nil {
		return true, false, errors.Join(err, derr)
	}
	finished, err = p.finishAudit(ctx, job, req, failedAudit(job.ID, data.ClusterID, reason), time.Now())
	return true, finished, err
}

func (p *Pipeline) runAudit(ctx context.Context, job store.Job, req events.Event) (bool, error) {
	data, err := events.DecodeData[events.AuditRequestedData](req)
	if err != nil {
		return false, err
	}
	began := time.Now()
	progress := &auditProgress{p: p, req: req, auditID: job.ID}
	// Link targets are checked before the site is read: the checks take
	// as long as hosts make them, and a snapshot is not held open that
	// long.
	var checks *verification
	if data.Verify || data.VerifyExternal {
		maxAge, err := maxAgeOf(data.MaxAge)
		if err != nil {
			return p.finishAudit(ctx, job, req, failedAudit(job.ID, data.ClusterID, err.Error()), began)
		}
		// A cluster's audit reports its pages' links: only theirs are checked.
		v, err := p.verify(ctx, job.SiteID, data.ClusterID, data.VerifyExternal, freshSince(job.RequestedAt, maxAge), maxAge, progress)
		if err != nil {
			return false, err
		}
		checks = &v
	}
	var result auditResult
	err = p.Store.InSnapshotTx(ctx, func(tx *store.Tx) error {
		var err error
		result, err = p.audit(ctx, tx, job, data, checks, progress)
		return err
	})
	if err != nil {
		return false, err
	}
	if err := p.suggestAnchors(ctx, job.SiteID, result.recs, result.needs); err != nil {
		return false, err
	}
	result.full.Recommendations = recommendationEvents(result.recs)
	return p.finishAudit(ctx, job, req, result, began)
}

// finishAudit stores an audit's result and sends audit.completed, in one
// transaction. It reports false when another runner finished it first.
func (p *Pipeline) finishAudit(ctx context.Context, job store.Job, req events.Event, result auditResult, began time.Time) (bool, error) {
	finished := false
	storing := time.Now()
	defer func() {
		p.Logger.DebugContext(ctx, "audit stored", "site_id", job.SiteID, "audit_id", job.ID, "store_seconds", time.Since(storing).Seconds())
	}()
	err := p.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		finished, err = tx.FinishAudit(ctx, job.SiteID, job.ID, result.full.Status, result.full, result.recs, result.scores,
			result.planWithScores && result.full.ClusterID == "" && result.full.Status != store.AuditFailed)
		if err != nil || !finished {
			return err
		}
		return emit(ctx, tx, req, events.AuditCompleted, events.DerivedID(req, events.AuditCompleted), "", result.event())
	})
	if err != nil {
		return false, err
	}
	if finished {
		if p.Notify != nil {
			p.Notify()
		}
		p.Logger.InfoContext(ctx, "audit completed", "site_id", job.SiteID, "audit_id", job.ID, "status", result.full.Status,
			"pages", result.full.Pages, "links", result.full.TotalLinks, "recommendations", len(result.recs),
			"seconds", time.Since(began).Seconds())
	}
	return finished, nil
}

// auditResult is an audit's whole report, its recommendations and link
// scores as stored.
type auditResult struct {
	full events.AuditCompletedData // every list whole
	recs []audit.Recommendation
	// scores are every link score of the audit's pages, highest first;
	// full and the event carry the highest (audit.TopLinkScores).
	scores iter.Seq[audit.PageScore]
	// planWithScores: the site's planner takes its authority factor from
	// the link scores (authority: link_score), so a whole-site audit's
	// scores become the pages'.
	planWithScores bool
	// needs are the recommendations the model is asked to suggest an
	// anchor for, once the audit's transaction is over.
	needs []anchorNeed
}

// event is the report as audit.completed carries it: the first
// reportLimit recommendations and link scores.
func (r auditResult) event() events.AuditCompletedData {
	d := r.full
	d.Findings = nil
	if len(d.Recommendations) > reportLimit {
		d.Recommendations = d.Recommendations[:reportLimit]
	}
	if len(d.LinkScores) > reportLimit {
		d.LinkScores = d.LinkScores[:reportLimit]
	}
	return d
}

// failedAudit is the report of an audit that could not be made.
func failedAudit(auditID, clusterID, reason string) auditResult {
	return auditResult{full: events.AuditCompletedData{AuditID: auditID, ClusterID: clusterID, Status: store.AuditFailed,
		Reasons: []string{reason}, ClusterScores: map[string]events.ClusterScore{}, Recommendations: []events.Recommendation{},
		LinkScores: []events.LinkScore{}}}
}

// audit reads the site in the transaction's snapshot: its pages, then its
// link map a page at a time, then works out the figures, the link scores
// and the recommendations.
func (p *Pipeline) audit(ctx context.Context, tx *store.Tx, job store.Job, data events.AuditRequestedData, checks *verification, progress *auditProgress) (auditResult, error) {
	sc, found, err := currentSite(ctx, tx, job.SiteID)
	switch {
	case errors.Is(err, ErrPermanent):
		return failedAudit(job.ID, data.ClusterID, err.Error()), nil
	case err != nil:
		return auditResult{}, err
	case !found:
		return failedAudit(job.ID, data.ClusterID, fmt.Sprintf("unknown site %q (no site.updated received for it)", job.SiteID)), nil
	}
	if _, ok := sc.structure.Cluster(data.ClusterID); data.ClusterID != "" && !ok {
		return failedAudit(job.ID, data.ClusterID, fmt.Sprintf("unknown cluster %q of site %s", data.ClusterID, job.SiteID)), nil
	}
	began := time.Now()
	spills, err := newTempSpills()
	if err != nil {
		return auditResult{}, err
	}
	defer spills.Close()
	auditor := audit.New(sc.structure, sc.policy, spills)
	n, err := tx.AuditPageCount(ctx, job.SiteID)
	if err != nil {
		return auditResult{}, err
	}
	auditor.Grow(n)
	live := 0
	err = tx.EachAuditPage(ctx, job.SiteID, func(sp store.AuditPage) error {
		if sp.Live {
			live++
		}
		p := audit.Page{ID: sp.ID, URL: sp.URL, Kind: sp.Kind, ClusterID: sp.ClusterID, WordCount: sp.WordCount,
			Live: sp.Live, NoIndex: sp.NoIndex}
		if sp.Kind == site.KindTerm { // the one kind whose values the audit reads
			p.Values = sc.structure.Facets(sp.Attributes)
		}
		return auditor.Know(p)
	})
	if err != nil {
		return auditResult{}, err
	}
	pagesRead := time.Now()
	if checks != nil {
		auditor.UseChecks(func(u string) (audit.Check, bool) {
			c, ok := checks.checks[u]
			return auditCheck(c), ok
		})
	}
	progress.stage(ctx, events.AuditStageLinkMap, live)
	read := 0
	err = tx.EachLinkMap(ctx, job.SiteID, func(pageID string, links []audit.Link) error {
		if err := auditor.AddPage(pageID, links); err != nil {
			return err
		}
		read++
		progress.step(ctx, read)
		return ctx.Err()
	})
	if err != nil {
		return auditResult{}, err
	}
	progress.done(ctx, read)
	linkMapRead := time.Now()
	progress.stage(ctx, events.AuditStageFigures, 1)
	report, err := auditor.ReportFor(data.ClusterID)
	if err != nil {
		return auditResult{}, err
	}
	progress.done(ctx, 1)
	figured := time.Now()
	r := &recommender{p: p, tx: tx, sc: sc, siteID: job.SiteID, auditor: auditor, report: report, progress: progress, proposed: newAnchorTally(),
		templateFixes: map[int]bool{}}
	recs, err := r.recommend(ctx)
	if err != nil {
		return auditResult{}, err
	}
	if err := r.nameTargets(ctx); err != nil {
		return auditResult{}, err
	}
	p.Logger.DebugContext(ctx, "audit read and worked out", "site_id", job.SiteID, "audit_id", job.ID,
		"pages_seconds", pagesRead.Sub(began).Seconds(), "link_map_seconds", linkMapRead.Sub(pagesRead).Seconds(),
		"figures_seconds", figured.Sub(linkMapRead).Seconds(), "recommendations_seconds", time.Since(figured).Seconds())
	// The recommender's report: it adds to a finding what no fix answers.
	result := completed(job.ID, data, r.report, recs, checks)
	result.scores = auditor.LinkScores(data.ClusterID)
	result.planWithScores = sc.policy.Authority == policy.AuthorityLinkScore
	result.needs = r.needs
	return result, nil
}

// completed is an audit's report under the SAG seed's SAGLinkAudit names.
func completed(auditID string, req events.AuditRequestedData, r audit.Report, recs []audit.Recommendation, checks *verification) auditResult {
	d := events.AuditCompletedData{
		AuditID: auditID, ClusterID: req.ClusterID, Status: store.AuditComplete,
		Pages: r.Pages, TotalLinks: r.TotalLinks, OrphanPages: len(r.Orphans), NavigationOnlyPages: len(r.NavigationOnly),
		MissingMandatory: len(r.MissingMandatory), UplinksOutsideOpening: len(r.UplinkOutsideFirst),
		BrokenLinks: len(r.Broken), UnverifiedLinks: len(r.Unverified), RedirectLinks: len(r.Redirects), OverLinkedPages: len(r.OverLinked),
		UnderLinkedPages: len(r.UnderLinked), DominantAnchors: len(r.DominantAnchors), SiloCrossingLinks: len(r.SiloCrossings),
		ClusterScores: map[string]events.ClusterScore{}, OverallHealthScore: round2(r.Health),
		RecommendationsTotal: len(recs),
		LinkScores:           make([]events.LinkScore, len(r.LinkScores)),
		Findings:             findings(r),
	}
	// A link whose target could not be checked is neither broken nor
	// working: an audit that asked for checks and lacks some never
	// reports "0 broken" as if it had them.
	if checks != nil {
		if reason := checks.inconclusive(); reason != "" {
			d.Status = store.AuditInconclusive
			d.Reasons = append(d.Reasons, reason)
		}
	}
	if r.Pages == 0 {
		d.Status = store.AuditInconclusive
		d.Reasons = append(d.Reasons, "the site has no live pages (nothing published, or everything deleted)")
	}
	for id, c := range r.Clusters {
		d.ClusterScores[id] = events.ClusterScore{Score: round2(c.Score), Missing: c.Missing, Issues: c.Issues}
	}
	d.Recommendations = recommendationEvents(recs)
	for i, s := range r.LinkScores {
		d.LinkScores[i] = events.LinkScore{PageID: s.PageID, Score: round2(s.Score), Rank: s.Rank}
	}
	return auditResult{full: d, recs: recs}
}

// recommendationEvents are recommendations as audit.completed carries them.
func recommendationEvents(recs []audit.Recommendation) []events.Recommendation {
	out := make([]events.Recommendation, len(recs))
	for i, rec := range recs {
		out[i] = events.Recommendation{ID: rec.ID, ContentID: rec.PageID, Action: string(rec.Action),
			LinkType: string(rec.LinkType), TargetID: rec.TargetID, AnchorSuggestion: rec.Anchor,
			AnchorSuggestedBy: rec.SuggestedBy, Priority: rec.Priority, Reason: rec.Reason}
	}
	return out
}

// findings are the pages and links behind the figures, for the stored
// report and its exports.
func findings(r audit.Report) *events.AuditFindings {
	list := func(fs []audit.Finding) []events.AuditFinding {
		out := make([]events.AuditFinding, len(fs))
		for i, f := range fs {
			out[i] = events.AuditFinding{PageID: f.PageID, TargetID: f.TargetID, URL: f.URL, Anchor: f.Anchor, Detail: f.Detail}
		}
		return out
	}
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return &events.AuditFindings{
		Orphans: nonNil(r.Orphans), NavigationOnly: nonNil(r.NavigationOnly), MissingMandatory: nonNil(r.MissingMandatory),
		UplinksOutsideOpening: nonNil(r.UplinkOutsideFirst), OverLinked: list(r.OverLinked), UnderLinked: list(r.UnderLinked),
		Broken: list(r.Broken), Unverified: list(r.Unverified), Redirects: list(r.Redirects), DominantAnchors: list(r.DominantAnchors),
		DuplicateLinks: list(r.Duplicates), SiblingsOverCap: list(r.OverCap), CrossClusterOverCap: list(r.CrossClusterOverCap),
		SiloCrossings: list(r.SiloCrossings),
	}
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// auditProgress sends audit.progress: at each stage's start and end, and
// in between every progressShare of the stage or progressEvery, whichever
// comes first. A progress event that cannot be sent is logged and skipped:
// progress is a courtesy, the report is what counts.
type auditProgress struct {
	p       *Pipeline
	req     events.Event
	auditID string
	name    string
	total   int
	last    int
	at      time.Time
}

func (a *auditProgress) stage(ctx context.Context, name string, total int) {
	a.name, a.total, a.last = name, total, -1
	a.send(ctx, 0)
}

func (a *auditProgress) step(ctx context.Context, done int) {
	if float64(done-a.last) >= progressShare*float64(a.total) || time.Since(a.at) >= progressEvery {
		a.send(ctx, done)
	}
}

func (a *auditProgress) done(ctx context.Context, done int) {
	if done != a.last {
		a.send(ctx, done)
	}
}

func (a *auditProgress) send(ctx context.Context, done int) {
	a.last, a.at = done, time.Now()
	// A verification's progress has the shape of an audit's, on its own
	// subject.
	var data any = events.AuditProgressData{AuditID: a.auditID, Stage: a.name, Done: done, Total: a.total}
	subject := events.AuditProgress
	if a.req.Type == events.VerifyRequested {
		data = events.VerifyProgressData{VerificationID: a.auditID, Stage: a.name, Done: done, Total: a.total}
		subject = events.VerifyProgress
	}
	id := events.DerivedID(a.req, fmt.Sprintf("%s/%s/%d", subject, a.name, done))
	err := a.p.Store.InTx(ctx, func(tx *store.Tx) error {
		if subject == events.AuditProgress {
			tx.SetAuditProgress(ctx, a.req.SiteID, a.auditID, a.name, done, a.total)
		} else {
			tx.SetVerificationProgress(ctx, a.req.SiteID, a.auditID, a.name, done, a.total)
		}
		return emit(ctx, tx, a.req, subject, id, "", data)
	})
	if err != nil {
		a.p.Logger.WarnContext(ctx, "audit progress not sent", "site_id", a.req.SiteID, "audit_id", a.auditID, "stage", a.name, "err", err)
		return
	}
	if a.p.Notify != nil {
		a.p.Notify()
	}
}
