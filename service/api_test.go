package service

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
)

// apiClient calls the HTTP API as a client would, and holds every answer
// to the OpenAPI document the service serves.
type apiClient struct {
	t        *testing.T
	base     string
	contract *openAPIContract
}

func newAPIClient(t *testing.T, h *harness) apiClient {
	t.Helper()
	c := apiClient{t: t, base: "http://" + h.svc.HTTPAddr() + handlers.APIPrefix}
	status, _, raw := c.do(http.MethodGet, "/openapi.json", "", "", "", nil)
	if status != http.StatusOK {
		t.Fatalf("openapi.json: %d %.200s", status, raw)
	}
	c.contract = newOpenAPIContract(t, raw)
	return c
}

// do sends a request and returns its answer, once the answer is checked
// against the OpenAPI document.
func (c apiClient) do(method, path, token, key, body string, header http.Header) (int, http.Header, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.contract != nil {
		if err := c.contract.check(method, handlers.APIPrefix+path, resp.StatusCode, resp.Header.Get("Content-Type"), raw); err != nil {
			c.t.Errorf("contract: %v", err)
		}
	}
	if resp.StatusCode >= 400 {
		if _, err := readProblem(resp.StatusCode, resp.Header, raw); err != nil {
			c.t.Errorf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode, resp.Header, raw
}

// problem is an RFC 9457 problem as a client reads it.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Errors []struct {
		Location string `json:"location"`
		Message  string `json:"message"`
	} `json:"errors"`
}

// readProblem reads an error answer and reports how it falls short of the
// API's problems: application/problem+json with a type (README's URI for
// its status), title, status, detail and errors[], which names where each
// fault is on a 400 (query.limit, body.sneaky, header.Authorization).
func readProblem(status int, hdr http.Header, raw []byte) (problem, error) {
	var p problem
	var fields map[string]json.RawMessage
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		return p, fmt.Errorf("error %d as %q, want application/problem+json: %.200s", status, ct, raw)
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return p, fmt.Errorf("error %d: %v: %.200s", status, err, raw)
	}
	for _, f := range []string{"type", "title", "status", "detail", "errors"} {
		if _, ok := fields[f]; !ok {
			return p, fmt.Errorf("error %d has no %s: %.300s", status, f, raw)
		}
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("error %d: %v: %.200s", status, err, raw)
	}
	if p.Type != handlers.ProblemType(status) || !strings.HasPrefix(p.Type, "https://interlinker.dev/problems/") {
		return p, fmt.Errorf("error %d has type %q, want %q", status, p.Type, handlers.ProblemType(status))
	}
	if p.Status != status || p.Title != http.StatusText(status) || p.Detail == "" {
		return p, fmt.Errorf("error %d: status %d, title %q, detail %q", status, p.Status, p.Title, p.Detail)
	}
	if status == http.StatusBadRequest || status == http.StatusUnauthorized || status == http.StatusRequestEntityTooLarge {
		if len(p.Errors) == 0 {
			return p, fmt.Errorf("error %d names no parameter or field in errors[]: %.300s", status, raw)
		}
		for _, e := range p.Errors {
			if e.Location == "" {
				return p, fmt.Errorf("error %d has an error without its location: %.300s", status, raw)
			}
		}
	}
	return p, nil
}

// locations lists where a problem's errors are.
func (p problem) locations() []string {
	out := make([]string, len(p.Errors))
	for i, e := range p.Errors {
		out[i] = e.Location
	}
	return out
}

func (c apiClient) get(path, token string) (int, http.Header, []byte) {
	c.t.Helper()
	return c.do(http.MethodGet, path, token, "", "", nil)
}

