package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
)

// scaleClusters is how many clusters (a hub each) a synthetic site has.
const scaleClusters = 100

// scaleSiteEvent declares a synthetic site of scaleClusters clusters.
func scaleSiteEvent(siteID string) events.Event {
	d := events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: siteID, BaseURL: "https://" + siteID + ".example", Name: "Scale", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "all", Name: "All", URL: "/all/"}},
	}
	for c := range scaleClusters {
		d.Clusters = append(d.Clusters, events.ClusterInfo{ID: fmt.Sprintf("c%03d", c), SectorID: "all",
			Name: fmt.Sprintf("Topic %d", c), PrimaryKeyword: fmt.Sprintf("topic %d", c)})
	}
	return mustEvent(events.SiteUpdated, siteID, "site-"+siteID, d)
}

// scalePage is page i of a synthetic site: 0 the home page, 1–100 the
// hubs, the rest supporting articles dealt to the clusters in turn.
type scalePage struct {
	id, url, kind, cluster string
}

func scalePageAt(i int) scalePage {
	switch {
	case i == 0:
		return scalePage{"home", "/", "home", ""}
	case i <= scaleClusters:
		c := fmt.Sprintf("c%03d", i-1)
		return scalePage{"hub-" + c, "/all/" + c + "/", "hub", c}
	}
	c := fmt.Sprintf("c%03d", (i-1)%scaleClusters)
	id := fmt.Sprintf("a%07d", i)
	return scalePage{id, "/all/" + c + "/" + id + "/", "supporting", c}
}

// seedScaleSite writes n live pages and 30 links each straight into the
// projections content.published keeps (pages, link_map), by COPY: what a
// site of that size looks like to the audit, without publishing it event
// by event. Like a CMS site, each page has 25 links in its header, menu
// and footer (the same on every page) and 5 in its body: an article to its
// hub in paragraph 1 and to the next four articles of its cluster, a hub
// to five of its articles, the home page to five hubs. Every page is
// linked and within its density, so the audit finds little to recommend
// and what is measured is reading and scoring the site.
func seedScaleSite(b *testing.B, conn *pgx.Conn, siteID string, n int) int {
	ctx := context.Background()
	base := "https://" + siteID + ".example"
	pages := pgx.CopyFromFunc(func() func() ([]any, error) {
		i := 0
		return func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			p := scalePageAt(i)
			i++
			return []any{siteID, p.id, p.url, "Page " + p.id, p.kind, p.cluster, "all", "page " + p.id, int64(1),
				"<p>synthetic</p>", "published", 800, int64(1)}, nil
		}
	}())
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"pages"}, []string{"site_id", "id", "url", "title", "kind", "cluster_id",
		"sector_id", "primary_keyword", "version", "html", "state", "word_count", "live_version"}, pages); err != nil {
		b.Fatal(err)
	}
	// The articles of cluster c are pages c+1+100k, 1 ≤ k ≤ articlesIn(c);
	// an article's next ones wrap round to the cluster's first, so the
	// last articles are within their density too.
	articleOf := func(cluster, k int) int { return cluster + 1 + scaleClusters*k }
	articlesIn := func(cluster int) int { return max(n-2-cluster, 0) / scaleClusters }
	rows := 0
	links := pgx.CopyFromFunc(func() func() ([]any, error) {
		src, ord := 0, 0
		type target struct {
			page     int
			position string
			para     int
			anchor   int // which of the target's three anchors
		}
		var targets []target
		return func() ([]any, error) {
			for ord == len(targets) {
				if src == n {
					return nil, nil
				}
				targets = targets[:0]
				// Three anchors a target, dealt so that none carries over
				// 40% of a target's in-body links: an article's four links
				// to the next ones take anchors 0, 1, 2, 0, its hub's link
				// 1 or 2, and a hub's many uplinks come from every source.
				add := func(page int, position string, para, anchor int) {
					if page < n {
						targets = append(targets, target{page, position, para, anchor})
					}
				}
				bySource := (src + 2) % 3
				add(0, "header", 0, bySource)
				for h := 1; h <= 20; h++ {
					add(h, "navigation", 0, bySource)
				}
				for h := 21; h <= 24; h++ {
					add(h, "footer", 0, bySource)
				}
				switch p := scalePageAt(src); p.kind {
				case "home":
					for h := 1; h <= 5; h++ {
						add(h, "content", h, bySource)
					}
				case "hub":
					c := src - 1
					for k := 1; k <= 5; k++ {
						add(articleOf(c, k), "content", k, 1+k%2)
					}
				default:
					c, k := (src-1)%scaleClusters, (src-1)/scaleClusters
					add(c+1, "content", 1, bySource)
					for j := 1; j <= 4; j++ {
						add(articleOf(c, (k-1+j)%max(articlesIn(c), 1)+1), "content", 1+j, (j-1)%3)
					}
				}
				src, ord = src+1, 0
			}
			t := targets[ord]
			to := scalePageAt(t.page)
			ord++
			rows++
			anchor := fmt.Sprintf([]string{"page %s", "read about %s", "our %s guide"}[t.anchor], to.id)
			return []any{siteID, scalePageAt(src - 1).id, ord - 1, base + to.url, to.id, anchor, true, true,
				t.position, t.para, "active", t.para}, nil
		}
	}())
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"link_map"}, []string{"site_id", "source_page_id", "ordinal", "target_url",
		"target_page_id", "anchor", "internal", "follow", "position", "paragraph", "status", "content_paragraph"}, links); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ANALYZE pages; ANALYZE link_map"); err != nil {
		b.Fatal(err)
	}
	return rows
}

