package markup

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
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
	// Sized from link-heavy article pages (per 100 KB: ~85 KB of text,
	// ~900 text runs, ~230 paragraphs, ~200 links), so the slices rarely
	// grow and reserve little beyond what such a page uses.
	if mode&wantFold != 0 {
		s.fold = make([]byte, 0, len(src)+16)
		s.segs = make([]segment, 0, len(src)/100+16)
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
// inForeignContent reports whether the tree builder handles a start tag by
// its foreign-content rules rather than the HTML ones.
// foreignElement handles a start tag inside SVG or MathML.
// count keeps the stack's running totals as entry e comes (+1) or goes (-1).
// popTo pops the stack down to and including index i.
// forget removes the newest active formatting element of kind a.
// breakOut ends foreign content the way an HTML element appearing in it
// does: everything above the nearest HTML element or integration point goes.
// closeP closes a <p> that is open in button scope.
// closeListItem closes an open list item as a new one starts.
// inTable reports whether the innermost table context is a table, so that
// table-part start tags are not ignored.
// closesTable reports end tags that close an open cell on their way, their
// scope being the table's.
// adoptionAgency follows the tree builder's handling of a formatting end tag
// as far as the stack goes: with no special element above the formatting
// element everything down to it closes; with one (the "furthest block"),
// only the formatting element leaves the stack and the blocks stay open.
// remove takes one entry out of the middle of the stack.
// impliedEnd reports elements the tree builder closes implicitly before an
// end tag ("generate implied end tags").
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
