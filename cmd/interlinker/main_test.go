package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store/storetest"
)

func TestDemoLinksTheExampleSiteAndWritesItsSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole example site")
	}
	out := t.TempDir()
	// A small pool: the default, one connection per handler (78), would
	// crowd Postgres' 100 connections while other packages' tests run.
	err := run([]string{"demo", "--example", "outdoor-gear", "--database-url", storetest.NewDatabase(t), "--db-max-conns", "16",
		"--out", out, "--log-level", "error"})
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	out = filepath.Join(out, "outdoor-gear")
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

// linkTag is an <a> start or end tag; a page's fixes change nothing else.
var linkTag = regexp.MustCompile(`(?i)<a\b[^>]*>|</a>`)

func TestDemoAuditsTheExistingSiteAppliesItsFixesAndAuditsAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole example site")
	}
	out, data, db := t.TempDir(), t.TempDir(), storetest.NewDatabase(t)
	// Run twice in one data dir: the second run starts as clean as the
	// first (its streams were kept, and dropped its fixed event ids as
	// duplicates of the first run's: trial U).
	for range 2 {
		err := run([]string{"demo", "--example", "home-coffee", "--database-url", db, "--db-max-conns", "16",
			"--data-dir", data, "--out", out, "--log-level", "error"})
		if err != nil {
			t.Fatalf("demo: %v", err)
		}
	}
	out = filepath.Join(out, "home-coffee")
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum existingSummary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	// The first audit finds what examples/home-coffee/README.md says was
	// planted, and nothing else.
	b := sum.Before
	for _, f := range []struct {
		name      string
		got, want int
	}{
		{"pages", b.Pages, 31}, {"orphan_pages", b.OrphanPages, 3}, {"navigation_only_pages", b.NavigationOnlyPages, 2},
		{"missing_mandatory", b.MissingMandatory, 3}, {"uplinks_outside_first_paragraphs", b.UplinksOutsideOpening, 1},
		{"broken_links", b.BrokenLinks, 2}, {"unverified_links", b.UnverifiedLinks, 1}, {"over_linked_pages", b.OverLinkedPages, 1},
		{"under_linked_pages", b.UnderLinkedPages, 2}, {"dominant_anchors", b.DominantAnchors, 1},
	} {
		if f.got != f.want {
			t.Errorf("before the fixes %s = %d, planted %d", f.name, f.got, f.want)
		}
	}
	a := sum.After
	if a.MissingMandatory != 0 || a.BrokenLinks != 0 || a.OverLinkedPages != 0 {
		t.Errorf("after the fixes: missing_mandatory %d, broken_links %d, over_linked_pages %d; want 0, 0, 0",
			a.MissingMandatory, a.BrokenLinks, a.OverLinkedPages)
	}
	if a.OrphanPages >= b.OrphanPages || a.OverallHealthScore <= b.OverallHealthScore {
		t.Errorf("orphans %d → %d, health %.1f → %.1f: want fewer orphans and better health",
			b.OrphanPages, a.OrphanPages, b.OverallHealthScore, a.OverallHealthScore)
	}
	if sum.Applied.Applied == 0 || len(sum.PagesChanged) == 0 {
		t.Fatalf("nothing applied: %+v", sum.Applied)
	}
	for _, f := range sum.Applied.Failed {
		if f.Reason == "" {
			t.Errorf("recommendation %s refused without a reason", f.ID)
		}
	}
	// Each page the fixes changed differs from the site's own HTML in
	// links alone, and both audits wrote their files.
	site, err := examples.Load("home-coffee")
	if err != nil {
		t.Fatal(err)
	}
	original := map[string]string{}
	for _, pg := range site.Pages {
		original[pg.ID] = pg.HTML
	}
	for _, id := range sum.PagesChanged {
		fixed, err := os.ReadFile(filepath.Join(out, "fixed", id+".html"))
		if err != nil {
			t.Fatal(err)
		}
		if string(fixed) == original[id] {
			t.Errorf("page %s is listed as changed but is not", id)
		}
		if linkTag.ReplaceAllString(string(fixed), "") != linkTag.ReplaceAllString(original[id], "") {
			t.Errorf("fixed page %s differs from the original in more than links", id)
		}
	}
	for _, name := range []string{"before", "after"} {
		for _, file := range []string{auditJSONFile, orphansCSVFile, recommendationsFile, linkMapCSVFile, linkScoresCSVFile} {
			if _, err := os.Stat(filepath.Join(out, name, file)); err != nil {
				t.Errorf("%s/%s: %v", name, file, err)
			}
		}
	}
}

