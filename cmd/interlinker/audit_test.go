package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store/storetest"
)

// startTestService runs the service in process on a database and an
// embedded NATS server of its own.
func startTestService(t *testing.T, configure ...func(*service.Config)) (*service.Service, string) {
	t.Helper()
	cfg := service.DefaultConfig()
	cfg.DatabaseURL = storetest.NewDatabase(t)
	cfg.NATSListen = "127.0.0.1:0"
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.DBMaxConns = 16
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range configure {
		c(&cfg)
	}
	svc, err := service.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = svc.Shutdown(ctx)
	})
	return svc, cfg.DatabaseURL
}

// runCapturing runs the command line and returns what it printed.
func runCapturing(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return capturing(t, &os.Stdout, func() error { return run(args) })
}

// capturing runs f with *file (os.Stdout or os.Stderr) read into the
// string it returns.
func capturing(t *testing.T, file **os.File, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := *file
	*file = w
	out := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, r)
		out <- b.String()
	}()
	runErr := f()
	*file = saved
	w.Close()
	return <-out, runErr
}

func readCSV(t *testing.T, path string) (header []string, rows []map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil || len(all) == 0 {
		t.Fatalf("%s: %v (%d records)", path, err, len(all))
	}
	for _, rec := range all[1:] {
		row := map[string]string{}
		for i, name := range all[0] {
			row[name] = rec[i]
		}
		rows = append(rows, row)
	}
	return all[0], rows
}

