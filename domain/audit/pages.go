package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"sort"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/spill"
)

// pageTable holds the site's pages as columns, about fourteen bytes a
// page besides its id (front-coded, idColumn) once sealed, a hundred
// thousand pages in a hundred clusters: the path index nine (pathIndex),
// kind a byte, cluster packed in the bits the site's clusters need, word
// count two bytes (aside while links are read), and a live bit. An audit of
// a million pages holds every page for as long as it runs, and a Page of
// strings costs a few hundred bytes.
//
// Pages are matched by the hash of their path (maphash, 64 bits, seeded
// per audit): two paths of one site sharing a hash is a chance of about
// n²/2⁶⁵, one in thirty million for a million pages, and paths are not
// kept.
type pageTable struct {
	ids idColumn

	kind  []uint8 // index into kinds
	kinds []site.Kind
	// cluster is 1 + a page's index into clusters, 0 for none, packed
	// once sealed; clusterAdded holds it as pages are added.
	cluster      packed
	clusterAdded narrow[uint16]
	clusters     []string
	clusterByID  map[string]int32 // index into clusters
	lastCluster  int32            // the cluster of the page added last, -1 for none
	words        narrow[uint16]
	// wordsAside holds words while links are read (setWordsAside), nil
	// when they are in memory.
	wordsAside spill.Spill
	live       liveSet
	// values are the attribute values of term pages, the one kind whose
	// values the audit reads.
	values map[int32][]string
	// noIndex are the pages whose HTML asks not to be indexed: few.
	noIndex map[int32]bool

	seed     maphash.Seed
	pathHash []uint64  // by page until sealed, when paths indexes them
	paths    pathIndex // a live page before a deleted one of its path
	// byID are the pages in id order; nil while they came in that order
	// (as the store gives them), and the positions are that order.
	byID     []int32
	unsorted bool // a page came with an id before the one before it
}

func newPageTable() pageTable {
	return pageTable{seed: maphash.MakeSeed(), values: map[int32][]string{}, noIndex: map[int32]bool{}, clusterByID: map[string]int32{}, lastCluster: -1}
}

func (t *pageTable) len() int { return t.ids.len() }

// grow makes room for n more pages.
func (t *pageTable) grow(n int) {
	t.ids.grow(n)
	t.kind = slices.Grow(t.kind, n)
	t.clusterAdded.grow(n)
	t.words.grow(n)
	t.live.grow(n)
	t.pathHash = slices.Grow(t.pathHash, n)
}

// add appends a page; it is found once the table is sealed.
func (t *pageTable) add(p Page) {
	i := int32(t.len())
	if i > 0 && !t.unsorted && bytes.Compare(t.ids.last, []byte(p.ID)) >= 0 {
		t.unsorted = true
	}
	t.ids.add(p.ID)
	k := slices.Index(t.kinds, p.Kind)
	if k < 0 {
		k = len(t.kinds)
		t.kinds = append(t.kinds, p.Kind)
	}
	t.kind = append(t.kind, uint8(k))
	c := int32(-1)
	if p.ClusterID != "" {
		// Pages come mostly cluster by cluster: the last page's cluster
		// is tried before the index of every cluster.
		if c = t.lastCluster; c < 0 || t.clusters[c] != p.ClusterID {
			var known bool
			if c, known = t.clusterByID[p.ClusterID]; !known {
				c = int32(len(t.clusters))
				t.clusters = append(t.clusters, p.ClusterID)
				t.clusterByID[p.ClusterID] = c
			}
		}
		t.lastCluster = c
	}
	t.clusterAdded.add(c + 1)
	t.words.add(int32(min(max(p.WordCount, 0), 1<<31-1)))
	t.live.add(p.Live)
	if p.NoIndex {
		t.noIndex[i] = true
	}
	if p.Kind == site.KindTerm && len(p.Values) > 0 {
		t.values[i] = p.Values
	}
	t.pathHash = append(t.pathHash, t.hashPath(markup.PagePath(p.URL)))
}

