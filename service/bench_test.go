package service

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// BenchmarkPipelineVsRawJetStream pushes b.N content.generated events through
// plan → inject → validate → links.inserted, every article into one cluster
// whose hub is linked first (the worst case for the hub's re-plans), then
// the same number of messages of the same size through a bare JetStream
// publish → pull-consume → ack loop on the same embedded server, and
// reports both rates and their ratio.
//
//	go test -run '^$' -bench PipelineVsRaw -benchtime 2000x ./service/
func BenchmarkPipelineVsRawJetStream(b *testing.B) {
	h := startHarness(b, benchConfig(b))
	h.publish(siteEvent("bench"))
	h.publish(hubEvent("bench"))
	waitFor(b, time.Minute, "hub linked", func() bool { return len(h.inserted.insertedFor(b, "bench", "boots-hub")) == 1 })

	payloads := make([][]byte, b.N)
	ids := make([]string, b.N)
	for i := range b.N {
		payloads[i], ids[i] = encodeBench(b, pageEvent("bench", fmt.Sprintf("page-%07d", i), "supporting", 1, supportingHTML(i)))
	}
	runPipelineBench(b, h, "bench", payloads, ids, b.N+1)
}

// BenchmarkPipelineBurstVsRawJetStream publishes whole clusters at once: b.N
// pages rounded down to clusters of a hub and 19 supporting articles
// (-benchtime 2000x is 100 clusters), all declared by one site.updated
// with shared attribute values, so articles also read related clusters.
// The site is projected first; then every page is published at once,
// without waiting for any: the 100 hubs first, so that most articles find
// their hub planned (those that do not are planned again when it arrives),
// then the articles cluster by cluster, as a generator writing one cluster
// at a time would send them. INTERLINKER_BENCH_BURST_ORDER=interleaved
// sends the first article of every cluster, then the second, and so on:
// the worst order for the hubs' re-plans, which then cannot coalesce. The
// rate counts every page until each has a links.inserted; settle_s is how
// long the re-plans they cause take after that. The raw JetStream loop of
// the same run moves the same payloads.
//
//	go test -run '^$' -bench PipelineBurst -benchtime 2000x ./service/
func BenchmarkPipelineBurstVsRawJetStream(b *testing.B) {
	const perCluster = 20
	clusters := max(b.N/perCluster, 1)
	h := startHarness(b, benchConfig(b))
	h.publish(burstSiteEvent("burst", clusters))
	waitFor(b, time.Minute, "site projected", func() bool {
		_, found, err := h.svc.Store().LoadSite(context.Background(), "burst")
		return err == nil && found
	})

	var payloads [][]byte
	var ids []string
	add := func(ev events.Event) {
		p, id := encodeBench(b, ev)
		payloads, ids = append(payloads, p), append(ids, id)
	}
	for c := range clusters {
		add(burstPageEvent("burst", c, -1))
	}
	if os.Getenv("INTERLINKER_BENCH_BURST_ORDER") == "interleaved" {
		for a := range perCluster - 1 {
			for c := range clusters {
				add(burstPageEvent("burst", c, a))
			}
		}
	} else {
		for c := range clusters {
			for a := range perCluster - 1 {
				add(burstPageEvent("burst", c, a))
			}
		}
	}
	runPipelineBench(b, h, "burst", payloads, ids, len(payloads))
}

// benchConfig is the test configuration with the benchmark knobs applied:
// INTERLINKER_BENCH_WORKERS, _CONNS, _DB_CONCURRENCY and _PULL.
func benchConfig(b *testing.B) Config {
	cfg := testConfig(b)
	// The tests recount link counts every 100ms to see them soon; the
	// benchmark runs the service's default interval.
	cfg.CountInterval = DefaultConfig().CountInterval
	if w := os.Getenv("INTERLINKER_BENCH_WORKERS"); w != "" {
		fmt.Sscan(w, &cfg.Workers)
	}
	if c := os.Getenv("INTERLINKER_BENCH_CONNS"); c != "" {
		fmt.Sscan(c, &cfg.DBMaxConns)
	}
	if c := os.Getenv("INTERLINKER_BENCH_DB_CONCURRENCY"); c != "" {
		fmt.Sscan(c, &cfg.DBConcurrency)
	}
	if p := os.Getenv("INTERLINKER_BENCH_PULL"); p != "" {
		fmt.Sscan(p, &cfg.PullBuffer)
	}
	if d := os.Getenv("INTERLINKER_BENCH_REPLAN_DELAY"); d != "" {
		var err error
		if cfg.ReplanDelay, err = time.ParseDuration(d); err != nil {
			b.Fatal(err)
		}
	}
	if d := os.Getenv("INTERLINKER_BENCH_SETTLE_DELAY"); d != "" {
		var err error
		if cfg.SettleDelay, err = time.ParseDuration(d); err != nil {
			b.Fatal(err)
		}
	}
	if os.Getenv("INTERLINKER_BENCH_LOG_STATEMENTS") != "" {
		logStatements(b, cfg.DatabaseURL)
	}
	return cfg
}

