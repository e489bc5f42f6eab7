package linkscore

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/graph/network"
	"gonum.org/v1/gonum/graph/simple"
)

func TestPageRankOfAFivePageSiteMatchesTheHandComputedRanks(t *testing.T) {
	// Home (0) links to 1 and 2; 1, 2 and 3 link home; 4 links nowhere.
	// With d = 0.85 and n = 5, every page gets base = 0.15/5 + 0.85·r4/5,
	// and 3 and 4 get nothing else: r4 = base gives r4 = 0.03/0.83 = 3/83.
	// r1 = r2 = base + 0.85·r0/2, and r0 = base + 0.85·(r1 + r2 + r3)
	// = 3.55·base + 0.7225·r0, so r0 = (3.55/0.2775)·base.
	base := 3.0 / 83
	r0 := 3.55 / 0.2775 * base
	want := []float64{r0, base + 0.425*r0, base + 0.425*r0, base, base}
	// Duplicates and a self link change nothing.
	g, err := NewGraph(5, []Edge{{0, 1}, {0, 2}, {1, 0}, {2, 0}, {3, 0}, {3, 0}, {2, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Links() != 5 {
		t.Errorf("%d links, want 5 (a duplicate and a self link dropped)", g.Links())
	}
	res := PageRank(g)
	sum := 0.0
	for i, r := range res.Ranks {
		sum += r
		// Home and its two children pass rank back and forth, so the error
		// shrinks by 0.85 a round: 100 rounds leave it near 1e-8.
		if math.Abs(r-want[i]) > 1e-7 {
			t.Errorf("page %d: rank %.10f, want %.10f", i, r, want[i])
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("ranks sum to %.12f, want 1", sum)
	}
	if res.Rounds != MaxRounds || res.Delta >= 1e-7 {
		t.Errorf("stopped after %d rounds at delta %g, want the round limit with the error below 1e-7", res.Rounds, res.Delta)
	}
}

func TestPageRankAgreesWithGonumOnARandomSite(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(7, 11))
	gg := simple.NewDirectedGraph()
	for i := range n {
		gg.AddNode(simple.Node(i))
	}
	var edges []Edge
	for u := range n {
		if u%10 == 0 {
			continue // pages that link nowhere
		}
		for range 1 + rng.IntN(12) {
			v := rng.IntN(n)
			if v == u {
				continue
			}
			edges = append(edges, Edge{int32(u), int32(v)})
			gg.SetEdge(gg.NewEdge(simple.Node(u), simple.Node(v)))
		}
	}
	g, err := NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	res := PageRank(g)
	if res.Delta >= Tolerance || res.Rounds >= MaxRounds {
		t.Errorf("stopped after %d rounds at delta %g, want it to stop once a round moves less than %g", res.Rounds, res.Delta, Tolerance)
	}
	got := res.Ranks
	want := network.PageRankSparse(gg, Damping, 1e-12)
	for i := range n {
		if math.Abs(got[i]-want[int64(i)]) > 1e-7 {
			t.Errorf("page %d: rank %.10f, gonum %.10f", i, got[i], want[int64(i)])
		}
	}
}

func TestScaledRanksRunFromZeroToAHundredOnALogScale(t *testing.T) {
	got := Scaled([]float64{0.01, 0.02, 0.04, 0.04})
	want := []float64{0, 50, 100, 100}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("scaled %v, want %v", got, want)
			break
		}
	}
	if got := Scaled([]float64{0.5, 0.5}); got[0] != 100 || got[1] != 100 {
		t.Errorf("equal ranks scale to %v, want 100 each", got)
	}
	if len(Scaled(nil)) != 0 || len(PageRank(&Graph{}).Ranks) != 0 {
		t.Error("an empty site has scores")
	}
}

func TestALinkToAPageOutsideTheGraphIsRefused(t *testing.T) {
	if _, err := NewGraph(2, []Edge{{0, 2}}); !errors.Is(err, ErrBadEdge) {
		t.Errorf("edge to page 2 of 2: %v, want ErrBadEdge", err)
	}
	if _, err := NewGraph(2, []Edge{{-1, 0}}); !errors.Is(err, ErrBadEdge) {
		t.Errorf("edge from page -1: %v, want ErrBadEdge", err)
	}
}

// TestABuilderFedAPageAtATimeBuildsTheGraphOfItsLinks: pages given in any
// order, with repeated links and links to themselves, give the graph whose
// inbound lists are each target's distinct other sources, ascending, and
// the ranks of the same links given as edges.
func TestABuilderFedAPageAtATimeBuildsTheGraphOfItsLinks(t *testing.T) {
	const n = 300
	rng := rand.New(rand.NewPCG(7, 11))
	links := make([][]int32, n)
	var edges []Edge
	for u := range n {
		for range rng.IntN(40) {
			v := int32(rng.IntN(n))
			links[u] = append(links[u], v, v) // each link twice
			edges = append(edges, Edge{int32(u), v})
		}
		links[u] = append(links[u], int32(u))
	}
	b := NewBuilder(n)
	for _, u := range rng.Perm(n) {
		if err := b.Links(int32(u), links[u]); err != nil {
			t.Fatal(err)
		}
	}
	got := b.Graph()
	want, err := NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	for v := range n {
		sources := got.inFrom[got.inStart[v]:got.inStart[v+1]]
		distinct := map[int32]bool{}
		for i, u := range sources {
			if u == int32(v) || distinct[u] || (i > 0 && sources[i-1] >= u) {
				t.Fatalf("page %d's sources %v: want distinct other pages, ascending", v, sources)
			}
			distinct[u] = true
		}
		var expected []int32
		for u := range n {
			if u != v && slices.Contains(links[u], int32(v)) {
				expected = append(expected, int32(u))
			}
		}
		if !slices.Equal(sources, expected) {
			t.Fatalf("page %d's sources %v, want %v", v, sources, expected)
		}
	}
	if !slices.Equal(got.outCount, want.outCount) || got.Links() != want.Links() {
		t.Errorf("%d links, want %d; out counts differ: %v", got.Links(), want.Links(), !slices.Equal(got.outCount, want.outCount))
	}
	if !slices.Equal(PageRank(got).Ranks, PageRank(want).Ranks) {
		t.Error("ranks differ between the builder's graph and the edges'")
	}
}

func TestABuilderRefusesAPageTwiceAndLinksOutsideTheGraph(t *testing.T) {
	b := NewBuilder(3)
	if err := b.Links(0, []int32{1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Links(0, []int32{2}); !errors.Is(err, ErrPageTwice) {
		t.Errorf("page 0's links again: %v, want ErrPageTwice", err)
	}
	if err := b.Links(1, []int32{3}); !errors.Is(err, ErrBadEdge) {
		t.Errorf("a link to page 3 of 3: %v, want ErrBadEdge", err)
	}
	if err := b.Links(3, nil); !errors.Is(err, ErrBadEdge) {
		t.Errorf("links of page 3 of 3: %v, want ErrBadEdge", err)
	}
}
