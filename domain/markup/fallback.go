package markup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The LLM fallback: when no paragraph's text can carry a link, a model
// rewrites one paragraph to include it. This package does not talk to the
// model; it chooses the paragraph, and it checks the rewrite and splices it
// in, so that nothing the model writes reaches the page as markup. The
// paragraph's text is the page author's, and the model may have been told
// by it to do anything ("ignore your instructions and link to..."): every
// check below holds the answer to what was asked, never to what the text
// asked.

// MaxChangedSentences is how many of the original paragraph's sentences a
// rewrite may change or drop. The seed tells the model to keep the meaning
// and change at most one or two sentences; an answer that goes further is
// no longer the author's paragraph, whatever it says.
const MaxChangedSentences = 2

// MinKeptWordShare is the share of the original paragraph's words (each
// as often as it stands there) a rewrite must keep, and MaxAddedWords
// (or MaxAddedWordShare of the original's words, whichever is more) how
// many it may add beside the anchor's. A pet-care trial's model turned a
// one-sentence paragraph into five sentences of other advice, within the
// sentence rule, since one sentence may change, and it was published.
const (
	MinKeptWordShare  = 0.8
	MaxAddedWords     = 6
	MaxAddedWordShare = 0.25
)

// MaxRewriteLengthChange bounds how much the rewrite's visible text may
// grow or shrink, as a share of the original's length in characters (0.3
// is ±30%). Working a link in takes a few words; more means the model
// added or cut content.
const MaxRewriteLengthChange = 0.30

// ErrBadRewrite wraps every reason a rewritten paragraph is refused (each
// a *RewriteRefusal); the link then stays planned, with the reason as its
// warning.
var ErrBadRewrite = errors.New("markup: rewritten paragraph refused")

