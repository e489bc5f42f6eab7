package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

func demo(ctx context.Context, args []string) error {
	cfg := service.DefaultConfig()
	cfg.DatabaseURL = "postgres://postgres@127.0.0.1:5432/interlinker_demo?sslmode=disable"
	cfg.NATSListen = "127.0.0.1:0"
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.DataDir = ""
	logLevel := "warn"
	outDir, example, reset := "demo-output", "", true
	s := &settings{fs: flag.NewFlagSet("demo", flag.ContinueOnError)}
	serviceFlags(s, &cfg, &logLevel)
	if f := s.fs.Lookup("nats-url"); f != nil {
		f.Usage = s.usage("nats-url", "ignored: the demo always embeds its own NATS server")
	}
	s.fs.StringVar(&outDir, "out", outDir, "folder each example site's results are written to, a subfolder a site")
	s.fs.StringVar(&example, "example", example, "run only this bundled example site ("+strings.Join(examples.Names(), ", ")+"); default: all of them")
	s.fs.BoolVar(&reset, "reset", reset, "drop the demo database and the embedded server's streams (DATA_DIR/nats) first, so every run starts clean")
	if err := s.finish(args, &cfg, logLevel); err != nil {
		return err
	}
	if cfg.NATSURL != "" {
		// The demo publishes its sites' fixed event ids: a shared server
		// that remembers them from a run before would drop them as
		// duplicates.
		fmt.Fprintf(os.Stderr, "interlinker demo: it embeds its own NATS server; ignoring NATS URL %s\n", cfg.NATSURL)
		cfg.NATSURL = ""
	}
	names := examples.Names()
	if example != "" {
		if !slices.Contains(names, example) {
			return fmt.Errorf("no example site %q: the bundled ones are %s", example, strings.Join(names, ", "))
		}
		names = []string{example}
	}
	if cfg.DataDir == "" {
		dir, err := os.MkdirTemp("", "interlinker-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.DataDir = dir
	}
	if reset {
		if err := store.DropDatabase(ctx, cfg.DatabaseURL); err != nil {
			return err
		}
		// Streams kept from a run before still hold its event ids, within
		// the duplicate window, and would drop this run's as duplicates:
		// a second run in the same --data-dir waited for a site that never
		// came (trial U's data dir, a minute, then "not projected").
		if err := os.RemoveAll(filepath.Join(cfg.DataDir, "nats")); err != nil {
			return fmt.Errorf("reset the demo's streams: %w", err)
		}
	}

	svc, err := service.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = svc.Shutdown(shutdownCtx)
	}()
	fmt.Printf("interlinker demo: service up (NATS JetStream %s, HTTP %s, database %s)\n", svc.NATSURL(), svc.HTTPAddr(), cfg.DatabaseURL)

	p, err := newProducer(svc.NATSURL())
	if err != nil {
		return err
	}
	defer p.close()
	for _, name := range names {
		site, err := examples.Load(name)
		if err != nil {
			return err
		}
		dir := filepath.Join(outDir, name)
		if site.Existing {
			err = demoExisting(ctx, svc, p, site, dir)
		} else {
			err = demoGenerated(ctx, svc, p, site, dir)
		}
		if err != nil {
			return fmt.Errorf("example %s: %w", name, err)
		}
	}
	return nil
}

// demoGenerated is new-content mode: it publishes a site's pages as
// content.generated, hubs first, and reports the links that come back.
func demoGenerated(ctx context.Context, svc *service.Service, p *producer, site examples.Site, outDir string) error {
	started := time.Now()
	siteID := site.Structure.Site.ID
	fmt.Printf("\n== New content: %s (%s), %d pages published as content.generated ==\n", site.Structure.Site.Name, siteID, len(site.Pages))
	results, err := watchInserted(ctx, p.js, siteID, nil)
	if err != nil {
		return err
	}
	if err := demoSite(ctx, svc, p, site); err != nil {
		return err
	}
	// Hubs go first so their supporting articles find them when planned.
	var hubs, rest []events.PageInfo
	for _, pg := range site.Pages {
		if pg.Kind == "hub" {
			hubs = append(hubs, pg)
		} else {
			rest = append(rest, pg)
		}
	}
	for _, batch := range [][]events.PageInfo{hubs, rest} {
		for _, pg := range batch {
			ev, err := demoEvent(events.ContentGenerated, siteID, fmt.Sprintf("demo-%s-v%d", pg.ID, pg.Version), events.ContentData{Page: pg})
			if err != nil {
				return err
			}
			if err := p.publish(ctx, ev); err != nil {
				return err
			}
		}
		want := len(hubs)
		if len(batch) == len(rest) {
			want += len(rest)
		}
		if err := waitUntil(ctx, 5*time.Minute, func() bool { return results.count() >= want }); err != nil {
			return fmt.Errorf("waiting for links.inserted (%d of %d): %w", results.count(), want, err)
		}
	}
	// Pages planned before a page they depend on are planned again when it
	// arrives; the summary waits for those re-plans to settle.
	if err := waitCalm(ctx, svc); err != nil {
		return fmt.Errorf("waiting for re-plans to settle: %w", err)
	}
	elapsed := time.Since(started)
	return report(site, results.all(), outDir, elapsed)
}

