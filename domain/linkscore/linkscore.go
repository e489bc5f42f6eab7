// Package linkscore computes a page's link score: its internal PageRank
// over the follow links between a site's live pages, raw and on a 0–100 log
// scale against the site's best page.
//
// An audit's heap must not follow the number of a site's links, so the
// links are not held in memory: the Builder writes them once to a spill (a
// temporary file in the service, memory in tests), and each round of
// PageRank replays the spill and pushes every page's rank along its links.
// In memory stay only what follows the number of pages: a bit a page for
// the pages that link somewhere while the graph is built and ranked, and
// two float64s a page for the ranks while they are computed.
//
// The spill holds one row for each page that links to another page, in the
// order the pages were given, each number an unsigned varint:
//
//	from, count, to₁, to₂−to₁, …, to_count−to_(count−1)
//
// its targets being distinct, ascending and other than from, so that all
// but the first are positive gaps, and most fit in a byte or two.
package linkscore

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/interlinker/interlinker/domain/spill"
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

// bufferSize is the buffer between the computation and its spill, writing
// and replaying.
const bufferSize = 64 << 10

// maxVarint is the longest varint a row holds: every number in it is below
// the number of pages, which are indexed by int32, so under 2³¹.
const maxVarint = 5

// Graph is a site's link graph on pages 0..n-1, its links in a spill that
// each round of PageRank replays. Build it with a Builder, or NewGraph.
type Graph struct {
	n      int
	links  int    // distinct links between different pages
	rows   int    // pages that link to another page
	linked bitset // the pages that do
	s      spill.Spill
}

// Edge is a follow link from one page to another, by index.
type Edge struct{ From, To int32 }

// ErrBadEdge is an edge naming a page outside the graph.
var ErrBadEdge = errors.New("edge outside the graph")

// ErrPageTwice is a page whose links were given twice.
var ErrPageTwice = errors.New("page's links given twice")

// ErrCorrupt is a spill that does not replay the links written to it.
var ErrCorrupt = errors.New("link graph's spill corrupt")

// errBuilt is a Builder used after its Graph.
var errBuilt = errors.New("linkscore: builder used after its graph")

// NewGraph builds the graph of n pages from its links, in memory. A page
// linking to another several times counts once, and a page's links to
// itself do not count: they pass no rank to another page. edges may be
// reordered.
func NewGraph(n int, edges []Edge) (*Graph, error) {
	for _, e := range edges {
		if e.From < 0 || e.To < 0 || int(e.From) >= n || int(e.To) >= n {
			return nil, fmt.Errorf("%w: %d→%d with %d pages", ErrBadEdge, e.From, e.To, n)
		}
	}
	slices.SortFunc(edges, func(a, b Edge) int { return cmp.Compare(a.From, b.From) })
	s, err := spill.Memory{}.New()
	if err != nil {
		return nil, err
	}
	b := NewBuilder(n, s)
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
	return b.Graph()
}

// Builder gathers a graph a page's links at a time, as a crawl or an audit
// reads them, writing each page's row to the spill as it comes: what it
// holds follows the number of pages (a bit each) and the links of the
// largest page, not the number of links.
type Builder struct {
	n      int
	links  int
	rows   int
	linked bitset // pages whose row is written
	w      *bufio.Writer
	s      spill.Spill
	sorted []int32 // a page's targets, sorted
	enc    []byte  // its row, encoded
}

// NewBuilder starts the graph of n pages, writing its links to s.
func NewBuilder(n int, s spill.Spill) *Builder {
	return &Builder{n: n, linked: newBitset(n), w: bufio.NewWriterSize(s, bufferSize), s: s}
}