func TestAuditVerbWaitsPrintsTheReportAndWritesItsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the service")
	}
	svc, dbURL := startTestService(t)
	p, err := newProducer(svc.NATSURL())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	site, err := examples.Load("home-coffee")
	if err != nil {
		t.Fatal(err)
	}
	siteID := site.Structure.Site.ID
	if err := publishExisting(t.Context(), svc, p, site); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "report")
	printed, err := runCapturing(t, "audit", "--site", siteID, "--wait", "--audit-id", "cli-1", "--nats-url", svc.NATSURL(),
		"--database-url", dbURL, "--out", dir, "--top", "5")
	if err != nil {
		t.Fatalf("audit --wait: %v\n%s", err, printed)
	}
	raw, err := os.ReadFile(filepath.Join(dir, auditJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep events.AuditCompletedData
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.AuditID != "cli-1" || rep.Status != "complete" || rep.Findings == nil {
		t.Fatalf("audit.json: id %q, status %q, findings %v", rep.AuditID, rep.Status, rep.Findings != nil)
	}

	// The tables print the report's figures and its best rows.
	for _, want := range []string{"Audit cli-1 of site " + siteID + ": complete", "orphan_pages", "missing_mandatory",
		"overall_health_score", "Recommendations: 5 of", "Link scores: the 5 best of 31 pages"} {
		if !strings.Contains(printed, want) {
			t.Errorf("printed report lacks %q:\n%s", want, printed)
		}
	}
	for _, line := range strings.Split(printed, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "orphan_pages" && f[1] != "3" {
			t.Errorf("printed %q, the report has %d orphans", line, rep.OrphanPages)
		}
	}

	// orphans.csv: every orphan and navigation-only page, labelled.
	_, orphans := readCSV(t, filepath.Join(dir, orphansCSVFile))
	var gotOrphans, gotNav []string
	for _, r := range orphans {
		switch r["finding"] {
		case "orphan":
			gotOrphans = append(gotOrphans, r["page_id"])
		case "navigation_only":
			gotNav = append(gotNav, r["page_id"])
		}
		if r["url"] == "" || r["kind"] == "" {
			t.Errorf("orphans.csv row without its page: %v", r)
		}
	}
	slices.Sort(gotOrphans)
	slices.Sort(gotNav)
	if want := []string{"ashby-p64-grinder", "hand-grinders-for-travel", "single-origin-vs-blends"}; !slices.Equal(gotOrphans, want) {
		t.Errorf("orphans.csv orphans %v, want %v", gotOrphans, want)
	}
	if want := []string{"coffee-gear-under-100", "crema-house-blend"}; !slices.Equal(gotNav, want) {
		t.Errorf("orphans.csv navigation-only %v, want %v", gotNav, want)
	}

	// recommendations.csv: every stored recommendation, in report order.
	_, recs := readCSV(t, filepath.Join(dir, recommendationsFile))
	stored, err := svc.Store().Recommendations(t.Context(), siteID, "cli-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != rep.RecommendationsTotal || len(recs) != len(stored) {
		t.Fatalf("recommendations.csv has %d rows; the report says %d, the store holds %d", len(recs), rep.RecommendationsTotal, len(stored))
	}
	for i, r := range recs {
		if r["id"] != stored[i].ID || r["content_id"] != stored[i].PageID || r["action"] != string(stored[i].Action) {
			t.Errorf("recommendations.csv row %d = %v, stored %+v", i, r, stored[i].Recommendation)
		}
		switch r["action"] {
		case "remove", "retarget":
			// Its anchor is the link's own text, in the page.
			if r["anchor_found"] != "true" || r["anchor_suggestion"] != r["existing_anchor"] {
				t.Errorf("row %d changes the link %q, its anchor %q found %s: want the link's text, found", i, r["existing_anchor"], r["anchor_suggestion"], r["anchor_found"])
			}
		default:
			if r["anchor_found"] == "true" && !strings.Contains(r["reason"], "found in paragraph") {
				t.Errorf("row %d says its anchor was found, its reason does not: %v", i, r)
			}
		}
	}

	// link_scores.csv: every live page, the best at 100.
	_, scores := readCSV(t, filepath.Join(dir, linkScoresCSVFile))
	if len(scores) != rep.Pages || scores[0]["score"] != "100.00" {
		t.Errorf("link_scores.csv: %d rows for %d pages, first %v", len(scores), rep.Pages, scores[0])
	}

	// link_map.csv: every link of every live page; the internal ones are
	// the report's total, those to deleted pages its broken links, those
	// to no known page its unverified ones.
	_, links := readCSV(t, filepath.Join(dir, linkMapCSVFile))
	states := map[string]int{}
	for _, r := range links {
		states[r["target_state"]]++
		if r["target_state"] == "live" && r["target_page_id"] == "" {
			t.Errorf("a link to a live page without its id: %v", r)
		}
	}
	if internal := states["live"] + states["deleted"] + states["unknown"]; internal != rep.TotalLinks {
		t.Errorf("link_map.csv has %d internal links (%v), the report %d", internal, states, rep.TotalLinks)
	}
	if states["deleted"] != rep.BrokenLinks || states["unknown"] != rep.UnverifiedLinks || states["external"] == 0 {
		t.Errorf("link_map.csv states %v; the report has %d broken and %d unverified links", states, rep.BrokenLinks, rep.UnverifiedLinks)
	}

	// --report reads the finished audit again without asking for one.
	again := filepath.Join(t.TempDir(), "again")
	if _, err := runCapturing(t, "audit", "--site", siteID, "--report", "cli-1", "--database-url", dbURL, "--out", again); err != nil {
		t.Fatalf("audit --report: %v", err)
	}
	for _, name := range []string{auditJSONFile, orphansCSVFile, recommendationsFile, linkScoresCSVFile, linkMapCSVFile} {
		a, errA := os.ReadFile(filepath.Join(dir, name))
		b, errB := os.ReadFile(filepath.Join(again, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs when read again with --report (%v, %v)", name, errA, errB)
		}
	}

	// The same audit id asked for again is answered from the store: the
	// stream drops the duplicate request, so no new event would come.
	if _, err := runCapturing(t, "audit", "--site", siteID, "--wait", "--audit-id", "cli-1", "--nats-url", svc.NATSURL(),
		"--database-url", dbURL, "--out", t.TempDir(), "--timeout", "1m"); err != nil {
		t.Errorf("asking again for audit cli-1: %v", err)
	}

	// Without --wait the request is sent and the command returns; the
	// audit runs all the same.
	printed, err = runCapturing(t, "audit", "--site", siteID, "--audit-id", "cli-2", "--nats-url", svc.NATSURL())
	if err != nil || !strings.Contains(printed, "--report cli-2") {
		t.Fatalf("audit without --wait: %v\n%s", err, printed)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		rec, found, err := svc.Store().Audit(t.Context(), siteID, "cli-2")
		if err != nil {
			t.Fatal(err)
		}
		if found && rec.Status == "complete" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("audit cli-2 not complete after a minute: found %v, status %q", found, rec.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// An audit that fails says why, and the command fails.
	printed, err = runCapturing(t, "audit", "--site", "no-such-site", "--wait", "--nats-url", svc.NATSURL(),
		"--database-url", dbURL, "--out", t.TempDir(), "--timeout", "1m")
	if err == nil || !strings.Contains(err.Error(), `unknown site "no-such-site"`) {
		t.Errorf("audit of an unknown site: %v\n%s", err, printed)
	}
	if err := run([]string{"audit", "--site", siteID, "--report", "no-such-audit", "--database-url", dbURL}); err == nil ||
		!strings.Contains(err.Error(), "has no audit no-such-audit") {
		t.Errorf("--report of an unknown audit: %v", err)
	}
	if err := run([]string{"audit", "--wait"}); err == nil || !strings.Contains(err.Error(), "--site is required") {
		t.Errorf("audit without --site: %v", err)
	}
}
