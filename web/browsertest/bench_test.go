package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Size of the benchmark's site: 100,000 pages in 1,000 clusters.
const (
	benchSectors          = 10
	benchClustersInSector = 100
	benchPagesInCluster   = 100 // a hub and 99 supporting articles
	benchSite             = "bench-100k"
)

// BenchmarkLinkMapClusterView is the time from navigation to the drawn
// cluster view of the link map (the server's reads, the page, the graph
// library and its layout, until the graph reports itself drawn) on a site
// of 100,000 pages, 1,000 clusters and about 400,000 links. Beside it, in
// the same run: the sign-in page, the browser's cost of any navigation
// (baseline); the map's HTML fetched without a browser, the server's share;
// and one cluster's page view.
//
// The site is written straight into Postgres with COPY, as the projections
// hold a site: generating 100,000 pages through the pipeline would take
// the benchmark's whole budget and measure the pipeline.
func BenchmarkLinkMapClusterView(b *testing.B) {
	chromiumPath(b)
	e := startService(b, serviceConfig(b))
	loadBenchSite(b, e)
	token := e.token(benchSite)
	bctx := browser(b)
	tb := e.newTab(b, bctx)
	tb.signIn(token)
	client, cookie := tb.uiClient()

	drawn := func(path string) {
		tb.open(path)
		tb.waitJS("the graph drawn", `document.getElementById('graph') && document.getElementById('graph').dataset.drawn === 'true'`, 2*time.Minute)
	}
	b.Run("baseline: sign-in page", func(b *testing.B) {
		for b.Loop() {
			tb.open("/ui/login")
		}
	})
	b.Run("server: map HTML with its graph data", func(b *testing.B) {
		for b.Loop() {
			req, _ := http.NewRequest(http.MethodGet, e.base+"/ui/map", nil)
			req.AddCookie(cookie)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("/ui/map: %d", resp.StatusCode)
			}
		}
	})
	b.Run("browser: navigation to the drawn cluster view", func(b *testing.B) {
		for b.Loop() {
			drawn("/ui/map")
		}
		nodes := eval[int](tb, `window.interlinkerMap.nodes().length`)
		edges := eval[int](tb, `window.interlinkerMap.edges().length`)
		b.ReportMetric(float64(nodes), "nodes")
		b.ReportMetric(float64(edges), "edges")
	})
	b.Run("browser: navigation to one cluster's drawn pages", func(b *testing.B) {
		for b.Loop() {
			drawn("/ui/map?cluster=c-0-0")
		}
		b.ReportMetric(float64(eval[int](tb, `window.interlinkerMap.nodes().length`)), "nodes")
	})
}

