package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/outbound"
	"github.com/interlinker/interlinker/store"
)

// Link verification: the HTTP check of a site's link targets, asked for
// by verify.requested (the seed's weekly verify_links) or by an audit
// with verify. Each distinct target URL is checked once however many
// links point at it, through the outbound client, the one that is closed
// to SSRF and polite to hosts. Outcomes are kept per URL and carried to
// the link map and the placed links as they come (store.SaveURLChecks),
// so a run cut short keeps what it learnt and a run that starts again
// asks no host twice for the same request.

// ConsumerVerifier takes verify.requested.
const ConsumerVerifier = "verifier"

// LinkChecker checks a link target over HTTP, answering from its cache
// only with checks made at since or later; *outbound.Client is the one
// the service uses.
type LinkChecker interface {
	CheckSince(ctx context.Context, rawURL string, since time.Time) outbound.Result
}

// checkBatch is how many outcomes are kept per transaction.
const checkBatch = 100

// takeVerify takes a verify.requested: it runs in the background, as an
// audit does, since checking a large site's links outlasts any handler
// timeout.
func (p *Pipeline) takeVerify(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.VerifyRequestedData](ev)
	if err != nil {
		return err
	}
	if data.SiteID != ev.SiteID {
		return fmt.Errorf("%w: verify.requested names site %q in its data and %q in its siteid", ErrPermanent, data.SiteID, ev.SiteID)
	}
	if _, err := maxAgeOf(data.MaxAge); err != nil {
		return err
	}
	id := data.VerificationID
	if id == "" {
		id = ev.ID
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("%w: encode verify request %s: %v", ErrPermanent, ev.ID, err)
	}
	err = p.apply(ctx, ConsumerVerifier, ev, func(tx *store.Tx) (bool, error) {
		claimed, err := tx.ClaimEvent(ctx, ConsumerVerifier, ev.Identity())
		if err != nil || !claimed {
			return claimed, err
		}
		created, err := tx.CreateVerification(ctx, ev.SiteID, id, raw)
		if err == nil && !created {
			p.Logger.WarnContext(ctx, "verification id already used; request ignored", "site_id", ev.SiteID, "verification_id", id, "event_id", ev.ID)
		}
		return true, err
	})
	if err == nil && p.WakeJobs != nil {
		p.WakeJobs()
	}
	return err
}

// maxAgeOf reads a request's max_age: a Go duration, "" for none.
func maxAgeOf(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%w: max_age %q is no duration such as \"24h\"", ErrPermanent, v)
	}
	return d, nil
}

// freshSince is the oldest check a run may reuse: one made since the
// request was taken answers it, and one no older than max_age was asked
// for.
func freshSince(requestedAt time.Time, maxAge time.Duration) time.Time {
	if maxAge > 0 {
		if t := time.Now().Add(-maxAge); t.Before(requestedAt) {
			return t
		}
	}
	return requestedAt
}

// runVerify runs a verification and reports it.
func (p *Pipeline) runVerify(ctx context.Context, job store.Job, req events.Event) (bool, error) {
	data, err := events.DecodeData[events.VerifyRequestedData](req)
	if err != nil {
		return false, err
	}
	scope := data.Scope
	if scope == "" {
		scope = events.VerifyScopeInternal
	}
	maxAge, err := maxAgeOf(data.MaxAge)
	if err != nil {
		return false, err
	}
	found, err := p.siteKnown(ctx, job.SiteID)
	if err != nil {
		return false, err
	}
	if !found {
		return p.finishVerify(ctx, job, req, failedVerification(job.ID, scope,
			fmt.Sprintf("unknown site %q (no site.updated received for it)", job.SiteID)))
	}
	progress := &auditProgress{p: p, req: req, auditID: job.ID}
	v, err := p.verify(ctx, job.SiteID, "", scope == events.VerifyScopeAll, freshSince(job.RequestedAt, maxAge), maxAge, progress)
	if err != nil {
		return false, err
	}
	return p.finishVerify(ctx, job, req, v.report(job.ID, scope))
}

func (p *Pipeline) siteKnown(ctx context.Context, siteID string) (bool, error) {
	var found bool
	err := p.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		_, found, err = tx.LoadCurrentSite(ctx, siteID)
		return err
	})
	return found, err
}

