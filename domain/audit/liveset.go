package audit

import (
	"math/bits"
	"slices"
)

// liveSet marks which pages are live, a bit a page, and numbers the live
// pages in page order (the link graph's positions) from a count a word of
// 64 pages: about a sixth of a byte a page where a bool and an int32
// position took five.
type liveSet struct {
	bits   []uint64
	n      int32
	before []int32 // live pages in the words before each word, once counted
}

func (s *liveSet) grow(n int) { s.bits = slices.Grow(s.bits, (int(s.n)+n+63)/64-len(s.bits)) }

// add appends a page.
func (s *liveSet) add(live bool) {
	if s.n%64 == 0 {
		s.bits = append(s.bits, 0)
	}
	if live {
		s.bits[s.n/64] |= 1 << (uint(s.n) % 64)
	}
	s.n++
	s.before = nil
}

func (s *liveSet) has(i int32) bool { return s.bits[i/64]&(1<<(uint(i)%64)) != 0 }

// count numbers the live pages; pos needs it after the last add.
func (s *liveSet) count() int32 {
	s.before = make([]int32, len(s.bits))
	live := int32(0)
	for w, b := range s.bits {
		s.before[w] = live
		live += int32(bits.OnesCount64(b))
	}
	return live
}

// pos is page i's position among the live pages, -1 when it is not live.
func (s *liveSet) pos(i int32) int32 {
	w, b := i/64, uint(i)%64
	if s.bits[w]&(1<<b) == 0 {
		return -1
	}
	return s.before[w] + int32(bits.OnesCount64(s.bits[w]&(1<<b-1)))
}