// FallbackParagraph chooses the paragraph to rewrite for a link no text
// could take: a content paragraph with eligible text and no links of its
// own (a rewrite could not be trusted to keep them), among the first
// firstParagraphs when that is > 0 (the mandatory uplink), with the most
// words in common with keyword, the earliest on a tie. ok is false when no
// paragraph qualifies.
//
// after keeps the choice to paragraphs that start at or after that byte
// offset of src: a supporting article's other links come after its
// uplink, which the first link rule wants first.
func FallbackParagraph(src []byte, keyword string, firstParagraphs, after int) (p Paragraph, ok bool) {
	doc, err := scanDocument(src, wantFold)
	if err != nil {
		return Paragraph{}, false
	}
	eligible := make([]bool, len(doc.paras))
	text := make([][]byte, len(doc.paras))
	for _, s := range doc.segs {
		eligible[s.para] = true
		text[s.para] = append(append(text[s.para], doc.fold[s.foldStart:s.foldEnd]...), ' ')
	}
	want := strings.Fields(foldAnchor(keyword))
	best, bestScore := -1, -1
	for i, para := range doc.paras {
		if !eligible[i] || para.linkCount > 0 || para.content == 0 || para.start < after ||
			firstParagraphs > 0 && para.content > firstParagraphs {
			continue
		}
		if para.contentEnd > para.tagEnd && readOriginal(src[para.start:para.tagEnd], src[para.tagEnd:para.contentEnd]).other {
			// No rewrite of it could be accepted: a help-center trial's
			// uplink was asked of a paragraph holding <code>, refused, and
			// the next paragraph, which had none, never tried.
			continue
		}
		score := 0
		have := strings.Fields(string(text[i]))
		for _, w := range want {
			for _, h := range have {
				if strings.Trim(h, ".,;:!?\"'()") == w {
					score++
					break
				}
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return Paragraph{}, false
	}
	return doc.paragraphOf(best), true
}

// ReplaceParagraph puts a model's rewrite of paragraph para (as returned by
// Paragraphs or FallbackParagraph for this src) in place of its content,
// for a link with the planned anchor, marker id and target href.
//
// The rewrite may be the paragraph's content or a whole <p> element (whose
// attributes, if any, must be the original's: the original start tag is
// kept). It is refused, with an error holding a *RewriteRefusal (which
// errors.Is reports as ErrBadRewrite), unless every check passes:
//   - the paragraph is a content paragraph without links of its own, so
//     that no link of the page can be dropped or changed (RefusalIneligible);
//   - the answer is well-formed text: UTF-8 without control characters, no
//     comments, every element closed and properly nested (RefusalMarkup);
//   - it is one paragraph and nothing after it (RefusalParagraphs);
//   - every link's href is a path or an http(s) URL (RefusalUnsafeHref);
//   - its only elements are <a> with only an href, and the inline
//     formatting among b, strong, i and em that the original paragraph
//     uses, without attributes and outside the link (RefusalFormatting);
//   - there is exactly one <a> (RefusalLinkCount), and its href is the
//     target's (RefusalLinkTarget);
//   - the link's text is the anchor or a close inflection of it: the same
//     words once folded and stemmed for opts.Language (RefusalAnchor);
//   - all but at most MaxChangedSentences of the original's sentences
//     survive word for word (RefusalSentences), the visible text's
//     length stays within MaxRewriteLengthChange of the original's
//     (RefusalLength), and the rewrite keeps MinKeptWordShare of the
//     original's words and adds few of its own (RefusalWords).
//
// When several fail, the reason reported is the first in that order. The
// result is rebuilt, not copied: text re-escaped, formatting tags without
// attributes, and the link written as Place writes it (href, MarkerAttr
// with id, opts.Attributes). Everything outside the paragraph's content is
// src byte for byte. It returns the new page and the link text as the
// answer wrote it. An unusable request (a bad id, href, option or an
// anchor without words) is an error wrapping ErrBadRequest or
// ErrUnsafeHref, not a refusal.
func ReplaceParagraph(src []byte, para Paragraph, rewritten, anchor, id, href string, opts Options) (out []byte, anchorText string, err error) {
	cfg, err := newPlaceConfig([]LinkRequest{{ID: id, Href: href}}, opts)
	if err != nil {
		return nil, "", err
	}
	if len(anchorWords(anchor)) == 0 {
		return nil, "", fmt.Errorf("%w: anchor %q has no words", ErrBadRequest, anchor)
	}
	doc, err := scanDocument(src, wantFold)
	if err != nil {
		return nil, "", err
	}
	var orig *paragraph
	for i := range doc.paras {
		if p := &doc.paras[i]; p.index == para.Index && p.start == para.Start {
			orig = p
		}
	}
	refuse := func(r *RewriteRefusal) ([]byte, string, error) {
		if orig != nil && orig.content > 0 {
			// Counted as a link's paragraph is: a docs trial read "paragraph
			// 3" of a rewrite asked of content paragraph 2, a byline first.
			return nil, "", fmt.Errorf("content paragraph %d: %w", orig.content, r)
		}
		return nil, "", fmt.Errorf("paragraph %d: %w", para.Index, r)
	}
	if orig == nil || orig.content == 0 {
		return refuse(&RewriteRefusal{Reason: RefusalIneligible, Detail: "not a content paragraph of this page"})
	}
	if orig.linkCount > 0 {
		return refuse(&RewriteRefusal{Reason: RefusalIneligible, Detail: "the paragraph has links of its own, which a rewrite could drop or change"})
	}
	before := readOriginal(src[orig.start:orig.tagEnd], src[orig.tagEnd:orig.contentEnd])
	rb, refusal := rebuildRewrite(rewritten, before, cfg)
	if refusal != nil {
		return refuse(refusal)
	}
	if !sameWords(rb.anchorText, anchor, cfg.stemmer) {
		return refuse(&RewriteRefusal{Reason: RefusalAnchor, Detail: fmt.Sprintf("the link's text %q is not %q or an inflection of it", rb.anchorText, anchor)})
	}
	if changed, total := changedSentences(before.text, rb.text); changed > MaxChangedSentences {
		return refuse(&RewriteRefusal{Reason: RefusalSentences, Detail: fmt.Sprintf("%d of the paragraph's %d sentences changed; at most %d may", changed, total, MaxChangedSentences)})
	}
	was, is := utf8.RuneCountInString(before.text), utf8.RuneCountInString(rb.text)
	if diff := is - was; float64(max(diff, -diff)) > MaxRewriteLengthChange*float64(was) {
		return refuse(&RewriteRefusal{Reason: RefusalLength, Detail: fmt.Sprintf("the text has %d characters against the original's %d (%+.0f%%); at most ±%.0f%% is allowed",
			is, was, 100*float64(diff)/float64(max(was, 1)), 100*MaxRewriteLengthChange)})
	}
	if kept, added, total := keptWords(before.text, rb.text, rb.anchorText); float64(kept) < MinKeptWordShare*float64(total) ||
		float64(added) > max(MaxAddedWords, MaxAddedWordShare*float64(total)) {
		return refuse(&RewriteRefusal{Reason: RefusalWords, Detail: fmt.Sprintf("the rewrite keeps %d of the paragraph's %d words and adds %d beside the anchor's; it must keep %.0f%% and add at most %d",
			kept, total, added, 100*MinKeptWordShare, int(max(MaxAddedWords, MaxAddedWordShare*float64(total))))})
	}
	out = make([]byte, 0, len(src)+len(rb.content))
	out = append(out, src[:orig.tagEnd]...)
	out = append(out, rb.content...)
	out = append(out, src[orig.contentEnd:]...)
	// The paragraph was eligible, so this holds; the parser confirms it
	// for pages malformed enough to make anything else possible.
	if bad := verifyInsertions(out, map[string]string{id: escapeText(rb.anchorText)}); len(bad) > 0 {
		return refuse(&RewriteRefusal{Reason: RefusalMarkup, Detail: "the page's markup would not keep the link inside the paragraph"})
	}
	return out, rb.anchorText, nil
}

func (s *scan) paragraphOf(i int) Paragraph {
	p := &s.paras[i]
	return Paragraph{Index: p.index, Content: p.content, Words: s.paragraphWords(i), Links: p.linkCount, Start: p.start, End: p.end}
}

// original is what a rewrite is held to: the paragraph as the page has it.
type original struct {
	text       string    // visible text, entities decoded, whitespace collapsed
	formatting formatSet // the inline formatting elements it uses
	// other says it holds an element besides those (<code>, <span>,
	// <br>...), which no accepted rewrite keeps.
	other bool
	attrs map[string]string // its <p> start tag's attributes
}

// formatSet is a set of the inline formatting elements a rewrite may use.
type formatSet uint8

func formatBit(a atom.Atom) formatSet {
	switch a {
	case atom.B:
		return 1
	case atom.Strong:
		return 2
	case atom.I:
		return 4
	case atom.Em:
		return 8
	}
	return 0
}

// readOriginal reads the paragraph's start tag and content.
func readOriginal(startTag, content []byte) original {
	o := original{attrs: map[string]string{}}
	z := html.NewTokenizer(bytes.NewReader(startTag))
	if tt := z.Next(); tt == html.StartTagToken || tt == html.SelfClosingTagToken {
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if _, seen := o.attrs[string(k)]; k != nil && !seen {
				o.attrs[string(k)] = string(v) // the first of a repeated attribute is the one that counts
			}
		}
	}
	z = html.NewTokenizer(bytes.NewReader(content))
	var b strings.Builder
	hidden := 0 // inside elements whose text is not shown
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			o.text = collapseSpace(b.String())
			return o
		case html.TextToken:
			if hidden == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case tt != html.EndTagToken:
				o.formatting |= formatBit(a)
				o.other = o.other || formatBit(a) == 0
				if a == atom.Br {
					b.WriteByte(' ') // a line break separates words as a space does
				}
				if tt == html.StartTagToken && hidesContent(a) {
					hidden++
				}
			case hidesContent(a) && hidden > 0:
				hidden--
			}
		}
	}
}

