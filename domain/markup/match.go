package markup

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// literalHits finds every whole-word occurrence of a folded anchor in the
// eligible text, in document order.
func (p *placer) literalHits(anchor string, noSpace bool) []hit {
	fold := p.doc.fold
	needle := []byte(anchor)
	first, _ := utf8.DecodeRuneInString(anchor)
	last, _ := utf8.DecodeLastRuneInString(anchor)
	var hits []hit
	for off := 0; off < len(fold); {
		k := bytes.Index(fold[off:], needle)
		if k < 0 {
			break
		}
		fs := off + k
		fe := fs + len(needle)
		_, size := utf8.DecodeRune(fold[fs:])
		off = fs + size
		seg := p.segmentAt(fs)
		if seg == nil || fe > seg.foldEnd {
			continue
		}
		if !p.boundaryOK(seg, fs, fe, first, last) {
			continue
		}
		if h, ok := p.locate(seg, fs, fe); ok {
			hits = append(hits, h)
		}
	}
	return hits
}

// segmentAt finds the segment whose folded text holds offset off.
func (p *placer) segmentAt(off int) *segment {
	segs := p.doc.segs
	i := sort.Search(len(segs), func(i int) bool { return segs[i].foldEnd > off })
	if i == len(segs) || segs[i].foldStart > off {
		return nil
	}
	return &segs[i]
}

// boundaryOK reports whether fold[fs:fe] stands as whole words. A side that
// is in a no-space script (Chinese, Japanese, Thai...) needs no boundary.
func (p *placer) boundaryOK(seg *segment, fs, fe int, first, last rune) bool {
	fold := p.doc.fold
	before := seg.prevRune
	if fs > seg.foldStart {
		before, _ = utf8.DecodeLastRune(fold[seg.foldStart:fs])
	}
	after := seg.nextRune
	if fe < seg.foldEnd {
		after, _ = utf8.DecodeRune(fold[fe:seg.foldEnd])
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
	b := p.src[seg.start:seg.end]
	fpos := seg.foldStart
	wc := seg.wc
	words := seg.wordsBefore
	lastSpace := false
	h := hit{start: -1, para: seg.para}
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
				h.start = seg.start + unit
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
				h.end = seg.start + i
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

// variationHits finds runs of words whose stems equal the anchor's, joined
// by the same separators as in the anchor.
func (p *placer) variationHits(sp *stemmedPhrase) []hit {
	words := p.foldWords()
	fold := p.doc.fold
	var hits []hit
	n := len(sp.stems)
	if n == 0 || sp.stems[0] == "" {
		return nil
	}
	lead := sp.stems[0][0]
	for i := 0; i+n <= len(words); i++ {
		// Stemmers only rewrite word endings, so the first byte filters out
		// almost every word before the costly stemming.
		if fold[words[i].start] != lead {
			continue
		}
		ok := true
		for j := 0; j < n && ok; j++ {
			w := words[i+j]
			if j > 0 {
				prev := words[i+j-1]
				ok = string(fold[prev.end:w.start]) == sp.gaps[j-1]
			}
			ok = ok && p.stemOf(fold[w.start:w.end]) == sp.stems[j]
		}
		if !ok {
			continue
		}
		fs, fe := words[i].start, words[i+n-1].end
		if sp.literal == string(fold[fs:fe]) {
			continue // a literal match, already tried and turned down
		}
		seg := p.segmentAt(fs)
		if seg == nil || fe > seg.foldEnd {
			continue
		}
		first, _ := utf8.DecodeRune(fold[fs:fe])
		last, _ := utf8.DecodeLastRune(fold[fs:fe])
		if !p.boundaryOK(seg, fs, fe, first, last) {
			continue
		}
		if h, ok := p.locate(seg, fs, fe); ok {
			hits = append(hits, h)
		}
	}
	return hits
}

type foldWord struct{ start, end int }

// foldWords splits the folded text into words once per Place call.
func (p *placer) foldWords() []foldWord {
	if p.words != nil {
		return p.words
	}
	fold := p.doc.fold
	words := make([]foldWord, 0, len(fold)/6)
	start := -1
	for i := 0; i < len(fold); {
		r, size := utf8.DecodeRune(fold[i:])
		if isWordRune(r) && !isNoSpaceScript(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			words = append(words, foldWord{start, i})
			start = -1
		}
		i += size
	}
	if start >= 0 {
		words = append(words, foldWord{start, len(fold)})
	}
	p.words = words
	return words
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
