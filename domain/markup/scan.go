package markup

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The scanner makes one tokenizer pass and follows the HTML tree builder
// only as far as placing links needs: which <p> a run of text belongs to and
// whether anything around it forbids a link. It tracks the stack of open
// elements, the <a> and <code> elements the builder would reopen, SVG and
// MathML with their integration points, and quirks mode where it matters.
// Where the builder could still disagree it errs towards "not eligible" or
// sets uncertain, and Place then asks the real parser. The property, fuzz
// and corpus tests hold it to x/net/html's parser throughout.

// scanMode selects what a pass collects; Place needs far less than Links.
type scanMode uint8

const (
	wantFold      scanMode = 1 << iota // eligible text, folded for matching; implies wantParaWords
	wantLinks                          // anchor text, rel and zone of every <a>
	wantWords                          // the page's visible word count
	wantBlocks                         // generated blocks, by their marker attribute
	wantParaWords                      // word counts of paragraphs and of the links in them
)

type paragraph struct {
	index      int // 1-based among all <p> start tags
	content    int // 1-based among paragraphs in the content zone, 0 outside it
	start, end int // byte offsets of the <p> start tag and of where it closes
	tagEnd     int // end of the <p> start tag: the content starts here
	contentEnd int // start of the token that closes it ("</p>", the next block...)
	linkCount  int
	// prose is set once the paragraph shows a word a reader can read as
	// text (a link's included); one without any (empty, a spacer, an
	// image, a form control) gets no content number.
	prose bool
	// The paragraph's first and last text runs, -1 when it has none; its
	// words are counted from them on first use (countParagraph).
	firstRun, lastRun int32
	counted           bool
	words             int // valid once counted
}

// textRun is one text token of a paragraph. Words are counted from the
// runs when they are needed rather than as the scanner reads them: Place
// needs the counts of the few paragraphs a match lands in, and the
// scanner's other readers need none at all.
type textRun struct {
	start, end int32 // source bytes
	para       int32 // index into scan.paras
	// wordBreak is set when an element boundary that ends words (a <br>,
	// a block) came after the previous run of any paragraph. The start
	// of a paragraph is such a boundary, so a paragraph's words never
	// depend on text outside it.
	wordBreak bool
	// Filled in when the paragraph's words are counted.
	wc          wordCounter // the counter's state at the start of the run
	wordsBefore int32       // the paragraph's words begun before the run
}

// wordSpan covers words [start, end) of a paragraph.
type wordSpan struct{ start, end int }

// segment is a run of text where a link may go: one text token inside a
// <p>, with nothing but inline formatting between them.
type segment struct {
	start, end int32 // source bytes
	para       int32 // index into scan.paras
	run        int32 // index into scan.runs
	foldStart  int32 // offset of the folded text in scan.fold
	foldEnd    int32
	prevRune   rune // the paragraph's text just before, ' ' across a block boundary
	nextRune   rune
}

type anchor struct {
	start, tagEnd, end int // "<a ...>" is src[start:tagEnd]; the element ends at end
	href, rel, marker  string
	hasHref, hasMarker bool
	para               int // index into scan.paras, -1 outside any <p>
	zone               zone
	// closeStart and closeEnd locate the "</a>" that pairs with the start
	// tag: the next one, unless another <a> starts first; -1 when none.
	closeStart, closeEnd int
	// openRun and closeRun are how many text runs the scan had recorded
	// when the element opened and closed (-1 until then), which places
	// it among its paragraph's words (scan.linkWords).
	openRun, closeRun int32
	closed            bool
	text              []byte
	lastSpace         bool
}

// Namespaces and integration points, as the tree builder tracks them.
const (
	nsHTML uint8 = iota
	nsSVG
	nsMath

	ipHTML          uint8 = 1 << 0 // svg foreignObject, desc, title; some annotation-xml
	ipMathText      uint8 = 1 << 1 // mi, mo, mn, ms, mtext
	ipAnnotationXML uint8 = 1 << 2
)

