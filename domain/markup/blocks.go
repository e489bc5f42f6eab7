package markup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html/atom"
)

// Block kinds, written as the BlockMarkerAttr value of each block's root.
const (
	BlockRelatedArticles  = "related-articles"
	BlockRelatedReading   = "related-reading"
	BlockBreadcrumb       = "breadcrumb"
	BlockBreadcrumbJSONLD = "breadcrumb-jsonld"
)

// Related Reading sizes from the seeds: an article ends with 2 to 3 links.
const (
	MinRelatedReading = 2
	MaxRelatedReading = 3
)

// BlockLink is one entry of a generated block.
type BlockLink struct {
	Title string // link text, plain text (escaped on output)
	Href  string // absolute path or URL on the site's host
}

// BlockMarkup is how a site wants its generated blocks written. The zero
// value gives <section><h2>Heading</h2><ul><li><a>…</a></li></ul></section>.
type BlockMarkup struct {
	Container  string // section (default), aside, div, nav or footer
	Class      string // class of the container
	Heading    string // heading text; the block's default when empty, none when "-"
	HeadingTag string // h2 (default) to h6, p or strong
	List       string // ul (default) or ol
	AriaLabel  string // aria-label of the container
	// LinkAttributes go on every <a> of the block, validated like
	// Options.Attributes.
	LinkAttributes map[string]string
}

