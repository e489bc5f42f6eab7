package markup

import (
	"net/url"
	"strings"
)

// Link is one <a> element of a page, as the audit sees it.
type Link struct {
	Href      string   // the attribute value as written, entities decoded
	URL       string   // Href resolved against the page URL; "" when it cannot be
	Text      string   // visible anchor text, whitespace collapsed
	Rel       []string // rel tokens, lower case (nofollow, sponsored, ugc...)
	Internal  bool     // relative, or on the site's host
	Position  string   // content, navigation, header, footer, aside or comments
	Paragraph int      // 1-based index of the <p> it is in, 0 outside any
	// ContentParagraph is the same paragraph counted among the content's
	// paragraphs only (Position.FirstParagraphs' numbering), 0 outside them.
	ContentParagraph int
	MarkerID         string // the MarkerAttr value when interlinker inserted it
	Inserted         bool   // carries MarkerAttr
	InBlock          string // the generated block it belongs to, if any
	Start            int    // byte offset of "<a"
	End              int    // byte offset just past the element
}

// Nofollow, Sponsored and UGC report the rel values search engines act on.
func (l Link) Nofollow() bool  { return l.hasRel("nofollow") }
func (l Link) Sponsored() bool { return l.hasRel("sponsored") }
func (l Link) UGC() bool       { return l.hasRel("ugc") }

// JumpsWithinPage reports whether the link only moves within the page it
// is on: its href is a bare fragment ("#top", a table of contents' "#step-2").
// Such a link names no page, so it is neither an internal link to another
// page nor an external one, and crawlers and link maps pass it by.
func (l Link) JumpsWithinPage() bool {
	return strings.HasPrefix(strings.TrimSpace(l.Href), "#")
}

func (l Link) hasRel(v string) bool {
	for _, r := range l.Rel {
		if r == v {
			return true
		}
	}
	return false
}

// Links extracts every <a> of a page: href resolved against pageURL (and the
// page's <base href>, if any), text,
// rel, internal or external against siteHost (the page URL's host when
// empty), position from the semantic element around it, and paragraph.
// Anchors without an href are reported too, with an empty Href.
func Links(src []byte, pageURL string, siteHost string) ([]Link, error) {
	doc, err := scanDocument(src, wantLinks|wantBlocks)
	if err != nil {
		return nil, err
	}
	base, _ := url.Parse(pageURL)
	if siteHost == "" && base != nil {
		siteHost = base.Host
	}
	if doc.hasBase {
		if b, err := url.Parse(strings.TrimSpace(doc.baseHref)); err == nil {
			if base != nil {
				b = base.ResolveReference(b)
			}
			base = b
		}
	}
	links := make([]Link, 0, len(doc.anchors))
	for _, a := range doc.anchors {
		l := Link{
			Href:     a.href,
			Text:     string(a.text),
			Position: a.zone.String(),
			MarkerID: a.marker,
			Inserted: a.hasMarker,
			Start:    a.start,
			End:      a.end,
		}
		if a.closeEnd > l.End {
			l.End = a.closeEnd
		}
		if a.para >= 0 {
			l.Paragraph = doc.paras[a.para].index
			l.ContentParagraph = doc.paras[a.para].content
		}
		for _, b := range doc.blocks {
			if b.start <= a.start && a.start < b.end {
				l.InBlock = b.kind
			}
		}
		if a.rel != "" {
			l.Rel = strings.Fields(strings.ToLower(a.rel))
		}
		if a.hasHref {
			l.URL = resolve(base, a.href)
			l.Internal = isInternalHref(a.href, siteHost)
		}
		links = append(links, l)
	}
	return links, nil
}

func resolve(base *url.URL, href string) string {
	ref, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return ""
	}
	if base == nil || !base.IsAbs() {
		return ref.String()
	}
	return base.ResolveReference(ref).String()
}

// Paragraph is one <p> block of a page.
type Paragraph struct {
	Index int // 1-based, counting every <p> start tag
	// Content is its number among the content paragraphs a link may go
	// in, 0 for one outside them (the site's header, nav, aside or
	// footer, hidden text, a template, one that shows no word).
	Content int
	Words   int // visible words inside
	Links   int // <a> elements inside
	Start   int // byte offset of "<p"
	End     int // byte offset where the paragraph closes
}

// Paragraphs reports <p> blocks with word and link counts; WordCount the page's visible words.
func Paragraphs(src []byte) []Paragraph {
	doc, err := scanDocument(src, wantParaWords)
	if err != nil {
		return nil
	}
	ps := make([]Paragraph, len(doc.paras))
	for i := range doc.paras {
		ps[i] = doc.paragraphOf(i)
	}
	return ps
}

// WordCount counts the visible words of a page's content: text outside
// script, style, template, noscript and the head, outside the site's
// header, navigation, asides and footer, and outside the blocks we
// generate. A character of a no-space script counts as one word. The
// density table sizes a page by its author's text, as it counts the links
// in that text alone: a page sent whole, with a menu and footer of 300
// words, is the same length as its article sent alone, and a page
// published with our Related Reading and breadcrumb the same length as the
// page we linked.
func WordCount(src []byte) int {
	doc, err := scanDocument(src, wantWords|wantBlocks)
	if err != nil {
		return 0
	}
	return doc.words
}