type stackEntry struct {
	ns    uint8
	ip    uint8
	a     atom.Atom
	name  string // for elements without an atom, and every foreign one
	class elemClass
	zone  zone
	para  int // index into scan.paras for a <p>, else -1
	link  int // index into scan.anchors for an <a>, else -1
	at    int // where its start tag starts: which element it is
}

// activeFormatting is an <a> or <code> the tree builder keeps in its list of
// active formatting elements, and so re-opens in later blocks until an end
// tag removes it, whatever the stack says.
type activeFormatting struct {
	a       atom.Atom
	markers int // marker depth when opened; closing that marker forgets it
}

type scan struct {
	src  []byte
	mode scanMode

	stack    []stackEntry
	excluded int // stack entries with classExcluded
	hidden   int
	foreign  int
	markers  int
	active   []activeFormatting

	paras   []paragraph
	runs    []textRun
	segs    []segment
	fold    []byte
	anchors []anchor
	words   int // the page's visible words, with wantWords

	wc        wordCounter // with wantWords
	brokeWord bool        // an element boundary came after the last text run
	// lastRune is the last character of the paragraph's text so far, ' '
	// after a boundary, for the segment that may follow. For text that is
	// not folded it is found only when a segment asks: lastTextEnd > 0
	// says it is that of src[lastTextStart:lastTextEnd].
	lastRune                   rune
	lastTextStart, lastTextEnd int
	pendingSeg                 int // segment waiting to learn the rune after it, or -1
	openLink                   int // innermost unclosed anchor, or -1
	cursor                     int // where an element closed by the current token ends
	tokenStart                 int // where the current token starts

	// noQuirks is set when the document certainly parses in no-quirks mode,
	// where <table> closes an open <p>; in quirks mode it does not.
	noQuirks   bool
	sawContent bool
	frameset   bool

	// uncertain is set when the markup took a turn the scanner does not
	// follow exactly; Place then checks its work with the real parser.
	uncertain bool

	nameBuf    [32]byte
	attrValues strings.Builder // backs the attribute values read from tags
	lastA      int             // the latest <a> start tag, until an </a> pairs with it

	contentParas int
	baseHref     string
	hasBase      bool

	blocks    []blockSpan
	landmarks landmarks
	// paraAncestors are the elements (stackEntry.at) that hold the last
	// content paragraph, for landmarks.tail.
	paraAncestors []int
	block         struct {
		name  string
		depth int
		start int
	}
}

// blockSpan is a generated block found in the page, from its root start tag
// to the end of the matching end tag.
type blockSpan struct {
	start, end int
	kind       string
}

// foldSpare is room in the folded text's buffer beyond the page's size:
// once the links are chosen the buffer is free, and Place writes its
// output there when the inserted tags fit (placer.splice).
const foldSpare = 2048

var errTokenizerDrift = errors.New("markup: tokenizer did not reproduce the input")

// ErrTooLarge is returned for pages of 2 GiB or more; offsets are 32-bit.
var ErrTooLarge = errors.New("markup: page too large")

