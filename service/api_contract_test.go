package service

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/handlers"
)

// apiRoute is one of the API's routes with a request that names real
// things of a site: its page, link, job and snapshot.
type apiRoute struct {
	method, path, body string
}

// siteState counts what any write of the API would change, so a refused
// request can be shown to have changed nothing.
func siteState(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var jobs, outbox, decisions, audits, applies, linkRows int
	err := conn.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM api_jobs), (SELECT count(*) FROM outbox),
		(SELECT count(*) FROM link_decisions), (SELECT count(*) FROM audits), (SELECT count(*) FROM audit_applies),
		(SELECT count(*) FROM links)`).Scan(&jobs, &outbox, &decisions, &audits, &applies, &linkRows)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("jobs %d, outbox %d, decisions %d, audits %d, applies %d, links %d", jobs, outbox, decisions, audits, applies, linkRows)
}

// TestEveryRouteAnswersOnlyItsOwnSitesTokensAndRefusesBadInputUnchanged
// walks every route of the OpenAPI document: no token, a made-up one and a
// revoked one are 401; another site's token is 404, whether it names this
// site or its own site with this site's page, link, job or snapshot ids.
// Then hostile input on every route: path traversal in ids, SQL
// metacharacters in every filter, oversized bodies and pages, unknown
// fields, malformed JSON and forged cursors each get their 4xx. None of it
// changes anything, and every answer is the one the document describes.
func TestEveryRouteAnswersOnlyItsOwnSitesTokensAndRefusesBadInputUnchanged(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	const siteA, siteB = "contract-a", "contract-b"
	h.siteWithLinkedHub(siteA)
	h.siteWithLinkedHub(siteB)
	// The article is site A's alone: site B's token naming it names nothing.
	h.publish(pageEvent(siteA, "boot-care", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "article linked", func() bool { return len(h.inserted.insertedFor(t, siteA, "boot-care")) == 1 })
	h.waitIdle(waitLong)
	st := h.svc.Store()
	_, tokenA, err := st.CreateToken(t.Context(), siteA, "editor")
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
	c := newAPIClient(t, h)

	// Real ids of site A: a page, one of its links, a job and a snapshot.
	const page = "boot-care"
	links, err := st.LinksFrom(t.Context(), siteA, page)
	if err != nil || len(links) == 0 {
		t.Fatalf("links of %s: %v %v", page, links, err)
	}
	var linkID string
	for _, l := range links {
		if l.Type != link.TypeBreadcrumb {
			linkID = l.ID
		}
	}
	plan := c.post("/linker/links/plan/", tokenA, "", `{"site_id":"`+siteA+`","content_id":"`+page+`"}`)
	if plan.status != 202 {
		t.Fatalf("plan: %d %s", plan.status, plan.raw)
	}
	c.poll(plan.job.Location[len(handlers.APIPrefix):], tokenA, "done")
	h.waitIdle(waitLong)
	snaps, err := st.Snapshots(t.Context(), siteA, page)
	if err != nil || len(snaps) == 0 {
		t.Fatalf("snapshots of %s: %v %v", page, snaps, err)
	}
	jobID, snapID := plan.job.ID, snaps[0].ID

	// routes names every route with site A's ids; forSite puts another
	// site's id in the query or body.
	routes := func(site string) []apiRoute {
		q := "?site_id=" + url.QueryEscape(site)
		b := `{"site_id":"` + site + `"}`
		return []apiRoute{
			{"GET", "/linker/links/" + q, ""},
			{"GET", "/linker/link-map/" + q, ""},
			{"GET", "/linker/content/" + q, ""},
			{"GET", "/linker/audit/" + q, ""},
			{"GET", "/linker/audit/recommendations/" + q, ""},
			{"GET", "/linker/orphans/" + q, ""},
			{"GET", "/linker/health/" + q, ""},
			{"GET", "/linker/review/" + q, ""},
			{"GET", "/linker/content/" + page + "/links/" + q, ""},
			{"GET", "/linker/content/" + page + "/html/" + q, ""},
			{"GET", "/linker/content/" + page + "/snapshots/" + q, ""},
			{"GET", "/linker/jobs/" + jobID + "/" + q, ""},
			{"POST", "/linker/links/plan/", `{"site_id":"` + site + `","content_id":"` + page + `"}`},
			{"POST", "/linker/links/insert/", `{"site_id":"` + site + `","content_id":"` + page + `"}`},
			{"POST", "/linker/links/batch-insert/", `{"site_id":"` + site + `","content_ids":["` + page + `"]}`},
			{"POST", "/linker/audit/run/", b},
			{"POST", "/linker/audit/apply/", `{"site_id":"` + site + `","all":true}`},
			{"POST", "/linker/review/" + linkID + "/accept/", b},
			{"POST", "/linker/review/" + linkID + "/reject/", b},
			{"POST", "/linker/content/" + page + "/links/", `{"site_id":"` + site + `","target_content_id":"boots-hub","anchor":"hiking boots"}`},
			{"POST", fmt.Sprintf("/linker/content/%s/snapshots/%d/restore/", page, snapID), b},
			{"DELETE", "/linker/content/" + page + "/links/" + linkID + "/" + q, ""},
			{"DELETE", "/linker/content/" + page + "/decisions/boots-hub/" + q, ""},
		}
	}
	conn, err := pgx.Connect(t.Context(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	before := siteState(t, conn)

	for _, r := range routes(siteA) {
		for _, tc := range []struct {
			who, token string
			want       int
		}{{"no token", "", 401}, {"a made-up token", "ilk_made_up", 401}, {"a revoked token", tokenRevoked, 401},
			{"another site's token", tokenB, 404}} {
			status, hdr, body := c.do(r.method, r.path, tc.token, "", r.body, nil)
			if status != tc.want {
				t.Errorf("%s %s with %s: %d, want %d: %.200s", r.method, r.path, tc.who, status, tc.want, body)
				continue
			}
			// Every error is a problem whose type names its kind.
			want := map[int]string{401: "https://interlinker.dev/problems/unauthorized", 404: "https://interlinker.dev/problems/not-found"}[tc.want]
			if p, err := readProblem(status, hdr, body); err != nil || p.Type != want {
				t.Errorf("%s %s with %s: problem type %q, want %q (%v)", r.method, r.path, tc.who, p.Type, want, err)
			}
		}
	}
	// Site B's token naming its own site with site A's page, link, job and
	// snapshot ids: they are not B's, so for B they do not exist.
	crossSite := 0
	for _, r := range routes(siteB) {
		if !strings.Contains(r.path+r.body, page) && !strings.Contains(r.path, jobID) && !strings.Contains(r.path, linkID) {
			continue
		}
		crossSite++
		if status, _, body := c.do(r.method, r.path, tokenB, "", r.body, nil); status != 404 {
			t.Errorf("%s %s %s with site B's token: %d, want 404: %.200s", r.method, r.path, r.body, status, body)
		}
	}
	if crossSite != 13 {
		t.Errorf("%d routes named site A's ids with site B's token, want the 13 that take an id", crossSite)
	}
	if after := siteState(t, conn); after != before {
		t.Errorf("refused requests changed something:\nbefore %s\nafter  %s", before, after)
	}

	// Path traversal and ids out of bounds.
	for _, path := range []string{
		"/linker/content/..%2F..%2Fetc%2Fpasswd/links/?site_id=" + siteA,
		"/linker/content/%2e%2e/links/?site_id=" + siteA,
		"/linker/content/" + page + "%2F..%2F..%2Fhealth/links/?site_id=" + siteA,
		"/linker/content/" + strings.Repeat("p", 300) + "/links/?site_id=" + siteA,
		"/linker/jobs/..%2F" + jobID + "/?site_id=" + siteA,
		"/linker/health/?site_id=" + url.QueryEscape("../"+siteA),
		"/linker/health/?site_id=" + strings.Repeat("s", 201),
	} {
		if status, _, body := c.get(path, tokenA); status != 404 && status != 400 {
			t.Errorf("GET %s: %d, want 400 or 404: %.200s", path, status, body)
		}
	}

	// SQL metacharacters in every filter. Where a filter is an enum the
	// value is refused; an id may hold any character, so it matches
	// nothing and the list is empty.
	const meta = `x' OR '1'='1'; DROP TABLE links; --`
	for _, f := range []string{"link_type", "status"} {
		path := "/linker/links/?site_id=" + siteA + "&" + f + "=" + url.QueryEscape(meta)
		if status, _, body := c.get(path, tokenA); status != 400 || !strings.Contains(string(body), f) {
			t.Errorf("GET %s: %d, want 400 naming %s: %.200s", path, status, f, body)
		}
	}
	for _, f := range []string{"cluster_id", "source_content_id", "target_content_id"} {
		var list handlers.LinkList
		c.getJSON("/linker/links/?site_id="+siteA+"&"+f+"="+url.QueryEscape(meta), tokenA, &list)
		if len(list.Items) != 0 {
			t.Errorf("links/ filtered by %s=%q: %d items, want none", f, meta, len(list.Items))
		}
	}
	for _, path := range []string{
		"/linker/audit/recommendations/?site_id=" + siteA + "&action=" + url.QueryEscape(meta),
		"/linker/audit/recommendations/?site_id=" + siteA + "&min_priority=" + url.QueryEscape(meta),
		"/linker/audit/?site_id=" + url.QueryEscape(meta),
	} {
		if status, _, body := c.get(path, tokenA); status != 400 && status != 404 {
			t.Errorf("GET %s: %d, want 400 or 404: %.200s", path, status, body)
		}
	}

	// Every list: a page too large, and cursors it never gave out. The
	// problem names the parameter at fault. (The site has no audit yet:
	// the audit's lists may answer 404 first.)
	for _, list := range []string{"links", "link-map", "content", "review", "audit/recommendations", "orphans"} {
		for _, q := range []string{"limit=100000", "limit=-1", "cursor=not-a-cursor",
			"cursor=" + url.QueryEscape(tamperedCursor(siteB))} {
			path := "/linker/" + list + "/?site_id=" + siteA + "&" + q
			status, hdr, body := c.get(path, tokenA)
			fromAudit := list == "audit/recommendations" || list == "orphans"
			if status == 404 && fromAudit {
				continue
			}
			if status != 400 {
				t.Errorf("GET %s: %d, want 400: %.200s", path, status, body)
				continue
			}
			param, _, _ := strings.Cut(q, "=")
			if p, err := readProblem(status, hdr, body); err != nil || p.Type != "https://interlinker.dev/problems/invalid-input" ||
				!slices.Contains(p.locations(), "query."+param) {
				t.Errorf("GET %s: problem %+v (%v), want type invalid-input naming query.%s", path, p, err, param)
			}
		}
	}

	// Every POST: malformed JSON, an unknown field, and a 10 MB body.
	huge := `{"site_id":"` + siteA + `","pad":"` + strings.Repeat("x", 10<<20) + `"}`
	for _, r := range routes(siteA) {
		if r.method != "POST" {
			continue
		}
		for _, bad := range []struct{ body, why, location, kind string }{
			{`{"site_id":`, "malformed JSON", "body", "invalid-input"},
			{strings.TrimSuffix(r.body, "}") + `,"sneaky":1}`, "an unknown field", "body.sneaky", "invalid-input"},
			{huge, "a 10 MB body", "body", "body-too-large"},
		} {
			status, hdr, body := c.do(r.method, r.path, tokenA, "", bad.body, nil)
			p, err := readProblem(status, hdr, body)
			if (status != 400 && status != 413) || err != nil || p.Type != handlers.ProblemTypeBase+bad.kind ||
				!slices.Contains(p.locations(), bad.location) {
				t.Errorf("%s %s with %s: %d, problem %+v (%v), want type %s naming %s", r.method, r.path, bad.why, status, p, err,
					bad.kind, bad.location)
			}
		}
	}
	if after := siteState(t, conn); after != before {
		t.Errorf("bad input changed something:\nbefore %s\nafter  %s", before, after)
	}

	// Every route of the document was asked, and every answer was the
	// one it describes.
	covered := map[string]bool{}
	for _, c := range c.contract.covered() {
		f := strings.Fields(c)
		covered[f[0]+" "+f[1]] = true
	}
	var missing []string
	for _, r := range c.contract.routes {
		if !covered[r.method+" "+r.template] {
			missing = append(missing, r.method+" "+r.template)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("routes of the OpenAPI document this test never asked: %v", missing)
	}
	if len(c.contract.routes) < 22 {
		t.Errorf("the document has %d routes, the API %d", len(c.contract.routes), 22)
	}
}