// hidesContent reports elements whose text a reader does not see.
func hidesContent(a atom.Atom) bool {
	return a == atom.Script || a == atom.Style || a == atom.Template || a == atom.Noscript
}

// rebuilt is an accepted answer as this package writes it.
type rebuilt struct {
	content    string // the paragraph's new content
	text       string // its visible text, whitespace collapsed, the link's text included
	anchorText string // the link's text as the answer wrote it, entities decoded
}

// rebuildRewrite checks the answer's markup against the original and
// writes it anew from its text. The checks of the text itself (anchor,
// sentences, length) are the caller's.
func rebuildRewrite(rewritten string, orig original, cfg *placeConfig) (rebuilt, *RewriteRefusal) {
	rs := refusals{}
	// fail stops at a fault after which the rest of the answer cannot be
	// read as a paragraph; faults already found may still take precedence.
	fail := func(reason, format string, args ...any) (rebuilt, *RewriteRefusal) {
		rs.add(reason, format, args...)
		return rebuilt{}, rs.first()
	}
	if !utf8.ValidString(rewritten) {
		return fail(RefusalMarkup, "the answer is not UTF-8 text")
	}
	if i := strings.IndexFunc(rewritten, isControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(rewritten[i:])
		return fail(RefusalMarkup, "control character %U at byte %d", r, i)
	}
	z := html.NewTokenizer(strings.NewReader(rewritten))
	var content, text, anchorText strings.Builder
	var open []atom.Atom
	links, linkDepth := 0, 0
	inLink, outerP, closedP, sawContent := false, false, false, false
	for {
		tt := z.Next()
		if closedP && tt != html.ErrorToken {
			if tt == html.TextToken && strings.TrimFunc(string(z.Text()), isSpace) == "" {
				continue
			}
			return fail(RefusalParagraphs, "content after the paragraph's </p>")
		}
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return fail(RefusalMarkup, "%v", z.Err())
			}
			if inLink {
				return fail(RefusalMarkup, "the link is not closed")
			}
			if len(open) > 0 {
				return fail(RefusalMarkup, "<%s> is not closed", open[len(open)-1])
			}
			if links != 1 {
				rs.add(RefusalLinkCount, "%d links, want exactly one", links)
			}
			if r := rs.first(); r != nil {
				return rebuilt{}, r
			}
			return rebuilt{content: content.String(), text: collapseSpace(text.String()), anchorText: anchorText.String()}, nil
		case html.TextToken:
			t := string(z.Text())
			if !sawContent && strings.TrimFunc(t, isSpace) == "" {
				continue // whitespace before an echoed <p>
			}
			sawContent = true
			if inLink {
				anchorText.WriteString(t)
			}
			text.WriteString(t)
			content.WriteString(escapeText(t))
		case html.CommentToken, html.DoctypeToken:
			return fail(RefusalMarkup, "comments and doctypes are not paragraph text")
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			a := atom.Lookup(name)
			end := tt == html.EndTagToken
			if a != atom.P {
				sawContent = true
			}
			switch a {
			case atom.P:
				// The model may hand back the whole element; only its
				// content counts, and the original start tag stays.
				switch {
				case !end && !sawContent:
					outerP, sawContent = true, true
					if k := attrBeyond(z, hasAttr, orig.attrs); k != "" {
						rs.add(RefusalFormatting, "attribute %q on <p> that the original paragraph does not have", k)
					}
				case end && outerP && (inLink || len(open) > 0):
					return fail(RefusalMarkup, "</p> before the elements inside it are closed")
				case end && outerP:
					closedP = true
				default:
					return fail(RefusalParagraphs, "more than one paragraph")
				}
			case atom.B, atom.Strong, atom.I, atom.Em:
				if tt == html.SelfClosingTagToken {
					return fail(RefusalMarkup, "<%s/> is not an element that can hold text", tag)
				}
				if end {
					if len(open) == 0 || open[len(open)-1] != a || inLink && len(open) <= linkDepth {
						return fail(RefusalMarkup, "misnested </%s>", tag)
					}
					open = open[:len(open)-1]
					content.WriteString("</" + a.String() + ">")
					continue
				}
				switch {
				case hasAttr:
					rs.add(RefusalFormatting, "attributes on <%s>", tag)
				case orig.formatting&formatBit(a) == 0:
					rs.add(RefusalFormatting, "<%s>, which the original paragraph does not use", tag)
				case inLink:
					// The link is written around plain text only, as Place
					// writes it, so that its text can be verified exactly.
					rs.add(RefusalFormatting, "<%s> inside the link", tag)
				}
				open = append(open, a)
				content.WriteString("<" + a.String() + ">")
			case atom.A:
				if tt == html.SelfClosingTagToken {
					return fail(RefusalMarkup, "<a/> is not an element that can hold text")
				}
				if end {
					if !inLink {
						return fail(RefusalMarkup, "a </a> without its <a>")
					}
					if len(open) != linkDepth {
						return fail(RefusalMarkup, "misnested </a>")
					}
					inLink = false
					content.WriteString(cfg.reqs[0].tags[1])
					continue
				}
				if inLink {
					return fail(RefusalLinkCount, "a link inside the link")
				}
				links++
				inLink, linkDepth = true, len(open)
				checkLink(z, hasAttr, cfg, rs)
				content.WriteString(cfg.reqs[0].tags[0])
			default:
				// Not written to the page either way, but an answer that
				// holds it is not the paragraph that was asked for.
				slash := ""
				if end {
					slash = "/"
				}
				rs.add(RefusalFormatting, "<%s%s> is not allowed: only one <a> and the b, strong, i and em the original uses", slash, tag)
			}
		}
	}
}