func scanDocument(src []byte, mode scanMode) (*scan, error) {
	if len(src) >= math.MaxInt32 {
		return nil, ErrTooLarge
	}
	if mode&wantFold != 0 {
		mode |= wantParaWords
	}
	s := &scan{src: src, mode: mode, lastRune: ' ', pendingSeg: -1, openLink: -1, lastA: -1, landmarks: newLandmarks(),
		brokeWord: true}
	// Sized from link-heavy article pages (per 100 KB: ~85 KB of text,
	// ~1100 text tokens in paragraphs, ~900 of them eligible, ~230
	// paragraphs, ~200 links), so the slices rarely grow and reserve little
	// beyond what such a page uses.
	if mode&wantFold != 0 {
		s.fold = make([]byte, 0, len(src)+foldSpare)
		s.segs = make([]segment, 0, len(src)/100+16)
	}
	if mode&wantParaWords != 0 {
		s.runs = make([]textRun, 0, len(src)/80+16)
	}
	s.paras = make([]paragraph, 0, len(src)/400+4)
	s.anchors = make([]anchor, 0, len(src)/400+8)
	s.stack = make([]stackEntry, 0, 32)
	z := html.NewTokenizer(bytes.NewReader(src))
	off := 0
	for {
		// CDATA sections exist only in foreign content; the tree builder
		// tells its tokenizer the same way.
		z.AllowCDATA(len(s.stack) > 0 && s.stack[len(s.stack)-1].ns != nsHTML)
		tt := z.Next()
		raw := z.Raw()
		start := off
		off += len(raw)
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return nil, err
			}
			if off != len(src) {
				return nil, errTokenizerDrift
			}
			if s.block.depth > 0 {
				s.blocks[len(s.blocks)-1].end = off
			}
			s.endOfDocument(off)
			return s, nil
		case html.TextToken:
			if n := len(s.stack); (!s.sawContent || n > 0 && s.stack[n-1].class&classTableContext != 0) &&
				len(bytes.TrimLeft(src[start:off], " \t\n\r\f")) > 0 {
				s.sawContent = true
				if n > 0 && s.stack[n-1].class&classTableContext != 0 {
					s.uncertain = true // text foster-parented out of a table
				}
			}
			s.text(start, off)
		case html.DoctypeToken:
			if !s.sawContent {
				// Only "<!DOCTYPE html>" as the first thing is certainly
				// no-quirks for x/net/html; anything else may be quirks.
				s.noQuirks = z.Token().Data == "html"
			}
			s.sawContent = true
		case html.StartTagToken, html.SelfClosingTagToken:
			s.sawContent = true
			name, a, c := s.tagName(src[start+1 : off])
			hasAttr := off-start > len(name)+2
			s.startTag(z, a, c, name, hasAttr, tt == html.SelfClosingTagToken, start, off)
		case html.EndTagToken:
			s.sawContent = true
			name, a, c := s.tagName(src[start+2 : off])
			if s.block.depth > 0 && string(name) == s.block.name {
				if s.block.depth--; s.block.depth == 0 {
					s.blocks[len(s.blocks)-1].end = off
				}
			}
			s.endTag(a, c, name, start, off)
		}
	}
}

func (s *scan) innermostPara() int {
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].a == atom.P {
			return s.stack[i].para
		}
	}
	return -1
}

// eligible reports whether a link may wrap text at the current position.
func (s *scan) eligible() bool {
	if s.excluded > 0 || s.foreign > 0 || len(s.active) > 0 || s.frameset {
		return false
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == atom.P {
			// In-body links belong to the content, not to paragraphs of
			// the site's header, navigation, sidebar or footer.
			return e.zone == zoneContent
		}
		if e.class&classInline == 0 {
			return false
		}
	}
	return false
}

func (s *scan) text(start, end int) {
	if n := len(s.stack); n > 0 && s.stack[n-1].a == atom.Head &&
		len(bytes.TrimLeft(s.src[start:end], " \t\n\r\f")) > 0 {
		s.popTo(n - 1)
	}
	if s.hidden > 0 {
		return
	}
	para := s.innermostPara()
	if para < 0 && s.mode&(wantWords|wantLinks) == 0 {
		s.setLastRune(' ')
		return
	}
	b := s.src[start:end]
	if len(b) == 0 {
		return
	}
	if para >= 0 && !s.paras[para].prose && (s.openLink >= 0 || s.eligible()) && hasWord(b) {
		s.paras[para].prose = true
	}
	if s.pendingSeg >= 0 {
		r, _, _, _ := nextUnit(b, 0)
		s.segs[s.pendingSeg].nextRune = r
		s.pendingSeg = -1
	}
	if s.mode&wantWords != 0 && s.block.depth == 0 && s.zone() == zoneContent {
		s.words += countWords(b, &s.wc)
	}
	run := -1
	if para >= 0 && s.mode&wantParaWords != 0 {
		run = s.addRun(para, start, end)
	}
	if s.openLink >= 0 && s.mode&wantLinks != 0 {
		s.anchors[s.openLink].appendText(b)
	}
	if s.mode&wantFold == 0 {
		return
	}
	if para < 0 || !s.eligible() {
		s.lastTextStart, s.lastTextEnd = start, end
		return
	}
	seg := segment{start: int32(start), end: int32(end), para: int32(para), run: int32(run),
		prevRune: s.prevRune(), foldStart: int32(len(s.fold))}
	var last rune
	s.fold, last = foldText(s.fold, b)
	s.setLastRune(last)
	seg.foldEnd = int32(len(s.fold))
	s.fold = append(s.fold, 0)
	s.segs = append(s.segs, seg)
	s.pendingSeg = len(s.segs) - 1
}