// Links records page from's links to the pages tos: each target once, and
// none to from itself. A page's links are given once: a page that already
// links somewhere is ErrPageTwice (one that linked nowhere, as before, is
// no row and no bit, and may be given again). A page or target outside the
// graph is ErrBadEdge, and nothing of the page is recorded.
func (b *Builder) Links(from int32, tos []int32) error {
	if b.w == nil {
		return errBuilt
	}
	if from < 0 || int(from) >= b.n {
		return fmt.Errorf("%w: page %d with %d pages", ErrBadEdge, from, b.n)
	}
	if b.linked.has(int(from)) {
		return fmt.Errorf("%w: page %d", ErrPageTwice, from)
	}
	for _, v := range tos {
		if v < 0 || int(v) >= b.n {
			return fmt.Errorf("%w: %d→%d with %d pages", ErrBadEdge, from, v, b.n)
		}
	}
	sorted := append(b.sorted[:0], tos...)
	slices.Sort(sorted)
	distinct := sorted[:0]
	for i, v := range sorted {
		if v != from && (i == 0 || v != sorted[i-1]) {
			distinct = append(distinct, v) // never ahead of i: safe in place
		}
	}
	b.sorted = sorted[:0]
	if len(distinct) == 0 {
		return nil
	}
	enc := binary.AppendUvarint(b.enc[:0], uint64(from))
	enc = binary.AppendUvarint(enc, uint64(len(distinct)))
	prev := int32(0)
	for _, v := range distinct {
		enc = binary.AppendUvarint(enc, uint64(v-prev))
		prev = v
		if len(enc) >= bufferSize/16 { // a page of many links is written a part at a time
			if _, err := b.w.Write(enc); err != nil {
				return fmt.Errorf("linkscore: writing page %d's links: %w", from, err)
			}
			enc = enc[:0]
		}
	}
	b.enc = enc[:0]
	if _, err := b.w.Write(enc); err != nil {
		return fmt.Errorf("linkscore: writing page %d's links: %w", from, err)
	}
	b.linked.set(int(from))
	b.links += len(distinct)
	b.rows++
	return nil
}

// Graph writes out what is buffered and gives the graph. The builder is
// done with: its spill is the graph's.
func (b *Builder) Graph() (*Graph, error) {
	if b.w == nil {
		return nil, errBuilt
	}
	err := b.w.Flush()
	g := &Graph{n: b.n, links: b.links, rows: b.rows, linked: b.linked, s: b.s}
	*b = Builder{}
	if err != nil {
		return nil, fmt.Errorf("linkscore: writing the links: %w", err)
	}
	return g, nil
}

// Pages is how many pages the graph has.
func (g *Graph) Pages() int { return g.n }

