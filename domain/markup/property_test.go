package markup

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
)

// htmlGen writes random, often broken, HTML from pieces chosen to stress the
// scanner: every excluded element, misnested and unclosed formatting,
// tables, foreign content, entities and raw text.
type htmlGen struct {
	r *rand.Rand
	b strings.Builder
}

var genWords = []string{"trail", "map", "running", "shoes", "boots", "hiking", "Trail", "MAP", "shoe",
	"run", "runs", "café", "ботинки", "登山鞋", "&amp;", "&nbsp;", "&#116;rail", "ma&#x70;", "x", "the", "and",
	"\n", "  ", "&", "<", "a&b", "&eacute;", "日本", "Σ", "ς"}

var genTags = []string{"p", "p", "p", "p", "b", "i", "em", "strong", "span", "a", "a", "h2", "li", "ul", "div",
	"script", "style", "template", "textarea", "title", "code", "pre", "button", "select", "option", "svg",
	"math", "noscript", "iframe", "table", "tr", "td", "blockquote", "nav", "footer", "section", "br", "img",
	"kbd", "font", "xmp", "plaintext", "head", "body", "html", "label", "object", "caption", "foreignObject",
	"desc", "frameset", "form", "nobr", "marquee", "my-el"}

func (g *htmlGen) words(n int) {
	for i := 0; i < n; i++ {
		if i > 0 && g.r.IntN(4) > 0 {
			g.b.WriteByte(' ')
		}
		g.b.WriteString(genWords[g.r.IntN(len(genWords))])
	}
}

// article writes mostly well-formed paragraphs with inline markup, links
// and the odd piece of junk, so that placement happens often.
func (g *htmlGen) article(n int) string {
	g.b.Reset()
	inline := []string{"b", "em", "span", "strong", "code", "a href=/o/", "i"}
	for i := 0; i < n; i++ {
		switch g.r.IntN(8) {
		case 0:
			g.b.WriteString("<h2>")
			g.words(3)
			g.b.WriteString("</h2>")
		case 1:
			g.b.WriteString("<ul><li>")
			g.words(3)
			g.b.WriteString("</ul>")
		case 2:
			g.b.WriteString("<" + genTags[g.r.IntN(len(genTags))] + ">")
		default:
			g.b.WriteString("<p>")
			for k := g.r.IntN(4); k >= 0; k-- {
				g.words(1 + g.r.IntN(8))
				if g.r.IntN(3) == 0 {
					t := inline[g.r.IntN(len(inline))]
					g.b.WriteString("<" + t + ">")
					g.words(1 + g.r.IntN(3))
					g.b.WriteString("</" + strings.Fields(t)[0] + "> ")
				}
			}
			if g.r.IntN(4) > 0 {
				g.b.WriteString("</p>")
			}
		}
	}
	return g.b.String()
}

func (g *htmlGen) doc(n int) string {
	g.b.Reset()
	if g.r.IntN(3) == 0 {
		g.b.WriteString("<!DOCTYPE html>")
	}
	for i := 0; i < n; i++ {
		switch g.r.IntN(10) {
		case 0, 1, 2, 3:
			g.words(1 + g.r.IntN(6))
		case 4, 5, 6:
			tag := genTags[g.r.IntN(len(genTags))]
			if g.r.IntN(4) == 0 {
				tag = strings.ToUpper(tag)
			}
			g.b.WriteString("<" + tag)
			switch g.r.IntN(6) {
			case 0:
				g.b.WriteString(` href="/x/"`)
			case 1:
				g.b.WriteString(` title='trail map'`)
			case 2:
				g.b.WriteString(" " + MarkerAttr + "=z")
			}
			if g.r.IntN(8) == 0 {
				g.b.WriteString("/")
			}
			g.b.WriteString(">")
		case 7, 8:
			g.b.WriteString("</" + genTags[g.r.IntN(len(genTags))] + ">")
		case 9:
			switch g.r.IntN(5) {
			case 0:
				g.b.WriteString("<!-- trail map -->")
			case 1:
				g.b.WriteString("<![CDATA[ trail map ]]>")
			case 2:
				g.b.WriteString("<p>trail map</p>")
			case 3:
				g.b.WriteString("< p>")
			case 4:
				g.b.WriteString("</>")
			}
		}
	}
	return g.b.String()
}

var propAnchors = [][]string{
	{"trail map"}, {"running shoes", "shoe"}, {"hiking boots", "boots"}, {"café"}, {"登山鞋"}, {"ботинки"},
	{"the"}, {"x"}, {"a&b"}, {"σ"}, {"trail"}, {"map"},
}

func randomRequests(r *rand.Rand) []LinkRequest {
	n := 1 + r.IntN(5)
	reqs := make([]LinkRequest, n)
	for i := range reqs {
		reqs[i] = LinkRequest{
			ID:      string(rune('a' + i)),
			Href:    "/t" + string(rune('a'+i)) + "/",
			Anchors: propAnchors[r.IntN(len(propAnchors))],
		}
		switch r.IntN(4) {
		case 0:
			reqs[i].Position.FirstParagraphs = 1 + r.IntN(3)
		case 1:
			reqs[i].Position.EndOfArticle = true
		}
	}
	return reqs
}

var (
	propIterations = flag.Int("prop.iterations", 4000, "random pages for the property tests")
	propSeed       = flag.Uint64("prop.seed", 1, "seed for the property tests")
)

func TestPropertyPlaceOnRandomHTML(t *testing.T) {
	iterations := *propIterations
	if testing.Short() {
		iterations /= 10
	}
	r := rand.New(rand.NewPCG(*propSeed, 2))
	g := &htmlGen{r: r}
	placed, placedCertain := 0, 0
	for i := 0; i < iterations; i++ {
		src := g.doc(5 + r.IntN(40))
		if i%2 == 0 {
			src = g.article(3 + r.IntN(12))
		}
		reqs := randomRequests(r)
		opts := Options{MinWordsBetweenLinks: []int{-1, 0, 3}[r.IntN(3)], MaxLinksPerParagraph: r.IntN(3)}
		out, pls, err := Place([]byte(src), reqs, opts)
		if err != nil {
			t.Fatalf("Place(%q): %v", src, err)
		}
		if s, _ := StripInserted([]byte(src)); !bytes.Equal(s, []byte(src)) {
			continue // the page carries markers of its own; round trip is not promised
		}
		if msg := checkPlacement([]byte(src), out, pls); msg != "" {
			t.Fatalf("iteration %d: %s", i, msg)
		}
		doc, _ := scanDocument([]byte(src), wantFold)
		for _, p := range pls {
			if p.Placed {
				placed++
				if !doc.uncertain {
					placedCertain++
				}
			}
		}
		// Reading functions never fail on what Place accepted.
		if _, err := Links(out, "https://www.site.example/a/", ""); err != nil {
			t.Fatal(err)
		}
		_ = Paragraphs(out)
	}
	if placed < iterations/2 {
		t.Fatalf("only %d links placed in %d pages: the generator is not exercising placement", placed, iterations)
	}
	t.Logf("%d links placed in %d random pages, %d of them without the parser's check", placed, iterations, placedCertain)
}
