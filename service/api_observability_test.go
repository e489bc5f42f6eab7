package service

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// apiLogLine is a line the API logs for a request.
type apiLogLine struct {
	Level     string        `json:"level"`
	Msg       string        `json:"msg"`
	Method    string        `json:"method"`
	Route     string        `json:"route"`
	Status    int           `json:"status"`
	Latency   time.Duration `json:"latency"`
	TokenSite string        `json:"token_site"`
	TokenName string        `json:"token_name"`
}

// TestEachAPIRequestIsLoggedWithItsRouteStatusLatencyAndTokenButNeverItsSecret
// captures the service's slog output while a client reads a page's links
// with a site's token, and while another asks without a token: each
// request is one INFO line with its route, status and latency, and the
// token's site and name; the token's secret is nowhere in the logs.
func TestEachAPIRequestIsLoggedWithItsRouteStatusLatencyAndTokenButNeverItsSecret(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	logs := &lockedBuffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := startHarness(t, cfg)
	const site, name = "logged", "seo dashboard"
	h.siteWithLinkedHub(site)
	_, secret, err := h.svc.Store().CreateToken(t.Context(), site, name)
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	if status, _, body := c.get("/linker/content/boots-hub/links/?site_id="+site, secret); status != 200 {
		t.Fatalf("GET content/boots-hub/links: %d %s", status, body)
	}
	if status, _, _ := c.get("/linker/health/?site_id="+site, ""); status != 401 {
		t.Fatalf("GET health without a token: %d", status)
	}

	// A request is logged once its answer is written: wait for the lines.
	requests := func() []apiLogLine {
		var out []apiLogLine
		for _, line := range strings.Split(logs.String(), "\n") {
			var l apiLogLine
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "api request" {
				out = append(out, l)
			}
		}
		return out
	}
	waitFor(t, waitLong, "both requests logged", func() bool { return len(requests()) >= 2 })
	var read, refused int
	for _, l := range requests() {
		switch {
		case l.Route == "/linker/content/{page_id}/links/":
			read++
			if l.Level != "INFO" || l.Method != "GET" || l.Status != 200 || l.Latency <= 0 || l.TokenSite != site || l.TokenName != name {
				t.Errorf("the read is logged as %+v, want INFO, GET, 200, its latency, token site %s and name %q", l, site, name)
			}
		case l.Route == "/linker/health/":
			refused++
			if l.Level != "INFO" || l.Status != 401 || l.TokenSite != "" || l.TokenName != "" {
				t.Errorf("the request without a token is logged as %+v, want INFO, 401, no token", l)
			}
		}
	}
	if read != 1 || refused != 1 {
		t.Errorf("logged the read %d times and the refused request %d times, want once each:\n%s", read, refused, logs.String())
	}
	if all := logs.String(); strings.Contains(all, secret) {
		t.Errorf("the token's secret is in the logs")
	}
}

// TestAPIRequestsAreCountedByRouteAndStatusAndTimedByRoute reads a route
// and checks /metrics: interlinker_api_requests_total has a series with
// the route's label and status 200, and interlinker_api_request_seconds
// a count for the route.
func TestAPIRequestsAreCountedByRouteAndStatusAndTimedByRoute(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	const site = "counted"
	h.siteWithLinkedHub(site)
	_, token, err := h.svc.Store().CreateToken(t.Context(), site, "")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	const route = `route="/linker/links/"`
	if got := h.metricTotal("interlinker_api_requests_total", route); got != 0 {
		t.Fatalf("links/ counted %v times before any request", got)
	}
	for range 3 {
		if status, _, body := c.get("/linker/links/?site_id="+site, token); status != 200 {
			t.Fatalf("GET links: %d %s", status, body)
		}
	}
	if status, _, _ := c.get("/linker/links/?site_id="+site+"&limit=0", token); status != 400 {
		t.Fatalf("GET links with limit 0: %d", status)
	}
	// A request is counted once its answer is written: wait for the count.
	waitFor(t, waitLong, "links/ counted", func() bool {
		return h.metricTotal("interlinker_api_requests_total", route) == 4
	})
	if got := h.metricTotal("interlinker_api_requests_total", route, `status="200"`); got != 3 {
		t.Errorf("interlinker_api_requests_total{%s,status=\"200\"} is %v, want 3", route, got)
	}
	if got := h.metricTotal("interlinker_api_requests_total", route, `status="400"`); got != 1 {
		t.Errorf("interlinker_api_requests_total{%s,status=\"400\"} is %v, want 1", route, got)
	}
	if got := h.metricTotal("interlinker_api_request_seconds_count", route); got != 4 {
		t.Errorf("interlinker_api_request_seconds_count{%s} is %v, want 4", route, got)
	}
	if got := h.metricTotal("interlinker_api_request_seconds_sum", route); got <= 0 {
		t.Errorf("interlinker_api_request_seconds_sum{%s} is %v, want the time taken", route, got)
	}
}
