package service

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// liveSite is a loopback web site: the pages a site's links point at, as
// its web server answers them. It counts the requests each path gets.
type liveSite struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string]int
}

func startLiveSite(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *liveSite {
	s := &liveSite{requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		s.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *liveSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// The verification site: a home page, a hub and four articles on a loopback host, whose
// articles link to three paths the host answers 404 for, to an article the
// host no longer serves although no content.deleted said so, to a path
// that redirects to the hub, and to a partner host that answers every
// request with 429; the home page links an old path of an article, which
// redirects to it.
const (
	plantedBroken = 4 // /gone-1/, /gone-2/, /gone-3/ and /boots/d/, one link each
	verifySiteID  = "verify-live"
)

func verifySitePages(partner string) []events.PageInfo {
	page := func(id, url, kind, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: id, Kind: kind, ClusterID: "boots", SectorID: "hiking", Version: 1,
			HTML: "<header><a href=\"/\">Home</a></header>\n<main><article>\n" + body + "</article></main>\n"}
	}
	home := page("home", "/", "home", "<p>Welcome. See <a href=\"/boots/\">our boots</a>, <a href=\"/about/\">who we are</a> and <a href=\"/old-soles/\">soles</a>.</p>\n")
	home.ClusterID, home.SectorID = "", ""
	return []events.PageInfo{
		home,
		page("boots", "/boots/", "hub", "<p>All about boots: <a href=\"/boots/a/\">fit</a>, <a href=\"/boots/b/\">care</a> and <a href=\"/boots/c/\">soles</a>.</p>\n"),
		page("a", "/boots/a/", "supporting", "<p>Fit matters for <a href=\"/boots/\">hiking boots</a>. See <a href=\"/gone-1/\">an old page</a> and <a href=\""+partner+"/partner\">our partner</a>.</p>\n"),
		page("b", "/boots/b/", "supporting", "<p>Care for <a href=\"/boots/\">hiking boots</a>. See <a href=\"/gone-2/\">a removed page</a> and <a href=\"/old-boots/\">the old guide</a>.</p>\n"),
		page("c", "/boots/c/", "supporting", "<p>Soles of <a href=\"/boots/\">hiking boots</a>. See <a href=\"/gone-3/\">a lost page</a> and <a href=\"/boots/d/\">laces</a>.</p>\n"),
		page("d", "/boots/d/", "supporting", "<p>Laces for <a href=\"/boots/\">hiking boots</a>.</p>\n"),
	}
}

func verifySiteEvent(siteID, baseURL string) events.Event {
	return mustEvent(events.SiteUpdated, siteID, "site-"+siteID, events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: siteID, BaseURL: baseURL, Name: "Live boots", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "hiking", Name: "Hiking", URL: "/hiking/"}},
		Clusters: []events.ClusterInfo{{ID: "boots", SectorID: "hiking", Name: "Hiking Boots",
			PrimaryKeyword: "hiking boots", Keywords: []string{"hiking boot"}}},
	})
}

// serveVerifySite answers as the live verification site does.
func serveVerifySite(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/", "/about/", "/boots/", "/boots/a/", "/boots/b/", "/boots/c/":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>ok</p>")
	case "/old-boots/":
		http.Redirect(w, r, "/boots/", http.StatusMovedPermanently)
	case "/old-soles/":
		http.Redirect(w, r, "/boots/c/", http.StatusMovedPermanently)
	default:
		http.NotFound(w, r)
	}
}

