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
	wantFold   scanMode = 1 << iota // eligible text, folded for matching
	wantLinks                       // anchor text, rel and zone of every <a>
	wantWords                       // the page's visible word count
	wantBlocks                      // generated blocks, by their marker attribute
)

type paragraph struct {
	index      int // 1-based among all <p> start tags
	content    int // 1-based among paragraphs in the content zone, 0 outside it
	start, end int // byte offsets of the <p> start tag and of where it closes
	tagEnd     int // end of the <p> start tag: the content starts here
	contentEnd int // start of the token that closes it ("</p>", the next block...)
	words      int
	linkCount  int
}

// wordSpan covers words [start, end) of a paragraph.
type wordSpan struct{ start, end int }

// segment is a run of text where a link may go: one text token inside a
// <p>, with nothing but inline formatting between them.
type segment struct {
	start, end  int32 // source bytes
	para        int32 // index into scan.paras
	wordsBefore int32 // words of the paragraph begun before the segment
	foldStart   int32 // offset of the folded text in scan.fold
	foldEnd     int32
	prevRune    rune // the paragraph's text just before, ' ' across a block boundary
	nextRune    rune
	wc          wordCounter
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
	words                wordSpan // in the paragraph's words; end -1 until closed
	closed               bool
	text                 []byte
	lastSpace            bool
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
	segs    []segment
	fold    []byte
	anchors []anchor
	words   int

	wc         wordCounter
	lastRune   rune
	pendingSeg int // segment waiting to learn the rune after it, or -1
	openLink   int // innermost unclosed anchor, or -1
	cursor     int // where an element closed by the current token ends
	tokenStart int // where the current token starts

	// noQuirks is set when the document certainly parses in no-quirks mode,
	// where <table> closes an open <p>; in quirks mode it does not.
	noQuirks   bool
	sawContent bool
	frameset   bool

	// uncertain is set when the markup took a turn the scanner does not
	// follow exactly; Place then checks its work with the real parser.
	uncertain bool

	nameBuf [32]byte
	lastA   int // the latest <a> start tag, until an </a> pairs with it

	contentParas int
	baseHref     string
	hasBase      bool

	blocks    []blockSpan
	landmarks landmarks
	block     struct {
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

var errTokenizerDrift = errors.New("markup: tokenizer did not reproduce the input")

// ErrTooLarge is returned for pages of 2 GiB or more; offsets are 32-bit.
var ErrTooLarge = errors.New("markup: page too large")

func scanDocument(src []byte, mode scanMode) (*scan, error) {
	if len(src) >= math.MaxInt32 {
		return nil, ErrTooLarge
	}
	s := &scan{src: src, mode: mode, lastRune: ' ', pendingSeg: -1, openLink: -1, lastA: -1, landmarks: newLandmarks()}
	// Sized from typical pages (text is most of an article's bytes; a
	// paragraph every half kilobyte) so that the slices rarely grow.
	if mode&wantFold != 0 {
		s.fold = make([]byte, 0, len(src)+16)
		s.segs = make([]segment, 0, len(src)/64+4)
	}
	s.paras = make([]paragraph, 0, len(src)/400+4)
	s.anchors = make([]anchor, 0, len(src)/256+4)
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
			if n := len(s.stack); (!s.sawContent || n > 0 && isTableContext(s.stack[n-1].a)) &&
				len(bytes.TrimLeft(src[start:off], " \t\n\r\f")) > 0 {
				s.sawContent = true
				if n > 0 && isTableContext(s.stack[n-1].a) {
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
			name := s.tagName(src[start+1 : off])
			hasAttr := off-start > len(name)+2
			a := atom.Lookup(name)
			s.startTag(z, a, name, hasAttr, tt == html.SelfClosingTagToken, start, off)
		case html.EndTagToken:
			s.sawContent = true
			name := s.tagName(src[start+2 : off])
			if s.block.depth > 0 && string(name) == s.block.name {
				if s.block.depth--; s.block.depth == 0 {
					s.blocks[len(s.blocks)-1].end = off
				}
			}
			s.endTag(atom.Lookup(name), name, start, off)
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
		s.lastRune = ' '
		return
	}
	b := s.src[start:end]
	if len(b) == 0 {
		return
	}
	if s.pendingSeg >= 0 {
		r, _, _, _ := nextUnit(b, 0)
		s.segs[s.pendingSeg].nextRune = r
		s.pendingSeg = -1
	}
	fold := s.mode&wantFold != 0 && para >= 0 && s.eligible()
	var seg segment
	if fold {
		seg = segment{start: int32(start), end: int32(end), para: int32(para), wordsBefore: int32(s.paras[para].words),
			wc: s.wc, prevRune: s.lastRune, foldStart: int32(len(s.fold))}
	}
	var link *anchor
	if s.openLink >= 0 && s.mode&wantLinks != 0 {
		link = &s.anchors[s.openLink]
	}

	// The loop is the scanner's hot path. Runs of ASCII other than '&' and
	// NUL go through a tight inner loop with the word counter and the
	// folded text in locals; everything else takes the general path.
	wc, words, last, fb := s.wc, 0, s.lastRune, s.fold
	lastSpace := false
	for i := 0; i < len(b); {
		if link == nil && isPlainASCII(b[i]) {
			st := asciiState{lastSpace: lastSpace}
			if wc.inWord && !wc.noSpace {
				st.prevWord = 1
			}
			var dst []byte
			n := len(fb)
			if fold {
				fb = slices.Grow(fb, len(b)-i)
				dst = fb[n : n+len(b)-i]
			}
			used, written, w := asciiRun(b[i:], dst, &st)
			fb = fb[:n+written]
			words += w
			wc.inWord, wc.noSpace = st.prevWord == 1, false
			lastSpace = st.lastSpace
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
			if wc.step(r) {
				words++
			}
			last = r
			if fold {
				if isSpace(r) {
					if !lastSpace {
						fb = append(fb, ' ')
					}
					lastSpace = true
				} else {
					fb = utf8.AppendRune(fb, foldRune(r))
					lastSpace = false
				}
			}
			if link != nil {
				if isSpace(r) {
					link.lastSpace = len(link.text) > 0
				} else {
					if link.lastSpace {
						link.text = append(link.text, ' ')
						link.lastSpace = false
					}
					link.text = utf8.AppendRune(link.text, r)
				}
			}
		}
	}
	s.wc, s.lastRune, s.fold = wc, last, fb
	s.words += words
	if para >= 0 {
		s.paras[para].words += words
	}
	if fold {
		seg.foldEnd = int32(len(s.fold))
		s.fold = append(s.fold, 0)
		s.segs = append(s.segs, seg)
		s.pendingSeg = len(s.segs) - 1
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
	s.lastRune = ' '
	if s.pendingSeg >= 0 {
		s.segs[s.pendingSeg].nextRune = ' '
		s.pendingSeg = -1
	}
}

// tagAttrs holds the few attributes the scanner acts on.
type tagAttrs struct {
	href, rel, marker, role, block, encoding   string
	hasHref, hasMarker, hasBlock, fontBreakout bool
}

func readAttrs(z *html.Tokenizer, hasAttr bool) tagAttrs {
	var t tagAttrs
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		switch string(k) {
		case "href":
			if !t.hasHref {
				t.href, t.hasHref = string(v), true
			}
		case "rel":
			if t.rel == "" {
				t.rel = string(v)
			}
		case MarkerAttr:
			if !t.hasMarker {
				t.marker, t.hasMarker = string(v), true
			}
		case BlockMarkerAttr:
			if !t.hasBlock {
				t.block, t.hasBlock = string(v), true
			}
		case "role":
			t.role = string(v)
		case "encoding":
			t.encoding = string(v)
		case "color", "face", "size":
			t.fontBreakout = true
		}
	}
	return t
}

// inForeignContent reports whether the tree builder handles a start tag by
// its foreign-content rules rather than the HTML ones.
func (s *scan) inForeignContent(a atom.Atom, startTag bool) bool {
	n := len(s.stack)
	if n == 0 {
		return false
	}
	top := &s.stack[n-1]
	if top.ns == nsHTML {
		return false
	}
	if startTag {
		if top.ip&ipMathText != 0 && a != atom.Mglyph && a != atom.Malignmark {
			return false
		}
		if top.ip&ipAnnotationXML != 0 && a == atom.Svg {
			return false
		}
		if top.ip&ipHTML != 0 {
			return false
		}
	}
	return true
}

func (s *scan) startTag(z *html.Tokenizer, a atom.Atom, name []byte, hasAttr, selfClosing bool, start, end int) {
	c := classify(a)
	if c&classJoins == 0 {
		s.wordBreak()
	}
	s.cursor, s.tokenStart = start, start
	var at tagAttrs
	if hasAttr && (a == atom.A || a == atom.Font || string(name) == "annotation-xml" ||
		a == atom.Base && s.mode&wantLinks != 0 ||
		s.mode&wantLinks != 0 && containsFold(s.src[start:end], "role") ||
		s.mode&wantBlocks != 0 && containsFold(s.src[start:end], BlockMarkerAttr)) {
		at = readAttrs(z, hasAttr)
	}
	if a == atom.Base && at.hasHref && !s.hasBase && s.foreign == 0 {
		// The first <base href> is what relative links resolve against.
		s.baseHref, s.hasBase = at.href, true
	}
	if s.block.depth > 0 && string(name) == s.block.name && !selfClosing {
		s.block.depth++
	} else if at.hasBlock && s.block.depth == 0 && !selfClosing && c&classVoid == 0 {
		s.block.name, s.block.depth = string(name), 1
		s.blocks = append(s.blocks, blockSpan{start: start, end: -1, kind: at.block})
	}
	if s.inForeignContent(a, true) {
		if !isBreakout(a) && !(a == atom.Font && at.fontBreakout) {
			s.foreignElement(z, name, at, selfClosing)
			return
		}
		s.breakOut()
	}
	if s.foreign > 0 {
		s.uncertain = true // HTML inside SVG or MathML
	}
	if n := len(s.stack); n > 0 && isTableContext(s.stack[n-1].a) && !isTablePart(a) {
		s.uncertain = true // foster-parented out of the table
	}
	if a == atom.Svg || a == atom.Math {
		if !selfClosing {
			ns := nsSVG
			if a == atom.Math {
				ns = nsMath
			}
			s.pushEntry(stackEntry{a: a, name: string(name), class: classExcluded | classForeign, zone: s.zone(),
				para: -1, link: -1, ns: ns})
		}
		return
	}
	if s.excluded == 0 && s.foreign == 0 && !selfClosing {
		s.landmarks.start(a, end)
	}
	switch a {
	case atom.Html, atom.Body:
		return // merged into the existing element, never opened again
	case atom.Caption, atom.Col, atom.Colgroup, atom.Frame, atom.Tbody, atom.Td, atom.Tfoot,
		atom.Th, atom.Thead, atom.Tr:
		if !s.inTable() {
			return // ignored outside a table
		}
	case atom.Head:
		if len(s.paras) > 0 || len(s.stack) > 0 {
			return // a second head is ignored
		}
	case atom.Frameset:
		// A frameset can replace the body and drop everything after it;
		// nothing that follows is eligible.
		s.frameset = true
	}
	if n := len(s.stack); n > 0 && s.stack[n-1].a == atom.Head && !belongsInHead(a) {
		// Body content ends a head left open, as the tree builder does.
		s.popTo(n - 1)
	}
	if c&classVoid != 0 {
		if c&classClosesP != 0 {
			s.closeP()
		}
		return
	}
	if a == atom.Table && !s.noQuirks && s.pInButtonScope() {
		// In quirks mode the table opens inside the paragraph, and
		// whatever is foster-parented out of it lands there too; rather
		// than follow that, nothing in this table is eligible, and the
		// paragraph counts as closed, which is safe either way.
		c |= classExcluded
	}
	if c&classClosesP != 0 {
		s.closeP()
	}
	switch a {
	case atom.Li:
		s.closeListItem(atom.Li, atom.Li)
	case atom.Dd, atom.Dt:
		s.closeListItem(atom.Dd, atom.Dt)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if n := len(s.stack); n > 0 && isHeading(s.stack[n-1].a) {
			s.popTo(n - 1)
		}
	case atom.A:
		// A new <a> closes any open one (the tree builder's adoption agency).
		if s.forget(atom.A) {
			s.uncertain = true
			s.adoptionAgency(atom.A)
		}
		s.active = append(s.active, activeFormatting{a: atom.A, markers: s.markers})
	case atom.Code:
		s.active = append(s.active, activeFormatting{a: atom.Code, markers: s.markers})
	}

	zn := s.zone()
	if c&classZone != 0 {
		zn = zoneOf(a)
	}
	if at.role != "" {
		if rz, ok := zoneOfRole(strings.ToLower(strings.TrimSpace(at.role))); ok {
			zn = rz
		}
	}
	para, link := -1, -1
	if a == atom.P {
		para = len(s.paras)
		p := paragraph{index: len(s.paras) + 1, start: start, end: -1, tagEnd: end}
		if zn == zoneContent {
			s.contentParas++
			p.content = s.contentParas
		}
		s.paras = append(s.paras, p)
	}
	if a == atom.A {
		l := anchor{start: start, tagEnd: end, end: end, closeStart: -1, closeEnd: -1, para: s.innermostPara(),
			href: at.href, hasHref: at.hasHref, rel: at.rel, marker: at.marker, hasMarker: at.hasMarker, zone: zn}
		if l.para >= 0 {
			p := &s.paras[l.para]
			p.linkCount++
			l.words = wordSpan{start: p.words, end: -1}
		}
		link = len(s.anchors)
		s.anchors = append(s.anchors, l)
		s.openLink = link
		s.lastA = link
	}
	e := stackEntry{a: a, class: c, zone: zn, para: para, link: link}
	if a == 0 {
		e.name = string(name)
	}
	s.pushEntry(e)
}

// foreignElement handles a start tag inside SVG or MathML.
func (s *scan) foreignElement(z *html.Tokenizer, name []byte, at tagAttrs, selfClosing bool) {
	top := s.stack[len(s.stack)-1]
	// The tree builder keeps the tokenizer out of raw-text mode for foreign
	// elements (an SVG <title> or <style>), self-closing or not.
	z.NextIsNotRawText()
	if selfClosing {
		return
	}
	e := stackEntry{a: atom.Lookup(name), name: string(name), class: classExcluded | classScope, zone: top.zone, para: -1, link: -1, ns: top.ns}
	switch {
	case top.ns == nsSVG && (e.name == "foreignobject" || e.name == "desc" || e.name == "title"):
		e.ip = ipHTML
	case top.ns == nsMath && (e.name == "mi" || e.name == "mo" || e.name == "mn" || e.name == "ms" || e.name == "mtext"):
		e.ip = ipMathText
	case top.ns == nsMath && e.name == "annotation-xml":
		e.ip = ipAnnotationXML
		if strings.EqualFold(at.encoding, "text/html") || strings.EqualFold(at.encoding, "application/xhtml+xml") {
			e.ip |= ipHTML
		}
	}
	if e.ip == 0 {
		e.class &^= classScope
	} else {
		e.class |= classSpecial
	}
	s.pushEntry(e)
}

func isBreakout(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center, atom.Code, atom.Dd, atom.Div,
		atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Head, atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu, atom.Meta, atom.Nobr,
		atom.Ol, atom.P, atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span, atom.Strong, atom.Strike,
		atom.Sub, atom.Sup, atom.Table, atom.Tt, atom.U, atom.Ul, atom.Var:
		return true
	}
	return false
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func (s *scan) zone() zone {
	if n := len(s.stack); n > 0 {
		return s.stack[n-1].zone
	}
	return zoneContent
}

func (s *scan) pushEntry(e stackEntry) {
	s.stack = append(s.stack, e)
	s.count(e, 1)
}

// count keeps the stack's running totals as entry e comes (+1) or goes (-1).
func (s *scan) count(e stackEntry, d int) {
	if e.class&classExcluded != 0 {
		s.excluded += d
	}
	if e.class&classHidden != 0 && e.ns == nsHTML {
		s.hidden += d
	}
	if e.class&classMarker != 0 {
		s.markers += d
	}
	if e.ns != nsHTML {
		s.foreign += d
	}
}

// popTo pops the stack down to and including index i.
func (s *scan) popTo(i int) {
	for j := len(s.stack) - 1; j >= i; j-- {
		e := s.stack[j]
		if j > i && isFormatting(e.a) && e.ns == nsHTML {
			s.uncertain = true // it will be reconstructed in the next block
		}
		s.count(e, -1)
		if e.class&classMarker != 0 {
			// Closing a table cell (or other marker) drops the formatting
			// elements opened inside it.
			k := len(s.active)
			for k > 0 && s.active[k-1].markers > s.markers {
				k--
			}
			s.active = s.active[:k]
		}
		if e.para >= 0 {
			s.closeParagraph(e.para)
		}
		if e.link >= 0 {
			s.closeLink(e.link, -1)
		}
	}
	s.stack = s.stack[:i]
}

func (s *scan) closeParagraph(p int) {
	s.wordBreak()
	if s.paras[p].end < 0 {
		s.paras[p].end = s.cursor
		s.paras[p].contentEnd = s.tokenStart
	}
}

func (s *scan) closeLink(i, end int) {
	l := &s.anchors[i]
	if l.closed {
		return
	}
	l.closed = true
	l.end = s.cursor
	if end >= 0 {
		l.end = end
	}
	if l.para >= 0 {
		p := &s.paras[l.para]
		l.words.end = p.words
	}
	if s.openLink == i {
		s.openLink = -1
		for j := len(s.stack) - 1; j >= 0; j-- {
			if k := s.stack[j].link; k >= 0 && k != i && !s.anchors[k].closed {
				s.openLink = k
				break
			}
		}
	}
}

// forget removes the newest active formatting element of kind a.
func (s *scan) forget(a atom.Atom) bool {
	for k := len(s.active) - 1; k >= 0; k-- {
		if s.active[k].a == a {
			if s.active[k].markers != s.markers {
				// The tree builder ignores an end tag across a table cell.
				return false
			}
			s.active = append(s.active[:k], s.active[k+1:]...)
			return true
		}
	}
	return false
}

// breakOut ends foreign content the way an HTML element appearing in it
// does: everything above the nearest HTML element or integration point goes.
func (s *scan) breakOut() {
	s.uncertain = true
	for i := len(s.stack) - 1; i >= 0; i-- {
		if e := s.stack[i]; e.ns == nsHTML || e.ip&(ipHTML|ipMathText) != 0 {
			s.popTo(i + 1)
			return
		}
	}
	s.popTo(0)
}

func (s *scan) pInButtonScope() bool {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == atom.P && e.ns == nsHTML {
			return true
		}
		if e.class&classScope != 0 {
			return false
		}
	}
	return false
}

// closeP closes a <p> that is open in button scope.
func (s *scan) closeP() {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == atom.P {
			s.popTo(i)
			return
		}
		if e.class&classScope != 0 {
			return
		}
	}
}

// closeListItem closes an open list item as a new one starts.
func (s *scan) closeListItem(a1, a2 atom.Atom) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == a1 || e.a == a2 {
			s.popTo(i)
			return
		}
		if e.class&classSpecial != 0 && e.a != atom.Address && e.a != atom.Div && e.a != atom.P {
			return
		}
	}
}

