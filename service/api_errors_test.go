package service

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
)

// Every request the API refuses is a problem naming why, and none it
// could have refused reaches a command its consumer dead-letters: a
// client polling that job would wait for good.
func TestTheAPIRefusesWhatItsRoutesAndCommandsCannotTake(t *testing.T) {
	t.Parallel()
	h := &auditHarness{harness: startHarness(t, testConfig(t))}
	h.completed = collect(t, h.js, "AUDIT", events.AuditCompleted)
	const siteID = "cadence-api-errors"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	h.audit(siteID, "errors-audit", events.AuditRequestedData{})
	failed := h.audit(siteID, "errors-failed", events.AuditRequestedData{ClusterID: "no-such-cluster"})
	if failed.Status != "failed" {
		t.Fatalf("the audit of an unknown cluster is %q, want failed", failed.Status)
	}
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "tests")
	if err != nil {
		t.Fatal(err)
	}
	// A site whose pages the pipeline plans, for the writes only such
	// pages take.
	const genSiteID = "gen-api-errors"
	h.siteWithLinkedHub(genSiteID)
	h.publish(pageEvent(genSiteID, "care", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "article linked", func() bool { return len(h.inserted.insertedFor(t, genSiteID, "care")) == 1 })
	_, genToken, err := h.svc.Store().CreateToken(t.Context(), genSiteID, "tests")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h.harness)
	page := pages[0].ID

	refused := func(t *testing.T, status int, raw []byte, want int, wantLocation string) {
		t.Helper()
		if status != want {
			t.Fatalf("answered %d, want %d: %s", status, want, raw)
		}
		p, err := readProblem(status, http.Header{"Content-Type": {"application/problem+json"}}, raw)
		if err != nil {
			t.Fatal(err)
		}
		if wantLocation != "" && !slices.Contains(p.locations(), wantLocation) {
			t.Errorf("the problem names %v, want %s: %s", p.locations(), wantLocation, raw)
		}
	}

	t.Run("NUL in the query", func(t *testing.T) {
		status, _, raw := c.get("/linker/links/?site_id="+siteID+"&source_content_id=a%00b", token)
		refused(t, status, raw, http.StatusBadRequest, "query.source_content_id")
	})
	t.Run("NUL in the path", func(t *testing.T) {
		status, _, raw := c.get("/linker/content/"+page+"%00/html/?site_id="+siteID, token)
		refused(t, status, raw, http.StatusBadRequest, "path")
	})
	t.Run("NUL in a command's body", func(t *testing.T) {
		r := c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`","recommendation_ids":["a\u0000b"]}`)
		refused(t, r.status, r.raw, http.StatusBadRequest, "body")
	})
	t.Run("NUL in text stored without a command", func(t *testing.T) {
		r := c.post("/linker/content/boots-hub/links/", genToken, "",
			`{"site_id":"`+genSiteID+`","target_content_id":"care","anchor":"bad\u0000anchor"}`)
		refused(t, r.status, r.raw, http.StatusBadRequest, "body")
	})
	t.Run("a plan of a page the pipeline does not plan", func(t *testing.T) {
		// Existing content: a page sent only as content.published. Its job
		// would end done with nothing planned.
		r := c.post("/linker/links/plan/", token, "", `{"site_id":"`+siteID+`","content_id":"`+page+`"}`)
		refused(t, r.status, r.raw, http.StatusConflict, "")
		r = c.post("/linker/content/"+page+"/links/", token, "",
			`{"site_id":"`+siteID+`","target_content_id":"`+pages[1].ID+`","anchor":"gravel"}`)
		refused(t, r.status, r.raw, http.StatusConflict, "")
		if !strings.Contains(string(r.raw), "audit/apply/") {
			t.Errorf("the refusal does not say how such a page's links change: %s", r.raw)
		}
		// Such a page has no decision to revert, and is told why (a
		// trial's client got 404 as for a missing decision).
		status, _, raw := c.do(http.MethodDelete, "/linker/content/"+page+"/decisions/"+pages[1].ID+"/?site_id="+siteID, token, "", "", nil)
		refused(t, status, raw, http.StatusConflict, "")
		if r := c.post("/linker/links/plan/", genToken, "", `{"site_id":"`+genSiteID+`","content_id":"care"}`); r.status != http.StatusAccepted {
			t.Errorf("a plan of a planned page: %d %s", r.status, r.raw)
		}
	})
	t.Run("a command its schema refuses", func(t *testing.T) {
		for _, id := range []string{"", strings.Repeat("r", 129)} {
			r := c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`","recommendation_ids":["`+id+`"]}`)
			refused(t, r.status, r.raw, http.StatusBadRequest, "body")
		}
	})
	t.Run("null for a required list", func(t *testing.T) {
		r := c.post("/linker/links/batch-insert/", token, "", `{"site_id":"`+siteID+`","content_ids":null}`)
		refused(t, r.status, r.raw, http.StatusBadRequest, "body.content_ids")
	})
	t.Run("neither the recommendations nor all", func(t *testing.T) {
		r := c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`"}`)
		refused(t, r.status, r.raw, http.StatusBadRequest, "body.recommendation_ids")
		if strings.Contains(string(r.raw), "not both") {
			t.Errorf("the problem says \"not both\" of a request that gave neither: %s", r.raw)
		}
	})
	t.Run("an unknown cluster to audit", func(t *testing.T) {
		r := c.post("/linker/audit/run/", token, "", `{"site_id":"`+siteID+`","cluster_id":"no-such-cluster"}`)
		refused(t, r.status, r.raw, http.StatusNotFound, "")
		var d events.SiteUpdatedData
		if err := json.Unmarshal(structure.Data, &d); err != nil || len(d.Clusters) == 0 {
			t.Fatalf("the site's structure: %v", err)
		}
		if r := c.post("/linker/audit/run/", token, "", `{"site_id":"`+siteID+`","cluster_id":"`+d.Clusters[0].ID+`"}`); r.status != http.StatusAccepted {
			t.Errorf("an audit of the site's cluster %s: %d %s, want 202", d.Clusters[0].ID, r.status, r.raw)
		}
	})
	t.Run("an audit's max_age that is no duration", func(t *testing.T) {
		r := c.post("/linker/audit/run/", token, "", `{"site_id":"`+siteID+`","verify":true,"max_age":"soon"}`)
		refused(t, r.status, r.raw, http.StatusBadRequest, "body.max_age")
	})
	t.Run("the figures of a failed audit", func(t *testing.T) {
		for _, route := range []string{"health/", "orphans/", "audit/recommendations/"} {
			status, _, raw := c.get("/linker/"+route+"?site_id="+siteID+"&audit_id=errors-failed", token)
			refused(t, status, raw, http.StatusConflict, "")
			if !strings.Contains(string(raw), "unknown cluster") {
				t.Errorf("%s of a failed audit does not say why it failed: %s", route, raw)
			}
		}
		if status, _, raw := c.get("/linker/audit/?site_id="+siteID+"&audit_id=errors-failed", token); status != http.StatusOK {
			t.Errorf("the failed audit's own report: %d %s", status, raw)
		}
	})
	t.Run("a cursor of another list", func(t *testing.T) {
		// A cursor as links/ gives them out; review/ pages through another
		// list and refuses it.
		raw, _ := json.Marshal(map[string]any{"s": siteID, "a": "links", "p": page, "k": 0})
		cursor := base64.RawURLEncoding.EncodeToString(raw)
		if status, _, body := c.get("/linker/links/?site_id="+siteID+"&cursor="+cursor, token); status != http.StatusOK {
			t.Fatalf("links/ refuses its own kind of cursor: %d %s", status, body)
		}
		status, _, body := c.get("/linker/review/?site_id="+siteID+"&cursor="+cursor, token)
		refused(t, status, body, http.StatusBadRequest, "query.cursor")
	})

	// Requests no route answers are not in the OpenAPI document: read
	// without holding them to it.
	bare := c
	bare.contract = nil
	t.Run("no route", func(t *testing.T) {
		status, hdr, raw := bare.get("/linker/nope/", token)
		if status != http.StatusNotFound {
			t.Fatalf("answered %d, want 404: %s", status, raw)
		}
		if _, err := readProblem(status, hdr, raw); err != nil {
			t.Error(err)
		}
	})
	t.Run("a method the route does not take", func(t *testing.T) {
		status, hdr, raw := bare.do(http.MethodDelete, "/linker/links/?site_id="+siteID, token, "", "", nil)
		if status != http.StatusMethodNotAllowed || !strings.Contains(hdr.Get("Allow"), "GET") {
			t.Fatalf("answered %d with Allow %q, want 405 with GET allowed: %s", status, hdr.Get("Allow"), raw)
		}
		if _, err := readProblem(status, hdr, raw); err != nil {
			t.Error(err)
		}
	})
	t.Run("the bearer scheme in any case", func(t *testing.T) {
		status, _, raw := bare.do(http.MethodGet, "/linker/links/?site_id="+siteID+"&limit=1", "", "", "",
			http.Header{"Authorization": {"bearer " + token}})
		if status != http.StatusOK {
			t.Errorf("a lower-case scheme: %d %s", status, raw)
		}
		status, hdr, _ := bare.do(http.MethodGet, "/linker/links/?site_id="+siteID, "", "", "", nil)
		if status != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("without a token: %d, WWW-Authenticate %q; want 401 with a Bearer challenge", status, hdr.Get("WWW-Authenticate"))
		}
	})
}