// loadBenchSite writes the benchmark's site into the service's database:
// its structure, its pages, their links (every article links up to its
// hub and across to two siblings, every hub down to its articles and
// across to the hubs of two other clusters) and an audit's cluster scores.
func loadBenchSite(b *testing.B, e *env) {
	b.Helper()
	ctx := context.Background()
	began := time.Now()
	conn, err := pgx.Connect(ctx, e.dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string, args ...any) {
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("%.60s: %v", sql, err)
		}
	}
	exec(`INSERT INTO sites (id, base_url, name, policy) VALUES ($1, 'https://bench.example', 'Bench', 'sag')`, benchSite)
	var sectors, clusters [][]any
	scores := map[string]any{}
	clusterID := func(s, c int) string { return fmt.Sprintf("c-%d-%d", s, c) }
	for s := range benchSectors {
		sectors = append(sectors, []any{benchSite, fmt.Sprintf("s-%d", s), fmt.Sprintf("Sector %d", s), fmt.Sprintf("/s-%d/", s), s})
		for c := range benchClustersInSector {
			id := clusterID(s, c)
			clusters = append(clusters, []any{benchSite, id, fmt.Sprintf("s-%d", s), fmt.Sprintf("Cluster %d.%d", s, c),
				fmt.Sprintf("topic %d %d", s, c), []string{}, s*benchClustersInSector + c})
			scores[id] = map[string]any{"score": float64((s*37 + c*11) % 101), "missing": c % 4, "issues": []string{}}
		}
	}
	copyRows := func(table string, cols []string, rows [][]any) {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
			b.Fatalf("copy %s: %v", table, err)
		}
	}
	copyRows("sectors", []string{"site_id", "id", "name", "url", "position"}, sectors)
	copyRows("clusters", []string{"site_id", "id", "sector_id", "name", "primary_keyword", "keywords", "position"}, clusters)

	pageID := func(s, c, p int) string {
		if p == 0 {
			return fmt.Sprintf("hub-%d-%d", s, c)
		}
		return fmt.Sprintf("a-%d-%d-%d", s, c, p)
	}
	pageURL := func(s, c, p int) string { return "/" + pageID(s, c, p) + "/" }
	var pages, links [][]any
	addLink := func(src, dst string, s2, c2, p2 int, typ string, pos int, inbound map[string]int) {
		links = append(links, []any{benchSite, fmt.Sprintf("l-%s-%d", src, pos), src, int64(1), dst, pageURL(s2, c2, p2), typ,
			"in_body", "verified", pos})
		inbound[dst]++
	}
	inbound := map[string]int{}
	outbound := map[string]int{}
	for s := range benchSectors {
		for c := range benchClustersInSector {
			hub := pageID(s, c, 0)
			for p := 1; p < benchPagesInCluster; p++ {
				id := pageID(s, c, p)
				addLink(id, hub, s, c, 0, "vertical_up", 0, inbound)
				addLink(id, pageID(s, c, 1+p%(benchPagesInCluster-1)), s, c, 1+p%(benchPagesInCluster-1), "horizontal", 1, inbound)
				addLink(id, pageID(s, c, 1+(p+1)%(benchPagesInCluster-1)), s, c, 1+(p+1)%(benchPagesInCluster-1), "horizontal", 2, inbound)
				addLink(hub, id, s, c, p, "vertical_down", p, inbound)
				outbound[id] = 3
			}
			for k := 1; k <= 2; k++ {
				c2 := (c + k*7) % benchClustersInSector
				s2 := (s + k) % benchSectors
				addLink(hub, pageID(s2, c2, 0), s2, c2, 0, "cross_cluster", benchPagesInCluster+k, inbound)
			}
			outbound[hub] = benchPagesInCluster + 1
		}
	}
	for s := range benchSectors {
		for c := range benchClustersInSector {
			for p := range benchPagesInCluster {
				id := pageID(s, c, p)
				kind := "supporting"
				if p == 0 {
					kind = "hub"
				}
				pages = append(pages, []any{benchSite, id, pageURL(s, c, p), fmt.Sprintf("Page %d of cluster %d.%d", p, s, c), kind,
					clusterID(s, c), fmt.Sprintf("s-%d", s), int64(1), "<p>text</p>", "generated", inbound[id], outbound[id]})
			}
		}
	}
	copyRows("pages", []string{"site_id", "id", "url", "title", "kind", "cluster_id", "sector_id", "version", "html", "state",
		"inbound_link_count", "outbound_link_count"}, pages)
	copyRows("links", []string{"site_id", "id", "source_page_id", "source_version", "target_page_id", "target_url", "type",
		"zone", "status", "position"}, links)
	report, err := json.Marshal(map[string]any{"audit_id": "bench-audit", "status": "complete", "pages": len(pages),
		"total_links": len(links), "cluster_scores": scores, "overall_health_score": 50.0, "recommendations": []any{},
		"link_scores": []any{}})
	if err != nil {
		b.Fatal(err)
	}
	exec(`INSERT INTO audits (site_id, id, request, status, report, completed_at) VALUES ($1, 'bench-audit', '\x', 'complete', $2, now())`,
		benchSite, report)
	exec(`ANALYZE sites, clusters, pages, links, audits`)
	b.Logf("loaded %d pages, %d clusters and %d links in %s", len(pages), len(clusters), len(links), time.Since(began).Round(time.Millisecond))
}
