// Package linkscore computes a page's link score: its internal PageRank
// over the follow links between a site's live pages, raw and on a 0–100 log
// scale against the site's best page.
//
// The graph is held as compressed sparse rows of each page's inbound links
// (a million pages with 30 links each is 30 million int32s), and every
// round pulls each page's rank from its sources, so memory and time follow
// the number of links.
package linkscore

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The computation's settings, as the audit defines the link score.
const (
	// Damping is the chance a reader follows a link rather than jumping to
	// any page.
	Damping = 0.85
	// Tolerance ends the iteration once the ranks moved less than this in
	// total (L1) in a round.
	Tolerance = 1e-9
	// MaxRounds ends it regardless.
	MaxRounds = 100
)

// Graph is a site's link graph on pages 0..n-1. Build it with NewGraph.
type Graph struct {
	n        int
	inStart  []int32 // page v's sources are inFrom[inStart[v]:inStart[v+1]]
	inFrom   []int32
	outCount []int32 // distinct pages each page links to
}

// Edge is a follow link from one page to another, by index.
type Edge struct{ From, To int32 }

// ErrBadEdge is an edge naming a page outside the graph.
var ErrBadEdge = errors.New("edge outside the graph")

// NewGraph builds the graph of n pages from its links. A page linking to
// another several times counts once, and a page's links to itself do not
// count: they pass no rank to another page. edges may be reordered.
func NewGraph(n int, edges []Edge) (*Graph, error) {
	for _, e := range edges {
		if e.From < 0 || e.To < 0 || int(e.From) >= n || int(e.To) >= n {
			return nil, fmt.Errorf("%w: %d→%d with %d pages", ErrBadEdge, e.From, e.To, n)
		}
	}
	slices.SortFunc(edges, func(a, b Edge) int { return int(a.From - b.From) })
	b := NewBuilder(n)
	var tos []int32
	for i, e := range edges {
		tos = append(tos, e.To)
		if i == len(edges)-1 || edges[i+1].From != e.From {
			if err := b.Links(e.From, tos); err != nil {
				return nil, err
			}
			tos = tos[:0]
		}
	}
	return b.Graph(), nil
}

// Builder gathers a graph a page's links at a time, as a crawl or an audit
// reads them: each link is held once, as an int32, in blocks that never
// move, so a site of a million pages and 30 million links grows by 120 MB
// rather than by copies of a growing slice. Graph then lays the links out
// by target without sorting.
type Builder struct {
	n        int
	block    []int32 // page u's targets are blocks[block[u]][at[u] : at[u]+outCount[u]]
	at       []int32
	outCount []int32
	blocks   [][]int32
	seen     []int32 // seen[v] == u+1: page u's link to v is held
	inCount  []int32
}

// builderBlock is how many links a block holds; a page with more gets a
// block of its own.
const builderBlock = 1 << 16

// NewBuilder starts the graph of n pages.
func NewBuilder(n int) *Builder {
	b := &Builder{n: n, block: make([]int32, n), at: make([]int32, n), outCount: make([]int32, n),
		seen: make([]int32, n), inCount: make([]int32, n)}
	for u := range b.block {
		b.block[u] = -1
	}
	return b
}

// ErrPageTwice is a page whose links were given twice.
var ErrPageTwice = errors.New("page's links given twice")

// Links records page from's links to the pages tos: each target once, and
// none to from itself. A page's links are given once.
func (b *Builder) Links(from int32, tos []int32) error {
	if from < 0 || int(from) >= b.n {
		return fmt.Errorf("%w: page %d with %d pages", ErrBadEdge, from, b.n)
	}
	if b.block[from] >= 0 || b.outCount[from] > 0 {
		return fmt.Errorf("%w: page %d", ErrPageTwice, from)
	}
	distinct := 0
	for _, v := range tos {
		if v < 0 || int(v) >= b.n {
			return fmt.Errorf("%w: %d→%d with %d pages", ErrBadEdge, from, v, b.n)
		}
		if v != from && b.seen[v] != from+1 {
			b.seen[v] = from + 1
			distinct++
		}
	}
	if distinct == 0 {
		return nil
	}
	last := len(b.blocks) - 1
	if last < 0 || len(b.blocks[last])+distinct > cap(b.blocks[last]) {
		b.blocks = append(b.blocks, make([]int32, 0, max(builderBlock, distinct)))
		last++
	}
	blk := b.blocks[last]
	b.block[from], b.at[from], b.outCount[from] = int32(last), int32(len(blk)), int32(distinct)
	for _, v := range tos {
		if v != from && b.seen[v] == from+1 {
			b.seen[v] = -1 // taken; from+1 is never -1
			blk = append(blk, v)
			b.inCount[v]++
		}
	}
	b.blocks[last] = blk
	return nil
}