func (c apiClient) getJSON(path, token string, v any) {
	c.t.Helper()
	status, _, body := c.get(path, token)
	if status != http.StatusOK {
		c.t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
}

func TestTheAPIServesEachSiteToItsOwnTokensOnly(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.AdminToken = "operator-secret-for-tests"
	h := &auditHarness{harness: startHarness(t, cfg)}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteA, siteB = "cadence-api", "cadence-api-other"
	for _, id := range []string{siteA, siteB} {
		structure, pages := existingSite(id)
		h.publishExisting(structure, pages, existingDeleted)
	}
	report := h.audit(siteA, "api-audit", events.AuditRequestedData{})
	h.audit(siteB, "other-audit", events.AuditRequestedData{})
	h.siteWithLinkedHub("gen-api")

	st := h.svc.Store()
	_, tokenA, err := st.CreateToken(t.Context(), siteA, "tests")
	if err != nil {
		t.Fatal(err)
	}
	_, tokenB, err := st.CreateToken(t.Context(), siteB, "other")
	if err != nil {
		t.Fatal(err)
	}
	revoked, tokenRevoked, err := st.CreateToken(t.Context(), siteA, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.RevokeToken(t.Context(), revoked.ID); err != nil || !ok {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	_, tokenGen, err := st.CreateToken(t.Context(), "gen-api", "")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h.harness)

	// Every route: no token and a revoked one are 401, another site's
	// token 404 (as for a site that does not exist), the site's own 200.
	aPage := "how-to-size-a-road-bike" // any page of the site; content routes need one that exists
	if _, pages := existingSite(siteA); len(pages) > 0 {
		aPage = pages[0].ID
	}
	routes := []string{
		"/linker/audit/?site_id=" + siteA,
		"/linker/audit/recommendations/?site_id=" + siteA,
		"/linker/orphans/?site_id=" + siteA,
		"/linker/health/?site_id=" + siteA,
		"/linker/content/" + aPage + "/links/?site_id=" + siteA,
		"/linker/links/?site_id=" + siteA,
		"/linker/link-map/?site_id=" + siteA,
		"/linker/content/?site_id=" + siteA,
	}
	for _, route := range routes {
		for _, tc := range []struct {
			who, token string
			want       int
		}{{"no token", "", 401}, {"a revoked token", tokenRevoked, 401}, {"a made-up token", "ilk_nope", 401},
			{"another site's token", tokenB, 404}, {"the site's token", tokenA, 200}, {"the operator", cfg.AdminToken, 200}} {
			status, hdr, body := c.get(route, tc.token)
			if status != tc.want {
				t.Errorf("GET %s with %s: %d, want %d: %s", route, tc.who, status, tc.want, body)
			}
			if status >= 400 && !strings.HasPrefix(hdr.Get("Content-Type"), "application/problem+json") {
				t.Errorf("GET %s with %s: error as %q, want application/problem+json", route, tc.who, hdr.Get("Content-Type"))
			}
		}
	}
	// A site that does not exist answers as one the token may not see.
	status, _, unknownBody := c.get("/linker/audit/?site_id=no-such-site", cfg.AdminToken)
	_, _, otherBody := c.get("/linker/audit/?site_id="+siteB, tokenA)
	if status != 404 || !strings.Contains(string(unknownBody), "not found") || !strings.Contains(string(otherBody), "not found") {
		t.Errorf("unknown site: %d %s; another's: %s", status, unknownBody, otherBody)
	}

	// The audit as stored, with every finding.
	var got events.AuditCompletedData
	c.getJSON("/linker/audit/?site_id="+siteA, tokenA, &got)
	if !sameFigures(got, report) || got.AuditID != "api-audit" || got.Findings == nil || len(got.Findings.Orphans) != report.OrphanPages {
		t.Errorf("audit over HTTP: %v, audit.completed %v", figuresOf(got), figuresOf(report))
	}

	// Recommendations page through every one, in report order.
	var ids []string
	next := "/linker/audit/recommendations/?limit=5&site_id=" + siteA
	pages := 0
	for next != "" {
		var list handlers.RecommendationList
		c.getJSON(next, tokenA, &list)
		pages++
		if len(list.Items) > 5 {
			t.Fatalf("a page of %d items, limit 5", len(list.Items))
		}
		for _, r := range list.Items {
			ids = append(ids, r.ID)
		}
		next = ""
		if list.NextCursor != "" {
			next = "/linker/audit/recommendations/?limit=5&site_id=" + siteA + "&cursor=" + url.QueryEscape(list.NextCursor)
		}
	}
	stored, err := st.Recommendations(t.Context(), siteA, "api-audit", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != report.RecommendationsTotal || len(ids) != len(stored) {
		t.Fatalf("paged through %d recommendations in %d pages; the report has %d", len(ids), pages, report.RecommendationsTotal)
	}
	for i := range ids {
		if ids[i] != stored[i].ID {
			t.Fatalf("recommendation %d is %s, stored %s", i, ids[i], stored[i].ID)
		}
	}
	var adds handlers.RecommendationList
	c.getJSON("/linker/audit/recommendations/?action=add&min_priority=50&limit=500&site_id="+siteA, tokenA, &adds)
	for _, r := range adds.Items {
		if r.Action != "add" || r.Priority < 50 {
			t.Errorf("filtered list holds %+v", r)
		}
	}

	// Bad input is a 4xx that names the problem.
	for _, bad := range []string{
		"/linker/audit/recommendations/?limit=100000&site_id=" + siteA,
		"/linker/audit/recommendations/?limit=0&site_id=" + siteA,
		"/linker/audit/recommendations/?cursor=not-a-cursor&site_id=" + siteA,
		"/linker/audit/recommendations/?action=drop&site_id=" + siteA,
		"/linker/audit/recommendations/?site_id=" + siteA + "&cursor=" + url.QueryEscape(tamperedCursor(siteB)),
		"/linker/audit/?site_id=",
		"/linker/audit/",
		"/linker/health/?site_id=" + url.QueryEscape("x' OR '1'='1"),
	} {
		status, hdr, body := c.get(bad, cfg.AdminToken)
		if status < 400 || status >= 500 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/problem+json") {
			t.Errorf("GET %s: %d %s %s, want a 4xx problem", bad, status, hdr.Get("Content-Type"), body)
		}
	}

	// The link map pages through every link of every live page: its
	// internal links are the audit's total.
	var mapItems []handlers.LinkMapItem
	next = "/linker/link-map/?limit=50&site_id=" + siteA
	for next != "" {
		var page handlers.LinkMap
		c.getJSON(next, tokenA, &page)
		mapItems = append(mapItems, page.Items...)
		next = ""
		if page.NextCursor != "" {
			next = "/linker/link-map/?limit=50&site_id=" + siteA + "&cursor=" + url.QueryEscape(page.NextCursor)
		}
	}
	internal := 0
	for _, m := range mapItems {
		if m.Internal {
			internal++
		}
	}
	if internal != report.TotalLinks {
		t.Errorf("link map over HTTP: %d internal links of %d, the audit counted %d", internal, len(mapItems), report.TotalLinks)
	}
	// Filtered by source or by target page, the link map holds exactly the
	// entries of the whole map with that page, in the same order, paged
	// by the same cursors.
	for _, filter := range []struct{ param, page string }{
		{"source_content_id", mapItems[0].SourceContentID},
		{"target_content_id", mostLinkedTarget(mapItems)},
	} {
		var want, got []handlers.LinkMapItem
		for _, m := range mapItems {
			if (filter.param == "source_content_id" && m.SourceContentID == filter.page) ||
				(filter.param == "target_content_id" && m.TargetContentID == filter.page) {
				want = append(want, m)
			}
		}
		base := "/linker/link-map/?limit=2&site_id=" + siteA + "&" + filter.param + "=" + url.QueryEscape(filter.page)
		for next = base; next != ""; {
			var page handlers.LinkMap
			c.getJSON(next, tokenA, &page)
			got = append(got, page.Items...)
			next = ""
			if page.NextCursor != "" {
				next = base + "&cursor=" + url.QueryEscape(page.NextCursor)
			}
		}
		if len(want) < 2 || !reflect.DeepEqual(got, want) {
			t.Errorf("link map by %s=%s: %d entries, want the whole map's %d with it", filter.param, filter.page, len(got), len(want))
		}
	}
	if status, _, _ := c.get("/linker/link-map/?site_id="+siteA+"&cursor="+url.QueryEscape(tamperedCursor(siteA)), tokenA); status != 400 {
		t.Errorf("a recommendations cursor used on the link map: %d, want 400", status)
	}

	// Orphans and health come from the same audit. Orphans page like the
	// other lists: two at a time, they are the whole list, in its order.
	var whole handlers.OrphanList
	c.getJSON("/linker/orphans/?limit=500&site_id="+siteA, tokenA, &whole)
	var orphans []handlers.OrphanPage
	next = "/linker/orphans/?limit=2&site_id=" + siteA
	pages = 0
	for next != "" {
		var page handlers.OrphanList
		c.getJSON(next, tokenA, &page)
		pages++
		if len(page.Items) > 2 || page.AuditID != "api-audit" {
			t.Fatalf("orphans page %d: %d items of audit %s, limit 2 of api-audit", pages, len(page.Items), page.AuditID)
		}
		orphans = append(orphans, page.Items...)
		next = ""
		if page.NextCursor != "" {
			next = "/linker/orphans/?limit=2&site_id=" + siteA + "&cursor=" + url.QueryEscape(page.NextCursor)
			if status, _, _ := c.get("/linker/audit/recommendations/?site_id="+siteA+"&cursor="+url.QueryEscape(page.NextCursor), tokenA); status != 400 {
				t.Errorf("an orphans cursor used on the recommendations: %d, want 400", status)
			}
		}
	}
	if whole.NextCursor != "" || len(orphans) != len(whole.Items) || pages != (len(whole.Items)+1)/2 {
		t.Errorf("paged through %d orphans in %d pages; the whole list has %d (next cursor %q)", len(orphans), pages, len(whole.Items), whole.NextCursor)
	}
	n := map[string]int{}
	for i, o := range orphans {
		n[o.Finding]++
		if o.URL == "" || o.Kind == "" {
			t.Errorf("orphan without its page: %+v", o)
		}
		if i < len(whole.Items) && o != whole.Items[i] {
			t.Errorf("orphan %d paged is %+v, in the whole list %+v", i, o, whole.Items[i])
		}
	}
	if n["orphan"] != report.OrphanPages || n["navigation_only"] != report.NavigationOnlyPages || len(orphans) < 3 {
		t.Errorf("orphans over HTTP %v; the report has %d and %d", n, report.OrphanPages, report.NavigationOnlyPages)
	}
	var health handlers.Health
	c.getJSON("/linker/health/?site_id="+siteA, tokenA, &health)
	if health.OverallHealthScore != report.OverallHealthScore || len(health.ClusterScores) != len(report.ClusterScores) {
		t.Errorf("health over HTTP %+v; the report %.2f over %d clusters", health, report.OverallHealthScore, len(report.ClusterScores))
	}

	// A linked page's HTML and links, as links.inserted gave them.
	inserted := h.inserted.insertedFor(t, "gen-api", "boots-hub")
	status, hdr, html := c.get("/linker/content/boots-hub/html/?site_id=gen-api", tokenGen)
	if status != 200 || string(html) != inserted[len(inserted)-1].HTML || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || hdr.Get("ETag") == "" {
		t.Errorf("linked HTML over HTTP: %d %q, ETag %q", status, hdr.Get("Content-Type"), hdr.Get("ETag"))
	}
	if status, _, _ := c.get("/linker/content/boots-hub/html/?site_id=gen-api", tokenA); status != 404 {
		t.Errorf("another site's page HTML: %d, want 404", status)
	}
	if status, _, _ := c.get("/linker/content/..%2F..%2Fetc%2Fpasswd/links/?site_id=gen-api", tokenGen); status != 404 {
		t.Errorf("a traversal page id: %d, want 404", status)
	}
	var all []handlers.SiteLink
	next = "/linker/links/?limit=3&site_id=gen-api"
	for next != "" {
		var page handlers.LinkList
		c.getJSON(next, tokenGen, &page)
		all = append(all, page.Items...)
		next = ""
		if page.NextCursor != "" {
			next = "/linker/links/?limit=3&site_id=gen-api&cursor=" + url.QueryEscape(page.NextCursor)
		}
	}
	fromHub, err := st.LinksFrom(t.Context(), "gen-api", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	var verified handlers.LinkList
	c.getJSON("/linker/links/?site_id=gen-api&source_content_id=boots-hub&status=verified", tokenGen, &verified)
	for _, l := range verified.Items {
		// An item names its target as the target_content_id filter does.
		if l.TargetContentID == "" || l.TargetContentID != l.TargetPageID {
			t.Errorf("link %s: target_content_id %q, target_page_id %q; want both the target", l.ID, l.TargetContentID, l.TargetPageID)
		}
	}
	nVerified := 0
	for _, l := range fromHub {
		if l.Status == "verified" {
			nVerified++
		}
	}
	if len(all) != len(fromHub) || len(verified.Items) != nVerified {
		t.Errorf("links over HTTP: %d (%d verified), the store has %d (%d verified)", len(all), len(verified.Items), len(fromHub), nVerified)
	}
	var links handlers.PageLinks
	c.getJSON("/linker/content/boots-hub/links/?site_id=gen-api", tokenGen, &links)
	if links.PageID != "boots-hub" || len(links.Outbound) != len(inserted[len(inserted)-1].Links) {
		t.Errorf("page links over HTTP: %d outbound, links.inserted has %d", len(links.Outbound), len(inserted[len(inserted)-1].Links))
	}
	// Beside them, the anchor mix of the links to the page, counted as
	// the exact-anchor cap counts them (issue 10: report the actual mix
	// per target): an article's uplink is one.
	h.publish(pageEvent("gen-api", "api-article", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "article linked", func() bool { return len(h.inserted.insertedFor(t, "gen-api", "api-article")) == 1 })
	c.getJSON("/linker/content/boots-hub/links/?site_id=gen-api", tokenGen, &links)
	byType := map[string]int{}
	for _, l := range links.Inbound {
		if l.Zone == "in_body" && (l.Status == "inserted" || l.Status == "verified" || l.Status == "flagged") {
			byType[l.AnchorType]++
		}
	}
	mix := links.AnchorMix
	if len(byType) == 0 || mix.Placed == 0 || !reflect.DeepEqual(mix.ByType, byType) || mix.Aim["primary_keyword"] != 0.6 || mix.Cap != 100 || len(mix.Exact) == 0 {
		t.Errorf("the hub's anchor mix %+v, want its placed in-body inbound links by type %v against the 60/30/10 aim and the test site's cap of 100", mix, byType)
	}
	// A deleted page's links are no inbound links: two trials' replays in
	// one burst, where the page was never planned, listed none, and their
	// first runs its removed rows.
	h.publish(mustEvent(events.ContentDeleted, "gen-api", "del-api-article", events.ContentDeletedData{PageID: "api-article", Version: 2}))
	waitFor(t, waitLong, "the article's deletion projected", func() bool {
		c.getJSON("/linker/content/boots-hub/links/?site_id=gen-api", tokenGen, &links)
		return !slices.ContainsFunc(links.Inbound, func(l handlers.SiteLink) bool { return l.SourceContentID == "api-article" })
	})

	// An audit run over HTTP is a job to poll; a retried POST with the
	// same Idempotency-Key starts nothing new.
	runBody := `{"site_id":"` + siteA + `"}`
	first := c.post("/linker/audit/run/", tokenA, "key-1", runBody)
	again := c.post("/linker/audit/run/", tokenA, "key-1", runBody)
	if first.status != 202 || again.status != 202 || first.job.ID != again.job.ID || first.job.Kind != "audit" {
		t.Fatalf("POST audit/run twice with one key: %d %+v, %d %+v", first.status, first.job, again.status, again.job)
	}
	if other := c.post("/linker/audit/run/", tokenA, "key-1", `{"site_id":"`+siteA+`","verify_external":true}`); other.status != 409 {
		t.Errorf("the key reused for another request: %d, want 409", other.status)
	}
	job := c.poll(first.job.Location[len(handlers.APIPrefix):], tokenA, "complete")
	if job.AuditID != first.job.ID || job.Stage == "" || job.Done != job.Total {
		t.Errorf("finished audit job %+v", job)
	}
	var latest events.AuditCompletedData
	c.getJSON("/linker/audit/?site_id="+siteA, tokenA, &latest)
	if latest.AuditID != first.job.ID || !sameFigures(latest, report) {
		t.Errorf("the latest audit is %s %v, want the job's %s with the figures of the first", latest.AuditID, figuresOf(latest), first.job.ID)
	}
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var audits int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM audits WHERE site_id = $1`, siteA).Scan(&audits); err != nil || audits != 2 {
		t.Errorf("%d audits of the site (%v): the first and one from the API", audits, err)
	}
	if other := c.post("/linker/audit/run/", tokenB, "", `{"site_id":"`+siteA+`"}`); other.status != 404 {
		t.Errorf("another site's token starting an audit: %d, want 404", other.status)
	}
	if status, _, _ := c.get(first.job.Location[len(handlers.APIPrefix):], tokenB); status != 404 {
		t.Errorf("another site's token polling the job: %d, want 404", status)
	}

	// Applying every recommendation of the latest audit is a job too.
	apply := c.post("/linker/audit/apply/", tokenA, "", `{"site_id":"`+siteA+`","all":true}`)
	if apply.status != 202 || apply.job.Kind != "apply" {
		t.Fatalf("POST audit/apply: %d %+v", apply.status, apply.job)
	}
	applied := c.poll(apply.job.Location[len(handlers.APIPrefix):], tokenA, "done")
	if applied.AuditID != first.job.ID || applied.Result == nil {
		t.Errorf("finished apply job %+v", applied)
	}

	// Bodies a POST refuses, and change nothing.
	for _, bad := range []struct{ body, why string }{
		{`{"site_id":`, "malformed JSON"},
		{`{"site_id":"` + siteA + `","site":"x"}`, "an unknown field"},
		{`{"site_id":"` + siteA + `","all":true,"recommendation_ids":["rec-1"]}`, "both all and ids"},
		{`{"site_id":"` + siteA + `"}`, "neither all nor ids"},
		{`{"site_id":"` + siteA + `","all":true,"pad":"` + strings.Repeat("x", 10<<20) + `"}`, "a 10 MB body"},
	} {
		r := c.post("/linker/audit/apply/", tokenA, "", bad.body)
		if r.status != 400 && r.status != 413 {
			t.Errorf("POST audit/apply with %s: %d %s", bad.why, r.status, r.raw)
		}
	}
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM audit_applies WHERE site_id = $1`, siteA).Scan(&audits); err != nil || audits != 1 {
		t.Errorf("%d applies of the site (%v), want the one", audits, err)
	}

	// A page planned again over HTTP: the job is done once the pipeline
	// has taken the command, and the page's links.inserted follows.
	before := len(h.inserted.insertedFor(t, "gen-api", "boots-hub"))
	plan := c.post("/linker/links/plan/", tokenGen, "", `{"site_id":"gen-api","content_id":"boots-hub"}`)
	if plan.status != 202 || plan.job.Kind != "plan" || plan.job.Total != 1 {
		t.Fatalf("POST links/plan: %d %s", plan.status, plan.raw)
	}
	c.poll(plan.job.Location[len(handlers.APIPrefix):], tokenGen, "done")
	waitFor(t, waitLong, "boots-hub linked again", func() bool { return len(h.inserted.insertedFor(t, "gen-api", "boots-hub")) > before })
	if r := c.post("/linker/links/plan/", tokenGen, "", `{"site_id":"gen-api","content_id":"no-such-page"}`); r.status != 404 {
		t.Errorf("planning a page that does not exist: %d", r.status)
	}
	if r := c.post("/linker/links/batch-insert/", tokenGen, "", `{"site_id":"gen-api","content_ids":[]}`); r.status != 400 {
		t.Errorf("a batch of no pages: %d %s", r.status, r.raw)
	}
	batch := c.post("/linker/links/batch-insert/", tokenGen, "", `{"site_id":"gen-api","content_ids":["boots-hub"]}`)
	if batch.status != 202 || batch.job.Total != 1 {
		t.Fatalf("POST links/batch-insert: %d %s", batch.status, batch.raw)
	}
	c.poll(batch.job.Location[len(handlers.APIPrefix):], tokenGen, "done")

	// Its kept plans, and one made current again.
	var snaps handlers.SnapshotList
	c.getJSON("/linker/content/boots-hub/snapshots/?site_id=gen-api", tokenGen, &snaps)
	if len(snaps.Items) == 0 {
		t.Fatalf("no snapshot of boots-hub after two re-plans")
	}
	restore := c.post(fmt.Sprintf("/linker/content/boots-hub/snapshots/%d/restore/", snaps.Items[0].ID), tokenGen, "", `{"site_id":"gen-api"}`)
	if restore.status != 202 || restore.job.Kind != "restore" {
		t.Fatalf("POST restore: %d %s", restore.status, restore.raw)
	}
	c.poll(restore.job.Location[len(handlers.APIPrefix):], tokenGen, "done")
	if r := c.post("/linker/content/boots-hub/snapshots/999999/restore/", tokenGen, "", `{"site_id":"gen-api"}`); r.status != 404 {
		t.Errorf("restoring a snapshot that does not exist: %d", r.status)
	}

	// The OpenAPI document describes every route.
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	status, _, raw := c.get("/openapi.json", "")
	if status != 200 || json.Unmarshal(raw, &doc) != nil || !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi.json: %d %.200s", status, raw)
	}
	for _, p := range []string{"/linker/audit/", "/linker/audit/recommendations/", "/linker/orphans/", "/linker/health/",
		"/linker/links/", "/linker/link-map/", "/linker/jobs/{job_id}/",
		"/linker/content/{page_id}/links/", "/linker/content/{page_id}/html/"} {
		if doc.Paths[p]["get"] == nil {
			t.Errorf("openapi.json has no GET %s", p)
		}
	}
	for _, p := range []string{"/linker/audit/run/", "/linker/audit/apply/", "/linker/links/plan/", "/linker/links/insert/",
		"/linker/links/batch-insert/", "/linker/content/{page_id}/snapshots/{snapshot_id}/restore/"} {
		if doc.Paths[p]["post"] == nil {
			t.Errorf("openapi.json has no POST %s", p)
		}
	}
	if got := h.metricTotal("interlinker_api_requests_total", `status="401"`); got == 0 {
		t.Errorf("no 401 counted in interlinker_api_requests_total")
	}

	// A deleted page has no linked HTML to serve: a silo trial's client
	// got the old page, its links already removed, with a 200.
	h.publish(mustEvent(events.ContentDeleted, "gen-api", "del-hub-v2", events.ContentDeletedData{PageID: "boots-hub", Version: 2}))
	h.waitIdle(waitLong)
	if status, _, body := c.get("/linker/content/boots-hub/html/?site_id=gen-api", tokenGen); status != 404 || !strings.Contains(string(body), "deleted at version 2") {
		t.Errorf("a deleted page's HTML: %d %.200s, want 404 saying it was deleted", status, body)
	}
}

type posted struct {
	status int
	job    handlers.Job
	raw    []byte
}

func (c apiClient) post(path, token, key, body string) posted {
	c.t.Helper()
	status, _, raw := c.do(http.MethodPost, path, token, key, body, nil)
	out := posted{status: status, raw: raw}
	_ = json.Unmarshal(raw, &out.job)
	return out
}

// poll reads a job until it has the status wanted.
func (c apiClient) poll(path, token, want string) handlers.Job {
	c.t.Helper()
	var job handlers.Job
	waitFor(c.t, waitLong, "job "+path+" "+want, func() bool {
		c.getJSON(path, token, &job)
		return job.Status == want
	})
	return job
}

// tamperedCursor is a well-formed cursor of another site's list.
func tamperedCursor(siteID string) string {
	raw, _ := json.Marshal(map[string]any{"s": siteID, "a": "other-audit", "k": 3})
	return base64.RawURLEncoding.EncodeToString(raw)
}

// mostLinkedTarget is the known page the most link map entries point to.
func mostLinkedTarget(items []handlers.LinkMapItem) string {
	counts := map[string]int{}
	best := ""
	for _, m := range items {
		if m.TargetContentID == "" {
			continue
		}
		counts[m.TargetContentID]++
		if c := counts[m.TargetContentID]; c > counts[best] || (c == counts[best] && m.TargetContentID < best) {
			best = m.TargetContentID
		}
	}
	return best
}
