package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/store/storetest"
)

func TestDemoLinksTheExampleSiteAndWritesItsSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole example site")
	}
	out := t.TempDir()
	err := run([]string{"demo", "--database-url", storetest.NewDatabase(t), "--out", out, "--log-level", "error"})
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum demoSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 60 {
		t.Errorf("pages linked: %d, want all 60", sum.Pages)
	}
	up := sum.LinksByType["vertical_up"]
	if up["verified"] < 30 || up["verified"]+up["planned"] != sum.PagesByKind["supporting"] {
		t.Errorf("vertical_up links %v for %d supporting articles", up, sum.PagesByKind["supporting"])
	}
	// Pages fail only where the content leaves no choice: an uplink whose
	// anchor is not in the first two paragraphs (awaiting the LLM fallback),
	// or an optional link whose anchor the hub's uplinks already used three
	// times.
	uplinkFailures := 0
	for page, failures := range sum.FailedPages {
		for _, f := range failures {
			rule, _, _ := strings.Cut(f, ":")
			switch rule {
			case "mandatory_uplink":
				uplinkFailures++
			case "first_link_rule", "anchor_diversity":
			default:
				t.Errorf("page %s fails %s", page, f)
			}
		}
	}
	if uplinkFailures != up["planned"] {
		t.Errorf("%d pages fail mandatory_uplink but %d uplinks were not placed", uplinkFailures, up["planned"])
	}
	for _, typ := range []string{"vertical_down", "taxonomy", "breadcrumb", "horizontal", "related"} {
		if sum.LinksByType[typ]["verified"] == 0 {
			t.Errorf("no verified %s links: %v", typ, sum.LinksByType)
		}
	}
	if sum.LinksByType["horizontal"]["review"]+sum.LinksByType["related"]["review"] == 0 {
		t.Errorf("no review suggestions: %v", sum.LinksByType)
	}
	html, err := os.ReadFile(filepath.Join(out, "how-to-break-in-hiking-boots.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<a href="/hiking/hiking-boots/" data-interlinker=`) {
		t.Errorf("linked page lacks its uplink:\n%.400s", html)
	}
}

func TestPublishSendsEventFilesWithTheirIDsAndRefusesInvalidOnes(t *testing.T) {
	srv, err := bus.StartEmbedded(bus.EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	p, err := newProducer(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := bus.Provision(ctx, p.js, bus.StreamSettings{DuplicateWindow: time.Minute}, bus.ConsumerSettings{}, nil); err != nil {
		t.Fatal(err)
	}

	docs := filepath.Join("..", "..", "docs", "events")
	for range 2 { // the second run's events are duplicates JetStream drops
		if err := run([]string{"publish", "--nats-url", srv.ClientURL(), docs}); err != nil {
			t.Fatalf("publish docs: %v", err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(docs, "*.json"))
	var stored uint64
	for _, name := range []string{"SITE", "CONTENT", "LINKS", "AUDIT"} {
		s, err := p.js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stored += info.State.Msgs
	}
	if stored != uint64(len(files)) {
		t.Errorf("streams hold %d events, want %d (one per file, duplicates dropped)", stored, len(files))
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"specversion":"0.3","id":"x","source":"s","type":"content.generated","siteid":"s","data":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"publish", "--nats-url", srv.ClientURL(), bad})
	if err == nil || !strings.Contains(err.Error(), `specversion is "0.3"`) {
		t.Errorf("publishing an invalid event: %v", err)
	}
	cons, err := p.js.OrderedConsumer(ctx, "CONTENT", jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumPending != 4 {
		t.Errorf("CONTENT holds %d events, want the 4 documented ones only", info.NumPending)
	}
}

func TestServeNeedsTheSharedNATSUnlessAPrivateOneIsAskedFor(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "serve needs --nats-url"},
		{[]string{"serve", "--nats-url", "nats://127.0.0.1:1", "--embedded-nats"}, "not both"},
	} {
		err := run(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	if err := natsChoice("", true); err != nil {
		t.Errorf("--embedded-nats alone refused: %v", err)
	}
	if err := natsChoice("nats://nats.internal:4222", false); err != nil {
		t.Errorf("--nats-url alone refused: %v", err)
	}
}
