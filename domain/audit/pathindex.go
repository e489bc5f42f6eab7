package audit

import (
	"cmp"
	"math/bits"
	"slices"
)

// pathIndex finds a page by the 64-bit hash of its path. The hashes are
// held sorted and split: their top bits name one of about n/2 buckets,
// which the index keeps only as where each bucket starts, and each entry
// holds the rest of its hash and its page, packed. A hundred thousand pages
// take about 9 bytes each (49 bits of hash, 17 of page, and the starts)
// where a sorted uint64 and an int32 took 12.
type pathIndex struct {
	lowBits uint   // bits of a hash an entry holds; the rest name its bucket
	starts  packed // the first entry of each bucket, and after the last one n
	lows    packed // each entry's hash without its bucket's bits, ascending
	pages   packed // each entry's page
}

// pathIndexBuilder makes a pathIndex from its entries in the order of
// their hashes.
type pathIndexBuilder struct {
	idx  pathIndex
	k    int    // entries added
	next uint64 // the first bucket whose start is not yet set
}

// newPathIndex is an empty index with room for n entries, of pages up to
// maxPage.
func newPathIndex(n int, maxPage int32) pathIndex {
	bucketBits := uint(max(bits.Len(uint(n))-2, 0))
	return pathIndex{
		lowBits: 64 - bucketBits,
		starts:  newPacked(1<<bucketBits+1, widthOf(uint64(n))),
		lows:    newPacked(n, 64-bucketBits),
		pages:   newPacked(n, widthOf(uint64(max(maxPage, 0)))),
	}
}

// newPathIndexBuilder starts the index of n entries, of pages up to
// maxPage.
func newPathIndexBuilder(n int, maxPage int32) *pathIndexBuilder {
	return &pathIndexBuilder{idx: newPathIndex(n, maxPage)}
}

// indexPaths indexes the pages by hashes, page i's path hash at i. Of
// pages sharing a hash, first wins over the rest, and then the first
// given. The entries are placed by bucket, a count and a pass, and only
// each bucket's few are sorted: there is no sorted copy of the hashes and
// no order of the pages beside them, which at seal would hold twelve bytes
// a page more than the index.
func indexPaths(hashes []uint64, first func(i int32) bool) pathIndex {
	n := len(hashes)
	idx := newPathIndex(n, int32(n-1))
	buckets := idx.starts.len() - 1
	next := make([]int32, buckets+1) // where each bucket's next entry goes
	for _, h := range hashes {
		next[idx.bucketOf(h)+1]++
	}
	for b := range buckets {
		next[b+1] += next[b]
		idx.starts.set(b+1, uint64(next[b+1]))
	}
	for i, h := range hashes {
		b := idx.bucketOf(h)
		idx.lows.set(int(next[b]), idx.lowOf(h))
		idx.pages.set(int(next[b]), uint64(i))
		next[b]++
	}
	type entry struct {
		low  uint64
		page int32
	}
	var bucket []entry
	for b := range buckets {
		from, to := int(idx.starts.at(b)), int(idx.starts.at(b+1))
		if to-from < 2 {
			continue
		}
		bucket = bucket[:0]
		for k := from; k < to; k++ {
			bucket = append(bucket, entry{idx.lows.at(k), int32(idx.pages.at(k))})
		}
		// Entries came in page order: a stable sort keeps the first given
		// first among equals.
		slices.SortStableFunc(bucket, func(x, y entry) int {
			if c := cmp.Compare(x.low, y.low); c != 0 {
				return c
			}
			switch fx, fy := first(x.page), first(y.page); {
			case fx && !fy:
				return -1
			case fy && !fx:
				return 1
			}
			return 0
		})
		for k, e := range bucket {
			idx.lows.set(from+k, e.low)
			idx.pages.set(from+k, uint64(e.page))
		}
	}
	return idx
}

func (x *pathIndex) bucketOf(h uint64) uint64 { return h >> x.lowBits }

func (x *pathIndex) lowOf(h uint64) uint64 { return h & (1<<x.lowBits - 1) }

// add appends an entry, its hash not below the one added before.
func (b *pathIndexBuilder) add(h uint64, page int32) {
	for bucket := b.idx.bucketOf(h); b.next <= bucket; b.next++ {
		b.idx.starts.set(int(b.next), uint64(b.k))
	}
	b.idx.lows.set(b.k, b.idx.lowOf(h))
	b.idx.pages.set(b.k, uint64(page))
	b.k++
}

// done gives the index of the entries added.
func (b *pathIndexBuilder) done() pathIndex {
	for ; b.next < uint64(b.idx.starts.len()); b.next++ {
		b.idx.starts.set(int(b.next), uint64(b.k))
	}
	return b.idx
}

// find is the first entry's page of hash h.
func (x *pathIndex) find(h uint64) (int32, bool) {
	bucket, low := x.bucketOf(h), x.lowOf(h)
	for k, end := int(x.starts.at(int(bucket))), int(x.starts.at(int(bucket)+1)); k < end; k++ {
		switch l := x.lows.at(k); {
		case l == low:
			return int32(x.pages.at(k)), true
		case l > low:
			return -1, false
		}
	}
	return -1, false
}

// each yields every entry, in the order of their hashes.
func (x *pathIndex) each(yield func(h uint64, page int32) error) error {
	k := 0
	for bucket := range x.starts.len() - 1 {
		for end := int(x.starts.at(bucket + 1)); k < end; k++ {
			if err := yield(uint64(bucket)<<x.lowBits|x.lows.at(k), int32(x.pages.at(k))); err != nil {
				return err
			}
		}
	}
	return nil
}

func (x *pathIndex) len() int { return x.lows.len() }
