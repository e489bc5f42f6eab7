package markup

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// matcher finds validated occurrences of one candidate anchor, literal or
// as a stemmed phrase, within a range of the folded text.
type matcher struct {
	p       *placer
	needle  []byte         // literal: the folded anchor; variation: the stem prefix
	stemmed *stemmedPhrase // nil for a literal match
	rare    int            // index of the needle's rarest byte, for index
}

func newMatcher(p *placer, needle string, sp *stemmedPhrase) matcher {
	return matcher{p: p, needle: []byte(needle), stemmed: sp, rare: rarestByte(needle)}
}

// index is bytes.Index tuned for words in text: it runs the vectorised
// single-byte search on the needle's rarest byte and compares around each
// hit. bytes.Index keys on the first byte, and an anchor's first letter is
// usually common ("s", "t", "a"), which costs a restart on every one.
func (m *matcher) index(hay []byte) int {
	n, r := len(m.needle), m.rare
	c := m.needle[r]
	for from := r; from < len(hay); {
		k := bytes.IndexByte(hay[from:], c)
		if k < 0 {
			return -1
		}
		start := from + k - r
		if start+n > len(hay) {
			return -1
		}
		if bytes.Equal(hay[start:start+n], m.needle) {
			return start
		}
		from += k + 1
	}
	return -1
}

// byteRank orders bytes from rare (low) to common (high) in running text:
// letters by their frequency in English and the other Latin languages,
// spaces and vowels last. Bytes of other scripts sit in the middle.
var byteRank = func() (rank [256]uint8) {
	for i := range rank {
		rank[i] = 100
	}
	const byFrequency = "qjzxvkwyfbgmpucldhrsnioate "
	for i := 0; i < len(byFrequency); i++ {
		rank[byFrequency[i]] = uint8(120 + i)
	}
	for _, c := range "0123456789" {
		rank[c] = 90
	}
	return
}()

func rarestByte(needle string) int {
	best := 0
	for i := 1; i < len(needle); i++ {
		if byteRank[needle[i]] < byteRank[needle[best]] {
			best = i
		}
	}
	return best
}

// next returns the first occurrence starting in fold[lo:hi) and where it
// starts in the folded text.
func (m *matcher) next(lo, hi int) (hit, int, bool) {
	fold := m.p.doc.fold[:hi]
	for lo < hi {
		k := m.index(fold[lo:])
		if k < 0 {
			return hit{}, 0, false
		}
		fs := lo + k
		if h, ok := m.at(fs, hi); ok {
			return h, fs, true
		}
		_, size := utf8.DecodeRune(fold[fs:])
		lo = fs + size
	}
	return hit{}, 0, false
}

// prev returns the last occurrence starting in fold[lo:hi). It collects
// raw positions with the forward search, which is vectorised where
// bytes.LastIndex is not, and validates from the last one back.
func (m *matcher) prev(lo, hi int) (hit, bool) {
	fold := m.p.doc.fold[:hi]
	pos := m.p.positions[:0]
	for from := lo; from < hi; {
		k := m.index(fold[from:])
		if k < 0 {
			break
		}
		pos = append(pos, from+k)
		_, size := utf8.DecodeRune(fold[from+k:])
		from += k + size
	}
	m.p.positions = pos
	for i := len(pos) - 1; i >= 0; i-- {
		if h, ok := m.at(pos[i], hi); ok {
			return h, true
		}
	}
	return hit{}, false
}

// at validates a candidate position: the whole phrase is there, in one
// segment, as whole words.
func (m *matcher) at(fs, hi int) (hit, bool) {
	p := m.p
	fold := p.doc.fold
	fe := fs + len(m.needle)
	if m.stemmed != nil {
		if fs > 0 {
			if r, _ := utf8.DecodeLastRune(fold[:fs]); isWordRune(r) && !isNoSpaceScript(r) {
				return hit{}, false // inside a word
			}
		}
		var ok bool
		if fe, ok = p.matchStems(fs, m.stemmed); !ok || m.stemmed.literal == string(fold[fs:fe]) {
			return hit{}, false // no match, or a literal one, already tried and turned down
		}
	}
	if fe > hi {
		return hit{}, false
	}
	seg := p.segmentAt(fs)
	if seg == nil || fe > int(seg.foldEnd) {
		return hit{}, false
	}
	first, _ := utf8.DecodeRune(fold[fs:fe])
	last, _ := utf8.DecodeLastRune(fold[fs:fe])
	if !p.boundaryOK(seg, fs, fe, first, last) {
		return hit{}, false
	}
	return p.locate(seg, fs, fe)
}