func TestVerificationCountsThePlantedBrokenLinksAndUpdatesTheLinkMap(t *testing.T) {
	t.Parallel()
	live := startLiveSite(t, serveVerifySite)
	partner := startLiveSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	cfg := testConfig(t)
	cfg.HTTP.AllowHosts = []string{"127.0.0.1"}
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.progress = collect(t, h.js, "AUDIT", events.AuditProgress)
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	h.applied = collect(t, h.js, "AUDIT", events.AuditApplied)
	verified := collect(t, h.js, "VERIFY", events.VerifyCompleted)
	verifyProgress := collect(t, h.js, "VERIFY", events.VerifyProgress)
	count := sqlCounter(t, cfg.DatabaseURL)

	h.publishExisting(verifySiteEvent(verifySiteID, live.URL), verifySitePages(partner.URL))

	plain := h.audit(verifySiteID, "plain", events.AuditRequestedData{})
	if plain.BrokenLinks != 0 || plain.Status != "complete" {
		t.Fatalf("without verification: broken %d, status %q; want 0 and complete (no page is deleted)", plain.BrokenLinks, plain.Status)
	}

	// A cluster's audit checks the targets of its pages' links only: the
	// home page is in no cluster, and what only it links to is not asked.
	cluster := h.audit(verifySiteID, "cluster", events.AuditRequestedData{ClusterID: "boots", Verify: true})
	if cluster.BrokenLinks != plantedBroken || live.count("/about/") != 0 {
		t.Errorf("audit of cluster boots with verify: broken %d, /about/ requested %d times; want %d and 0",
			cluster.BrokenLinks, live.count("/about/"), plantedBroken)
	}

	internal := h.audit(verifySiteID, "internal", events.AuditRequestedData{Verify: true})
	if internal.BrokenLinks != plantedBroken || internal.RedirectLinks != 2 || internal.UnverifiedLinks != 0 || internal.Status != "complete" {
		t.Errorf("audit with verify: broken %d redirects %d unverified %d status %q %v; want %d, 2, 0, complete",
			internal.BrokenLinks, internal.RedirectLinks, internal.UnverifiedLinks, internal.Status, internal.Reasons, plantedBroken)
	}
	if n := live.count("/"); n != 1 {
		t.Errorf("the home page, linked from every page's header, was requested %d times; want 1", n)
	}
	if n := partner.count("/partner"); n != 0 {
		t.Errorf("an audit with verify (internal only) asked the external partner %d times", n)
	}
	rec, found, err := h.svc.Store().Audit(t.Context(), verifySiteID, "internal")
	if err != nil || !found {
		t.Fatalf("stored audit: found %v, %v", found, err)
	}
	var stored events.AuditCompletedData
	if err := json.Unmarshal(rec.Report, &stored); err != nil || stored.Findings == nil {
		t.Fatalf("stored report: %v", err)
	}
	if len(stored.Findings.Redirects) != 2 || !slices.ContainsFunc(stored.Findings.Redirects, func(f events.AuditFinding) bool {
		return f.PageID == "b" && strings.Contains(f.Detail, "points at a redirect; update it to the final URL "+live.URL+"/boots/")
	}) {
		t.Errorf("redirect findings %+v", stored.Findings.Redirects)
	}
	// Each redirect has its fix (trial P's had none): the home page's old
	// path is pointed at the article it ends on; b's old path of its own
	// hub, which b links already, is unwrapped, its text kept.
	recs := h.recommendations(verifySiteID, "internal")
	fixes := map[string]store.StoredRecommendation{}
	for _, r := range recs {
		if r.LinkPath == "/old-soles" || r.LinkPath == "/old-boots" {
			fixes[r.PageID+" "+r.LinkPath] = r
		}
	}
	if r := fixes["home /old-soles"]; r.Action != "retarget" || r.TargetID != "c" || r.TargetURL != "/boots/c/" {
		t.Errorf("the home page's redirected link: %+v, want it pointed at /boots/c/ (page c)", r)
	}
	if r := fixes["b /old-boots"]; r.Action != "remove" || !strings.Contains(r.Reason, "links boots") {
		t.Errorf("b's redirected link to its own hub: %+v, want it removed, b linking the hub already", r)
	}
	res := h.applyFixes(verifySiteID, "apply-redirects", events.AuditApplyData{AuditID: "internal",
		RecommendationIDs: []string{fixes["home /old-soles"].ID, fixes["b /old-boots"].ID}})
	if res.Applied != 2 || len(res.Failed) != 0 {
		t.Errorf("applying the redirects' fixes: applied %d, refused %+v", res.Applied, res.Failed)
	}
	brokenURLs := map[string]bool{}
	for _, f := range stored.Findings.Broken {
		brokenURLs[strings.TrimPrefix(f.URL, live.URL)] = true
		if !strings.Contains(f.Detail, "HTTP 404") {
			t.Errorf("broken finding %+v does not name the status", f)
		}
	}
	if want := "/boots/d/ /gone-1/ /gone-2/ /gone-3/"; strings.Join(sortedKeys(brokenURLs), " ") != want {
		t.Errorf("broken targets %v, want %s", sortedKeys(brokenURLs), want)
	}
	if got := count(`SELECT count(*) FROM link_map WHERE site_id = $1 AND status = 'broken' AND last_verified IS NOT NULL`, verifySiteID); got != plantedBroken {
		t.Errorf("%d link-map rows broken and verified, want %d", got, plantedBroken)
	}
	if got := count(`SELECT count(*) FROM link_map WHERE site_id = $1 AND redirect_target = $2 AND target_url = $3`,
		verifySiteID, live.URL+"/boots/", live.URL+"/old-boots/"); got != 1 {
		t.Errorf("%d link-map rows name the redirect's final URL, want 1", got)
	}

	external := h.audit(verifySiteID, "external", events.AuditRequestedData{VerifyExternal: true})
	if external.Status != "inconclusive" || external.UnverifiedLinks != 1 || external.BrokenLinks != plantedBroken {
		t.Errorf("audit with verify_external: status %q broken %d unverified %d; want inconclusive, %d, 1",
			external.Status, external.BrokenLinks, external.UnverifiedLinks, plantedBroken)
	}
	partnerHost := strings.TrimPrefix(partner.URL, "http://")
	if len(external.Reasons) != 1 || !strings.Contains(external.Reasons[0], partnerHost) || !strings.Contains(external.Reasons[0], "rate-limited: 429") {
		t.Errorf("reasons %v do not name the host stuck on 429", external.Reasons)
	}
	if n := partner.count("/partner"); n != 2 {
		t.Errorf("the partner stuck on 429 was asked %d times; want 2 (once, and once after its Retry-After, within the budget)", n)
	}
	if got := count(`SELECT count(*) FROM link_map WHERE site_id = $1 AND NOT internal AND last_verified IS NULL AND status = 'active'`, verifySiteID); got != 1 {
		t.Errorf("the partner's link: %d rows left active and unverified, want 1", got)
	}

	// verify.requested checks every target whose stored check it may not
	// reuse (none, without a max_age): the checker's cache answers those
	// the audits asked about, within its TTL, and says so (reused); only
	// the partner, whose 429s said nothing, is asked again. A second with
	// max_age reuses the stored conclusive checks.
	h.publish(mustEvent(events.VerifyRequested, verifySiteID, "verify-all", events.VerifyRequestedData{SiteID: verifySiteID, Scope: "all"}))
	all := waitVerified(t, verified, verifySiteID, "verify-all")
	want := events.VerifyCompletedData{VerificationID: "verify-all", Scope: "all", Status: "inconclusive",
		Targets: 13, Checked: 1, Reused: 12, OK: 6, Redirects: 2, Broken: plantedBroken, Unverified: 1}
	if all.Status != want.Status || all.Targets != want.Targets || all.Checked != want.Checked || all.OK != want.OK ||
		all.Redirects != want.Redirects || all.Broken != want.Broken || all.Unverified != want.Unverified || all.Reused != want.Reused {
		t.Errorf("verify.completed %+v, want %+v", all, want)
	}
	if len(all.UnverifiedTargets) != 1 || all.UnverifiedTargets[0].URL != partner.URL+"/partner" || all.UnverifiedTargets[0].Status != 429 {
		t.Errorf("unverified targets %+v", all.UnverifiedTargets)
	}
	progressed := false
	for _, r := range verifyProgress.all() {
		var d events.VerifyProgressData
		if json.Unmarshal(r.Event.Data, &d) == nil && d.VerificationID == "verify-all" && d.Done == 13 && d.Total == 13 {
			progressed = true
		}
	}
	if !progressed {
		t.Errorf("no verify.progress reached 13 of 13")
	}
	h.publish(mustEvent(events.VerifyRequested, verifySiteID, "verify-fresh", events.VerifyRequestedData{SiteID: verifySiteID, Scope: "all", MaxAge: "1h"}))
	fresh := waitVerified(t, verified, verifySiteID, "verify-fresh")
	// Only the partner, whose 429s said nothing, is asked again.
	if fresh.Reused != 12 || fresh.Checked != 1 || fresh.Broken != plantedBroken || fresh.Targets != 13 {
		t.Errorf("with max_age 1h: reused %d checked %d broken %d targets %d; want 12, 1, %d, 13", fresh.Reused, fresh.Checked, fresh.Broken, fresh.Targets, plantedBroken)
	}
	if n := partner.count("/partner"); n != 6 {
		t.Errorf("the partner was asked %d times over three checks of it; want 6", n)
	}
	// Within the cache's TTL, two audits and two verifications cost one
	// request a URL: the hub's second is the redirect's final hop.
	requested := map[string]int{"/": 1, "/about/": 1, "/boots/a/": 1, "/gone-1/": 1, "/old-boots/": 1, "/boots/": 2, "/old-soles/": 1, "/boots/c/": 2}
	for path, want := range requested {
		if n := live.count(path); n != want {
			t.Errorf("%s requested %d times, want %d", path, n, want)
		}
	}
	// A max_age shorter than the cache's answers is a check made now, over
	// HTTP, for every target (trial P's "--max-age 1s" got the cache's).
	time.Sleep(5 * time.Millisecond)
	h.publish(mustEvent(events.VerifyRequested, verifySiteID, "verify-now", events.VerifyRequestedData{SiteID: verifySiteID, Scope: "all", MaxAge: "1ms"}))
	now := waitVerified(t, verified, verifySiteID, "verify-now")
	if now.Checked != 13 || now.Reused != 0 {
		t.Errorf("with max_age 1ms: checked %d reused %d, want 13 and 0", now.Checked, now.Reused)
	}
	for path, want := range requested {
		more := 1
		if path == "/boots/" || path == "/boots/c/" {
			more = 2 // asked, and the final hop of a redirect
		}
		if n := live.count(path); n != want+more {
			t.Errorf("after the check with max_age 1ms %s was requested %d times, want %d", path, n, want+more)
		}
	}
	if dead := h.dead.all(); len(dead) > 0 {
		t.Errorf("%d dead letters", len(dead))
	}
}