// logStatements creates the benchmark's database with every statement's
// duration logged to the server log (log_min_duration_statement = 0, set
// on this database alone), to find what the pipeline's statements cost.
func logStatements(b *testing.B, dbURL string) {
	u, err := url.Parse(dbURL)
	if err != nil {
		b.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"CREATE DATABASE ", "ALTER DATABASE "} {
		stmt := q + pgx.Identifier{name}.Sanitize()
		if q == "ALTER DATABASE " {
			stmt += " SET log_min_duration_statement = 0"
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			b.Fatal(err)
		}
	}
	if os.Getenv("INTERLINKER_BENCH_LOG_STATEMENTS") == "plans" {
		// auto_explain logs every statement's plan as well.
		for _, set := range []string{"session_preload_libraries = 'auto_explain'", "auto_explain.log_min_duration = 0"} {
			if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" SET "+set); err != nil {
				b.Fatal(err)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "logging every statement of database %s\n", name)
}

func encodeBench(b *testing.B, ev events.Event) ([]byte, string) {
	raw, err := ev.Encode()
	if err != nil {
		b.Fatal(err)
	}
	return raw, ev.MsgID()
}

// runPipelineBench publishes payloads as content.generated at once, waits
// until want pages of the site have a links.inserted (the rate), then until
// the pipeline is idle (settle_s), and runs the raw JetStream loop with
// the same payloads.
func runPipelineBench(b *testing.B, h *harness, siteID string, payloads [][]byte, ids []string, want int) {
	if os.Getenv("INTERLINKER_BENCH_METRICS") != "" {
		stop := make(chan struct{})
		defer close(stop)
		go printProgress(h, siteID, stop)
	}
	cpu := startCPUCount(b, h)
	b.ResetTimer()
	start := time.Now()
	publishAll(b, h.js, events.ContentGenerated, payloads, ids)
	waitFor(b, 10*time.Minute, "every page linked", func() bool { return h.inserted.pageCount(siteID) >= want })
	pipeline := time.Since(start)
	b.StopTimer()
	// Every article's arrival re-plans its hub; those re-plans finish after
	// the last article is linked and are not part of the rate.
	settleStart := time.Now()
	h.waitIdle(10 * time.Minute)
	b.ReportMetric(time.Since(settleStart).Seconds(), "settle_s")
	goCPU, pgCPU := cpu.used()
	b.ReportMetric(goCPU.Seconds()*1000/float64(len(payloads)), "go_cpu_ms/page")
	b.ReportMetric(pgCPU.Seconds()*1000/float64(len(payloads)), "pg_cpu_ms/page")

	if os.Getenv("INTERLINKER_BENCH_METRICS") != "" {
		dumpMetrics(b, h.svc.HTTPAddr())
	}
	raw := rawJetStreamLoop(b, h.js, payloads)
	pipelineRate := float64(len(payloads)) / pipeline.Seconds()
	rawRate := float64(len(payloads)) / raw.Seconds()
	b.ReportMetric(pipelineRate, "pages/s")
	b.ReportMetric(rawRate, "raw_msgs/s")
	b.ReportMetric(pipelineRate/rawRate, "ratio")
}

// cpuCount measures the CPU time this process (service, embedded NATS
// and harness) and the service's Postgres sessions use, which the machine's
// other load changes far less than it changes the rates.
type cpuCount struct {
	b       *testing.B
	h       *harness
	selfAt  time.Duration
	backend map[int]time.Duration
}

func startCPUCount(b *testing.B, h *harness) *cpuCount {
	c := &cpuCount{b: b, h: h, selfAt: selfCPU()}
	c.backend = c.backends()
	return c
}

// used reports the CPU time used since the count started; Postgres
// sessions that ended meanwhile are not counted.
func (c *cpuCount) used() (self, postgres time.Duration) {
	for pid, t := range c.backends() {
		postgres += t - c.backend[pid]
	}
	return selfCPU() - c.selfAt, postgres
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backends reads the CPU time of every session of the service's database
// from /proc (the server runs on this machine).
func (c *cpuCount) backends() map[int]time.Duration {
	out := map[int]time.Duration{}
	rows, err := backendPIDs(c.h.svc.cfg.DatabaseURL)
	if err != nil {
		c.b.Logf("count Postgres CPU: %v", err)
		return out
	}
	for _, pid := range rows {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(raw), ") ")
		f := strings.Fields(rest)
		if len(f) < 13 {
			continue
		}
		var utime, stime int64
		fmt.Sscan(f[11], &utime)
		fmt.Sscan(f[12], &stime)
		out[pid] = time.Duration(utime+stime) * (time.Second / 100) // USER_HZ
	}
	return out
}

// printProgress prints each stage's progress every second until stop.
func printProgress(h *harness, siteID string, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Second):
		}
		line := ""
		for _, c := range []struct{ stream, durable string }{{"CONTENT", "planner"}, {"LINKS", "injector"}, {"LINKS", "validator"}, {"LINKS", "replanner"}} {
			cons, err := h.js.Consumer(context.Background(), c.stream, c.durable)
			if err != nil {
				continue
			}
			info, err := cons.Info(context.Background())
			if err != nil {
				continue
			}
			line += fmt.Sprintf(" %s acked=%d pending=%d ackpending=%d", c.durable, info.AckFloor.Consumer, info.NumPending, info.NumAckPending)
		}
		st, _ := h.svc.Store().OutboxStatus(context.Background())
		fmt.Fprintf(os.Stderr, "%s outbox=%d inserted=%d\n", line, st.Waiting, h.inserted.pageCount(siteID))
	}
}