// demoSite publishes a site's structure and waits until it is projected.
func demoSite(ctx context.Context, svc *service.Service, p *producer, site examples.Site) error {
	siteID := site.Structure.Site.ID
	siteEv, err := demoEvent(events.SiteUpdated, siteID, "demo-site-"+siteID, site.Structure)
	if err != nil {
		return err
	}
	if err := p.publish(ctx, siteEv); err != nil {
		return err
	}
	if err := waitUntil(ctx, time.Minute, func() bool {
		_, found, err := svc.Store().LoadSite(ctx, siteID)
		return err == nil && found
	}); err != nil {
		return fmt.Errorf("site %s was not projected: %w", siteID, err)
	}
	return nil
}

// waitCalm waits until the service has had nothing to do three times in a
// row, 50 ms apart: the events published so far and what they caused are
// all handled.
func waitCalm(ctx context.Context, svc *service.Service) error {
	calm := 0
	return waitUntil(ctx, 5*time.Minute, func() bool {
		if idle, err := svc.Idle(ctx); err == nil && idle {
			calm++
		} else {
			calm = 0
		}
		return calm >= 3
	})
}

func demoEvent(typ, siteID, id string, data any) (events.Event, error) {
	ev, err := events.New(typ, siteID, id, "", data)
	ev.Source = "interlinker-demo"
	return ev, err
}

func waitUntil(ctx context.Context, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("gave up after %s", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// insertedWatch collects links.inserted as a downstream publisher would.
type insertedWatch struct {
	mu     sync.Mutex
	byPage map[string]events.LinksInsertedData
}

// watchInserted collects the site's links.inserted that keep accepts (nil:
// every one), the last of each page.
func watchInserted(ctx context.Context, js jetstream.JetStream, siteID string, keep func(events.LinksInsertedData) bool) (*insertedWatch, error) {
	cons, err := js.OrderedConsumer(ctx, "LINKS", jetstream.OrderedConsumerConfig{FilterSubjects: []string{events.LinksInserted}})
	if err != nil {
		return nil, fmt.Errorf("watch links.inserted: %w", err)
	}
	w := &insertedWatch{byPage: map[string]events.LinksInsertedData{}}
	if _, err := cons.Consume(func(m jetstream.Msg) {
		ev, err := events.Decode(m.Data())
		if err != nil || ev.SiteID != siteID {
			return
		}
		d, err := events.DecodeData[events.LinksInsertedData](ev)
		if err != nil || keep != nil && !keep(d) {
			return
		}
		w.mu.Lock()
		w.byPage[d.PageID] = d
		w.mu.Unlock()
	}); err != nil {
		return nil, fmt.Errorf("watch links.inserted: %w", err)
	}
	return w, nil
}

func (w *insertedWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.byPage)
}

func (w *insertedWatch) all() map[string]events.LinksInsertedData {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]events.LinksInsertedData, len(w.byPage))
	for k, v := range w.byPage {
		out[k] = v
	}
	return out
}

// reviewSuggestion is a link scored between review_score and
// auto_link_score, left for a person to accept.
type reviewSuggestion struct {
	Source string  `json:"source_page_id"`
	Target string  `json:"target_page_id"`
	Type   string  `json:"type"`
	Score  float64 `json:"score"`
	Why    string  `json:"explanation"`
}

// demoSummary is what summary.json holds.
type demoSummary struct {
	Site        string                    `json:"site"`
	Pages       int                       `json:"pages"`
	PagesByKind map[string]int            `json:"pages_by_kind"`
	LinksByType map[string]map[string]int `json:"links_by_type"`
	NotPlaced   []string                  `json:"links_not_placed"`
	FailedPages map[string][]string       `json:"pages_failing_validation"`
	// AnchorMix counts the placed in-body links to each target by anchor
	// type, against the policy's 60/30/10 keyword/title/natural aim.
	AnchorMix map[string]map[string]int `json:"anchor_mix_by_target"`
	// PlacedBy counts the placed in-body links by how they got in:
	// rule_based, rule_based_variation or llm_fallback (the silo seed
	// expects about 70/30 rules to LLM).
	PlacedBy       map[string]int     `json:"in_body_links_placed_by"`
	Review         []reviewSuggestion `json:"review_suggestions"`
	ElapsedSeconds float64            `json:"elapsed_seconds"`
}