func (t *pageTable) hashPath(path string) uint64 { return maphash.String(t.seed, path) }

// seal indexes the pages by id and by path.
func (t *pageTable) seal() {
	n := t.len()
	t.ids.compact()
	t.cluster = newPacked(n, widthOf(uint64(len(t.clusters))))
	for i := range int32(n) {
		t.cluster.set(int(i), uint64(t.clusterAdded.at(i)))
	}
	t.clusterAdded = narrow[uint16]{}
	if t.unsorted {
		t.byID = make([]int32, n)
		for i := range n {
			t.byID[i] = int32(i)
		}
		slices.SortFunc(t.byID, t.ids.compare)
	}
	// Among pages of one path, a live page wins over a deleted one, and
	// then the first given.
	t.paths, t.pathHash = indexPaths(t.pathHash, t.live.has), nil
}

// pathRecord is a page's entry in the path index as it is set aside: its
// path's hash, then the page, little-endian.
const pathRecord = 8 + 4

// setPathsAside writes the path index to s and lets it go, until
// takePathsBack. The link score's ranking resolves no path and holds two
// float64s a page while it runs: without the index's nine bytes a page
// beside them, it is no longer the moment the audit holds most.
func (t *pageTable) setPathsAside(s spill.Spill) error {
	w := bufio.NewWriter(s)
	var rec [pathRecord]byte
	err := t.paths.each(func(h uint64, page int32) error {
		binary.LittleEndian.PutUint64(rec[:8], h)
		binary.LittleEndian.PutUint32(rec[8:], uint32(page))
		_, err := w.Write(rec[:])
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("audit: set the path index aside: %w", err)
	}
	t.paths = pathIndex{}
	return nil
}

// takePathsBack reads back the path index setPathsAside wrote to s.
func (t *pageTable) takePathsBack(s spill.Spill) error {
	src, err := s.Replay()
	if err != nil {
		return fmt.Errorf("audit: read the path index back: %w", err)
	}
	n := t.len()
	b := newPathIndexBuilder(n, int32(n-1))
	r := bufio.NewReader(src)
	var rec [pathRecord]byte
	last := uint64(0)
	for k := range n {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			return fmt.Errorf("audit: read the path index back: page %d of %d: %w", k, n, err)
		}
		h, page := binary.LittleEndian.Uint64(rec[:8]), int32(binary.LittleEndian.Uint32(rec[8:]))
		if page < 0 || int(page) >= n || h < last {
			return fmt.Errorf("audit: read the path index back: entry %d of %d names page %d, hash %x after %x", k, n, page, h, last)
		}
		b.add(h, page)
		last = h
	}
	t.paths = b.done()
	return nil
}

// id is page i's id.
func (t *pageTable) id(i int32) string { return t.ids.id(i) }

// find is the page with the id; -1 when there is none.
func (t *pageTable) find(id string) int32 {
	key := []byte(id)
	if t.byID == nil {
		if i, found := t.ids.search(key); found {
			return i
		}
		return -1
	}
	var buf [64]byte
	k := sort.Search(t.len(), func(k int) bool { return bytes.Compare(t.ids.appendID(buf[:0], t.byID[k]), key) >= 0 })
	if k < t.len() && bytes.Equal(t.ids.appendID(buf[:0], t.byID[k]), key) {
		return t.byID[k]
	}
	return -1
}

// compareIDs orders pages i and j by id, in a table whose pages are in id
// order unless byID orders them.
func compareIDs(ids *idColumn, byID []int32, i, j int32) int {
	if byID == nil {
		return cmp.Compare(i, j)
	}
	return ids.compare(i, j)
}

// atPath is the page a path names; -1 when there is none.
func (t *pageTable) atPath(path string) int32 {
	if i, found := t.paths.find(t.hashPath(path)); found {
		return i
	}
	return -1
}