// segmentAt finds the segment whose folded text holds offset off.
func (p *placer) segmentAt(off int) *segment {
	segs := p.doc.segs
	i := sort.Search(len(segs), func(i int) bool { return int(segs[i].foldEnd) > off })
	if i == len(segs) || int(segs[i].foldStart) > off {
		return nil
	}
	return &segs[i]
}

// boundaryOK reports whether fold[fs:fe] stands as whole words. A side that
// is in a no-space script (Chinese, Japanese, Thai...) needs no boundary.
func (p *placer) boundaryOK(seg *segment, fs, fe int, first, last rune) bool {
	fold := p.doc.fold
	segStart, segEnd := int(seg.foldStart), int(seg.foldEnd)
	before := seg.prevRune
	if fs > segStart {
		before, _ = utf8.DecodeLastRune(fold[segStart:fs])
	}
	after := seg.nextRune
	if fe < segEnd {
		after, _ = utf8.DecodeRune(fold[fe:segEnd])
	}
	if joined(before, first) || joined(last, after) {
		return false
	}
	return true
}

// joined reports whether a and b, side by side, are part of one word.
func joined(a, b rune) bool {
	if !isWordRune(a) || !isWordRune(b) {
		return false
	}
	return !isNoSpaceScript(a) && !isNoSpaceScript(b)
}

// locate maps folded offsets in a segment back to source bytes and words by
// decoding the segment again exactly as the scanner folded it.
func (p *placer) locate(seg *segment, fs, fe int) (hit, bool) {
	segStart := int(seg.start)
	b := p.src[segStart:seg.end]
	fpos := int(seg.foldStart)
	wc := seg.wc
	words := int(seg.wordsBefore)
	lastSpace := false
	h := hit{start: -1, para: int(seg.para)}
	for i := 0; i < len(b); {
		unit := i
		r0, r1, nr, size := nextUnit(b, i)
		i += size
		for k := 0; k < nr; k++ {
			r := r0
			if k == 1 {
				r = r1
			}
			emit := 0
			if isSpace(r) {
				if !lastSpace {
					emit = 1
				}
				lastSpace = true
			} else {
				emit = utf8.RuneLen(foldRune(r))
				lastSpace = false
			}
			if wc.step(r) {
				words++
			}
			if fpos == fs && emit > 0 && h.start < 0 {
				if k != 0 {
					return hit{}, false
				}
				h.start = segStart + unit
				h.words.start = words
				if isWordRune(r) {
					h.words.start--
				}
			}
			fpos += emit
			if fpos == fe && h.start >= 0 {
				if k+1 != nr {
					return hit{}, false
				}
				h.end = segStart + i
				h.words.end = words
				return h, true
			}
			if fpos > fe {
				return hit{}, false
			}
		}
	}
	return hit{}, false
}

// matchStems reads words from fs and reports where the run ends if their
// stems and separators are the phrase's.
func (p *placer) matchStems(fs int, sp *stemmedPhrase) (int, bool) {
	fold := p.doc.fold
	pos := fs
	for j, stem := range sp.stems {
		if j > 0 {
			gap := sp.gaps[j-1]
			if !bytes.HasPrefix(fold[pos:], []byte(gap)) {
				return 0, false
			}
			pos += len(gap)
		}
		end := pos
		for end < len(fold) {
			r, size := utf8.DecodeRune(fold[end:])
			if !isWordRune(r) || isNoSpaceScript(r) {
				break
			}
			end += size
		}
		if end == pos || p.stemOf(fold[pos:end]) != stem {
			return 0, false
		}
		pos = end
	}
	return pos, true
}

func (p *placer) stemOf(w []byte) string {
	if p.stems == nil {
		p.stems = make(map[string]string)
	}
	if s, ok := p.stems[string(w)]; ok {
		return s
	}
	s := p.cfg.stemmer.stem(string(w))
	p.stems[string(w)] = s
	return s
}