// hasWord reports whether raw text shows a letter or digit, character
// references decoded: "&nbsp;" and a soft hyphen show none.
func hasWord(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] == '&' {
			// Only a reference before the first word is decoded, on its own.
			end := i + 1
			for end < len(b) && end-i < 40 && b[end] != ';' && b[end] != '&' && b[end] != '<' && !isTagSpace(b[end]) {
				end++
			}
			if end < len(b) && b[end] == ';' {
				end++
			}
			for _, r := range html.UnescapeString(string(b[i:end])) {
				if isWordRune(r) {
					return true
				}
			}
			i = end
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if isWordRune(r) {
			return true
		}
		i += size
	}
	return false
}

// numberContent numbers the content paragraphs that show prose, in
// order, and takes the number from the rest: "paragraphs 1–2" are the
// first two a reader reads, whatever empty or image-only <p> a CMS puts
// before them.
func (s *scan) numberContent() {
	n := 0
	for i := range s.paras {
		p := &s.paras[i]
		if p.content == 0 {
			continue
		}
		if p.prose {
			n++
			p.content = n
		} else {
			p.content = 0
		}
	}
	s.contentParas = n
}

// addRun records a text run of paragraph para.
func (s *scan) addRun(para, start, end int) int {
	i := len(s.runs)
	s.runs = append(s.runs, textRun{start: int32(start), end: int32(end), para: int32(para), wordBreak: s.brokeWord})
	s.brokeWord = false
	p := &s.paras[para]
	if p.firstRun < 0 {
		p.firstRun = int32(i)
	}
	p.lastRun = int32(i)
	return i
}

// countParagraph counts the words of paragraph i and places its runs among
// them, once.
func (s *scan) countParagraph(i int) {
	p := &s.paras[i]
	if p.counted {
		return
	}
	p.counted = true
	var wc wordCounter
	words := 0
	for r := p.firstRun; r >= 0 && r <= p.lastRun; r++ {
		run := &s.runs[r]
		if run.para != int32(i) {
			continue // a paragraph nested in this one, in a <button> say
		}
		if run.wordBreak {
			wc.breakWord()
		}
		run.wc, run.wordsBefore = wc, int32(words)
		words += countWords(s.src[run.start:run.end], &wc)
	}
	p.words = words
}

// paragraphWords is the number of words in paragraph i.
func (s *scan) paragraphWords(i int) int {
	s.countParagraph(i)
	return s.paras[i].words
}

// wordsAt is how many words paragraph i had begun by the time the scan had
// recorded the given number of text runs. The paragraph's words must have
// been counted.
func (s *scan) wordsAt(i int, runs int32) int {
	p := &s.paras[i]
	for r := max(p.firstRun, runs); p.firstRun >= 0 && r <= p.lastRun; r++ {
		if s.runs[r].para == int32(i) {
			return int(s.runs[r].wordsBefore)
		}
	}
	return p.words
}

// linkWords is the span of its paragraph's words that anchor i covers; the
// end is -1 for one that never closed.
func (s *scan) linkWords(i int) wordSpan {
	l := &s.anchors[i]
	s.countParagraph(l.para)
	w := wordSpan{start: s.wordsAt(l.para, l.openRun), end: -1}
	if l.closeRun >= 0 {
		w.end = s.wordsAt(l.para, l.closeRun)
	}
	return w
}

// setLastRune records the last character of the text so far.
func (s *scan) setLastRune(r rune) {
	s.lastRune, s.lastTextEnd = r, 0
}

