package linkscore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/interlinker/interlinker/domain/spill"

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
	res := mustRank(t, g)
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
	res := mustRank(t, g)
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
	if res, err := PageRank(&Graph{}); len(Scaled(nil)) != 0 || len(res.Ranks) != 0 || err != nil {
		t.Errorf("an empty site has scores %v (%v)", res.Ranks, err)
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

// TestABuilderFedAPageAtATimeWritesEachPagesDistinctLinksAsARow: pages given
// in any order, with repeated links and links to themselves, are written as
// given, each as from, count and its distinct other targets as ascending
// gaps, and rank as the same links given as edges, in order.
func TestABuilderFedAPageAtATimeWritesEachPagesDistinctLinksAsARow(t *testing.T) {
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
	b := NewBuilder(n, memory(t))
	order := rng.Perm(n)
	for _, u := range order {
		if err := b.Links(int32(u), links[u]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewGraph(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	var wantRows []row
	for _, u := range order {
		var tos []int32
		for _, v := range links[u] {
			if v != int32(u) && !slices.Contains(tos, v) {
				tos = append(tos, v)
			}
		}
		slices.Sort(tos)
		if len(tos) > 0 {
			wantRows = append(wantRows, row{int32(u), tos})
		}
	}
	if rows := rowsOf(t, got); !slices.EqualFunc(rows, wantRows, row.equal) {
		t.Errorf("rows %v, want %v", rows, wantRows)
	}
	if got.Links() != want.Links() || got.Pages() != n {
		t.Errorf("%d links on %d pages, want %d on %d", got.Links(), got.Pages(), want.Links(), n)
	}
	// Rank passed in another order sums in another order: the same to a
	// rounding.
	closeTo(t, mustRank(t, got).Ranks, mustRank(t, want).Ranks, 1e-15)
}

func TestABuilderRefusesAPageTwiceAndLinksOutsideTheGraph(t *testing.T) {
	b := NewBuilder(3, memory(t))
	if err := b.Links(0, []int32{1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Links(0, []int32{2}); !errors.Is(err, ErrPageTwice) {
		t.Errorf("page 0's links again: %v, want ErrPageTwice", err)
	}
	if err := b.Links(1, []int32{2, 3}); !errors.Is(err, ErrBadEdge) {
		t.Errorf("a link to page 3 of 3: %v, want ErrBadEdge", err)
	}
	if err := b.Links(1, []int32{-1}); !errors.Is(err, ErrBadEdge) {
		t.Errorf("a link to page -1: %v, want ErrBadEdge", err)
	}
	if err := b.Links(3, nil); !errors.Is(err, ErrBadEdge) {
		t.Errorf("links of page 3 of 3: %v, want ErrBadEdge", err)
	}
	if err := b.Links(-1, nil); !errors.Is(err, ErrBadEdge) {
		t.Errorf("links of page -1: %v, want ErrBadEdge", err)
	}
	// A refused page's links are not written; it may be given again.
	if err := b.Links(1, []int32{2}); err != nil {
		t.Fatalf("page 1's links after a refusal: %v", err)
	}
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if rows := rowsOf(t, g); !slices.EqualFunc(rows, []row{{0, []int32{1}}, {1, []int32{2}}}, row.equal) || g.Links() != 2 {
		t.Errorf("rows %v and %d links, want 0→1 and 1→2", rows, g.Links())
	}
	if err := b.Links(2, []int32{0}); err == nil {
		t.Error("a builder took links after its graph")
	}
	if _, err := b.Graph(); err == nil {
		t.Error("a builder gave a second graph")
	}
}

// TestABuilderHoldsNoLinks: once its scratch has grown to a page's links,
// a builder gives the next pages' links to its spill without allocating.
func TestABuilderHoldsNoLinks(t *testing.T) {
	const n = 100_000
	b := NewBuilder(n, discard{})
	tos := make([]int32, 500)
	for i := range tos {
		tos[i] = int32(n - 1 - 7*i)
	}
	u := int32(0)
	if allocs := testing.AllocsPerRun(1000, func() {
		if err := b.Links(u, tos); err != nil {
			t.Fatal(err)
		}
		u++
	}); allocs != 0 {
		t.Errorf("%v allocations a page", allocs)
	}
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if g.Links() != 1001*500 {
		t.Errorf("%d links, want %d", g.Links(), 1001*500)
	}
}

// discard is a spill that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (discard) Replay() (io.Reader, error) { return nil, errors.New("nothing kept") }

// TestLinksToItselfAndRepeatedLinksPassNoMoreRank: a page whose only links
// are to itself links nowhere, and a page linking to another three times
// passes it what one link would.
func TestLinksToItselfAndRepeatedLinksPassNoMoreRank(t *testing.T) {
	b := NewBuilder(4, memory(t))
	for _, r := range []row{{0, []int32{0, 0}}, {1, []int32{2, 2, 1, 2, 3}}, {2, nil}, {3, []int32{1}}} {
		if err := b.Links(r.from, r.tos); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if g.Links() != 3 {
		t.Errorf("%d links, want 3", g.Links())
	}
	if rows := rowsOf(t, g); !slices.EqualFunc(rows, []row{{1, []int32{2, 3}}, {3, []int32{1}}}, row.equal) {
		t.Errorf("rows %v, want 1→2,3 and 3→1", rows)
	}
	closeTo(t, mustRank(t, g).Ranks, reference(4, [][]int32{nil, {2, 3}, nil, {1}}), 1e-15)
}

// TestRanksDoNotDependOnHowTheSpillIsRead: a page with more links than the
// buffer holds, gaps of one to four bytes, and a spill read a byte at a
// time rank as the straightforward computation does.
func TestRanksDoNotDependOnHowTheSpillIsRead(t *testing.T) {
	for _, c := range []struct {
		n, random     int // pages, and pages given random links
		perm, oneByte bool
	}{
		{200_000, 2000, true, true},
		{1<<21 + 5, 0, false, false}, // gaps of four bytes
	} {
		if c.n > 200_000 && testing.Short() {
			continue
		}
		n := c.n
		rng := rand.New(rand.NewPCG(3, 5))
		out := make([][]int32, n)
		for v := 1; v < n; v += 2 {
			out[0] = append(out[0], int32(v)) // 100 kB and more of one-byte gaps
		}
		for u := 1; u < 8; u++ {
			out[u] = []int32{int32(u - 1), int32(n - 1 - u), int32(n - 1)} // a gap of 2²¹ and more
		}
		out[n-1] = []int32{0, 1, int32(n / 2), int32(n - 2)}
		for range c.random {
			u := rng.IntN(n)
			if out[u] != nil {
				continue
			}
			for range 1 + rng.IntN(30) {
				if v := int32(rng.IntN(n)); v != int32(u) && !slices.Contains(out[u], v) {
					out[u] = append(out[u], v)
				}
			}
			slices.Sort(out[u])
		}
		s := &testSpill{keep: -1, oneByte: c.oneByte}
		b := NewBuilder(n, s)
		order := rng.Perm(n)
		if !c.perm {
			slices.Sort(order) // page 0's long row first: the rest mid-buffer
		}
		for _, u := range order {
			if out[u] == nil {
				continue // the pages that link nowhere need not be given
			}
			if err := b.Links(int32(u), out[u]); err != nil {
				t.Fatal(err)
			}
		}
		g, err := b.Graph()
		if err != nil {
			t.Fatal(err)
		}
		if s.buf.Len() < 100_000+bufferSize {
			t.Fatalf("a spill of %d bytes: want one past the buffer and a row", s.buf.Len())
		}
		closeTo(t, mustRank(t, g).Ranks, reference(n, out), 1e-15)
	}
}

// TestACutOrFailingSpillIsAnError: a spill replaying only part of what was
// written, or failing to replay it, ends the ranking with an error.
func TestACutOrFailingSpillIsAnError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &testSpill{keep: -1}
	b := NewBuilder(100, s)
	for u := range 100 {
		var tos []int32
		for range rng.IntN(8) {
			tos = append(tos, int32(rng.IntN(100)))
		}
		if err := b.Links(int32(u), tos); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	mustRank(t, g)
	for _, oneByte := range []bool{false, true} {
		s.oneByte = oneByte
		for s.keep = 0; s.keep < s.buf.Len(); s.keep++ {
			if res, err := PageRank(g); !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) || res.Ranks != nil {
				t.Fatalf("the spill's first %d bytes of %d: ranks %v and error %v, want ErrCorrupt and io.ErrUnexpectedEOF",
					s.keep, s.buf.Len(), res.Ranks, err)
			}
		}
	}
	s.keep, s.oneByte = s.buf.Len()/2, false
	s.err = errors.New("disk gone")
	if _, err := PageRank(g); !errors.Is(err, s.err) {
		t.Errorf("a spill failing half way: %v, want its error", err)
	}
	s.keep, s.err, s.replayErr = -1, nil, errors.New("no file")
	if _, err := PageRank(g); !errors.Is(err, s.replayErr) {
		t.Errorf("a spill failing to replay: %v, want its error", err)
	}
}

// TestAMalformedRowIsAnError: rows that no builder writes end the ranking
// with ErrCorrupt.
func TestAMalformedRowIsAnError(t *testing.T) {
	// Pages 0 and 1 link: 0→1,2 and 1→0.
	graph := func(stream ...byte) *Graph {
		s := &testSpill{keep: -1}
		s.buf.Write(stream)
		g := &Graph{n: 4, links: 3, rows: 2, linked: newBitset(4), s: s}
		g.linked.set(0)
		g.linked.set(1)
		return g
	}
	if _, err := PageRank(graph(0, 2, 1, 1, 1, 1, 0)); err != nil {
		t.Fatalf("the well-formed rows: %v", err)
	}
	for name, stream := range map[string][]byte{
		"a target twice":         {0, 2, 1, 0, 1, 1, 0},
		"a target past the last": {0, 2, 1, 3, 1, 1, 0},
		"a first target past":    {0, 2, 4, 1, 1, 1, 0},
		"a page past the last":   {4, 2, 1, 1, 1, 1, 0},
		"a page linking nowhere": {2, 2, 0, 1, 1, 1, 0},
		"a row of no links":      {0, 0, 1, 1, 0},
		"more links than all":    {0, 4, 1, 1, 1, 1, 0},
		"a page's row twice":     {0, 2, 1, 1, 0, 2, 1, 1},
		"a row missing":          {0, 2, 1, 1},
		"a gap of 2²⁸":           {0, 2, 1, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 1, 0},
		"a gap of six bytes":     {0, 2, 1, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00, 1, 1, 0},
		"a page of six bytes":    {0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 2, 1, 1, 1, 1, 0},
		"a last gap of six":      {1, 1, 0, 0, 2, 1, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00},
	} {
		if _, err := PageRank(graph(stream...)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// TestACorruptSpillIsNoPanic: any byte of the spill changed, the ranking
// ends, with or without an error.
func TestACorruptSpillIsNoPanic(t *testing.T) {
	g, err := NewGraph(60, randomSite(60, 3))
	if err != nil {
		t.Fatal(err)
	}
	src, err := g.s.Replay()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		for _, b := range []byte{0, 1, 0x7f, 0x80, 0xff, data[i] + 1} {
			s := &testSpill{keep: -1}
			s.buf.Write(data)
			s.buf.Bytes()[i] = b
			c := *g
			c.s = s
			PageRank(&c)
		}
	}
}

// FuzzPageRankOfAnyStream: whatever a spill replays, ranking ends.
func FuzzPageRankOfAnyStream(f *testing.F) {
	f.Add([]byte{0, 2, 1, 1, 1, 1, 0})
	f.Add([]byte{0, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Add([]byte{3, 0xff, 0xff, 0xff, 0xff, 0x0f, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &testSpill{keep: -1}
		s.buf.Write(data)
		g := &Graph{n: 4, links: 3, rows: 2, linked: newBitset(4), s: s}
		g.linked.set(0)
		g.linked.set(1)
		PageRank(g)
	})
}

// A row is a page's distinct targets, ascending.
type row struct {
	from int32
	tos  []int32
}

func (r row) equal(o row) bool { return r.from == o.from && slices.Equal(r.tos, o.tos) }

// rowsOf reads a graph's spill as the package documents it.
func rowsOf(t *testing.T, g *Graph) []row {
	t.Helper()
	src, err := g.s.Replay()
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(src)
	var rows []row
	for {
		from, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
		count, err := binary.ReadUvarint(r)
		if err != nil {
			t.Fatal(err)
		}
		rw := row{from: int32(from)}
		to := uint64(0)
		for range count {
			gap, err := binary.ReadUvarint(r)
			if err != nil {
				t.Fatal(err)
			}
			to += gap
			rw.tos = append(rw.tos, int32(to))
		}
		rows = append(rows, rw)
	}
}

// reference is PageRank as defined, over each page's distinct targets.
func reference(n int, out [][]int32) []float64 {
	rank, next := make([]float64, n), make([]float64, n)
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	for range MaxRounds {
		dangling := 0.0
		for u, tos := range out {
			if len(tos) == 0 {
				dangling += rank[u]
			}
		}
		for v := range next {
			next[v] = (1-Damping)/float64(n) + Damping*dangling/float64(n)
		}
		for u, tos := range out {
			for _, v := range tos {
				next[v] += Damping * rank[u] / float64(len(tos))
			}
		}
		delta := 0.0
		for v := range next {
			delta += math.Abs(next[v] - rank[v])
		}
		rank, next = next, rank
		if delta < Tolerance {
			break
		}
	}
	return rank
}

func mustRank(t *testing.T, g *Graph) Result {
	t.Helper()
	res, err := PageRank(g)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// closeTo reports ranks further than tol, relatively, from want's.
func closeTo(t *testing.T, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d ranks, want %d", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*want[i] {
			t.Fatalf("page %d: rank %.17g, want %.17g", i, got[i], want[i])
		}
	}
}

func memory(t *testing.T) spill.Spill {
	s, err := spill.Memory{}.New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testSpill replays its first keep bytes (all when keep < 0), then fails
// with err if set; a byte a read if oneByte; and fails to replay with
// replayErr if set.
type testSpill struct {
	buf       bytes.Buffer
	keep      int
	oneByte   bool
	err       error
	replayErr error
}

func (s *testSpill) Write(p []byte) (int, error) { return s.buf.Write(p) }

func (s *testSpill) Replay() (io.Reader, error) {
	if s.replayErr != nil {
		return nil, s.replayErr
	}
	data := s.buf.Bytes()
	if s.keep >= 0 {
		data = data[:s.keep]
	}
	r := io.Reader(bytes.NewReader(data))
	if s.err != nil {
		r = io.MultiReader(r, iotest.ErrReader(s.err))
	}
	if s.oneByte {
		r = iotest.OneByteReader(r)
	}
	return r, nil
}
