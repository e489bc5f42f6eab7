package markup

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// matcher finds validated occurrences of one candidate anchor, literal or
// as a stemmed phrase, within a range of the folded text.
type matcher struct {
	p       *placer
	needle  string         // literal: the folded anchor; variation: the stem prefix
	stemmed *stemmedPhrase // nil for a literal match
	rare    int            // index of the needle's rarest byte, for index
	// head is the needle's first eight bytes (fewer if it is shorter, with
	// headMask saying which), to reject a place with one comparison.
	head, headMask uint64
	// whole refuses occurrences that are the front of a longer noun phrase
	// (LinkRequest.WholePhrase); fragments counts those refused.
	whole     bool
	fragments int
	// notWithin refuses occurrences inside one of these folded phrases
	// (LinkRequest.NotWithin), notCutting those that overlap an
	// occurrence of one of these in part (LinkRequest.NotCutting); inside
	// counts both.
	notWithin  []string
	notCutting []string
	// notOn refuses occurrences that are one of these folded phrases:
	// other pages' names in another form of the candidate's words.
	notOn []string
	// ownNames refuses occurrences inside one of the page's own names
	// (Options.OwnNames) or saying one whole: a page's name in its own
	// text names the page itself, and linked away it tells a reader and a
	// crawler that another page is about it (a trial's hub linked its
	// keyword "payroll taxes" to a guide whose title opens so).
	ownNames []string
	inside   int
}

// followingBytes is how much of the text before and after an occurrence
// GoesOn is shown: the words it reads, and then some.
const followingBytes = 64

func newMatcher(p *placer, needle string, sp *stemmedPhrase) matcher {
	m := matcher{p: p, needle: needle, stemmed: sp, rare: rarestByte(needle)}
	for i := 0; i < len(needle) && i < 8; i++ {
		m.head |= uint64(needle[i]) << (8 * i)
		m.headMask |= 0xFF << (8 * i)
	}
	return m
}

// matchesAt reports whether the needle starts at fold[start:], which must have
// room for it.
func (m *matcher) matchesAt(fold []byte, start int) bool {
	if len(fold)-start >= 8 {
		return binary.LittleEndian.Uint64(fold[start:])&m.headMask == m.head &&
			(len(m.needle) <= 8 || string(fold[start+8:start+len(m.needle)]) == m.needle[8:])
	}
	return string(fold[start:start+len(m.needle)]) == m.needle
}

// index returns where the first raw occurrence of the needle in
// fold[from:hi] starts, or -1. It walks the occurrences of the needle's
// rarest byte and compares around each. bytes.Index would key on the first
// byte, and an anchor's first letter is usually common ("s", "t", "a"),
// which costs a restart on every one.
func (m *matcher) index(from, hi int) int {
	n, r := len(m.needle), m.rare
	last := hi - n // the last start at which the needle fits
	if last < from {
		return -1
	}
	fold := m.p.doc.fold
	occ := m.p.occurrencesOf(m.needle[r])
	i, _ := slices.BinarySearch(occ.at, int32(from+r))
	for {
		for ; i < len(occ.at); i++ {
			start := int(occ.at[i]) - r
			if start > last {
				return -1
			}
			if start >= from && m.matchesAt(fold, start) {
				return start
			}
		}
		if !occ.findNext(fold, last+r+1) {
			return -1
		}
	}
}

// occurrences lists where one byte appears in the folded text. The list is
// built on demand, as far as searches have needed, and kept: every needle
// whose rarest byte it is, literal or stemmed, searched forwards or
// backwards, walks the same list, so the text is searched about once per
// byte value rather than once per search, which matters for anchors that
// are not on the page at all.
type occurrences struct {
	c    byte
	at   []int32 // ascending offsets in fold[:done]
	done int     // fold[:done] has been searched
}

func (p *placer) occurrencesOf(c byte) *occurrences {
	if p.occ[c] == nil {
		p.occ[c] = &occurrences{c: c}
	}
	return p.occ[c]
}

