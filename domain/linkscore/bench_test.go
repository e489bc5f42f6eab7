package linkscore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"
)

// randomSite is n pages with about perPage links each, to random pages.
func randomSite(n, perPage int) []Edge {
	rng := rand.New(rand.NewPCG(uint64(n), 30))
	edges := make([]Edge, 0, n*perPage)
	for u := range n {
		for range perPage {
			edges = append(edges, Edge{int32(u), int32(rng.IntN(n))})
		}
	}
	return edges
}

// BenchmarkPageRank ranks sites of 30 links a page and reports the time
// per link per round; at 10k pages it runs gonum's PageRankSparse on the
// same graph in the same run (gonum_ratio: gonum's time over ours).
// INTERLINKER_BENCH_1M=1 adds a site of a million pages.
//
//	go test -run '^$' -bench PageRank -benchtime 3x ./domain/linkscore/
func BenchmarkPageRank(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("INTERLINKER_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			g, err := NewGraph(n, randomSite(n, 30))
			if err != nil {
				b.Fatal(err)
			}
			var res Result
			start := time.Now()
			b.ResetTimer()
			for range b.N {
				if res, err = PageRank(g); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			ours := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(ours.Nanoseconds())/float64(g.Links())/float64(res.Rounds), "ns/link/round")
			b.ReportMetric(float64(res.Rounds), "rounds")
			if n > 10_000 {
				return
			}
			gg := simple.NewDirectedGraph()
			for i := range n {
				gg.AddNode(simple.Node(i))
			}
			for _, e := range randomSite(n, 30) {
				if e.From != e.To {
					gg.SetEdge(gg.NewEdge(simple.Node(e.From), simple.Node(e.To)))
				}
			}
			start = time.Now()
			network.PageRankSparse(gg, Damping, Tolerance)
			b.ReportMetric(float64(time.Since(start))/float64(ours), "gonum_ratio")
		})
	}
}
