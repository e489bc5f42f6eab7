package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
)

// figuresOf are a report's figures, in the contract's order.
func figuresOf(d events.AuditCompletedData) []int {
	return []int{d.Pages, d.TotalLinks, d.OrphanPages, d.NavigationOnlyPages, d.MissingMandatory, d.UplinksOutsideOpening,
		d.BrokenLinks, d.UnverifiedLinks, d.OverLinkedPages, d.UnderLinkedPages, d.DominantAnchors, d.RecommendationsTotal}
}

func sameFigures(a, b events.AuditCompletedData) bool {
	fa, fb := figuresOf(a), figuresOf(b)
	for i := range fa {
		if fa[i] != fb[i] {
			return false
		}
	}
	return a.OverallHealthScore == b.OverallHealthScore
}

// completedAudits are the audit.completed a collector holds for a site,
// by audit id.
func completedAudits(c *collector, siteID string) map[string]events.AuditCompletedData {
	out := map[string]events.AuditCompletedData{}
	for _, r := range c.all() {
		var d events.AuditCompletedData
		if r.Event.SiteID == siteID && json.Unmarshal(r.Event.Data, &d) == nil {
			out[d.AuditID] = d
		}
	}
	return out
}

func TestAnAuditCutOffMidwayIsRunAgainAndNeverServedHalfDone(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// The first process is stopped mid-audit, which holds its handler past
	// any budget; a short one ends that stop soon. The next process is
	// not under test when it stops, so it keeps the default budget.
	cut := cfg
	cut.ShutdownTimeout = 3 * time.Second
	h := startHarness(t, cut)
	const siteID = "cadence-cut"
	structure, pages := existingSite(siteID)
	ah := &auditHarness{harness: h, completed: collect(t, h.js, "AUDIT", events.AuditCompleted)}
	ah.publishExisting(structure, pages, existingDeleted)

	// The audit is held where it stores its result: its figures and
	// recommendations are computed, its transaction is open.
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	lock, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, "LOCK TABLE audit_link_scores IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	h.publish(mustEvent(events.AuditRequested, siteID, "req-cut", events.AuditRequestedData{AuditID: "cut"}))
	waitFor(t, waitLong, "the audit blocked on storing its result", func() bool {
		// The runner's writes travel with its COMMIT, so the statement
		// waiting is the COMMIT; the lock it waits for names the table.
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks
			WHERE NOT granted AND relation = 'audit_link_scores'::regclass AND pid <> pg_backend_pid()`).Scan(&n)
		return err == nil && n > 0
	})
	served := func(when string) {
		t.Helper()
		var status string
		var noReport bool
		err := conn.QueryRow(ctx, `SELECT status, report IS NULL FROM audits WHERE site_id = $1 AND id = 'cut'`, siteID).Scan(&status, &noReport)
		if err != nil || status != "running" || !noReport {
			t.Errorf("%s: audit status %q, without a report %v, err %v; want it running without a report", when, status, noReport, err)
		}
		var recs int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM audit_recommendations WHERE site_id = $1 AND audit_id = 'cut'`, siteID).Scan(&recs); err != nil || recs != 0 {
			t.Errorf("%s: %d recommendations stored (%v), want none", when, recs, err)
		}
		if _, ok := completedAudits(ah.completed, siteID)["cut"]; ok {
			t.Errorf("%s: audit.completed was sent", when)
		}
	}
	served("mid-audit")

	// The process stops mid-audit; the lock goes after it has.
	h.shutDownByTest = true
	stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = h.svc.Shutdown(stopCtx)
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	served("after the stop")

	// The next process finishes the audit, whole.
	h2 := startHarness(t, cfg)
	completed := collect(t, h2.js, "AUDIT", events.AuditCompleted)
	var again events.AuditCompletedData
	waitFor(t, waitLong, "audit cut completed by the next process", func() bool {
		d, ok := completedAudits(completed, siteID)["cut"]
		again = d
		return ok
	})
	if again.Status != "complete" {
		t.Fatalf("audit cut: status %q (%v)", again.Status, again.Reasons)
	}
	h2.publish(mustEvent(events.AuditRequested, siteID, "req-ref", events.AuditRequestedData{AuditID: "ref"}))
	var ref events.AuditCompletedData
	waitFor(t, waitLong, "reference audit completed", func() bool {
		d, ok := completedAudits(completed, siteID)["ref"]
		ref = d
		return ok
	})
	if !sameFigures(again, ref) {
		t.Errorf("the audit run again reports %v (health %.2f); an uninterrupted one %v (health %.2f)",
			figuresOf(again), again.OverallHealthScore, figuresOf(ref), ref.OverallHealthScore)
	}
	stored, err := h2.svc.Store().Recommendations(ctx, siteID, "cut", nil)
	if err != nil || len(stored) != again.RecommendationsTotal {
		t.Errorf("%d recommendations stored for the audit run again (%v), its report says %d", len(stored), err, again.RecommendationsTotal)
	}
	if n := len(completedAudits(completed, siteID)); n != 2 {
		t.Errorf("%d audits completed, want cut and ref", n)
	}
	var attempts int
	if err := conn.QueryRow(ctx, `SELECT attempts FROM audits WHERE site_id = $1 AND id = 'cut'`, siteID).Scan(&attempts); err != nil || attempts != 2 {
		t.Errorf("audit cut was started %d times (%v), want 2: cut off once, then run whole", attempts, err)
	}
}

