package service

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/interlinker/interlinker/handlers"
)

// seedPlannedLinks writes perPage planned-and-placed links from each of the
// n pages of a synthetic site (seedScaleSite) to the next pages, by COPY.
func seedPlannedLinks(b *testing.B, conn *pgx.Conn, siteID string, n, perPage int) {
	rows := pgx.CopyFromFunc(func() func() ([]any, error) {
		src, k := 0, 0
		return func() ([]any, error) {
			if k == perPage {
				src, k = src+1, 0
			}
			if src == n {
				return nil, nil
			}
			from, to := scalePageAt(src), scalePageAt((src+1+k*7)%n)
			k++
			return []any{siteID, fmt.Sprintf("lnk-%d-%d", src, k), from.id, int64(1), to.id, to.url, "related", "page " + to.id,
				"primary_keyword", []byte(`[{"text":"page ` + to.id + `","type":"primary_keyword"}]`), "in_body", k, 61.5,
				[]byte(`{"shared_attributes":40,"keyword_overlap":10}`), false, "rule_based", "verified", k - 1,
				"related: scored 61.5, placed automatically"}, nil
		}
	}())
	if _, err := conn.CopyFrom(context.Background(), pgx.Identifier{"links"}, []string{"site_id", "id", "source_page_id",
		"source_version", "target_page_id", "target_url", "type", "anchor", "anchor_type", "candidates", "zone", "paragraph",
		"score", "factors", "mandatory", "placement", "status", "position", "explanation"}, rows); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "ANALYZE links"); err != nil {
		b.Fatal(err)
	}
}

// latencies runs calls from clients goroutines, b.N calls in all, and
// returns their latencies, sorted, and the wall time.
func latencies(b *testing.B, clients int, call func(rng *rand.Rand) error) ([]time.Duration, time.Duration) {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	next := make(chan struct{})
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			var mine []time.Duration
			for range next {
				t := time.Now()
				if err := call(rng); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	wall := time.Since(start)
	slices.Sort(all)
	return all, wall
}

func p99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, len(d)*99/100)]
}

// BenchmarkAPIPageLinksVsSQL asks content/{id}/links/ of random pages of
// a 100k-page site (10 planned links a page, so each page has about 10
// outbound and 10 inbound) from 32 concurrent clients over real HTTP, and
// in the same run makes the two queries the route makes (the page's links
// and the links to it) straight on a pgx pool with the same concurrency.
// It reports requests/s, p99 latency, and the ratio of HTTP to raw SQL
// throughput. INTERLINKER_BENCH_API_PAGES changes the site's size.
//
//	go test -run '^$' -bench APIPageLinks -benchtime 20000x -timeout 30m ./service/
func BenchmarkAPIPageLinksVsSQL(b *testing.B) {
	n := 100_000
	if v := os.Getenv("INTERLINKER_BENCH_API_PAGES"); v != "" {
		fmt.Sscan(v, &n)
	}
	const clients = 32
	cfg := benchConfig(b)
	h := startHarness(b, cfg)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	siteID := fmt.Sprintf("api-%d", n)
	h.publish(scaleSiteEvent(siteID))
	waitFor(b, time.Minute, "site projected", func() bool {
		_, found, err := h.svc.Store().LoadSite(ctx, siteID)
		return err == nil && found
	})
	seedScaleSite(b, conn, siteID, n)
	seedPlannedLinks(b, conn, siteID, n, 10)
	_, token, err := h.svc.Store().CreateToken(ctx, siteID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	base := "http://" + h.svc.HTTPAddr() + handlers.APIPrefix

	b.ResetTimer()
	httpLat, httpWall := latencies(b, clients, func(rng *rand.Rand) error {
		id := scalePageAt(rng.IntN(n)).id
		req, err := http.NewRequest(http.MethodGet, base+"/linker/content/"+id+"/links/?site_id="+siteID, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET links of %s: %d", id, resp.StatusCode)
		}
		return nil
	})
	b.StopTimer()
	sqlLat, sqlWall := latencies(b, clients, func(rng *rand.Rand) error {
		id := scalePageAt(rng.IntN(n)).id
		for _, q := range []string{`SELECT id, target_page_id, target_url, type, anchor, candidates, factors, explanation FROM links
				WHERE site_id = $1 AND source_page_id = $2 ORDER BY position`,
			`SELECT id, source_page_id, target_url, type, anchor, candidates, factors, explanation FROM links
				WHERE site_id = $1 AND target_page_id = $2 ORDER BY source_page_id, position`} {
			rows, err := pool.Query(ctx, q, siteID, id)
			if err != nil {
				return err
			}
			for rows.Next() {
				if _, err := rows.Values(); err != nil {
					rows.Close()
					return err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	httpRate := float64(b.N) / httpWall.Seconds()
	sqlRate := float64(b.N) / sqlWall.Seconds()
	b.ReportMetric(httpRate, "req/s")
	b.ReportMetric(float64(p99(httpLat).Microseconds())/1000, "p99_ms")
	b.ReportMetric(sqlRate, "sql_req/s")
	b.ReportMetric(float64(p99(sqlLat).Microseconds())/1000, "sql_p99_ms")
	b.ReportMetric(httpRate/sqlRate, "ratio")
}