// prevRune is the last character of the paragraph's text so far.
func (s *scan) prevRune() rune {
	if s.lastTextEnd > 0 {
		s.setLastRune(lastRune(s.src[s.lastTextStart:s.lastTextEnd]))
	}
	return s.lastRune
}

// countWords counts the words that begin in b, continuing from wc's state.
func countWords(b []byte, wc *wordCounter) int {
	words := 0
	for i := 0; i < len(b); {
		if isPlainASCII(b[i]) {
			st := asciiState{}
			if wc.inWord && !wc.noSpace {
				st.prevWord = 1
			}
			used, _, w := asciiRun(b[i:], nil, &st)
			words += w
			wc.inWord, wc.noSpace = st.prevWord == 1, false
			i += used
			continue
		}
		r0, r1, nr, size := nextUnit(b, i)
		i += size
		if wc.step(r0) {
			words++
		}
		if nr == 2 && wc.step(r1) {
			words++
		}
	}
	return words
}

// foldText appends b to dst folded for matching: character references
// decoded, lower case, each run of whitespace one space. It also returns
// the last character b stands for.
func foldText(dst, b []byte) ([]byte, rune) {
	var last rune
	lastSpace := false
	for i := 0; i < len(b); {
		if isPlainASCII(b[i]) {
			n := len(dst)
			dst = slices.Grow(dst, len(b)-i+8)
			used, written, endsInSpace := asciiFold(b[i:], dst[n:n+len(b)-i+8], lastSpace)
			dst = dst[:n+written]
			lastSpace = endsInSpace
			i += used
			last = rune(b[i-1])
			continue
		}
		r0, r1, nr, size := nextUnit(b, i)
		i += size
		for k := 0; k < nr; k++ {
			r := r0
			if k == 1 {
				r = r1
			}
			if r == softHyphen {
				continue // invisible: "per&shy;formance" is "performance"
			}
			last = r
			if isSpace(r) {
				if !lastSpace {
					dst = append(dst, ' ')
				}
				lastSpace = true
			} else {
				dst = utf8.AppendRune(dst, foldRune(r))
				lastSpace = false
			}
		}
	}
	return dst, last
}

// lastRune is the last character that b, which is not empty, stands for.
func lastRune(b []byte) rune {
	var last rune
	for i := 0; i < len(b); {
		if isPlainASCII(b[i]) {
			for i++; i < len(b) && isPlainASCII(b[i]); i++ {
			}
			last = rune(b[i-1])
			continue
		}
		r0, r1, nr, size := nextUnit(b, i)
		i += size
		switch {
		case nr == 2:
			last = r1
		case r0 != softHyphen:
			last = r0
		}
	}
	return last
}

// softHyphen (U+00AD, "&shy;") marks where a word may break at a line's
// end and is otherwise not shown: matching reads the word without it. A
// docs trial's "query per&shy;formance" did not take the keyword "query
// performance", and a German one's "Rasen&shy;mäher" gave "[mäher]".
const softHyphen = '\u00ad'

// appendText adds b to the link's visible text, each run of whitespace
// one space, none at the ends.
func (l *anchor) appendText(b []byte) {
	for i := 0; i < len(b); {
		r0, r1, nr, size := nextUnit(b, i)
		i += size
		for k := 0; k < nr; k++ {
			r := r0
			if k == 1 {
				r = r1
			}
			if isSpace(r) {
				l.lastSpace = len(l.text) > 0
				continue
			}
			if l.lastSpace {
				l.text = append(l.text, ' ')
				l.lastSpace = false
			}
			l.text = utf8.AppendRune(l.text, r)
		}
	}
}

// Character classes of ASCII bytes for the scanner's fast path; they agree
// with isSpace, isWordRune and foldRune. asciiWord must stay bit 1.
const (
	asciiSpace uint8 = 1 << iota
	asciiWord
)

// isPlainASCII reports bytes that stand for themselves in text.
func isPlainASCII(c byte) bool { return c < utf8.RuneSelf && c != '&' && c != 0 }