// Burst fixture: clusters c000, c001, … in one sector, each with a terrain
// and a season; clusters sharing a value are related.
var (
	burstTerrains = []string{"mountain", "forest", "desert", "coast", "snow"}
	burstSeasons  = []string{"spring", "summer", "autumn", "winter"}
)

func burstSiteEvent(siteID string, clusters int) events.Event {
	d := events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: siteID, BaseURL: "https://outdoors.example", Name: "Outdoors", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "gear", Name: "Gear", URL: "/gear/"}},
		Attributes: []events.AttributeInfo{
			{ID: "terrain", Name: "terrain", Values: burstTerrains},
			{ID: "season", Name: "season", Values: burstSeasons},
		},
	}
	for c := range clusters {
		d.Clusters = append(d.Clusters, events.ClusterInfo{
			ID: burstCluster(c), SectorID: "gear", Name: fmt.Sprintf("Trail kit %d", c),
			PrimaryKeyword: burstKeyword(c), Keywords: []string{burstKeyword(c) + " guide"},
			Attributes: map[string][]string{
				"terrain": {burstTerrains[c%len(burstTerrains)]},
				"season":  {burstSeasons[c%len(burstSeasons)]},
			},
		})
	}
	return mustEvent(events.SiteUpdated, siteID, "site-"+siteID, d)
}

func burstCluster(c int) string { return fmt.Sprintf("c%03d", c) }

// burstKeyword is cluster c's primary keyword, in words the articles use.
func burstKeyword(c int) string {
	return fmt.Sprintf("%s %s kit", burstTerrains[c%len(burstTerrains)], burstWord(c))
}

// burstWord spells a number in letters, so each cluster's keyword is its
// own phrase of plain words.
func burstWord(n int) string {
	letters := "abcdefghij"
	s := ""
	for {
		s = string(letters[n%10]) + s
		n /= 10
		if n == 0 {
			return "x" + s
		}
	}
}

