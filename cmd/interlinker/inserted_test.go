package main

import (
	"encoding/json"
	"fmt"
	"os"
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

	// An article whose writer links its hub gets no second uplink; its
	// planned one is counted apart from work pending.
	own := filepath.Join(t.TempDir(), "own-uplink.json")
	ownEvent := `{"specversion": "1.0", "id": "cms-gen-lacing-v1", "source": "https://cms.trailhead-outfitters.example",
		"type": "content.generated", "siteid": "trailhead-outfitters", "data": {"page": {
		"id": "how-to-lace-hiking-boots", "url": "/hiking/hiking-boots/how-to-lace-hiking-boots/",
		"title": "How to Lace Hiking Boots", "kind": "supporting", "cluster_id": "hiking-boots", "sector_id": "hiking",
		"primary_keyword": "lace hiking boots", "keywords": [], "labels": [], "attributes": {}, "priority": false,
		"published_at": "2026-09-20T09:00:00Z", "version": 1,
		"html": "<h1>How to Lace Hiking Boots</h1>\n<p>Start with our <a href=\"/hiking/hiking-boots/\">guide to boots for the trail</a>; lacing comes after fit.</p>\n<p>A surgeon's knot at the ankle keeps the heel down on descents.</p>\n"}}}`
	if err := os.WriteFile(own, []byte(ownEvent), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCapturing(t, "publish", "--nats-url", url, own); err != nil {
		t.Fatalf("publish: %v", err)
	}
	if err := waitUntil(t.Context(), time.Minute, func() bool {
		out, _ = runCapturing(t, "inserted", "--nats-url", url, "--site", site, "--page", "how-to-lace-hiking-boots")
		return strings.Contains(out, "how-to-lace-hiking-boots v1 sequence")
	}); err != nil {
		t.Fatalf("inserted printed %q, want the article's links", out)
	}
	header, _, _ := strings.Cut(out, "\n")
	plannedLines := strings.Count(out, "\n  planned ")
	if !strings.Contains(header, "1 target linked already") || !strings.Contains(out, "planned   vertical_up") ||
		(plannedLines > 1) != strings.Contains(header, fmt.Sprintf(" %d planned", plannedLines-1)) {
		t.Errorf("inserted printed %q, want its uplink, which the writer's link carries, counted as linked already, not planned", out)
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