// findNext lists the next occurrence, if there is one before end.
func (o *occurrences) findNext(fold []byte, end int) bool {
	end = min(end, len(fold))
	if o.done >= end {
		return false
	}
	k := bytes.IndexByte(fold[o.done:end], o.c)
	if k < 0 {
		o.done = end
		return false
	}
	o.at = append(o.at, int32(o.done+k))
	o.done += k + 1
	return true
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
		fs := m.index(lo, hi)
		if fs < 0 {
			return hit{}, 0, false
		}
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
		fs := m.index(from, hi)
		if fs < 0 {
			break
		}
		pos = append(pos, fs)
		_, size := utf8.DecodeRune(fold[fs:])
		from = fs + size
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
	si := p.segmentAt(fs)
	if si < 0 || fe > int(p.doc.segs[si].foldEnd) {
		return hit{}, false
	}
	seg := &p.doc.segs[si]
	first, _ := utf8.DecodeRune(fold[fs:fe])
	last, _ := utf8.DecodeLastRune(fold[fs:fe])
	if !p.boundaryOK(seg, fs, fe, first, last) {
		return hit{}, false
	}
	if m.whole && p.cfg.opts.GoesOn(string(fold[max(int(seg.foldStart), fs-followingBytes):fs]), string(fold[fs:fe]), string(fold[fe:min(int(seg.foldEnd), fe+followingBytes)])) {
		m.fragments++
		return hit{}, false
	}
	if len(m.notWithin) > 0 || len(m.notCutting) > 0 || len(m.ownNames) > 0 || len(m.notOn) > 0 {
		sp := p.inlineSpanOf(si, fs, fe)
		if sp.within(m.notWithin) || sp.cuts(m.notCutting) || sp.is(m.notOn) || p.withinInflected(sp, m.notWithin, false) ||
			sp.within(m.ownNames) || sp.is(m.ownNames) || sp.cuts(m.ownNames) || p.withinInflected(sp, m.ownNames, true) {
			m.inside++
			return hit{}, false
		}
	}
	return p.locate(seg, fs, fe)
}

// within reports whether the occurrence lies inside an occurrence, as
// whole words, of one of the longer phrases: in its segment, or across
// the inline formatting that joins it to its neighbours.
func (sp inlineSpan) within(phrases []string) bool {
	if len(phrases) == 0 {
		return false
	}
	occ := string(sp.text[sp.start:sp.end])
	for _, w := range phrases {
		if len(w) <= len(occ) {
			continue
		}
		for k := 0; k+len(occ) <= len(w); k++ {
			j := strings.Index(w[k:], occ)
			if j < 0 {
				break
			}
			k += j
			ws, we := sp.start-k, sp.start-k+len(w)
			if ws >= 0 && we <= len(sp.text) && string(sp.text[ws:we]) == w && sp.wholeWords(ws, we) {
				return true
			}
		}
	}
	return false
}

// is reports whether the occurrence is one of the phrases.
func (sp inlineSpan) is(phrases []string) bool {
	return slices.Contains(phrases, string(sp.text[sp.start:sp.end]))
}

// cuts reports whether the occurrence overlaps in part an occurrence, as
// whole words, of one of the phrases, in its segment or across the inline
// formatting that joins it to its neighbours: it starts or ends inside the
// phrase without holding it whole or lying inside it.
func (sp inlineSpan) cuts(phrases []string) bool {
	for _, w := range phrases {
		// Only an occurrence within len(w) of the span can overlap it.
		lo, hi := max(0, sp.start-len(w)+1), min(len(sp.text), sp.end+len(w)-1)
		text, needle := sp.text[lo:hi], []byte(w)
		for from := 0; from+len(w) <= len(text); {
			j := bytes.Index(text[from:], needle)
			if j < 0 {
				break
			}
			ws := lo + from + j
			we := ws + len(w)
			from += j + 1
			if ws >= sp.end || we <= sp.start || ws <= sp.start && sp.end <= we || sp.start <= ws && we <= sp.end {
				continue // apart, or one holds the other
			}
			if sp.wholeWords(ws, we) {
				return true
			}
		}
	}
	return false
}

// withinInflected reports whether the occurrence lies inside one of the
// longer phrases said in another form, word by word by stem, as the
// placer finds variations: a Russian trial's uplink took "[обрезки
// смородины]" inside "осенней обрезки смородины", a sibling's name
// "осенняя обрезка смородины" in another case, which the literal check
// (within) let through. orSame also reports an occurrence that is a
// phrase said in another form.
func (p *placer) withinInflected(sp inlineSpan, phrases []string, orSame bool) bool {
	if p.cfg.stemmer == nil || len(phrases) == 0 {
		return false
	}
	if p.stems == nil {
		p.stems = make(map[string]string)
	}
	p.words = wordsOf(p.words[:0], sp.text)
	words := p.words
	first, last := -1, -1 // the occurrence's words
	for i, w := range words {
		if w.start >= sp.start && w.end <= sp.end {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return false
	}
	for _, phrase := range phrases {
		p.phraseWords = wordsOf(p.phraseWords[:0], []byte(phrase))
		pw := p.phraseWords
		k := len(pw)
		if n := last - first + 1; k < n || k == n && !orSame {
			continue
		}
		for from := max(0, last+1-k); from <= first && from+k <= len(words); from++ {
			same := true
			for j := range pw {
				w := words[from+j]
				if stemOf(p, sp.text[w.start:w.end]) != stemOf(p, phrase[pw[j].start:pw[j].end]) {
					same = false
					break
				}
			}
			if same {
				return true
			}
		}
	}
	return false
}

// wordSpanIn is a word's bytes in a text.
type wordSpanIn struct{ start, end int }

// wordsOf appends the words of a folded text to out, as runs of word
// runes.
func wordsOf(out []wordSpanIn, text []byte) []wordSpanIn {
	start := -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		if isWordRune(r) && !isNoSpaceScript(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, wordSpanIn{start, i})
			start = -1
		}
		i += size
	}
	if start >= 0 {
		out = append(out, wordSpanIn{start, len(text)})
	}
	return out
}