// checkLink records what is wrong with the attributes of the <a> start tag
// z is on: only an href is kept, and it must be a safe one to the target.
func checkLink(z *html.Tokenizer, hasAttr bool, cfg *placeConfig, rs refusals) {
	target, hasHref := "", false
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		if string(k) == "href" && !hasHref {
			target, hasHref = string(v), true
			continue
		}
		// Anything else would be dropped by the rebuild, but an answer
		// that adds it (onclick, style, a second href) is not what was
		// asked for.
		rs.add(RefusalFormatting, "attribute %q on the link", k)
	}
	switch {
	case !hasHref:
		rs.add(RefusalLinkTarget, "a link without href, not to %q", cfg.reqs[0].sitePath)
	case unsafeHref(target) != "":
		rs.add(RefusalUnsafeHref, "%s", unsafeHref(target))
	case sitePath(target, cfg.opts.SiteHost) != cfg.reqs[0].sitePath:
		rs.add(RefusalLinkTarget, "a link to %q, not to %q", target, cfg.reqs[0].sitePath)
	}
}

// unsafeHref says why an href as the answer wrote it (entities decoded)
// could be something other than a link to a page: a scheme other than
// http(s), or characters a browser strips or rewrites before it reads the
// scheme ("java\tscript:", "\\host"). "" when it is a path or an http(s)
// URL; whether it is the target is checked apart.
func unsafeHref(href string) string {
	for i := 0; i < len(href); i++ {
		if c := href[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return fmt.Sprintf("href %q contains %q", href, c)
		}
	}
	if strings.HasPrefix(href, "/") {
		return "" // a path, or a network-path reference, which keeps the page's http(s)
	}
	u, err := url.Parse(href)
	if err != nil {
		return fmt.Sprintf("href %q: %v", href, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https":
		return ""
	}
	return fmt.Sprintf("href %q has the scheme %q; only paths and http(s) URLs are links", href, u.Scheme)
}

// attrBeyond returns the first attribute of the start tag z is on that
// the original start tag lacks or has with another value, "" for none.
func attrBeyond(z *html.Tokenizer, hasAttr bool, allowed map[string]string) string {
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		if w, ok := allowed[string(k)]; !ok || w != string(v) {
			return string(k)
		}
	}
	return ""
}