// The tables have 256 entries so that indexing by a byte needs no bounds
// check; only the first 128 are used.
var asciiClass, asciiLower = func() (cls, lower [256]uint8) {
	for c := 0; c < utf8.RuneSelf; c++ {
		if isSpace(rune(c)) {
			cls[c] |= asciiSpace
		}
		if isWordRune(rune(c)) {
			cls[c] |= asciiWord
		}
		lower[c] = uint8(foldRune(rune(c)))
	}
	return
}()

// wordBreak records an element boundary that ends words and link anchors.
func (s *scan) wordBreak() {
	s.wc.breakWord()
	s.brokeWord = true
	s.setLastRune(' ')
	if s.pendingSeg >= 0 {
		s.segs[s.pendingSeg].nextRune = ' '
		s.pendingSeg = -1
	}
}

// tagName reads a tag's name from its source bytes (after "<" or "</"),
// lower-cased as the tokenizer would, without the tokenizer's per-call
// copy, and says what the element is. The name is valid until the next
// call.
func (s *scan) tagName(b []byte) (name []byte, a atom.Atom, c elemClass) {
	name = s.nameBuf[:0]
	var key uint64
	for i, ch := range b {
		switch ch {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			goto done
		}
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		name = append(name, ch) // past the buffer's size, append allocates
		key |= uint64(ch) << (8 * (i & 7))
	}
done:
	if t, ok := commonTags.lookup(key, len(name)); ok {
		return name, t.a, t.class
	}
	a = atom.Lookup(name)
	return name, a, classify(a)
}

// tagTable answers tagName for the names that make up nearly every page
// (p, a, em, li, div...) without hashing the name as a string and walking
// classify's switches, which is most of what a tag costs the scanner
// beyond the tokenizer's own work. A key is the name's bytes packed into a
// uint64, with its length in the top byte; names of eight bytes or more
// are not kept.
type tagTable [128]tagEntry

type tagEntry struct {
	key   uint64
	a     atom.Atom
	class elemClass
}

func tagKey(packed uint64, n int) uint64 { return packed | uint64(n)<<56 }

func (t *tagTable) slot(key uint64) int { return int(key * 0x9E3779B97F4A7C15 >> 57) }

func (t *tagTable) lookup(packed uint64, n int) (tagEntry, bool) {
	if n >= 8 {
		return tagEntry{}, false
	}
	key := tagKey(packed, n)
	for i := t.slot(key); ; i = (i + 1) % len(t) {
		switch t[i].key {
		case key:
			return t[i], true
		case 0:
			return tagEntry{}, false
		}
	}
}

var commonTags = func() *tagTable {
	t := new(tagTable)
	names := []string{"a", "abbr", "article", "aside", "b", "body", "br", "button", "caption", "circle", "cite",
		"code", "col", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "embed", "figure", "font", "footer",
		"form", "g", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "i", "iframe", "img",
		"input", "ins", "kbd", "label", "li", "link", "main", "mark", "math", "meta", "nav", "ol", "option", "p",
		"path", "picture", "pre", "q", "rect", "s", "samp", "script", "section", "select", "small", "source",
		"span", "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td", "tfoot", "th", "thead",
		"time", "title", "tr", "u", "ul", "use", "var", "video", "wbr"}
	for _, name := range names {
		var packed uint64
		for i := 0; i < len(name); i++ {
			packed |= uint64(name[i]) << (8 * i)
		}
		key := tagKey(packed, len(name))
		i := t.slot(key)
		for t[i].key != 0 {
			i = (i + 1) % len(t)
		}
		a := atom.Lookup([]byte(name))
		t[i].key, t[i].a, t[i].class = key, a, classify(a)
	}
	return t
}()

// containsFold reports whether b contains the lower-case ASCII needle in
// any case.
func containsFold(b []byte, needle string) bool {
	for i := 0; i+len(needle) <= len(b); i++ {
		j := 0
		for j < len(needle) {
			c := b[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
			j++
		}
		if j == len(needle) {
			return true
		}
	}
	return false
}