// inlineSpan is the folded text of a segment joined with that of the
// segments next to it that only inline formatting separates from it: in
// "We found <em>rate</em> limit headers useful" the reader sees the name
// "rate limit headers" whole, so a link on "limit headers" would cut it.
type inlineSpan struct {
	text          []byte
	start, end    int  // the occurrence asked about, in text
	before, after rune // the paragraph's text just before and after text
}

// inlineSpanOf is the inline span of segment i of p.doc.segs, with
// fold[fs:fe] the occurrence asked about.
func (p *placer) inlineSpanOf(i, fs, fe int) inlineSpan {
	segs, fold := p.doc.segs, p.doc.fold
	seg := &segs[i]
	lo, hi := i, i
	for lo > 0 && p.inlineNeighbours(&segs[lo-1], &segs[lo]) {
		lo--
	}
	for hi+1 < len(segs) && p.inlineNeighbours(&segs[hi], &segs[hi+1]) {
		hi++
	}
	sp := inlineSpan{before: segs[lo].prevRune, after: segs[hi].nextRune}
	if lo == hi {
		sp.text = fold[seg.foldStart:seg.foldEnd]
		sp.start, sp.end = fs-int(seg.foldStart), fe-int(seg.foldStart)
		return sp
	}
	for k := lo; k <= hi; k++ {
		if k == i {
			sp.start = len(sp.text) + fs - int(seg.foldStart)
			sp.end = sp.start + fe - fs
		}
		sp.text = append(sp.text, fold[segs[k].foldStart:segs[k].foldEnd]...)
	}
	return sp
}

// inlineNeighbours reports whether segment b follows a in its paragraph
// with no text between them and nothing that ends a word (a <br>, a
// block): only tags such as <em> or <strong>. Text the scan does not
// fold (an existing link's, a <code>'s) is a run of its own between them.
func (p *placer) inlineNeighbours(a, b *segment) bool {
	return a.para == b.para && a.run >= 0 && b.run == a.run+1 && !p.doc.runs[b.run].wordBreak
}

// wholeWords reports whether text[ws:we] stands as whole words.
func (sp inlineSpan) wholeWords(ws, we int) bool {
	before, after := sp.before, sp.after
	if ws > 0 {
		before, _ = utf8.DecodeLastRune(sp.text[:ws])
	}
	if we < len(sp.text) {
		after, _ = utf8.DecodeRune(sp.text[we:])
	}
	first, _ := utf8.DecodeRune(sp.text[ws:we])
	last, _ := utf8.DecodeLastRune(sp.text[ws:we])
	return !joined(before, first) && !joined(last, after)
}

// segmentAt is the index of the segment whose folded text holds offset
// off, or -1.
func (p *placer) segmentAt(off int) int {
	segs := p.doc.segs
	i := sort.Search(len(segs), func(i int) bool { return int(segs[i].foldEnd) > off })
	if i == len(segs) || int(segs[i].foldStart) > off {
		return -1
	}
	return i
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
	// Nor does it cut a hyphenated compound: "race weeks" is no anchor in
	// "post-race weeks", nor "running shoes" in "trail-running shoes".
	if isHyphen(before) && fs > segStart {
		if r, _ := utf8.DecodeLastRune(fold[segStart : fs-utf8.RuneLen(before)]); isWordRune(first) && isWordRune(r) {
			return false
		}
	}
	if isHyphen(after) && fe < segEnd {
		if r, _ := utf8.DecodeRune(fold[fe+utf8.RuneLen(after) : segEnd]); isWordRune(last) && isWordRune(r) {
			return false
		}
	}
	return true
}

