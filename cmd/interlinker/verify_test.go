package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/service"
)

// noDNS refuses every lookup: the service under test checks only the
// loopback server the test starts, by address.
type noDNS struct{}

func (noDNS) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	return nil, &net.DNSError{Err: "tests resolve no names", Name: host, IsNotFound: true}
}

func TestVerifyWaitsForTheReportAndPrintsTheBrokenAndRedirectingTargets(t *testing.T) {
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/guide/":
			fmt.Fprint(w, "<p>ok</p>")
		case "/old-guide/":
			http.Redirect(w, r, "/guide/", http.StatusMovedPermanently)
		default:
			http.NotFound(w, r)
		}
	}))
	defer live.Close()
	svc, dbURL := startTestService(t, func(cfg *service.Config) {
		cfg.HTTP.AllowHosts = []string{"127.0.0.1"}
		cfg.HTTP.Resolver = noDNS{}
	})
	p, err := newProducer(svc.NATSURL())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	const siteID = "cli-verify"
	page := func(id, url, kind, body string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: id, Kind: kind, Version: 1, HTML: "<main><article>" + body + "</article></main>"}
	}
	site := examples.Site{Existing: true,
		Structure: events.SiteUpdatedData{Site: events.SiteInfo{ID: siteID, BaseURL: live.URL, Name: "CLI", Policy: "silo"}},
		Pages: []events.PageInfo{
			page("home", "/", "home", `<p><a href="/guide/">the guide</a> and <a href="/old-guide/">the old guide</a></p>`),
			page("guide", "/guide/", "page", `<p><a href="/">home</a>, <a href="/missing/">a missing page</a> and <a href="/gone/">another</a></p>`),
		}}
	if err := publishExisting(t.Context(), svc, p, site); err != nil {
		t.Fatal(err)
	}

	printed, err := runCapturing(t, "verify", "--site", siteID, "--wait", "--verification-id", "cli-v1", "--scope", "all",
		"--nats-url", svc.NATSURL(), "--database-url", dbURL)
	if err != nil {
		t.Fatalf("verify --wait: %v\n%s", err, printed)
	}
	for _, want := range []string{
		"verification cli-v1 of site " + siteID + ": complete (scope all)",
		"targets 5: checked 5, reused 0; ok 2, redirects 1, broken 2, unverified 0, refused 0",
		live.URL + "/missing/  status 404",
		live.URL + "/old-guide/ → " + live.URL + "/guide/",
	} {
		if !strings.Contains(printed, want) {
			t.Errorf("printed report lacks %q:\n%s", want, printed)
		}
	}

	printed, err = runCapturing(t, "verify", "--all-sites", "--verification-id", "cli-v2", "--nats-url", svc.NATSURL(), "--database-url", dbURL)
	if err != nil || !strings.Contains(printed, "verification cli-v2 of site "+siteID+" requested") {
		t.Errorf("verify --all-sites: %v\n%s", err, printed)
	}
	if _, err := runCapturing(t, "verify", "--site", siteID, "--scope", "everything"); err == nil || !strings.Contains(err.Error(), "--scope") {
		t.Errorf("a bad --scope: %v", err)
	}
}