func report(site examples.Site, inserted map[string]events.LinksInsertedData, outDir string, elapsed time.Duration) error {
	sum := demoSummary{Site: site.Structure.Site.Name, Pages: len(inserted), PagesByKind: map[string]int{},
		LinksByType: map[string]map[string]int{}, FailedPages: map[string][]string{}, AnchorMix: map[string]map[string]int{},
		PlacedBy: map[string]int{}, ElapsedSeconds: elapsed.Seconds()}
	overallMix := map[string]int{}
	kinds := map[string]string{}
	for _, pg := range site.Pages {
		kinds[pg.ID] = pg.Kind
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	ids := make([]string, 0, len(inserted))
	for id := range inserted {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		d := inserted[id]
		sum.PagesByKind[kinds[id]]++
		for _, l := range d.Links {
			if sum.LinksByType[l.Type] == nil {
				sum.LinksByType[l.Type] = map[string]int{}
			}
			sum.LinksByType[l.Type][l.Status]++
			if l.Status == "review" {
				sum.Review = append(sum.Review, reviewSuggestion{id, l.TargetPageID, l.Type, l.Score, l.Explanation})
			}
			if l.Zone == "in_body" && (l.Status == "verified" || l.Status == "flagged" || l.Status == "inserted") {
				if sum.AnchorMix[l.TargetPageID] == nil {
					sum.AnchorMix[l.TargetPageID] = map[string]int{}
				}
				sum.AnchorMix[l.TargetPageID][l.AnchorType]++
				overallMix[l.AnchorType]++
				sum.PlacedBy[l.Placement]++
			}
			if l.Status == "planned" {
				sum.NotPlaced = append(sum.NotPlaced, fmt.Sprintf("%s → %s (%s): %s", id, l.TargetPageID, l.Type, l.Reason))
			}
		}
		for _, r := range d.Validation.Rules {
			if !r.Passed && r.Severity == "error" {
				sum.FailedPages[id] = append(sum.FailedPages[id], r.Name+": "+r.Detail)
			}
		}
		if err := os.WriteFile(filepath.Join(outDir, id+".html"), []byte(d.HTML), 0o644); err != nil {
			return err
		}
	}
	raw, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "summary.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}

	fmt.Printf("\nLinked %d pages of %s in %.1fs.\n\nPages by kind:\n", sum.Pages, sum.Site, elapsed.Seconds())
	for _, k := range sortedKeys(sum.PagesByKind) {
		fmt.Printf("  %-12s %3d\n", k, sum.PagesByKind[k])
	}
	fmt.Println("\nLinks by type (by status):")
	for _, typ := range sortedKeys(sum.LinksByType) {
		var parts []string
		total := 0
		for _, st := range sortedKeys(sum.LinksByType[typ]) {
			parts = append(parts, fmt.Sprintf("%s %d", st, sum.LinksByType[typ][st]))
			total += sum.LinksByType[typ][st]
		}
		fmt.Printf("  %-14s %3d  (%s)\n", typ, total, strings.Join(parts, ", "))
	}
	placed := 0
	for _, n := range overallMix {
		placed += n
	}
	if placed > 0 {
		var parts []string
		for _, typ := range sortedKeys(overallMix) {
			parts = append(parts, fmt.Sprintf("%s %d (%.0f%%)", typ, overallMix[typ], 100*float64(overallMix[typ])/float64(placed)))
		}
		fmt.Printf("\nAnchor mix of %d placed in-body links (aim 60/30/10 keyword/title/natural; per target in summary.json):\n  %s\n",
			placed, strings.Join(parts, ", "))
	}
	if placed > 0 {
		var parts []string
		for _, how := range sortedKeys(sum.PlacedBy) {
			parts = append(parts, fmt.Sprintf("%s %d (%.0f%%)", how, sum.PlacedBy[how], 100*float64(sum.PlacedBy[how])/float64(placed)))
		}
		fmt.Printf("\nPlaced by (rules or the LLM fallback; the silo seed expects about 70/30):\n  %s\n", strings.Join(parts, ", "))
	}
	if len(sum.NotPlaced) > 0 {
		fmt.Printf("\nLinks not placed (%d):\n", len(sum.NotPlaced))
		for _, n := range sum.NotPlaced {
			fmt.Println("  " + n)
		}
	}
	sort.SliceStable(sum.Review, func(i, j int) bool { return sum.Review[i].Score > sum.Review[j].Score })
	fmt.Printf("\nReview suggestions (%d, scored %s; best first, all in summary.json):\n", len(sum.Review), "40–59")
	for _, r := range sum.Review[:min(len(sum.Review), 10)] {
		fmt.Printf("  %5.2f  %s → %s (%s)\n", r.Score, r.Source, r.Target, r.Type)
	}
	fmt.Printf("\nValidation: %d pages passed, %d failed\n", sum.Pages-len(sum.FailedPages), len(sum.FailedPages))
	for _, id := range sortedKeys(sum.FailedPages) {
		for _, f := range sum.FailedPages[id] {
			fmt.Printf("  %s — %s\n", id, f)
		}
	}
	abs, _ := filepath.Abs(outDir)
	fmt.Printf("\nLinked HTML and summary.json written to %s\n", abs)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