// finishVerify stores a verification's report and sends verify.completed,
// in one transaction. It reports false when another runner finished it.
func (p *Pipeline) finishVerify(ctx context.Context, job store.Job, req events.Event, report events.VerifyCompletedData) (bool, error) {
	finished := false
	err := p.Store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		finished, err = tx.FinishVerification(ctx, job.SiteID, job.ID, report.Status, report)
		if err != nil || !finished {
			return err
		}
		return emit(ctx, tx, req, events.VerifyCompleted, events.DerivedID(req, events.VerifyCompleted), "", capTargets(report))
	})
	if err != nil {
		return false, err
	}
	if finished {
		if p.Notify != nil {
			p.Notify()
		}
		p.Logger.InfoContext(ctx, "verification completed", "site_id", job.SiteID, "verification_id", job.ID, "status", report.Status,
			"targets", report.Targets, "checked", report.Checked, "broken", report.Broken, "unverified", report.Unverified)
	}
	return finished, nil
}

// capTargets is the report as verify.completed carries it: the first
// reportLimit URLs of each list.
func capTargets(r events.VerifyCompletedData) events.VerifyCompletedData {
	limit := func(l []events.TargetCheck) []events.TargetCheck {
		if len(l) > reportLimit {
			return l[:reportLimit]
		}
		return l
	}
	r.BrokenTargets, r.RedirectTargets, r.UnverifiedTargets = limit(r.BrokenTargets), limit(r.RedirectTargets), limit(r.UnverifiedTargets)
	return r
}

func failedVerification(id, scope, reason string) events.VerifyCompletedData {
	return events.VerifyCompletedData{VerificationID: id, Scope: scope, Status: store.AuditFailed, Reasons: []string{reason},
		BrokenTargets: []events.TargetCheck{}, RedirectTargets: []events.TargetCheck{}, UnverifiedTargets: []events.TargetCheck{}}
}

// verification is what a run learnt: every target's check, by URL.
type verification struct {
	checks  map[string]store.URLCheck
	checked int // asked over HTTP by this run
	reused  int // taken from an earlier check
}