// Graph lays the links out as each page's inbound links, sources in
// ascending order, and lets the builder's blocks go.
func (b *Builder) Graph() *Graph {
	g := &Graph{n: b.n, inStart: make([]int32, b.n+1), outCount: b.outCount}
	for v, c := range b.inCount {
		g.inStart[v+1] = g.inStart[v] + c
	}
	g.inFrom = make([]int32, g.inStart[b.n])
	next := b.inCount // reused as each target's fill position
	copy(next, g.inStart[:b.n])
	for u := range b.n {
		if b.outCount[u] == 0 {
			continue
		}
		for _, v := range b.blocks[b.block[u]][b.at[u] : b.at[u]+b.outCount[u]] {
			g.inFrom[next[v]] = int32(u)
			next[v]++
		}
	}
	*b = Builder{}
	return g
}

// Pages is how many pages the graph has.
func (g *Graph) Pages() int { return g.n }

// Links is how many distinct links between different pages it has.
func (g *Graph) Links() int { return len(g.inFrom) }

// Result is the ranks of a graph's pages, summing to 1, and how the
// iteration ended.
type Result struct {
	Ranks  []float64
	Rounds int
	Delta  float64 // the L1 change of the last round
}

// PageRank ranks the graph's pages: each round, a page's rank is
// (1−Damping)/n plus Damping times the rank its sources pass it (each
// source's rank split evenly over the pages it links to) and an even share
// of the rank of pages that link nowhere. It stops when a round changes the
// ranks by less than Tolerance in total, or after MaxRounds.
func PageRank(g *Graph) Result {
	n := g.n
	if n == 0 {
		return Result{}
	}
	rank := make([]float64, n)
	next := make([]float64, n)
	share := make([]float64, n) // rank[u] / outCount[u]
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	res := Result{}
	for res.Rounds < MaxRounds {
		dangling := 0.0
		for u, c := range g.outCount {
			if c == 0 {
				dangling += rank[u]
				share[u] = 0
			} else {
				share[u] = rank[u] / float64(c)
			}
		}
		base := (1-Damping)/float64(n) + Damping*dangling/float64(n)
		delta := 0.0
		for v := 0; v < n; v++ {
			sum := 0.0
			for _, u := range g.inFrom[g.inStart[v]:g.inStart[v+1]] {
				sum += share[u]
			}
			next[v] = base + Damping*sum
			delta += math.Abs(next[v] - rank[v])
		}
		rank, next = next, rank
		res.Rounds++
		res.Delta = delta
		if delta < Tolerance {
			break
		}
	}
	res.Ranks = rank
	return res
}

// Scaled puts ranks on a 0–100 log scale against the best page: 100 for
// the highest rank, 0 for the lowest, and 100·ln(r/lowest)/ln(highest/lowest)
// between, so each doubling of rank adds the same number of points. When
// every page ranks the same, all score 100.
func Scaled(ranks []float64) []float64 {
	out := make([]float64, len(ranks))
	if len(ranks) == 0 {
		return out
	}
	lo, hi := slices.Min(ranks), slices.Max(ranks)
	if !(hi > lo) || lo <= 0 {
		for i := range out {
			out[i] = 100
		}
		return out
	}
	span := math.Log(hi / lo)
	for i, r := range ranks {
		out[i] = 100 * math.Log(r/lo) / span
	}
	return out
}