func waitVerified(t *testing.T, c *collector, siteID, id string) events.VerifyCompletedData {
	t.Helper()
	var out events.VerifyCompletedData
	waitFor(t, waitLong, "verification "+id+" completed", func() bool {
		for _, r := range c.all() {
			var d events.VerifyCompletedData
			if r.Event.SiteID == siteID && json.Unmarshal(r.Event.Data, &d) == nil && d.VerificationID == id {
				out = d
				return true
			}
		}
		return false
	})
	return out
}

// A new-content site's placed links are checked too, once their targets
// are live: the links whose target answers 404 become broken, the others
// keep their status, and each records when it was checked.
func TestVerificationMarksPlannedLinksBrokenOrKeepsThemVerified(t *testing.T) {
	t.Parallel()
	live := startLiveSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hiking/boots/" { // the hub is gone from the live site
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "<p>ok</p>")
	})
	cfg := testConfig(t)
	cfg.HTTP.AllowHosts = []string{"127.0.0.1/32"}
	h := startHarness(t, cfg)
	verified := collect(t, h.js, "VERIFY", events.VerifyCompleted)
	count := sqlCounter(t, cfg.DatabaseURL)
	const siteID = "verify-planned"
	ev := siteEvent(siteID)
	var d events.SiteUpdatedData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		t.Fatal(err)
	}
	d.Site.BaseURL = live.URL
	h.publish(mustEvent(ev.Type, siteID, ev.ID, d))
	h.publish(hubEvent(siteID))
	for i := 1; i <= 3; i++ {
		h.publish(pageEvent(siteID, fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, waitLong, "every page linked", func() bool { return h.inserted.pageCount(siteID) == 4 })
	h.waitIdle(waitLong)
	// A generated page is checked once it is live: its publisher says so.
	for _, id := range []string{"boots-hub", "tip-1", "tip-2", "tip-3"} {
		rec, _, err := h.svc.Store().Page(t.Context(), siteID, id)
		if err != nil {
			t.Fatal(err)
		}
		h.publish(mustEvent(events.ContentPublished, siteID, "pub-"+id, events.ContentData{Page: events.PageInfo{
			ID: id, URL: rec.URL, Title: id, Kind: string(rec.Kind), ClusterID: "boots", SectorID: "hiking", Version: 1, HTML: rec.LinkedHTML}}))
	}
	h.waitIdle(waitLong)
	toHub := count(`SELECT count(*) FROM links WHERE site_id = $1 AND target_page_id = 'boots-hub' AND status IN ('inserted', 'verified', 'flagged')`, siteID)
	others := count(`SELECT count(*) FROM links WHERE site_id = $1 AND target_page_id <> 'boots-hub' AND status IN ('inserted', 'verified', 'flagged')`, siteID)
	if toHub == 0 || others == 0 {
		t.Fatalf("placed links: %d to the hub, %d to others; the test needs both", toHub, others)
	}

	h.publish(mustEvent(events.VerifyRequested, siteID, "weekly", events.VerifyRequestedData{SiteID: siteID}))
	got := waitVerified(t, verified, siteID, "weekly")
	if got.Status != "complete" || got.Broken != 1 || got.Scope != "internal" {
		t.Errorf("verify.completed %+v; want complete, one broken target (the hub), scope internal", got)
	}
	if n := count(`SELECT count(*) FROM links WHERE site_id = $1 AND target_page_id = 'boots-hub' AND status = 'broken' AND last_verified IS NOT NULL`, siteID); n != toHub {
		t.Errorf("%d links to the hub broken, want %d", n, toHub)
	}
	if n := count(`SELECT count(*) FROM links WHERE site_id = $1 AND target_page_id <> 'boots-hub' AND status IN ('verified', 'flagged') AND last_verified IS NOT NULL`, siteID); n != others {
		t.Errorf("%d links to live pages kept placed and checked, want %d", n, others)
	}

	// A verify.requested whose data names another site is refused, not run.
	h.publish(mustEvent(events.VerifyRequested, siteID, "mismatch", events.VerifyRequestedData{SiteID: "someone-else"}))
	waitFor(t, waitLong, "mismatched request dead-lettered", func() bool { return len(h.dead.all()) == 1 })
	if n := count(`SELECT count(*) FROM verifications WHERE site_id = $1`, siteID); n != 1 {
		t.Errorf("%d verifications taken, want 1", n)
	}
}

// A French trial's hub linked an article as "/carrelage", which its server
// redirects to "/carrelage/": the fix removed the hub's only link to it,
// counting the redirecting link itself as the page's link to where it
// ends. A link that is the page's only one to where it ends is pointed
// there.
func TestARedirectToTheSamePageWithASlashIsPointedThereNotRemoved(t *testing.T) {
	t.Parallel()
	live := startLiveSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/boots/", "/boots/a/", "/boots/c/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<p>ok</p>")
		case "/boots/c":
			http.Redirect(w, r, "/boots/c/", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	})
	cfg := testConfig(t)
	cfg.HTTP.AllowHosts = []string{"127.0.0.1"}
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.progress = collect(t, h.js, "AUDIT", events.AuditProgress)
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteID = "verify-slash"
	page := func(id, url, kind, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: id, Kind: kind, ClusterID: "boots", SectorID: "hiking", Version: 1,
			HTML: "<main><article>\n" + body + "</article></main>\n"}
	}
	h.publishExisting(verifySiteEvent(siteID, live.URL), []events.PageInfo{
		page("boots", "/boots/", "hub", "<p>All about boots: <a href=\"/boots/a/\">fit</a> and <a href=\"/boots/c\">soles</a>.</p>\n"),
		page("a", "/boots/a/", "supporting", "<p>Fit matters for <a href=\"/boots/\">hiking boots</a>.</p>\n"),
		page("c", "/boots/c/", "supporting", "<p>Soles of <a href=\"/boots/\">hiking boots</a>.</p>\n"),
	})
	report := h.audit(siteID, "verified", events.AuditRequestedData{Verify: true})
	if report.RedirectLinks != 1 {
		t.Fatalf("redirect links %d, want 1 (/boots/c)", report.RedirectLinks)
	}
	recs := h.recommendations(siteID, "verified")
	var fix *store.StoredRecommendation
	for i, r := range recs {
		if r.PageID == "boots" && r.LinkText == "soles" {
			fix = &recs[i]
		}
	}
	if fix == nil || fix.Action != "retarget" || fix.TargetID != "c" || fix.TargetURL != "/boots/c/" {
		t.Errorf("the hub's redirected link to c: %+v, want it pointed at /boots/c/", fix)
	}
}