// verify checks the link targets of the site (of one cluster's pages, with
// clusterID; external ones too, with external) that have no check since
// freshSince, keeping each outcome as it comes, and returns every
// target's check. The checker's cache answers for a target within its
// TTL, or, when the run was given a max_age (maxAge > 0), only with a
// check no older than that: trial P's "verify --max-age 1s" was answered
// from checks an hour old. An answer from the cache counts as reused,
// not checked.
func (p *Pipeline) verify(ctx context.Context, siteID, clusterID string, external bool, freshSince time.Time, maxAge time.Duration, progress *auditProgress) (verification, error) {
	began := time.Now()
	var cacheSince time.Time
	if maxAge > 0 {
		cacheSince = began.Add(-maxAge)
	}
	if p.Checker == nil {
		return verification{}, fmt.Errorf("%w: link verification is off: the service has no outbound HTTP client", ErrPermanent)
	}
	due, reused, err := p.Store.VerifyTargets(ctx, siteID, clusterID, external, freshSince)
	if err != nil {
		return verification{}, err
	}
	v := verification{checks: make(map[string]store.URLCheck, len(due)+len(reused)), reused: len(reused)}
	for _, c := range reused {
		v.checks[c.URL] = c
	}
	progress.stage(ctx, events.AuditStageVerify, len(due))
	workers := p.VerifyWorkers
	if workers <= 0 {
		workers = outbound.DefaultGlobalConcurrency
	}
	urls := make(chan string)
	results := make(chan store.URLCheck)
	var wg sync.WaitGroup
	for range min(workers, max(len(due), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range urls {
				results <- urlCheckOf(p.Checker.CheckSince(ctx, u, cacheSince))
			}
		}()
	}
	go func() {
		defer close(urls)
		for _, u := range due {
			select {
			case urls <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	batch := make([]store.URLCheck, 0, checkBatch)
	done := 0
	var saveErr error
	save := func() {
		if saveErr == nil && len(batch) > 0 {
			saveErr = p.Store.SaveURLChecks(ctx, siteID, batch)
		}
		batch = batch[:0]
	}
	for c := range results {
		// A check cut short by the run's end says nothing of its target.
		if ctx.Err() != nil {
			continue
		}
		v.checks[c.URL] = c
		if c.CheckedAt.Before(began) {
			v.reused++ // the checker's cache answered
		} else {
			v.checked++
		}
		batch = append(batch, c)
		if len(batch) == checkBatch {
			save()
		}
		done++
		progress.step(ctx, done)
	}
	if err := ctx.Err(); err != nil {
		return verification{}, fmt.Errorf("verify links of site %s: %w", siteID, err)
	}
	save()
	if saveErr != nil {
		return verification{}, saveErr
	}
	progress.done(ctx, done)
	return v, nil
}

func urlCheckOf(r outbound.Result) store.URLCheck {
	return store.URLCheck{URL: r.URL, Outcome: r.Outcome, Status: r.Status, FinalURL: r.FinalURL, Redirects: r.Redirects,
		Reason: r.Reason, CheckedAt: r.CheckedAt}
}

// auditCheck is a kept check as the audit judges links by it.
func auditCheck(c store.URLCheck) audit.Check {
	out := audit.Check{Status: c.Status, FinalURL: c.FinalURL, Reason: c.Reason}
	switch c.Outcome {
	case outbound.OutcomeOK:
		out.Outcome = audit.CheckOK
	case outbound.OutcomeRedirect:
		out.Outcome = audit.CheckRedirect
	case outbound.OutcomeBroken:
		out.Outcome = audit.CheckBroken
	default:
		out.Outcome = audit.CheckUnverified
	}
	return out
}

// report is a verification's report, its lists in URL order.
func (v verification) report(id, scope string) events.VerifyCompletedData {
	r := events.VerifyCompletedData{VerificationID: id, Scope: scope, Status: store.AuditComplete,
		Targets: len(v.checks), Checked: v.checked, Reused: v.reused,
		BrokenTargets: []events.TargetCheck{}, RedirectTargets: []events.TargetCheck{}, UnverifiedTargets: []events.TargetCheck{}}
	urls := make([]string, 0, len(v.checks))
	for u := range v.checks {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		c := v.checks[u]
		tc := events.TargetCheck{URL: u, Status: c.Status, Reason: c.Reason}
		switch c.Outcome {
		case outbound.OutcomeOK:
			r.OK++
		case outbound.OutcomeRedirect:
			r.Redirects++
			tc.FinalURL, tc.Reason = c.FinalURL, ""
			r.RedirectTargets = append(r.RedirectTargets, tc)
		case outbound.OutcomeBroken:
			r.Broken++
			r.BrokenTargets = append(r.BrokenTargets, tc)
		case outbound.OutcomeRefused:
			r.Refused++
			r.UnverifiedTargets = append(r.UnverifiedTargets, tc)
		default:
			r.Unverified++
			r.UnverifiedTargets = append(r.UnverifiedTargets, tc)
		}
	}
	if reason := v.inconclusive(); reason != "" {
		r.Status = store.AuditInconclusive
		r.Reasons = append(r.Reasons, reason)
	}
	return r
}

// inconclusive says why some targets could not be checked, by host, or
// "" when every target was.
func (v verification) inconclusive() string {
	type hostReason struct{ host, reason string }
	counts := map[hostReason]int{}
	n := 0
	for u, c := range v.checks {
		if c.Conclusive() {
			continue
		}
		n++
		host := u
		if parsed, err := url.Parse(u); err == nil && parsed.Host != "" {
			host = parsed.Host
		}
		counts[hostReason{host, c.Reason}]++
	}
	if n == 0 {
		return ""
	}
	keys := make([]hostReason, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i].host+keys[i].reason < keys[j].host+keys[j].reason
	})
	parts := make([]string, 0, min(len(keys), 5))
	for _, k := range keys[:min(len(keys), 5)] {
		parts = append(parts, fmt.Sprintf("%s: %d (%s)", k.host, counts[k], k.reason))
	}
	if len(keys) > 5 {
		parts = append(parts, fmt.Sprintf("and %d more", len(keys)-5))
	}
	return fmt.Sprintf("%d link target(s) could not be checked over HTTP, so their links are unverified, not counted as broken or working: %s",
		n, strings.Join(parts, "; "))
}