var (
	containerTags = map[string]bool{"section": true, "aside": true, "div": true, "nav": true, "footer": true}
	headingTags   = map[string]bool{"h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "p": true, "strong": true}
	listTags      = map[string]bool{"ul": true, "ol": true}
)

func (m BlockMarkup) withDefaults(heading string) (BlockMarkup, error) {
	if m.Container == "" {
		m.Container = "section"
	}
	if m.HeadingTag == "" {
		m.HeadingTag = "h2"
	}
	if m.List == "" {
		m.List = "ul"
	}
	switch m.Heading {
	case "":
		m.Heading = heading
	case "-":
		m.Heading = ""
	}
	if !containerTags[m.Container] || !headingTags[m.HeadingTag] || !listTags[m.List] {
		return m, fmt.Errorf("%w: block markup %s/%s/%s not allowed", ErrBadRequest, m.Container, m.HeadingTag, m.List)
	}
	return m, nil
}

// RelatedArticles writes a hub's "Related Articles" block: a link to every
// supporting article of the cluster, in the order given.
func RelatedArticles(links []BlockLink, m BlockMarkup, siteHost string) (string, error) {
	if len(links) == 0 {
		return "", fmt.Errorf("%w: related articles need at least one link", ErrBadRequest)
	}
	return linkBlock(BlockRelatedArticles, "Related Articles", links, m, siteHost)
}

// RelatedReading writes the "Related Reading" block that ends an article:
// MinRelatedReading to MaxRelatedReading links.
func RelatedReading(links []BlockLink, m BlockMarkup, siteHost string) (string, error) {
	if len(links) < MinRelatedReading || len(links) > MaxRelatedReading {
		return "", fmt.Errorf("%w: related reading takes %d to %d links, got %d",
			ErrBadRequest, MinRelatedReading, MaxRelatedReading, len(links))
	}
	return linkBlock(BlockRelatedReading, "Related Reading", links, m, siteHost)
}

func linkBlock(kind, heading string, links []BlockLink, m BlockMarkup, siteHost string) (string, error) {
	m, err := m.withDefaults(heading)
	if err != nil {
		return "", err
	}
	attrs, err := renderAttrs(m.LinkAttributes)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	openContainer(&b, m, kind)
	if m.Heading != "" {
		b.WriteString("\n<" + m.HeadingTag + ">" + escapeText(m.Heading) + "</" + m.HeadingTag + ">")
	}
	b.WriteString("\n<" + m.List + ">")
	for _, l := range links {
		if err := checkHref(l.Href, siteHost); err != nil {
			return "", err
		}
		if strings.TrimSpace(l.Title) == "" {
			return "", fmt.Errorf("%w: link to %q has no title", ErrBadRequest, l.Href)
		}
		b.WriteString("\n<li><a href=\"" + escapeAttr(l.Href) + "\"" + attrs + ">" + escapeText(l.Title) + "</a></li>")
	}
	b.WriteString("\n</" + m.List + ">\n</" + m.Container + ">")
	return b.String(), nil
}

func openContainer(b *strings.Builder, m BlockMarkup, kind string) {
	b.WriteString("<" + m.Container)
	if m.Class != "" {
		b.WriteString(` class="` + escapeAttr(m.Class) + `"`)
	}
	if m.AriaLabel != "" {
		b.WriteString(` aria-label="` + escapeAttr(m.AriaLabel) + `"`)
	}
	b.WriteString(" " + BlockMarkerAttr + `="` + kind + `">`)
}

// Crumb is one step of a breadcrumb trail.
type Crumb struct {
	Name string // plain text
	URL  string // absolute path or URL on the site; the last crumb may leave it empty
}

// BreadcrumbTrail builds Home → Sector → [Attribute] → Hub → Page, leaving
// out the steps a page does not have (a crumb with no name).
func BreadcrumbTrail(home, sector, attribute, hub, page Crumb) []Crumb {
	var trail []Crumb
	for _, c := range []Crumb{home, sector, attribute, hub, page} {
		if strings.TrimSpace(c.Name) != "" {
			trail = append(trail, c)
		}
	}
	return trail
}

// Breadcrumbs writes a trail twice: as a <nav aria-label> with an ordered
// list, the last crumb marked aria-current and not linked, and as
// schema.org BreadcrumbList JSON-LD with absolute URLs on siteURL
// ("https://www.example.com"). Both carry BlockMarkerAttr, so stripping
// removes them.
func Breadcrumbs(trail []Crumb, m BlockMarkup, siteURL string) (nav, jsonLD string, err error) {
	if len(trail) == 0 {
		return "", "", fmt.Errorf("%w: empty breadcrumb trail", ErrBadRequest)
	}
	base, err := url.Parse(siteURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return "", "", fmt.Errorf("%w: site URL %q", ErrUnsafeHref, siteURL)
	}
	if m.Container == "" {
		m.Container = "nav"
	}
	if m.List == "" {
		m.List = "ol"
	}
	if m.AriaLabel == "" {
		m.AriaLabel = "Breadcrumb"
	}
	if m.Heading == "" {
		m.Heading = "-"
	}
	m, err = m.withDefaults("")
	if err != nil {
		return "", "", err
	}
	attrs, err := renderAttrs(m.LinkAttributes)
	if err != nil {
		return "", "", err
	}
	type listItem struct {
		Type     string `json:"@type"`
		Position int    `json:"position"`
		Name     string `json:"name"`
		Item     string `json:"item,omitempty"`
	}
	ld := struct {
		Context string     `json:"@context"`
		Type    string     `json:"@type"`
		Items   []listItem `json:"itemListElement"`
	}{Context: "https://schema.org", Type: "BreadcrumbList"}

	var b strings.Builder
	openContainer(&b, m, BlockBreadcrumb)
	if m.Heading != "" {
		b.WriteString("<" + m.HeadingTag + ">" + escapeText(m.Heading) + "</" + m.HeadingTag + ">")
	}
	b.WriteString("<" + m.List + ">")
	for i, c := range trail {
		if strings.TrimSpace(c.Name) == "" {
			return "", "", fmt.Errorf("%w: crumb %d has no name", ErrBadRequest, i+1)
		}
		last := i == len(trail)-1
		item := listItem{Type: "ListItem", Position: i + 1, Name: c.Name}
		if c.URL == "" && !last {
			return "", "", fmt.Errorf("%w: crumb %q has no URL", ErrBadRequest, c.Name)
		}
		if c.URL != "" {
			if err := checkHref(c.URL, base.Host); err != nil {
				return "", "", err
			}
			ref, _ := url.Parse(c.URL)
			item.Item = base.ResolveReference(ref).String()
		}
		ld.Items = append(ld.Items, item)
		if last {
			b.WriteString(`<li aria-current="page">` + escapeText(c.Name) + "</li>")
			continue
		}
		b.WriteString(`<li><a href="` + escapeAttr(c.URL) + `"` + attrs + ">" + escapeText(c.Name) + "</a></li>")
	}
	b.WriteString("</" + m.List + "></" + m.Container + ">")

	// json.Marshal escapes <, > and & as \u003c..., so no name can close
	// the script element early.
	data, err := json.Marshal(ld)
	if err != nil {
		return "", "", err
	}
	jsonLD = `<script type="application/ld+json" ` + BlockMarkerAttr + `="` + BlockBreadcrumbJSONLD + `">` + string(data) + "</script>"
	return b.String(), jsonLD, nil
}

// BlockPosition says where InsertBlock puts a block.
type BlockPosition int

const (
	// BlockAtEnd puts the block at the end of the page's one <article>,
	// else of <main>, else before the site's footer (a <footer> outside
	// any article, after the last content paragraph), else at the end of
	// <body>, else of the document: where Related Reading goes.
	BlockAtEnd BlockPosition = iota
	// BlockAtStart puts the block at the start of <main>, else of the
	// page's one <article>, else (in a whole document) after the site's
	// header and navigation that come before the content, else at the
	// start of <body>, else of the document, after a byte order mark:
	// where breadcrumbs go.
	BlockAtStart
)

// InsertBlock splices a generated block into a page; StripInserted takes it
// out again, byte for byte. The block must be one element carrying
// BlockMarkerAttr, as the generators write it; a page that already holds a
// block of the same kind is refused, so running twice never duplicates one.
// In a page written with CRLF line ends the block's lines end so too.
func InsertBlock(src []byte, block string, at BlockPosition) ([]byte, error) {
	b, err := scanDocument([]byte(block), wantBlocks)
	if err != nil {
		return nil, err
	}
	if len(b.blocks) != 1 || b.blocks[0].start != 0 || b.blocks[0].end != len(block) {
		return nil, fmt.Errorf("%w: a block must be one element carrying %s", ErrBadRequest, BlockMarkerAttr)
	}
	doc, err := scanDocument(src, wantBlocks)
	if err != nil {
		return nil, err
	}
	for _, have := range doc.blocks {
		if have.kind == b.blocks[0].kind {
			return nil, fmt.Errorf("%w: the page already has a %q block", ErrBadRequest, have.kind)
		}
	}
	if bytes.Contains(src, []byte("\r\n")) {
		block = strings.ReplaceAll(block, "\n", "\r\n")
	}
	off := doc.landmarks.insertionPoint(at, len(src))
	if off == 0 && bytes.HasPrefix(src, utf8BOM) {
		off = len(utf8BOM) // the mark must stay the first bytes
	}
	out := make([]byte, 0, len(src)+len(block))
	out = append(out, src[:off]...)
	out = append(out, block...)
	return append(out, src[off:]...), nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// landmarks are where blocks can go: the inner start and end of the page's
// top-level <article> elements, of the first <main> and of <body>; where
// the site's header and navigation before the content end and where its
// footer after the content starts. -1 when absent.
type landmarks struct {
	articleStart, articleEnd int
	mainStart, mainEnd       int
	bodyStart, bodyEnd       int
	// articles counts the top-level <article> elements of the content:
	// several are cards or teasers, not the page's article, and hold no
	// block. One in a box of posts, a sidebar or the comments is no
	// content (a German trial's Astra posts, whose related posts and
	// comments are <article>s, had their Related Reading put after the
	// comments); open says of each open <article> whether it counts.
	articles, articleDepth int
	open                   []bool
	chromeEnd              int
	footerStart            int
	// footerAfter is how many content paragraphs came before footerStart,
	// of contentParas in all: a paragraph after it makes it a footer
	// inside the content.
	footerAfter, contentParas int
	// tailStart is where the first box that is no content (an author box,
	// share buttons, the post's footer, its comments) starts after the
	// last content paragraph, in an element holding that paragraph;
	// tailAfter is how many content paragraphs came before it. A block
	// at the end goes there, not after the boxes: a recipe trial's
	// Related Articles came after the author's bio.
	tailStart, tailAfter int
}

func newLandmarks() landmarks {
	return landmarks{articleStart: -1, articleEnd: -1, mainStart: -1, mainEnd: -1, bodyStart: -1, bodyEnd: -1,
		chromeEnd: -1, footerStart: -1, tailStart: -1}
}

func (l *landmarks) start(a atom.Atom, end int, inContent bool) {
	switch a {
	case atom.Article:
		l.open = append(l.open, inContent)
		if !inContent {
			return
		}
		if l.articleDepth == 0 {
			l.articles++
			if l.articleStart < 0 {
				l.articleStart = end
			}
		}
		l.articleDepth++
	case atom.Main:
		if l.mainStart < 0 {
			l.mainStart = end
		}
	case atom.Body:
		if l.bodyStart < 0 {
			l.bodyStart = end
		}
	}
}

func (l *landmarks) end(a atom.Atom, start int) {
	switch a {
	case atom.Article:
		n := len(l.open)
		if n == 0 {
			return
		}
		counted := l.open[n-1]
		l.open = l.open[:n-1]
		if counted && l.articleDepth > 0 {
			if l.articleDepth--; l.articleDepth == 0 {
				l.articleEnd = start
			}
		}
	case atom.Main:
		l.mainEnd = start
	case atom.Body:
		l.bodyEnd = start
	}
}

// chrome notes the end of a site header or navigation element; it counts
// only before the first content paragraph.
func (l *landmarks) chrome(end, contentParas int) {
	if contentParas == 0 {
		l.chromeEnd = end
	}
}

// tail notes the start of a box that is no content after contentParas
// content paragraphs, in an element holding the last of them; the first
// after the last paragraph is kept.
func (l *landmarks) tail(start, contentParas int) {
	if l.tailStart < 0 || contentParas > l.tailAfter {
		l.tailStart, l.tailAfter = start, contentParas
	}
}

// contentAfterTail notes content that is no paragraph (a table, a list, a
// figure) after the box tail noted: the box is inside the content, not
// after it, and the next box after the content is the tail. A recipe
// trial's notes <aside> came before its timings <table>, and Related
// Reading went between them.
func (l *landmarks) contentAfterTail(contentParas int) {
	if l.tailStart >= 0 && l.tailAfter == contentParas {
		l.tailStart = -1
	}
}

// footer notes the start of a <footer> outside any article, after
// contentParas content paragraphs.
func (l *landmarks) footer(start, contentParas int) {
	if contentParas > 0 && (l.footerStart < 0 || contentParas > l.footerAfter) {
		l.footerStart, l.footerAfter = start, contentParas
	}
}

func (l landmarks) insertionPoint(at BlockPosition, size int) int {
	first := func(offs ...int) int {
		for _, o := range offs {
			if o >= 0 {
				return o
			}
		}
		return -1
	}
	articleStart, articleEnd := -1, -1
	if l.articles == 1 {
		articleStart, articleEnd = l.articleStart, l.articleEnd
	}
	if at == BlockAtStart {
		chromeEnd := -1
		if l.bodyStart >= 0 {
			chromeEnd = l.chromeEnd
		}
		if o := first(l.mainStart, articleStart, chromeEnd, l.bodyStart); o >= 0 {
			return o
		}
		return 0
	}
	footerStart := -1
	if l.footerAfter == l.contentParas {
		footerStart = l.footerStart
	}
	end, start := size, 0
	for _, c := range [][2]int{{articleEnd, articleStart}, {l.mainEnd, l.mainStart}, {footerStart, l.bodyStart}, {l.bodyEnd, l.bodyStart}} {
		if c[0] >= 0 {
			end, start = c[0], c[1]
			break
		}
	}
	if l.tailStart >= 0 && l.tailAfter == l.contentParas && l.tailStart > start && l.tailStart < end {
		return l.tailStart
	}
	return end
}