func TestPublishSendsEventFilesWithTheirIDsAndRefusesInvalidOnes(t *testing.T) {
	srv, p, ctx := provisionedServer(t)

	docs := filepath.Join("..", "..", "docs", "events")
	for range 2 { // the second run's events are duplicates JetStream drops
		if err := run([]string{"publish", "--nats-url", srv.ClientURL(), docs}); err != nil {
			t.Fatalf("publish docs: %v", err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(docs, "*.json"))
	var stored uint64
	for _, stream := range events.Streams {
		if stream.Name == "DEADLETTER" {
			continue
		}
		s, err := p.js.Stream(ctx, stream.Name)
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
	err := run([]string{"publish", "--nats-url", srv.ClientURL(), bad})
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

	// A batch holding one bad file sends none of its events: a trial's
	// batch went out in part, the files before the bad one sent.
	good := filepath.Join(t.TempDir(), "good.json")
	if err := os.WriteFile(good, []byte(`{"specversion":"1.0","id":"batch-1","source":"s","type":"content.deleted","siteid":"s","data":{"page_id":"p","version":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run([]string{"publish", "--nats-url", srv.ClientURL(), good, bad})
	if err == nil || !strings.Contains(err.Error(), "nothing was sent") || !strings.Contains(err.Error(), `specversion is "0.3"`) {
		t.Errorf("publishing a batch with a bad file: %v, want it refused whole, naming the bad event", err)
	}
	if info, err = cons.Info(ctx); err != nil {
		t.Fatal(err)
	} else if info.NumPending != 4 {
		t.Errorf("CONTENT holds %d events after a refused batch, want still the 4 documented ones", info.NumPending)
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

func TestPublishOffersValidateFalseOnlyWhereItCanSendTheEvent(t *testing.T) {
	srv, p, ctx := provisionedServer(t)
	write := func(name, body string) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const hint = "use --validate=false to send it anyway"
	stored := func() uint64 {
		s, err := p.js.Stream(ctx, "CONTENT")
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Msgs
	}

	// JSON that parses but breaks the contract: the hint is offered, and
	// taking it sends the event.
	offContract := write("old-spec.json", `{"specversion":"0.3","id":"x","source":"s","type":"content.generated","siteid":"s","data":{}}`)
	err := run([]string{"publish", "--nats-url", srv.ClientURL(), offContract})
	if err == nil || !strings.Contains(err.Error(), `specversion is "0.3"`) || !strings.Contains(err.Error(), hint) {
		t.Errorf("publishing an event off the contract: %v, want the reason and %q", err, hint)
	}
	if err := run([]string{"publish", "--nats-url", srv.ClientURL(), "--validate=false", offContract}); err != nil {
		t.Errorf("publishing an event off the contract with --validate=false: %v", err)
	}
	if n := stored(); n != 1 {
		t.Errorf("CONTENT holds %d events, want the one sent with --validate=false", n)
	}

	// JSON that does not parse: no flag sends it, so none is offered.
	for _, tc := range []struct{ name, body, where string }{
		{"truncated.json", `{"specversion":"1.0","id":"y","source":"s","type":"content.generated"`, "unexpected end of JSON input"},
		{"trailing-comma.json", "{\"specversion\":\"1.0\",\"id\":\"y\",\"source\":\"s\",\n\"type\":\"content.generated\",\"siteid\":\"s\",\"data\":{},}",
			"(line 2, column 51: invalid character '}'"},
		{"blank-lines-first.json", "\n\n{\"specversion\":\"1.0\",\"id\":\"y\",,\"source\":\"s\"}", "(line 3, column 31: invalid character ','"},
		{"array.json", "[\n{\"specversion\":\"1.0\"},\n{\"id\":\"y\"}\n{\"id\":\"z\"}]", "(line 4, column 1: invalid character '{' after array element"},
	} {
		path := write(tc.name, tc.body)
		for _, args := range [][]string{
			{"publish", "--nats-url", srv.ClientURL(), path},
			{"publish", "--nats-url", srv.ClientURL(), "--validate=false", path},
		} {
			err := run(args)
			if err == nil || !strings.Contains(err.Error(), "malformed JSON") || !strings.Contains(err.Error(), tc.where) || strings.Contains(err.Error(), hint) {
				t.Errorf("%s %v: %v, want it called malformed at %q, without the hint", tc.name, args[3:], err, tc.where)
			}
		}
	}
	if n := stored(); n != 1 {
		t.Errorf("CONTENT holds %d events after malformed files, want still 1", n)
	}

	// An event type no handler takes: no stream holds it, so the broker
	// would refuse it and no flag sends it.
	typo := write("typo.json", `{"specversion":"1.0","id":"z","source":"s","type":"content.updated","siteid":"s","data":{}}`)
	for _, args := range [][]string{
		{"publish", "--nats-url", srv.ClientURL(), typo},
		{"publish", "--nats-url", srv.ClientURL(), "--validate=false", typo},
	} {
		err := run(args)
		if err == nil || !strings.Contains(err.Error(), `no stream takes event type "content.updated"`) || strings.Contains(err.Error(), hint) {
			t.Errorf("typo.json %v: %v, want no stream named, without the hint", args[3:], err)
		}
	}
}

// parseServiceFlags parses args as serve does.
func parseServiceFlags(args ...string) (service.Config, error) {
	defer slog.SetDefault(slog.Default()) // finish installs the service's logger
	cfg := service.DefaultConfig()
	logLevel := "info"
	s := &settings{fs: flag.NewFlagSet("serve", flag.ContinueOnError)}
	s.fs.SetOutput(io.Discard)
	serviceFlags(s, &cfg, &logLevel)
	return cfg, s.finish(args, &cfg, logLevel)
}

func TestLogLevelFlagSetsTheServiceLoggersLevel(t *testing.T) {
	cfg, err := parseServiceFlags("--log-level", "error")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Logger.Enabled(context.Background(), slog.LevelWarn) {
		t.Error("--log-level error left warnings on")
	}
	if _, err := parseServiceFlags("--log-level", "loud"); err == nil {
		t.Error("--log-level loud accepted")
	}
}

func TestRedeliveryDelaysComeFromTheFlagOrTheEnvironment(t *testing.T) {
	parse := parseServiceFlags
	cfg, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if want := service.DefaultConfig().NakDelays; !slices.Equal(cfg.NakDelays, want) {
		t.Errorf("default delays %v, want %v", cfg.NakDelays, want)
	}
	cfg, err = parse("--redelivery-delays", "500ms, 2s,1m30s")
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{500 * time.Millisecond, 2 * time.Second, 90 * time.Second}; !slices.Equal(cfg.NakDelays, want) {
		t.Errorf("--redelivery-delays gave %v, want %v", cfg.NakDelays, want)
	}
	for _, bad := range []string{"", " ", "1s,,2s", "1s,0s", "-1s", "soon", "5"} {
		if _, err := parse("--redelivery-delays", bad); err == nil || !strings.Contains(err.Error(), "redelivery-delays") {
			t.Errorf("--redelivery-delays %q: %v, want it refused", bad, err)
		}
	}

	t.Setenv("INTERLINKER_REDELIVERY_DELAYS", "250ms,4s")
	cfg, err = parse()
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{250 * time.Millisecond, 4 * time.Second}; !slices.Equal(cfg.NakDelays, want) {
		t.Errorf("INTERLINKER_REDELIVERY_DELAYS gave %v, want %v", cfg.NakDelays, want)
	}
	cfg, err = parse("--redelivery-delays", "3s")
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{3 * time.Second}; !slices.Equal(cfg.NakDelays, want) {
		t.Errorf("flag over environment gave %v, want %v", cfg.NakDelays, want)
	}
	for _, bad := range []string{"", "1s,0", "2s,later"} {
		t.Setenv("INTERLINKER_REDELIVERY_DELAYS", bad)
		if _, err := parse(); err == nil || !strings.Contains(err.Error(), "INTERLINKER_REDELIVERY_DELAYS") {
			t.Errorf("INTERLINKER_REDELIVERY_DELAYS=%q: %v, want it refused", bad, err)
		}
	}
}

func TestDBConcurrencyIsTwiceTheCPUsUnlessSet(t *testing.T) {
	cfg, err := parseServiceFlags()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.TxSlots(), 2*runtime.GOMAXPROCS(0); got != want {
		t.Errorf("default transaction slots %d, want twice GOMAXPROCS (%d)", got, want)
	}
	if cfg, err = parseServiceFlags("--db-concurrency", "3"); err != nil || cfg.TxSlots() != 3 {
		t.Errorf("--db-concurrency 3 gave %d slots, err %v", cfg.TxSlots(), err)
	}
	t.Setenv("INTERLINKER_DB_CONCURRENCY", "5")
	if cfg, err = parseServiceFlags(); err != nil || cfg.TxSlots() != 5 {
		t.Errorf("INTERLINKER_DB_CONCURRENCY=5 gave %d slots, err %v", cfg.TxSlots(), err)
	}
	if _, err := parseServiceFlags("--db-concurrency", "-1"); err == nil || !strings.Contains(err.Error(), "db-concurrency") {
		t.Errorf("--db-concurrency -1: %v, want it refused", err)
	}
}

// provisionedServer starts an embedded server with interlinker's streams
// and a producer connected to it, all closed with the test.
func provisionedServer(t *testing.T) (*server.Server, *producer, context.Context) {
	t.Helper()
	srv, err := bus.StartEmbedded(bus.EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	p, err := newProducer(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, p.js, bus.StreamSettings{DuplicateWindow: time.Minute}, bus.ConsumerSettings{}, nil); err != nil {
		t.Fatal(err)
	}
	return srv, p, ctx
}

// A command that reads no arguments refuses one rather than drop it
// unread: a trial's "inserted SITE" was told only that --site is
// required. Nothing is dialled: the arguments are refused first.
func TestACommandRefusesArgumentsItDoesNotRead(t *testing.T) {
	for _, args := range [][]string{
		{"inserted", "little-harbor-parenting"},
		{"audit", "little-harbor-parenting", "--wait"},
		{"dead-letters", "--nats-url", "nats://127.0.0.1:1", "extra"},
	} {
		err := run(args)
		if err == nil || !strings.Contains(err.Error(), `unexpected argument "`) {
			t.Errorf("%q: %v, want the unexpected argument named", args, err)
			continue
		}
		if args[0] != "dead-letters" && !strings.Contains(err.Error(), "--site little-harbor-parenting") {
			t.Errorf("%q: %v, want a hint to give the site with --site", args, err)
		}
	}
}
