package audit

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
)

// idColumn holds every page's id front-coded: each id as the length of
// the prefix it shares with the id before it, the length of the rest,
// then the rest, in blocks of idBlock ids whose first id is whole. Pages
// come in id order as the store gives them, so neighbours share most of
// their bytes ("a0001234", "a0001235", "post-1042", "post-1043"): a few
// bytes a page where an id and its length took nine or more.
//
// The two lengths share one byte, shared<<4 | rest, when both are under 16
// and the byte is not escapeLengths; otherwise the byte is escapeLengths
// and they follow as uvarints.
type idColumn struct {
	bytes  []byte
	starts []int32 // where ids idBlock·k start in bytes
	n      int32
	last   []byte // the id added last, which the next one is coded against
}

const idBlock = 32

// escapeLengths is the length byte of an id whose shared prefix or rest
// is 16 bytes or longer.
const escapeLengths = 0xff

func (c *idColumn) len() int { return int(c.n) }

// grow makes room for n more ids. The bytes are not reserved: how many a
// page takes depends on what its id shares with the one before.
func (c *idColumn) grow(n int) {
	c.starts = slices.Grow(c.starts, (n+idBlock-1)/idBlock)
}

// add appends an id.
func (c *idColumn) add(id string) {
	shared := 0
	if c.n%idBlock == 0 {
		c.starts = append(c.starts, int32(len(c.bytes)))
	} else {
		for shared < len(c.last) && shared < len(id) && c.last[shared] == id[shared] {
			shared++
		}
	}
	rest := len(id) - shared
	if b := byte(shared<<4 | rest); shared < 16 && rest < 16 && b != escapeLengths {
		c.bytes = append(c.bytes, b)
	} else {
		c.bytes = append(c.bytes, escapeLengths)
		c.bytes = binary.AppendUvarint(c.bytes, uint64(shared))
		c.bytes = binary.AppendUvarint(c.bytes, uint64(rest))
	}
	c.bytes = append(c.bytes, id[shared:]...)
	c.last = append(c.last[:0], id...)
	c.n++
}

// compact lets go of what the column reserved and did not use, once every
// id is added.
func (c *idColumn) compact() {
	if cap(c.bytes) > len(c.bytes)+len(c.bytes)/8 {
		c.bytes = append([]byte(nil), c.bytes...)
	}
	c.last = nil
}

// entry reads the lengths of the id coded at off, and where its rest
// starts.
func (c *idColumn) entry(off int) (shared, rest, at int) {
	if b := c.bytes[off]; b != escapeLengths {
		return int(b >> 4), int(b & 0x0f), off + 1
	}
	off++
	s, k := binary.Uvarint(c.bytes[off:])
	off += k
	r, k := binary.Uvarint(c.bytes[off:])
	return int(s), int(r), off + k
}

// head is the first id of block k, as the column holds it.
func (c *idColumn) head(k int) []byte {
	_, rest, at := c.entry(int(c.starts[k]))
	return c.bytes[at : at+rest]
}

// appendID appends id i to buf.
func (c *idColumn) appendID(buf []byte, i int32) []byte {
	off := int(c.starts[i/idBlock])
	from := len(buf)
	for k := i - i%idBlock; ; k++ {
		shared, rest, at := c.entry(off)
		buf = append(buf[:from+shared], c.bytes[at:at+rest]...)
		if k == i {
			return buf
		}
		off = at + rest
	}
}

// id is id i.
func (c *idColumn) id(i int32) string {
	var buf [64]byte
	return string(c.appendID(buf[:0], i))
}

// compare orders ids i and j as bytes.Compare does.
func (c *idColumn) compare(i, j int32) int {
	var a, b [64]byte
	return bytes.Compare(c.appendID(a[:0], i), c.appendID(b[:0], j))
}

// search is the first id at or after key, for a column in id order: a
// binary search over the blocks' first ids, then a scan of one block.
func (c *idColumn) search(key []byte) (int32, bool) {
	// The last block whose first id is not after key holds key, if any.
	k := sort.Search(len(c.starts), func(k int) bool { return bytes.Compare(c.head(k), key) > 0 }) - 1
	if k < 0 {
		return 0, false
	}
	var buf [64]byte
	cur := buf[:0]
	off := int(c.starts[k])
	for i := int32(k * idBlock); i < c.n && i < int32(k+1)*idBlock; i++ {
		shared, rest, at := c.entry(off)
		cur = append(cur[:shared], c.bytes[at:at+rest]...)
		if d := bytes.Compare(cur, key); d >= 0 {
			return i, d == 0
		}
		off = at + rest
	}
	return min(int32(k+1)*idBlock, c.n), false
}