// burstPageEvent is cluster c's hub (article < 0) or its article-th
// supporting article.
func burstPageEvent(siteID string, c, article int) events.Event {
	cluster, kw := burstCluster(c), burstKeyword(c)
	id, url, kind, title := cluster+"-hub", "/gear/"+cluster+"/", "hub", "Trail kit "+kw
	body := fmt.Sprintf(`<h1>%s</h1>
<p>Our guide to the %s covers fit, materials and care for every kind of trail.</p>
<p>Read on for sizing, packing and repairs of the %s.</p>
`, title, kw, kw)
	if article >= 0 {
		id, url, kind = fmt.Sprintf("%s-a%02d", cluster, article), fmt.Sprintf("/gear/%s/a%02d/", cluster, article), "supporting"
		title = fmt.Sprintf("%s tip %d", kw, article)
		body = fmt.Sprintf(`<h1>%s</h1>
<p>Good <b>care</b> keeps your %s ready &amp; dry for years, tip number %d.</p>
<p>Clean the %s after every muddy walk and let it dry slowly, away from the fire.</p>
<p>Pack the heavy parts close to your back and check every strap before a long %s day.</p>
<ul><li>Never store a wet %s.</li></ul>
`, title, kw, article, kw, burstSeasons[c%len(burstSeasons)], kw)
	}
	return mustEvent(events.ContentGenerated, siteID, fmt.Sprintf("gen-%s-%s-v1", siteID, id), events.ContentData{Page: events.PageInfo{
		ID: id, URL: url, Title: title, Kind: kind, ClusterID: cluster, SectorID: "gear",
		PrimaryKeyword: kw, Keywords: []string{kw + " " + fmt.Sprint(article)}, Version: 1, HTML: body,
	}})
}

func dumpMetrics(b *testing.B, addr string) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	sums, counts := map[string]float64{}, map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		var v float64
		for _, kind := range []string{"sum", "count"} {
			prefix := "interlinker_handler_seconds_" + kind + `{handler="`
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				handler, value, _ := strings.Cut(rest, `"} `)
				fmt.Sscan(value, &v)
				if kind == "sum" {
					sums[handler] += v
				} else {
					counts[handler] += v
				}
			}
		}
	}
	for h, c := range counts {
		fmt.Fprintf(os.Stderr, "%s: %.0f events, mean %.2f ms\n", h, c, 1000*sums[h]/c)
	}
}

// publishAll publishes the payloads at once, without waiting for each
// acknowledgement before the next, and returns once every one is
// acknowledged.
func publishAll(tb testing.TB, js jetstream.JetStream, subject string, payloads [][]byte, ids []string) {
	tb.Helper()
	acks := make([]jetstream.PubAckFuture, len(payloads))
	for i, p := range payloads {
		msg := &nats.Msg{Subject: subject, Data: p, Header: nats.Header{}}
		if ids != nil {
			msg.Header.Set(nats.MsgIdHdr, ids[i])
		}
		ack, err := js.PublishMsgAsync(msg)
		if err != nil {
			tb.Fatal(err)
		}
		acks[i] = ack
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		tb.Fatal("publish did not complete")
	}
	for i, ack := range acks {
		select {
		case err := <-ack.Err():
			tb.Fatalf("publish %d of %d: %v", i+1, len(acks), err)
		default:
		}
	}
}

// rawJetStreamLoop is the baseline: the bus alone, no Postgres, no handlers.
func rawJetStreamLoop(b *testing.B, js jetstream.JetStream, payloads [][]byte) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "BENCH", Subjects: []string{"bench.>"}, Storage: jetstream.FileStorage})
	if err != nil {
		b.Fatal(err)
	}
	defer js.DeleteStream(context.Background(), "BENCH")
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "bench", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		b.Fatal(err)
	}
	var acked atomic.Int64
	done := make(chan struct{})
	start := time.Now()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		if err := m.DoubleAck(ctx); err != nil {
			b.Error(err)
		}
		if acked.Add(1) == int64(len(payloads)) {
			close(done)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()
	publishAll(b, js, "bench.page", payloads, nil)
	select {
	case <-done:
	case <-ctx.Done():
		b.Fatal("raw loop did not finish")
	}
	return time.Since(start)
}

// backendPIDs lists the client sessions of the service's database, this
// query's own included, which costs next to nothing.
func backendPIDs(dbURL string) ([]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("connect to count sessions: %w", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}