// A gardening trial's apply removed the menu's and footer's link to a
// redirecting contact page from the pages whose text linked the page
// already, and pointed it at the final URL on the others: its menus then
// differed page by page. A link in the site's chrome gets the same fix
// on every page.
func TestARedirectingMenuLinkIsPointedAtItsFinalURLOnEveryPage(t *testing.T) {
	t.Parallel()
	live := startLiveSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/boots/", "/boots/a/", "/boots/b/", "/contact/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<p>ok</p>")
		case "/contact":
			http.Redirect(w, r, "/contact/", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	})
	cfg := testConfig(t)
	cfg.HTTP.AllowHosts = []string{"127.0.0.1"}
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.progress = collect(t, h.js, "AUDIT", events.AuditProgress)
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	h.applied = collect(t, h.js, "AUDIT", events.AuditApplied)
	const siteID = "verify-menu"
	const header = `<header><nav><a href="/boots/">Boots</a> <a href="/contact">Contact</a></nav></header>`
	const footer = `<footer><p><a href="/contact">Write to us</a> <a href="/boots/old/">Our old guide</a></p></footer>`
	page := func(id, url, kind, cluster, body string) events.PageInfo {
		p := events.PageInfo{ID: id, URL: url, Title: id, Kind: kind, ClusterID: cluster, Version: 1,
			HTML: header + "<main><article>\n" + body + "</article></main>\n" + footer}
		if cluster != "" {
			p.SectorID = "hiking"
		}
		return p
	}
	h.publishExisting(verifySiteEvent(siteID, live.URL), []events.PageInfo{
		page("boots", "/boots/", "hub", "boots", "<p>All about boots: <a href=\"/boots/a/\">light</a> and <a href=\"/boots/b/\">water</a>.</p>\n"),
		page("a", "/boots/a/", "supporting", "boots", "<p>Light matters for <a href=\"/boots/\">hiking boots</a>; <a href=\"/contact/\">ask us</a> anything.</p>\n"),
		page("b", "/boots/b/", "supporting", "boots", "<p>Water your <a href=\"/boots/\">hiking boots</a> weekly.</p>\n"),
		page("contact", "/contact/", "page", "", "<p>Our address.</p>\n"),
		page("old", "/boots/old/", "supporting", "boots", "<p>An old guide to <a href=\"/boots/\">hiking boots</a>.</p>\n"),
	}, "old")
	report := h.audit(siteID, "menus", events.AuditRequestedData{Verify: true})
	if report.RedirectLinks != 8 {
		t.Fatalf("redirect links %d, want 8 (the menu's and the footer's on each of 4 pages)", report.RedirectLinks)
	}
	if report.BrokenLinks != 4 {
		t.Fatalf("broken links %d, want 4 (the footer's to the deleted guide on each of 4 pages)", report.BrokenLinks)
	}
	// The deleted guide's link is pointed at its cluster's hub on every
	// page, the hub's own footer too, whatever else a page links.
	wantFix := map[string]string{"/contact": "/contact/", "/boots/old": "/boots/"}
	var ids []string
	for _, r := range h.recommendations(siteID, "menus") {
		want, ok := wantFix[r.LinkPath]
		if !ok {
			continue
		}
		if r.Action != "retarget" || r.TargetURL != want {
			t.Errorf("%s's %q link to %s: %s %q (%s), want it pointed at %s", r.PageID, r.LinkText, r.LinkPath, r.Action, r.TargetURL, r.Reason, want)
		}
		ids = append(ids, r.ID)
	}
	if len(ids) != 12 {
		t.Fatalf("%d fixes of the menu's and footer's links, want 12", len(ids))
	}
	res := h.applyFixes(siteID, "apply-menus", events.AuditApplyData{AuditID: "menus", RecommendationIDs: ids})
	if res.Applied != 12 || len(res.Failed) != 0 {
		t.Errorf("applying the menu fixes: applied %d, refused %+v", res.Applied, res.Failed)
	}
	chrome := regexp.MustCompile(`(?s)<header>.*</header>|<footer>.*</footer>`)
	fixed := h.fixedPages(siteID, "menus")
	if len(fixed) != 4 {
		t.Fatalf("%d pages fixed, want 4", len(fixed))
	}
	want := strings.NewReplacer(`"/contact"`, `"/contact/"`, `"/boots/old/"`, `"/boots/"`).Replace(header + footer)
	for id, p := range fixed {
		if got := strings.Join(chrome.FindAllString(p.HTML, -1), ""); got != want {
			t.Errorf("%s's menu and footer after the fixes:\n%s\nwant\n%s", id, got, want)
		}
	}
}