func (s *scan) endTag(a atom.Atom, name []byte, start, end int) {
	c := classify(a)
	if c&classJoins == 0 {
		s.wordBreak()
	}
	s.cursor, s.tokenStart = start, start
	if a == atom.P {
		s.cursor = end
	}
	if s.excluded == 0 && s.foreign == 0 {
		s.landmarks.end(a, start)
	}
	if s.inForeignContent(a, false) {
		// x/net/html's rule: close the nearest foreign element of that name,
		// else hand the tag to the HTML rules.
		for i := len(s.stack) - 1; i >= 0; i-- {
			if s.stack[i].ns != nsHTML && strings.EqualFold(s.stack[i].name, string(name)) {
				s.popTo(i)
				return
			}
			if i > 0 && s.stack[i-1].ns == nsHTML {
				break
			}
		}
		s.uncertain = true
	}
	switch a {
	case atom.P:
		if !s.pInButtonScope() && s.inForeignContent(atom.P, true) {
			// The tree builder opens an empty <p> for a stray </p>, and
			// opening it ends foreign content.
			s.breakOut()
		}
	case atom.Br:
		// "</br>" is read as "<br>", which ends foreign content.
		if s.inForeignContent(atom.Br, true) {
			s.breakOut()
		}
		return
	case atom.A:
		if s.lastA >= 0 {
			s.anchors[s.lastA].closeStart, s.anchors[s.lastA].closeEnd = start, end
			s.lastA = -1
		}
		if s.openLink >= 0 {
			s.closeLink(s.openLink, end)
		}
		s.forget(atom.A)
	case atom.Code:
		s.forget(atom.Code)
	case atom.Body, atom.Html:
		return
	}
	if isFormatting(a) {
		s.adoptionAgency(a)
		return
	}
	if a == atom.Form {
		// </form> takes the form element out of the stack and leaves
		// whatever is open inside it open.
		for i := len(s.stack) - 1; i >= 0; i-- {
			e := s.stack[i]
			if e.a == atom.Form && e.ns == nsHTML {
				for n := len(s.stack); n > i+1 && impliedEnd(s.stack[n-1].a); n = len(s.stack) {
					s.popTo(n - 1)
				}
				if i != len(s.stack)-1 {
					s.uncertain = true
				}
				s.remove(i)
				return
			}
			if e.class&classScope != 0 {
				return
			}
		}
		return
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.ns == nsHTML && (e.a == a && (a != 0 || e.name == string(name)) || isHeading(a) && isHeading(e.a)) {
			s.popTo(i)
			return
		}
		if e.class&classScope != 0 && !(closesTable(a) && isCellLike(e.a) && e.ns == nsHTML) {
			return
		}
		if a == atom.Li && (e.a == atom.Ul || e.a == atom.Ol) && e.ns == nsHTML {
			return // </li> looks no further than its list ("list item scope")
		}
		if e.class&classSpecial != 0 && c&classSpecial == 0 {
			return
		}
	}
}