func TestTwoAuditsOfOneSiteAtOnceBothCompleteWithTheSameFigures(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteID = "cadence-twice"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	for _, id := range []string{"first", "second"} {
		h.publish(mustEvent(events.AuditRequested, siteID, "req-"+id, events.AuditRequestedData{AuditID: id}))
	}
	var got map[string]events.AuditCompletedData
	waitFor(t, waitLong, "both audits completed", func() bool {
		got = completedAudits(h.completed, siteID)
		return len(got) == 2
	})
	a, b := got["first"], got["second"]
	if a.Status != "complete" || b.Status != "complete" {
		t.Fatalf("statuses %q and %q", a.Status, b.Status)
	}
	if !sameFigures(a, b) {
		t.Errorf("two audits of one unchanged site disagree: %v and %v", figuresOf(a), figuresOf(b))
	}
	// A process runs one audit at a time: the second waited for the first.
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var overlap bool
	err = conn.QueryRow(t.Context(), `SELECT a.started_at < b.completed_at AND b.started_at < a.completed_at
		FROM audits a, audits b WHERE a.site_id = $1 AND b.site_id = $1 AND a.id = 'first' AND b.id = 'second'`, siteID).Scan(&overlap)
	if err != nil || overlap {
		t.Errorf("the two audits ran at the same time (%v): one process runs one at a time", err)
	}
}

func TestAnAuditThatKeepsFailingIsGivenUpWithItsReason(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteID = "cadence-unreadable"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	// A page row the audit cannot read: its attributes are no map.
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `UPDATE pages SET attributes = '"unreadable"' WHERE site_id = $1 AND id = $2`,
		siteID, pages[0].ID); err != nil {
		t.Fatal(err)
	}
	got := h.audit(siteID, "doomed", events.AuditRequestedData{})
	if got.Status != "failed" || len(got.Reasons) != 1 || !strings.HasPrefix(got.Reasons[0], "gave up after 3 failed runs; the last: audit doomed of site "+siteID) {
		t.Errorf("an audit that cannot read its pages: status %q, reasons %q", got.Status, got.Reasons)
	}
	var attempts, failures int
	var lastError string
	if err := conn.QueryRow(t.Context(), `SELECT attempts, failures, last_error FROM audits WHERE site_id = $1 AND id = 'doomed'`,
		siteID).Scan(&attempts, &failures, &lastError); err != nil {
		t.Fatal(err)
	}
	if attempts != 3 || failures != 3 || lastError == "" {
		t.Errorf("attempts %d, failures %d, last error %q; want 3 runs, each failed and recorded", attempts, failures, lastError)
	}
	// The queue moves on: the next audit of a readable site completes.
	other, otherPages := existingSite("cadence-readable")
	h.publishExisting(other, otherPages, existingDeleted)
	if d := h.audit("cadence-readable", "fine", events.AuditRequestedData{}); d.Status != "complete" {
		t.Errorf("the next audit: status %q (%v)", d.Status, d.Reasons)
	}
}

// TestPagesWhoseHTMLIsBrokenAreAuditedAsTheyStand publishes an existing
// site some of whose pages are not HTML a browser would be proud of:
// control characters and bytes that are no UTF-8, unclosed tags and
// attributes, thousands of nested elements, an empty body. The audit
// completes, counts every page and reads the links a browser would find in
// them; nothing crashes. A page holding U+0000 is the one event refused,
// at once and with its reason.
func TestPagesWhoseHTMLIsBrokenAreAuditedAsTheyStand(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteID = "cadence-broken-html"
	structure, pages := existingSite(siteID)
	broken := map[string]string{}
	for i, html := range []string{
		"\x01\x02\xff\xfe<p>junk \x80\x81\x7f <a href=\"/\">home</a> and <a href=\"" + pages[1].URL + "\"",
		"<p><a href='" + pages[2].URL + "'>unclosed <b><i><p>" + strings.Repeat("<div>", 5000) + "deep",
		"",
	} {
		pg := &pages[len(pages)-1-i]
		broken[pg.ID] = html
		pg.HTML = html
	}
	// A page holding U+0000, which no text may carry, is refused at once
	// with its reason; the site's other pages are audited all the same.
	nul := pages[0]
	nul.ID, nul.URL, nul.HTML = "nul-page", "/nul-page/", "<p>before\x00after</p>"
	h.publish(mustEvent(events.ContentPublished, siteID, "pub-nul", events.ContentData{Page: nul}))
	h.publishExisting(structure, pages, existingDeleted)
	got := h.audit(siteID, "broken-html", events.AuditRequestedData{})
	if got.Status != "complete" {
		t.Fatalf("an audit of pages with broken HTML: status %q, reasons %q", got.Status, got.Reasons)
	}
	if live := len(pages) - 1; got.Pages != live {
		t.Errorf("pages %d, want every live page (%d), the broken ones included", got.Pages, live)
	}
	if n := h.metricTotal("interlinker_dead_lettered_total"); n != 1 {
		t.Errorf("%v events dead-lettered, want the one holding a NUL", n)
	}
	// The link map holds what a browser finds in the junk: the links that
	// were closed before the junk ran out.
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for id, html := range broken {
		var n int
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM link_map WHERE site_id = $1 AND source_page_id = $2`,
			siteID, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := strings.Count(html, "<a href"); n > want {
			t.Errorf("page %s: %d link map rows from HTML with %d <a href", id, n, want)
		}
	}
}
