package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A producer reads the links.inserted its pages got without a NATS
// client of its own (three trials wrote one): each page's last event,
// its verdict, links and notes, and with --json the whole data.
func TestInsertedPrintsEachPagesLastLinksInserted(t *testing.T) {
	svc, _ := startTestService(t)
	url := svc.NATSURL()
	const site = "trailhead-outfitters"
	// Nothing found fails, so a script tells a mistyped id from a result.
	if out, err := runCapturing(t, "inserted", "--nats-url", url, "--site", site); err == nil || out != "" || !strings.Contains(err.Error(), "no links.inserted for site "+site) {
		t.Fatalf("inserted before any page: %q (%v), want the error that nothing was found", out, err)
	}
	if out, err := runCapturing(t, "inserted", "--nats-url", url, "--site", site, "--json"); err == nil || out != "" {
		t.Fatalf("inserted --json before any page: %q (%v), want an error and no output", out, err)
	}
	docs := filepath.Join("..", "..", "docs", "events")
	if _, err := runCapturing(t, "publish", "--nats-url", url, filepath.Join(docs, "01-site.updated.json"),
		filepath.Join(docs, "02-content.generated.hub.json"), filepath.Join(docs, "03-content.generated.supporting.json")); err != nil {
		t.Fatalf("publish: %v", err)
	}
	var out string
	if err := waitUntil(t.Context(), time.Minute, func() bool {
		out, _ = runCapturing(t, "inserted", "--nats-url", url, "--site", site)
		return strings.Count(out, " v1 sequence ") == 2 && strings.Contains(out, "verified  vertical_up")
	}); err != nil {
		t.Fatalf("inserted printed %q, want two pages, the article with its uplink", out)
	}
	for _, want := range []string{"hiking-boots v1 sequence ", "how-to-break-in-hiking-boots v1 sequence ", " (stream #", "passed: ", "in_body", "links ("} {
		if !strings.Contains(out, want) {
			t.Errorf("inserted printed %q, want %q in it", out, want)
		}
	}
	if out, err := runCapturing(t, "inserted", "--nats-url", url, "--site", "another-site"); err == nil || !strings.Contains(err.Error(), "no links.inserted") {
		t.Errorf("another site's events: %q (%v), want none, as an error", out, err)
	}
	if out, err := runCapturing(t, "inserted", "--nats-url", url, "--site", site, "--page", "no-such-page"); err == nil ||
		!strings.Contains(err.Error(), "no links.inserted for page no-such-page of site "+site) {
		t.Errorf("a page without events: %q (%v), want it named, as an error", out, err)
	}
	lines, err := runCapturing(t, "inserted", "--nats-url", url, "--site", site, "--json")
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		var e struct {
			SiteID     string `json:"site_id"`
			PageID     string `json:"page_id"`
			HTML       string `json:"html"`
			Validation struct {
				Rules []json.RawMessage `json:"rules"`
			} `json:"validation"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.SiteID != site || e.PageID == "" || e.HTML == "" || len(e.Validation.Rules) == 0 {
			t.Errorf("--json line %.200q (%v): want the event's data with its site", line, err)
		}
		pages++
	}
	if pages != 2 {
		t.Errorf("--json printed %d lines, want one a page", pages)
	}

	// A page deleted since its last links.inserted is listed apart, not
	// as a page of the site (a trial's listing showed one as current).
	if _, err := runCapturing(t, "publish", "--nats-url", url, filepath.Join(docs, "05-content.deleted.json")); err != nil {
		t.Fatalf("publish: %v", err)
	}
	if err := waitUntil(t.Context(), time.Minute, func() bool {
		out, _ = runCapturing(t, "inserted", "--nats-url", url, "--site", site)
		return strings.Contains(out, "deleted since their last links.inserted: how-to-break-in-hiking-boots (v2)")
	}); err != nil {
		t.Fatalf("inserted printed %q after the article's deletion, want it listed as deleted", out)
	}
	if strings.Contains(out, "how-to-break-in-hiking-boots v1 sequence") {
		t.Errorf("inserted printed %q: the deleted article still as a page", out)
	}
}