// Links is how many distinct links between different pages it has.
func (g *Graph) Links() int { return g.links }

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
//
// Each round replays the graph's spill once; an error replaying it, or a
// spill that does not hold the links written, ends the ranking with an
// error.
func PageRank(g *Graph) (Result, error) {
	n := g.n
	if n == 0 {
		return Result{}, nil
	}
	if g.links > 0 && g.s == nil {
		return Result{}, fmt.Errorf("%w: %d links and no spill", ErrCorrupt, g.links)
	}
	rank := make([]float64, n)
	next := make([]float64, n) // the rank passed along links, then the next ranks
	for i := range rank {
		rank[i] = 1 / float64(n)
	}
	var r *bufio.Reader
	res := Result{}
	for res.Rounds < MaxRounds {
		clear(next)
		if g.links > 0 {
			src, err := g.s.Replay()
			if err != nil {
				return Result{}, fmt.Errorf("linkscore: replaying the links: %w", err)
			}
			if r == nil {
				r = bufio.NewReaderSize(src, bufferSize)
			} else {
				r.Reset(src)
			}
			if err := g.push(r, rank, next); err != nil {
				return Result{}, fmt.Errorf("linkscore: round %d: %w", res.Rounds+1, err)
			}
		}
		dangling := 0.0
		for u, ru := range rank {
			if !g.linked.has(u) {
				dangling += ru
			}
		}
		base := (1-Damping)/float64(n) + Damping*dangling/float64(n)
		delta := 0.0
		for v, passed := range next {
			next[v] = base + Damping*passed
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
	return res, nil
}

// push replays the graph's rows from r, adding to next[v], for each link
// u→v, rank[u] split evenly over u's links.
func (g *Graph) push(r *bufio.Reader, rank, next []float64) error {
	d := decoder{r: r}
	un := uint64(g.n)
	rows, links := 0, 0
	for {
		from, err := d.uvarint()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if from >= un {
			return fmt.Errorf("%w: row %d is of page %d of %d", ErrCorrupt, rows+1, from, g.n)
		}
		if !g.linked.has(int(from)) {
			return fmt.Errorf("%w: row %d is of page %d, which links nowhere", ErrCorrupt, rows+1, from)
		}
		count, err := d.uvarint()
		if err != nil {
			return eof(err)
		}
		if count == 0 || count > uint64(g.links-links) {
			return fmt.Errorf("%w: page %d has %d links, past the graph's %d", ErrCorrupt, from, count, g.links)
		}
		first, err := d.uvarint()
		if err != nil {
			return eof(err)
		}
		if first >= un {
			return fmt.Errorf("%w: page %d links to page %d of %d", ErrCorrupt, from, first, g.n)
		}
		share := rank[from] / float64(count)
		next[first] += share
		t := first
		// The rest are gaps: as many at a time as the buffer surely holds
		// whole, decoded here; then one, refilling.
		for left := int(count) - 1; left > 0; {
			k := min(left, (len(d.buf)-d.pos)/maxVarint)
			if k == 0 {
				x, err := d.uvarint()
				if err != nil {
					return eof(err)
				}
				if t += x; x == 0 || t >= un {
					return fmt.Errorf("%w: page %d's links out of order or past page %d", ErrCorrupt, from, g.n)
				}
				next[t] += share
				left--
				continue
			}
			left -= k
			buf, p := d.buf, d.pos
			for ; k > 0; k-- {
				x := uint64(buf[p])
				p++
				if x >= 0x80 {
					b := buf[p]
					p++
					x = x&0x7f | uint64(b&0x7f)<<7
					if b >= 0x80 {
						b = buf[p]
						p++
						x |= uint64(b&0x7f) << 14
						if b >= 0x80 {
							b = buf[p]
							p++
							x |= uint64(b&0x7f) << 21
							if b >= 0x80 {
								b = buf[p]
								p++
								if b >= 0x80 {
									return fmt.Errorf("%w: a number of page %d's row runs past %d bytes", ErrCorrupt, from, maxVarint)
								}
								x |= uint64(b) << 28
							}
						}
					}
				}
				if t += x; x == 0 || t >= un {
					return fmt.Errorf("%w: page %d's links out of order or past page %d", ErrCorrupt, from, g.n)
				}
				next[t] += share
			}
			d.pos = p
		}
		rows++
		links += int(count)
	}
	if rows != g.rows || links != g.links {
		return fmt.Errorf("%w: %d rows of %d links replayed, %d of %d written: %w",
			ErrCorrupt, rows, links, g.rows, g.links, io.ErrUnexpectedEOF)
	}
	return nil
}

// eof is an end of the stream inside a row.
func eof(err error) error {
	if err == io.EOF {
		return fmt.Errorf("%w: a row cut short: %w", ErrCorrupt, io.ErrUnexpectedEOF)
	}
	return err
}

// decoder reads varints from a bufio.Reader's buffer.
type decoder struct {
	r   *bufio.Reader
	buf []byte // the reader's buffered bytes; those before pos are read
	pos int
	end bool // buf holds the rest of the stream
}

// fill has the reader's buffer hold as much of the stream as it can.
func (d *decoder) fill() error {
	if _, err := d.r.Discard(d.pos); err != nil {
		return err
	}
	buf, err := d.r.Peek(bufferSize)
	d.buf, d.pos = buf, 0
	switch {
	case err == io.EOF:
		d.end = true
	case err != nil && !errors.Is(err, bufio.ErrBufferFull):
		return err
	}
	return nil
}

// uvarint reads the next number: io.EOF when the stream ended before it.
func (d *decoder) uvarint() (uint64, error) {
	if len(d.buf)-d.pos < maxVarint && !d.end {
		if err := d.fill(); err != nil {
			return 0, err
		}
	}
	var x uint64
	for i := range maxVarint {
		if d.pos+i >= len(d.buf) {
			if i == 0 {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("%w: a number cut short: %w", ErrCorrupt, io.ErrUnexpectedEOF)
		}
		b := d.buf[d.pos+i]
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			d.pos += i + 1
			return x, nil
		}
	}
	return 0, fmt.Errorf("%w: a number runs past %d bytes", ErrCorrupt, maxVarint)
}

// bitset is a bit for each of a graph's pages.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (max(n, 0)+63)/64) }

func (s bitset) has(i int) bool { return s[i/64]&(1<<(uint(i)%64)) != 0 }

func (s bitset) set(i int) { s[i/64] |= 1 << (uint(i) % 64) }

// Scaled puts ranks on a 0–100 log scale against the best page: 100 for
// the highest rank, 0 for the lowest, and 100·ln(r/lowest)/ln(highest/lowest)
// between, so each doubling of rank adds the same number of points. When
// every page ranks the same, all score 100.
func Scaled(ranks []float64) []float64 {
	scale := ScaleOf(ranks)
	out := make([]float64, len(ranks))
	for i, r := range ranks {
		out[i] = scale(r)
	}
	return out
}

// ScaleOf is Scaled a rank at a time: the scale of ranks, for a caller
// that keeps the ranks and not their scores.
func ScaleOf(ranks []float64) func(rank float64) float64 {
	if len(ranks) == 0 {
		return func(float64) float64 { return 100 }
	}
	lo, hi := slices.Min(ranks), slices.Max(ranks)
	if !(hi > lo) || lo <= 0 {
		return func(float64) float64 { return 100 }
	}
	span := math.Log(hi / lo)
	return func(r float64) float64 { return 100 * math.Log(r/lo) / span }
}
