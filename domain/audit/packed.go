package audit

import "math/bits"

// packed are numbers packed in as few bits each as the largest takes: a
// page's position in 17 bits for a hundred thousand pages where an int32
// took 32, its cluster in 7 for a hundred clusters. The columns the audit
// holds for every page while links are read, the moment it holds most,
// are packed where their width follows the site.
type packed struct {
	words []uint64
	width uint
	n     int
}

// newPacked makes room for n numbers of width bits (1 to 64), all 0.
func newPacked(n int, width uint) packed {
	p := packed{width: min(max(width, 1), 64), n: n}
	p.words = make([]uint64, (uint(n)*p.width+63)/64)
	return p
}

// widthOf is the width that holds every number up to top.
func widthOf(top uint64) uint { return uint(bits.Len64(top)) }

// set sets number k to x, which fits the width, whatever it was.
func (p *packed) set(k int, x uint64) {
	mask := uint64(1)<<p.width - 1
	bit := uint(k) * p.width
	w, off := bit/64, bit%64
	p.words[w] = p.words[w]&^(mask<<off) | x<<off
	if off+p.width > 64 {
		p.words[w+1] = p.words[w+1]&^(mask>>(64-off)) | x>>(64-off)
	}
}

func (p packed) at(k int) uint64 {
	bit := uint(k) * p.width
	w, off := bit/64, bit%64
	x := p.words[w] >> off
	if off+p.width > 64 {
		x |= p.words[w+1] << (64 - off)
	}
	return x & (1<<p.width - 1)
}

func (p packed) len() int { return p.n }