// isHyphen reports the characters that join the words of a compound, the
// soft hyphen among them: a German CMS writes "Rasen&shy;mäher", and a
// trial had "[mäher]" linked out of it.
func isHyphen(r rune) bool { return r == '-' || r == '\u2010' || r == '\u2011' || r == '\u00ad' }

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
	p.doc.countParagraph(int(seg.para))
	run := &p.doc.runs[seg.run]
	wc := run.wc
	words := int(run.wordsBefore)
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
			switch {
			case r == softHyphen: // folded to nothing (foldText)
			case isSpace(r):
				if !lastSpace {
					emit = 1
				}
				lastSpace = true
			default:
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
	if p.stems == nil {
		p.stems = make(map[string]string)
	}
	if _, ok := p.stems[sp.words[0]]; !ok {
		p.stems[sp.words[0]] = sp.firstStem
	}
	fold := p.doc.fold
	pos := fs
	for j := range sp.words {
		if j > 0 {
			gap := sp.gaps[j-1]
			switch r, size := utf8.DecodeRune(fold[pos:]); {
			case bytes.HasPrefix(fold[pos:], []byte(gap)):
				pos += len(gap)
			case gap == " " && isHyphen(r) && r != softHyphen:
				// A keyword list writes with spaces what the text joins
				// into one compound: a German trial's hub wrote
				// "Lastenrad-Förderung" and "E-Bike-Akku" for the
				// keywords "Lastenrad Förderung" and "E-Bike Akku", and
				// "cast-iron skillet" is "cast iron skillet".
				pos += size
			default:
				return 0, false
			}
			if gap == " " {
				pos = p.pastArticle(pos, sp.words[j])
			}
		}
		end := wordEnd(fold, pos)
		if end == pos || stemOf(p, fold[pos:end]) != stemOf(p, sp.words[j]) || !p.cfg.stemmer.sameForm(string(fold[pos:end]), sp.words[j], j == 0 && len(sp.words) > 1, j < len(sp.words)-1) {
			return 0, false
		}
		if j < len(sp.nouns) && sp.nouns[j] && string(fold[pos:end]) != sp.words[j] && p.lowerAt(pos) {
			return 0, false // a noun's form is a noun: "kalten" is no form of "Kälte"
		}
		pos = end
		if j < len(sp.words)-1 && p.cfg.stemmer.possessive && !strings.HasPrefix(sp.gaps[j], "'") {
			pos += possessiveEnding(fold[pos:], fold[pos-1])
		}
	}
	return pos, true
}

// wordEnd is where the word of the folded text starting at pos ends: at
// the first rune that is no word's or is of a script written without
// spaces (isNoSpaceScript).
func wordEnd(fold []byte, pos int) int {
	end := pos
	for end < len(fold) {
		r, size := utf8.DecodeRune(fold[end:])
		if !isWordRune(r) || isNoSpaceScript(r) {
			break
		}
		end += size
	}
	return end
}

// pastArticle is where the word after a definite article the language
// writes between two words of a name starts, when the text has one at pos
// and the name's next word, want, is not that article; pos otherwise.
func (p *placer) pastArticle(pos int, want string) int {
	articles := p.cfg.stemmer.articles
	if articles == nil {
		return pos
	}
	fold := p.doc.fold
	end := wordEnd(fold, pos)
	word := string(fold[pos:end])
	sep, ok := articles[word]
	if !ok || word == want || !bytes.HasPrefix(fold[end:], []byte(sep)) {
		return pos
	}
	if r, _ := utf8.DecodeRune(fold[end+len(sep):]); !isWordRune(r) {
		return pos
	}
	return end + len(sep)
}

// lowerAt reports whether the page's character at folded offset off is
// written in lower case; false when it cannot be told.
func (p *placer) lowerAt(off int) bool {
	i := p.segmentAt(off)
	if i < 0 {
		return false
	}
	_, size := utf8.DecodeRune(p.doc.fold[off:])
	h, ok := p.locate(&p.doc.segs[i], off, off+size)
	if !ok {
		return false
	}
	raw := string(p.src[h.start:h.end])
	if strings.HasPrefix(raw, "&") {
		raw = html.UnescapeString(raw)
	}
	r, _ := utf8.DecodeRuneInString(raw)
	return unicode.IsLower(r)
}

// possessiveEnding is the length of the possessive ending a word whose
// last byte is last has at the start of rest: "'s", or after an "s" a bare
// apostrophe ("travellers' guide"), each before a word's end; 0 when
// there is none.
func possessiveEnding(rest []byte, last byte) int {
	ends := func(n int) bool {
		if n >= len(rest) {
			return true
		}
		r, _ := utf8.DecodeRune(rest[n:])
		return !isWordRune(r)
	}
	switch {
	case bytes.HasPrefix(rest, []byte("'s")) && ends(2):
		return 2
	case last == 's' && bytes.HasPrefix(rest, []byte("'")) && ends(1):
		return 1
	}
	return 0
}

// stemOf stems a word of the page or of an anchor, each word once: an
// anchor's words are usually on the page too, and stemming is slow.
func stemOf[W string | []byte](p *placer, w W) string {
	if s, ok := p.stems[string(w)]; ok {
		return s
	}
	s := p.cfg.stemmer.stem(string(w))
	p.stems[string(w)] = s
	return s
}
