package markup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The LLM fallback: when no paragraph's text can carry a link, a model
// rewrites one paragraph to include it. This package does not talk to the
// model; it chooses the paragraph, and it checks the rewrite and splices it
// in, so that nothing the model writes reaches the page as markup.
//
// Until the fallback itself lands (a later issue brings the model adapter
// and the handler step that calls it), only tests reach this file: a
// dead-code report on FallbackParagraph, ReplaceParagraph and their helpers
// is expected. They are kept, and tested, because they are the part of
// the fallback that must be right before any model output is trusted.

// MinRewriteOverlap is the share of the original paragraph's words a
// rewrite must keep: the seeds ask for the meaning to stay and only one or
// two sentences to change.
const MinRewriteOverlap = 0.6

// ErrBadRewrite wraps every reason a rewritten paragraph is refused; the
// link then stays planned, with the reason as its warning.
var ErrBadRewrite = errors.New("markup: rewritten paragraph refused")

// FallbackParagraph chooses the paragraph to rewrite for a link no text
// could take: a content paragraph with eligible text and no links of its
// own (a rewrite could not be trusted to keep them), among the first
// firstParagraphs when that is > 0 (the mandatory uplink), with the most
// words in common with keyword, the earliest on a tie. ok is false when no
// paragraph qualifies. Only tests call it until the LLM fallback lands.
func FallbackParagraph(src []byte, keyword string, firstParagraphs int) (p Paragraph, ok bool) {
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
		if !eligible[i] || para.linkCount > 0 || para.content == 0 ||
			firstParagraphs > 0 && para.content > firstParagraphs {
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
// Paragraphs or FallbackParagraph for this src) in place of its content.
//
// The rewrite may be the paragraph's content or a whole <p> element. It is
// accepted only as text with b, strong, i and em, properly nested, and
// exactly one <a> whose href is href, holding plain text. The result is
// rebuilt, not copied: text re-escaped, formatting tags without attributes,
// and the link written as Place writes it (href, MarkerAttr with id,
// opts.Attributes). The rewrite must keep MinRewriteOverlap of the
// original's words. It returns the new page and the link text. Only tests
// call it until the LLM fallback lands.
func ReplaceParagraph(src []byte, para Paragraph, rewritten, id, href string, opts Options) (out []byte, anchorText string, err error) {
	cfg, err := newPlaceConfig([]LinkRequest{{ID: id, Href: href}}, opts)
	if err != nil {
		return nil, "", err
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
	if orig == nil || orig.content == 0 {
		return nil, "", fmt.Errorf("%w: paragraph %d is not a content paragraph of this page", ErrBadRewrite, para.Index)
	}
	if orig.linkCount > 0 {
		return nil, "", fmt.Errorf("%w: paragraph %d has links of its own", ErrBadRewrite, para.Index)
	}
	content, anchorText, err := rebuildRewrite(rewritten, href, cfg)
	if err != nil {
		return nil, "", err
	}
	before := strings.Fields(strings.ToLower(visibleText(src[orig.tagEnd:orig.contentEnd])))
	after := strings.Fields(strings.ToLower(visibleTextOfRebuilt(content)))
	if overlap(before, after) < MinRewriteOverlap {
		return nil, "", fmt.Errorf("%w: the rewrite keeps less than %.0f%% of the paragraph's words", ErrBadRewrite, MinRewriteOverlap*100)
	}
	out = make([]byte, 0, len(src)+len(content))
	out = append(out, src[:orig.tagEnd]...)
	out = append(out, content...)
	out = append(out, src[orig.contentEnd:]...)
	// The paragraph was eligible, so this holds; the parser confirms it
	// for pages malformed enough to make anything else possible.
	if bad := verifyInsertions(out, map[string]string{id: escapeText(anchorText)}); len(bad) > 0 {
		return nil, "", fmt.Errorf("%w: the link would not stay inside the paragraph", ErrBadRewrite)
	}
	return out, anchorText, nil
}

func (s *scan) paragraphOf(i int) Paragraph {
	p := &s.paras[i]
	return Paragraph{Index: p.index, Words: s.paragraphWords(i), Links: p.linkCount, Start: p.start, End: p.end}
}

// rebuildRewrite checks a rewrite and writes it anew from its text.
func rebuildRewrite(rewritten, href string, cfg *placeConfig) (content, anchorText string, err error) {
	z := html.NewTokenizer(strings.NewReader(rewritten))
	var b strings.Builder
	var open []atom.Atom
	links, inLink, outerP, closedP := 0, false, false, false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return "", "", fmt.Errorf("%w: %v", ErrBadRewrite, z.Err())
			}
			if inLink || len(open) > 0 {
				return "", "", fmt.Errorf("%w: unclosed elements", ErrBadRewrite)
			}
			if links != 1 {
				return "", "", fmt.Errorf("%w: %d links to %s, want exactly one", ErrBadRewrite, links, href)
			}
			return b.String(), anchorText, nil
		case html.TextToken:
			t := html.UnescapeString(string(z.Text()))
			if closedP {
				if strings.TrimSpace(t) != "" {
					return "", "", fmt.Errorf("%w: text after the paragraph", ErrBadRewrite)
				}
				continue
			}
			if inLink {
				anchorText += t
			}
			b.WriteString(escapeText(t))
		case html.CommentToken, html.DoctypeToken:
			return "", "", fmt.Errorf("%w: comments and doctypes are not text", ErrBadRewrite)
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			end := tt == html.EndTagToken
			if closedP {
				return "", "", fmt.Errorf("%w: markup after the paragraph", ErrBadRewrite)
			}
			switch a {
			case atom.P:
				// The model may hand back the whole element; only its
				// content counts.
				switch {
				case !end && !outerP && !closedP && b.Len() == 0:
					outerP = true
				case end && outerP && len(open) == 0 && !inLink:
					outerP, closedP = false, true
				default:
					return "", "", fmt.Errorf("%w: more than one paragraph", ErrBadRewrite)
				}
			case atom.B, atom.Strong, atom.I, atom.Em:
				if inLink || hasAttr || tt == html.SelfClosingTagToken {
					return "", "", fmt.Errorf("%w: <%s> with attributes or inside the link", ErrBadRewrite, name)
				}
				if end {
					if len(open) == 0 || open[len(open)-1] != a {
						return "", "", fmt.Errorf("%w: misnested </%s>", ErrBadRewrite, name)
					}
					open = open[:len(open)-1]
				} else {
					open = append(open, a)
				}
				if end {
					b.WriteString("</" + a.String() + ">")
				} else {
					b.WriteString("<" + a.String() + ">")
				}
			case atom.A:
				if end {
					if !inLink {
						return "", "", fmt.Errorf("%w: stray </a>", ErrBadRewrite)
					}
					if strings.TrimSpace(anchorText) == "" {
						return "", "", fmt.Errorf("%w: empty link text", ErrBadRewrite)
					}
					inLink = false
					b.WriteString("</a>")
					continue
				}
				if inLink {
					return "", "", fmt.Errorf("%w: nested links", ErrBadRewrite)
				}
				var target string
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "href" && target == "" {
						target = string(v)
					}
				}
				if sitePath(target, cfg.opts.SiteHost) != cfg.reqs[0].sitePath {
					return "", "", fmt.Errorf("%w: a link to %q, not to %s", ErrBadRewrite, target, href)
				}
				links++
				inLink = true
				b.WriteString(cfg.reqs[0].tags[0])
			default:
				return "", "", fmt.Errorf("%w: <%s> is not allowed", ErrBadRewrite, name)
			}
		}
	}
}

// visibleTextOfRebuilt reads the text of markup this package just wrote.
func visibleTextOfRebuilt(s string) string {
	var b bytes.Buffer
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}

// overlap is the share of before's words that after keeps, counted with
// multiplicity and without punctuation.
func overlap(before, after []string) float64 {
	if len(before) == 0 {
		return 1
	}
	trim := func(w string) string { return strings.Trim(w, ".,;:!?\"'()[]") }
	have := make(map[string]int, len(after))
	for _, w := range after {
		have[trim(w)]++
	}
	kept := 0
	for _, w := range before {
		if have[trim(w)] > 0 {
			have[trim(w)]--
			kept++
		}
	}
	return float64(kept) / float64(len(before))
}
