package audit

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sort"

	"github.com/interlinker/interlinker/domain/site"
)

// pageTable holds the site's pages as columns, about twenty bytes a page
// besides its id: an audit of a million pages holds every page for as
// long as it runs, and a Page of strings costs a few hundred bytes.
//
// Pages are matched by the hash of their path (maphash, 64 bits, seeded
// per audit): two paths of one site sharing a hash is a chance of about
// n²/2⁶⁵, one in thirty million for a million pages, and paths are not
// kept.
type pageTable struct {
	ids idColumn

	kind     []uint8 // index into kinds
	kinds    []site.Kind
	cluster  narrow[uint16] // 1 + index into clusters, 0 for none
	clusters []string
	words    narrow[uint16]
	live     liveSet
	// values are the attribute values of term pages, the one kind whose
	// values the audit reads.
	values map[int32][]string

	seed     maphash.Seed
	pathHash []uint64 // by page until sealed; then sorted, with byPath
	byPath   []int32  // pages in the order of pathHash, a live page before a deleted one of its path
	// byID are the pages in id order; nil while they came in that order
	// (as the store gives them), and the positions are that order.
	byID     []int32
	unsorted bool // a page came with an id before the one before it
}

func newPageTable() pageTable {
	return pageTable{seed: maphash.MakeSeed(), values: map[int32][]string{}}
}

func (t *pageTable) len() int { return t.ids.len() }

// idColumn holds every page's id, one after another, with each id's
// length in a byte and where every idBlock-th id starts: about a byte a
// page besides the ids, where an end offset took four.
type idColumn struct {
	bytes  []byte
	size   narrow[uint8]
	starts []int32 // where ids idBlock·k start in bytes
}

const idBlock = 32

func (c *idColumn) len() int { return len(c.size.v) }

func (c *idColumn) grow(n, idLen int) {
	c.bytes = slices.Grow(c.bytes, n*idLen)
	c.size.grow(n)
	c.starts = slices.Grow(c.starts, (n+idBlock-1)/idBlock)
}

func (c *idColumn) add(id string) {
	if c.len()%idBlock == 0 {
		c.starts = append(c.starts, int32(len(c.bytes)))
	}
	c.bytes = append(c.bytes, id...)
	c.size.add(int32(len(id)))
}

// at is page i's id as the column holds it.
func (c idColumn) at(i int32) []byte {
	start := c.starts[i/idBlock]
	for k := i - i%idBlock; k < i; k++ {
		start += c.size.at(k)
	}
	return c.bytes[start : start+c.size.at(i)]
}

// grow makes room for n more pages of about idLen bytes of id each.
func (t *pageTable) grow(n, idLen int) {
	t.ids.grow(n, idLen)
	t.kind = slices.Grow(t.kind, n)
	t.cluster.grow(n)
	t.words.grow(n)
	t.live.grow(n)
	t.pathHash = slices.Grow(t.pathHash, n)
}

// add appends a page; it is found once the table is sealed.
func (t *pageTable) add(p Page) {
	i := int32(t.len())
	if i > 0 && !t.unsorted && bytes.Compare(t.idBytes(i-1), []byte(p.ID)) >= 0 {
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
		// Clusters are few; a linear search from the end finds the
		// current one first, as pages come mostly cluster by cluster.
		c = int32(len(t.clusters) - 1)
		for c >= 0 && t.clusters[c] != p.ClusterID {
			c--
		}
		if c < 0 {
			c = int32(len(t.clusters))
			t.clusters = append(t.clusters, p.ClusterID)
		}
	}
	t.cluster.add(c + 1)
	t.words.add(int32(min(max(p.WordCount, 0), 1<<31-1)))
	t.live.add(p.Live)
	if p.Kind == site.KindTerm && len(p.Values) > 0 {
		t.values[i] = p.Values
	}
	t.pathHash = append(t.pathHash, t.hashPath(Path(p.URL)))
}

func (t *pageTable) hashPath(path string) uint64 { return maphash.String(t.seed, path) }

// seal indexes the pages by id and by path.
func (t *pageTable) seal() {
	n := t.len()
	if t.unsorted {
		t.byID = make([]int32, n)
		for i := range n {
			t.byID[i] = int32(i)
		}
		sort.Slice(t.byID, func(a, b int) bool { return bytes.Compare(t.idBytes(t.byID[a]), t.idBytes(t.byID[b])) < 0 })
	}
	t.byPath = make([]int32, n)
	for i := range n {
		t.byPath[i] = int32(i)
	}
	// Among pages of one path, a live page wins over a deleted one, and
	// then the first given.
	sort.SliceStable(t.byPath, func(a, b int) bool {
		pa, pb := t.byPath[a], t.byPath[b]
		if t.pathHash[pa] != t.pathHash[pb] {
			return t.pathHash[pa] < t.pathHash[pb]
		}
		return t.live.has(pa) && !t.live.has(pb)
	})
	permute(t.pathHash, t.byPath)
}

// permute puts hashes in the order of order (hashes[k] becomes
// hashes[order[k]]) in place, a cycle at a time: a copy would hold a
// second eight bytes a page at the audit's busiest moment.
func permute(hashes []uint64, order []int32) {
	done := make([]uint64, (len(order)+63)/64)
	for start := range order {
		if done[start/64]&(1<<(uint(start)%64)) != 0 {
			continue
		}
		first := hashes[start]
		k := start
		for {
			done[k/64] |= 1 << (uint(k) % 64)
			from := int(order[k])
			if from == start {
				hashes[k] = first
				break
			}
			hashes[k] = hashes[from]
			k = from
		}
	}
}

// id is page i's id. The string is the table's bytes copied.
func (t *pageTable) id(i int32) string {
	return string(t.idBytes(i))
}

// find is the page with the id; -1 when there is none.
func (t *pageTable) find(id string) int32 {
	key := []byte(id)
	at := func(k int) int32 {
		if t.byID == nil {
			return int32(k)
		}
		return t.byID[k]
	}
	k := sort.Search(t.len(), func(k int) bool { return bytes.Compare(t.idBytes(at(k)), key) >= 0 })
	if k < t.len() && bytes.Equal(t.idBytes(at(k)), key) {
		return at(k)
	}
	return -1
}

// idBytes is page i's id as the table holds it.
func (t *pageTable) idBytes(i int32) []byte { return t.ids.at(i) }

// atPath is the page a path names; -1 when there is none.
func (t *pageTable) atPath(path string) int32 {
	h := t.hashPath(path)
	k, found := slices.BinarySearch(t.pathHash, h)
	if !found {
		return -1
	}
	return t.byPath[k]
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
func (t *pageTable) clusterIndex(i int32) int32 { return t.cluster.at(i) - 1 }

func (t *pageTable) wordCount(i int32) int { return int(t.words.at(i)) }

func (t *pageTable) kindOf(i int32) site.Kind { return t.kinds[t.kind[i]] }

func (t *pageTable) clusterOf(i int32) string {
	if c := t.clusterIndex(i); c >= 0 {
		return t.clusters[c]
	}
	return ""
}

// narrow is a column of non-negative numbers that are almost always
// small (word counts, cluster indexes, id lengths), a T each; the rare one
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

func (c *narrow[T]) at(i int32) int32 {
	if x := c.v[i]; x != ^T(0) {
		return int32(x)
	}
	return c.wide[i]
}