func (s *scan) endOfDocument(end int) {
	s.cursor, s.tokenStart = end, end
	s.popTo(0)
	s.wordBreak()
}

func belongsInHead(a atom.Atom) bool {
	switch a {
	case atom.Title, atom.Meta, atom.Link, atom.Style, atom.Script, atom.Base, atom.Basefont,
		atom.Bgsound, atom.Noscript, atom.Template, atom.Noframes, atom.Head:
		return true
	}
	return false
}

// inTable reports whether the innermost table context is a table, so that
// table-part start tags are not ignored.
func (s *scan) inTable() bool {
	for i := len(s.stack) - 1; i >= 0; i-- {
		switch s.stack[i].a {
		case atom.Table:
			return s.stack[i].ns == nsHTML
		case atom.Template:
			return false
		}
	}
	return false
}

// closesTable reports end tags that close an open cell on their way, their
// scope being the table's.
func closesTable(a atom.Atom) bool {
	switch a {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
		return true
	}
	return false
}

func isCellLike(a atom.Atom) bool { return a == atom.Td || a == atom.Th || a == atom.Caption }

func isFormatting(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr, atom.S,
		atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// adoptionAgency follows the tree builder's handling of a formatting end tag
// as far as the stack goes: with no special element above the formatting
// element everything down to it closes; with one (the "furthest block"),
// only the formatting element leaves the stack and the blocks stay open.
func (s *scan) adoptionAgency(a atom.Atom) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		e := s.stack[i]
		if e.a == a && e.ns == nsHTML {
			if i != len(s.stack)-1 {
				s.uncertain = true // misnested: the tree builder may clone and move nodes
			}
			for j := i + 1; j < len(s.stack); j++ {
				if s.stack[j].class&classSpecial != 0 || s.stack[j].ip != 0 {
					s.remove(i)
					return
				}
			}
			s.popTo(i)
			return
		}
		if e.class&classScope != 0 {
			return
		}
	}
}