// heapPeak samples the heap until stopped and returns two peaks above
// what they were when it started: the heap in use (garbage not yet
// collected included, what the process holds) and the live heap the
// collector last marked (what the audit keeps, without the collector's
// headroom, which at 10k pages is most of the first).
func heapPeak() (stop func() (inUse, live uint64)) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	liveNow := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(liveNow)
	startInUse, startLive := m.HeapInuse, liveNow[0].Value.Uint64()
	var peakInUse, peakLive atomic.Uint64
	peakInUse.Store(startInUse)
	peakLive.Store(startLive)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peakInUse.Store(max(peakInUse.Load(), m.HeapInuse))
				metrics.Read(sample)
				peakLive.Store(max(peakLive.Load(), sample[0].Value.Uint64()))
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return peakInUse.Load() - startInUse, peakLive.Load() - startLive
	}
}

// BenchmarkAuditVsRawCopy audits synthetic sites of 10k and 100k pages
// with 30 links each (INTERLINKER_BENCH_1M=1 adds a million pages), seeded
// straight into the projections. Each round publishes audit.requested and
// waits for audit.completed; in the same run the same link-map rows are
// read raw with COPY ... TO STDOUT, the floor of any audit that reads
// them. It reports the audit's pages/s, the raw pages/s, their ratio, and
// the audit's peaks of heap in use and of live heap (heapPeak) above the
// service's before it.
//
//	go test -run '^$' -bench AuditVsRawCopy -benchtime 1x -timeout 60m ./service/
func BenchmarkAuditVsRawCopy(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("INTERLINKER_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	cfg := benchConfig(b)
	h := &auditHarness{harness: startHarness(b, cfg)}
	h.completed = collect(b, h.js, "AUDIT", events.AuditCompleted)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	// testing runs a sub-benchmark's function again for each b.N it tries:
	// a site is seeded once.
	seeded := map[int]int{}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			siteID := fmt.Sprintf("scale-%d", n)
			rows, ok := seeded[n]
			if !ok {
				h.publish(scaleSiteEvent(siteID))
				waitFor(b, time.Minute, "site "+siteID+" projected", func() bool {
					_, found, err := h.svc.Store().LoadSite(ctx, siteID)
					return err == nil && found
				})
				rows = seedScaleSite(b, conn, siteID, n)
				seeded[n] = rows
			}
			raw := fmt.Sprintf(`COPY (SELECT lm.source_page_id, lm.target_url, lm.internal, lm.follow, lm.position, lm.in_block,
				lm.content_paragraph, lm.anchor FROM link_map lm JOIN pages p ON p.site_id = lm.site_id AND p.id = lm.source_page_id
				WHERE lm.site_id = '%s' AND p.state <> 'deleted' ORDER BY lm.source_page_id, lm.ordinal) TO STDOUT`, siteID)
			var auditTime, rawTime time.Duration
			var peak, peakLive uint64
			var last events.AuditCompletedData
			b.ResetTimer()
			for i := range b.N {
				auditID := fmt.Sprintf("bench-%d-%d", b.N, i)
				stop := heapPeak()
				start := time.Now()
				h.publish(mustEvent(events.AuditRequested, siteID, "req-"+auditID, events.AuditRequestedData{AuditID: auditID}))
				waitFor(b, 30*time.Minute, "audit "+auditID, func() bool {
					for _, r := range h.completed.all() {
						var d events.AuditCompletedData
						if r.Event.SiteID == siteID && json.Unmarshal(r.Event.Data, &d) == nil && d.AuditID == auditID {
							last = d
							return true
						}
					}
					return false
				})
				auditTime += time.Since(start)
				inUse, live := stop()
				peak, peakLive = max(peak, inUse), max(peakLive, live)

				start = time.Now()
				if _, err := conn.PgConn().CopyTo(ctx, io.Discard, raw); err != nil {
					b.Fatal(err)
				}
				rawTime += time.Since(start)
			}
			b.StopTimer()
			if last.Status != "complete" || last.Pages != n || last.TotalLinks != rows {
				b.Fatalf("audit of %d pages and %d links: status %q, pages %d, links %d", n, rows, last.Status, last.Pages, last.TotalLinks)
			}
			// Every page's link score is stored, streamed from the auditor.
			var scored int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM audit_link_scores WHERE site_id = $1 AND audit_id = $2`,
				siteID, last.AuditID).Scan(&scored); err != nil {
				b.Fatal(err)
			}
			if scored != n || len(last.LinkScores) != min(n, 100) {
				b.Fatalf("%d link scores stored and %d in the event, want %d and %d", scored, len(last.LinkScores), n, min(n, 100))
			}
			auditRate := float64(n*b.N) / auditTime.Seconds()
			rawRate := float64(n*b.N) / rawTime.Seconds()
			b.ReportMetric(auditRate, "pages/s")
			b.ReportMetric(rawRate, "raw_pages/s")
			b.ReportMetric(auditRate/rawRate, "ratio")
			b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MB")
			b.ReportMetric(float64(peakLive)/(1<<20), "peak_live_MB")
			b.ReportMetric(float64(last.RecommendationsTotal), "recommendations")
		})
	}
}