// page is page i as a Page. URL is not kept: it is "".
func (t *pageTable) page(i int32) Page {
	p := Page{ID: t.id(i), Kind: t.kinds[t.kind[i]], WordCount: t.wordCount(i), Live: t.live.has(i),
		Values: t.values[i]}
	if c := t.clusterIndex(i); c >= 0 {
		p.ClusterID = t.clusters[c]
	}
	return p
}

// clusterIndex is page i's index into clusters, -1 for none.
func (t *pageTable) clusterIndex(i int32) int32 { return int32(t.cluster.at(int(i))) - 1 }

// wordCount is page i's word count; its words must not be aside.
func (t *pageTable) wordCount(i int32) int { return int(t.words.at(i)) }

// setWordsAside writes the word counts to s and lets them go, until
// takeWordsBack. No link is judged by its page's words: they are read
// only once every link is, and the two bytes a page are not held beside
// the path index while links are read, the moment the audit holds most.
// The rare count two bytes cannot hold stays in memory (narrow).
func (t *pageTable) setWordsAside(s spill.Spill) error {
	w := bufio.NewWriter(s)
	var rec [2]byte
	for _, x := range t.words.v {
		binary.LittleEndian.PutUint16(rec[:], x)
		if _, err := w.Write(rec[:]); err != nil {
			return fmt.Errorf("audit: set the word counts aside: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("audit: set the word counts aside: %w", err)
	}
	t.words.v, t.wordsAside = nil, s
	return nil
}

// takeWordsBack reads back the word counts setWordsAside wrote, if they
// are aside.
func (t *pageTable) takeWordsBack() error {
	if t.wordsAside == nil {
		return nil
	}
	src, err := t.wordsAside.Replay()
	if err != nil {
		return fmt.Errorf("audit: read the word counts back: %w", err)
	}
	n := t.len()
	words := make([]uint16, n)
	r := bufio.NewReader(src)
	var rec [2]byte
	for i := range n {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			return fmt.Errorf("audit: read the word counts back: page %d of %d: %w", i, n, err)
		}
		words[i] = binary.LittleEndian.Uint16(rec[:])
	}
	t.words.v, t.wordsAside = words, nil
	return nil
}

func (t *pageTable) kindOf(i int32) site.Kind { return t.kinds[t.kind[i]] }

func (t *pageTable) clusterOf(i int32) string {
	if c := t.clusterIndex(i); c >= 0 {
		return t.clusters[c]
	}
	return ""
}

// narrow is a column of non-negative numbers that are almost always
// small (word counts, cluster indexes, links in), a T each; the rare one
// T cannot hold is kept in a map. It holds a page's number in a quarter or
// half of an int32.
type narrow[T uint8 | uint16] struct {
	v    []T
	wide map[int32]int32
}

func (c *narrow[T]) grow(n int) { c.v = slices.Grow(c.v, n) }

// add appends x, which is not negative.
func (c *narrow[T]) add(x int32) {
	c.v = append(c.v, 0)
	c.set(int32(len(c.v)-1), x)
}

func (c *narrow[T]) set(i, x int32) {
	if top := ^T(0); x < int32(top) {
		c.v[i] = T(x)
		if c.wide != nil {
			delete(c.wide, i)
		}
		return
	}
	c.v[i] = ^T(0)
	if c.wide == nil {
		c.wide = map[int32]int32{}
	}
	c.wide[i] = x
}

// inc adds one to number i: a menu's targets are counted once a page, and
// only theirs go past what T holds.
func (c *narrow[T]) inc(i int32) {
	switch c.v[i] {
	case ^T(0): // in the map: one update, not a read and a write
		c.wide[i]++
	case ^T(0) - 1:
		c.set(i, int32(c.v[i])+1)
	default:
		c.v[i]++
	}
}

func (c *narrow[T]) at(i int32) int32 {
	if x := c.v[i]; x != ^T(0) {
		return int32(x)
	}
	return c.wide[i]
}