// remove takes one entry out of the middle of the stack.
func (s *scan) remove(i int) {
	e := s.stack[i]
	s.count(e, -1)
	if e.link >= 0 {
		s.closeLink(e.link, -1)
	}
	if e.para >= 0 {
		s.closeParagraph(e.para)
	}
	s.stack = append(s.stack[:i], s.stack[i+1:]...)
}

// impliedEnd reports elements the tree builder closes implicitly before an
// end tag ("generate implied end tags").
func impliedEnd(a atom.Atom) bool {
	switch a {
	case atom.Dd, atom.Dt, atom.Li, atom.Optgroup, atom.Option, atom.P, atom.Rb, atom.Rp, atom.Rt, atom.Rtc:
		return true
	}
	return false
}

func isTableContext(a atom.Atom) bool {
	switch a {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr:
		return true
	}
	return false
}

func isTablePart(a atom.Atom) bool {
	switch a {
	case atom.Caption, atom.Colgroup, atom.Col, atom.Tbody, atom.Tfoot, atom.Thead, atom.Tr, atom.Td,
		atom.Th, atom.Script, atom.Style, atom.Template, atom.Input, atom.Form:
		return true
	}
	return false
}

// tagName reads a tag's name from its source bytes (after "<" or "</"),
// lower-cased as the tokenizer would, without the tokenizer's per-call
// copy. The result is valid until the next call.
func (s *scan) tagName(b []byte) []byte {
	n := 0
	for n < len(b) {
		switch b[n] {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			goto done
		}
		n++
	}
done:
	name := s.nameBuf[:0]
	if n > len(s.nameBuf) {
		name = make([]byte, 0, n)
	}
	for _, c := range b[:n] {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		name = append(name, c)
	}
	return name
}

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