// A craft trial's page at its sibling cap linked a shortlink that
// redirects to another sibling: pointed there, the link made one sibling
// too many and apply refused the fix. It is unwrapped, its text kept,
// and a page under the cap has it pointed where it ends.
func TestARedirectEndingOnASiblingPastTheCapIsUnwrapped(t *testing.T) {
	t.Parallel()
	live := startLiveSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/boots/", "/boots/a/", "/boots/b/", "/boots/c/", "/boots/d/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<p>ok</p>")
		case "/go/d":
			http.Redirect(w, r, "/boots/d/", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	})
	cfg := testConfig(t)
	cfg.HTTP.AllowHosts = []string{"127.0.0.1"}
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.progress = collect(t, h.js, "AUDIT", events.AuditProgress)
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	h.applied = collect(t, h.js, "AUDIT", events.AuditApplied)
	const siteID = "verify-cap"
	page := func(id, url, kind, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: id, Kind: kind, ClusterID: "boots", SectorID: "hiking", Version: 1,
			HTML: "<main><article>\n" + body + "</article></main>\n"}
	}
	h.publishExisting(verifySiteEvent(siteID, live.URL), []events.PageInfo{
		page("boots", "/boots/", "hub", "<p>All about boots: <a href=\"/boots/a/\">fit</a>, <a href=\"/boots/b/\">care</a>, <a href=\"/boots/c/\">soles</a> and <a href=\"/boots/d/\">laces</a>.</p>\n"),
		page("a", "/boots/a/", "supporting", "<p>Fit matters for <a href=\"/boots/\">hiking boots</a>. See <a href=\"/boots/b/\">care</a> and <a href=\"/boots/c/\">soles</a>.</p>\n"+
			"<p>Tie them with good <a href=\"/go/d\">laces</a>.</p>\n"),
		page("b", "/boots/b/", "supporting", "<p>Care for <a href=\"/boots/\">hiking boots</a>. See <a href=\"/boots/c/\">soles</a>.</p>\n"+
			"<p>Tie them with good <a href=\"/go/d\">laces</a>.</p>\n"),
		page("c", "/boots/c/", "supporting", "<p>Soles of <a href=\"/boots/\">hiking boots</a>, <a href=\"/boots/a/\">fit</a> and <a href=\"/boots/b/\">care</a>.</p>\n"),
		page("d", "/boots/d/", "supporting", "<p>Laces for <a href=\"/boots/\">hiking boots</a>, <a href=\"/boots/a/\">fit</a> and <a href=\"/boots/c/\">soles</a>.</p>\n"),
	})
	if report := h.audit(siteID, "cap", events.AuditRequestedData{Verify: true}); report.RedirectLinks != 2 {
		t.Fatalf("redirect links %d, want 2", report.RedirectLinks)
	}
	fixes := map[string]store.StoredRecommendation{}
	for _, r := range h.recommendations(siteID, "cap") {
		if r.LinkPath == "/go/d" {
			fixes[r.PageID] = r
		}
	}
	if r := fixes["a"]; r.Action != "remove" || !strings.Contains(r.Reason, "link_type_caps") {
		t.Errorf("a's shortlink to its third sibling: %s (%s), want it unwrapped at the sibling cap", r.Action, r.Reason)
	}
	if r := fixes["b"]; r.Action != "retarget" || r.TargetID != "d" || r.TargetURL != "/boots/d/" {
		t.Errorf("b's shortlink to its second sibling: %s %s (%s), want it pointed at /boots/d/", r.Action, r.TargetURL, r.Reason)
	}
	res := h.applyFixes(siteID, "apply-cap", events.AuditApplyData{AuditID: "cap", RecommendationIDs: []string{fixes["a"].ID, fixes["b"].ID}})
	if res.Applied != 2 || len(res.Failed) != 0 {
		t.Errorf("applying the shortlinks' fixes: applied %d, refused %+v", res.Applied, res.Failed)
	}
}