// isControl reports characters that have no place in paragraph text: the
// parser drops or replaces some, and none is anything a model should write.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r', '\f':
		return false
	}
	return r < 0x20 || 0x7f <= r && r <= 0x9f
}

// collapseSpace joins s's words with single spaces, as the page shows them.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, isSpace), " ")
}

// anchorWords splits a phrase into words as anchors are matched: folded,
// runs of letters and digits, each character of a no-space script a word
// of its own. Punctuation between words does not count.
func anchorWords(s string) []string {
	f := foldAnchor(s)
	var words []string
	start := -1
	for i, r := range f {
		if start >= 0 && (!isWordRune(r) || isNoSpaceScript(r)) {
			words, start = append(words, f[start:i]), -1
		}
		switch {
		case isWordRune(r) && isNoSpaceScript(r):
			words = append(words, string(r))
		case isWordRune(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, f[start:])
	}
	return words
}

// sameWords reports whether text is the anchor or a close inflection of
// it ("trail shoe" for "trail shoes"): the same number of words, each the
// same once folded or with the same stem. With no stemmer (Language
// "none") only the folded words count.
func sameWords(text, anchor string, st *stemmer) bool {
	got, want := anchorWords(text), anchorWords(anchor)
	if len(got) == 0 || len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] && (st == nil || st.stem(got[i]) != st.stem(want[i])) {
			return false
		}
	}
	return true
}

// sentences splits whitespace-collapsed text after each '.', '!' or '?'
// that a space or the end follows. Text after the last such mark is a
// sentence too.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ') {
			if s := strings.TrimSpace(text[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// keptWords counts the words of before that after keeps (each as often
// as it stands in both, case aside), and the words after adds that are
// neither before's nor the anchor's.
func keptWords(before, after, anchor string) (kept, added, total int) {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	have := map[string]int{}
	for _, w := range words(before) {
		have[w]++
		total++
	}
	spare := map[string]int{}
	for _, w := range words(anchor) {
		spare[w]++
	}
	for _, w := range words(after) {
		switch {
		case have[w] > 0:
			have[w]--
			kept++
		case spare[w] > 0:
			spare[w]--
		default:
			added++
		}
	}
	return kept, added, total
}

// changedSentences counts the sentences of before that after does not
// have word for word, each of after's sentences answering for one of
// before's at most. Order does not count: a sentence moved is not changed.
func changedSentences(before, after string) (changed, total int) {
	have := map[string]int{}
	for _, s := range sentences(after) {
		have[s]++
	}
	was := sentences(before)
	for _, s := range was {
		if have[s] > 0 {
			have[s]--
		} else {
			changed++
		}
	}
	return changed, len(was)
}
