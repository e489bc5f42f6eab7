package markup

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// benchPage builds a realistic article of about 100 KB: site chrome, then
// paragraphs with inline markup, existing links, headings, lists, code and
// an inline SVG icon now and then.
var benchPage = sync.OnceValue(func() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Trail guide</title>` +
		`<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script>` +
		`<style>.entry p{margin:0 0 1em}</style></head><body><header><nav aria-label="Primary"><ul>` +
		`<li><a href="/running/">Running</a></li><li><a href="/hiking/">Hiking</a></li></ul></nav></header>` +
		"<main><article><h1>The complete trail guide</h1>\n")
	topics := []string{"trail running shoes", "hiking boots", "merino socks", "rain jackets", "trekking poles",
		"offline maps", "water filters", "headlamps"}
	for i := 0; b.Len() < 100_000; i++ {
		t := topics[i%len(topics)]
		switch i % 9 {
		case 3:
			fmt.Fprintf(&b, "<h2>About %s</h2>\n", t)
		case 6:
			fmt.Fprintf(&b, "<ul><li>%s</li><li>Care &amp; repair</li></ul>\n", t)
		case 8:
			b.WriteString(`<p>Icon <svg width="12" height="12" aria-hidden="true"><path d="M1 1h10v10H1z"/></svg> and <code>config.toml</code> notes.</p>` + "\n")
		}
		fmt.Fprintf(&b, "<p>Section %d. Choosing %s is mostly about fit, grip and protection; "+
			"road gear feels fast on pavement but slides on loose gravel &amp; wet roots. "+
			"<em>Test</em> them on the terrain you know, and read <a href=\"/guides/%d/\">our notes</a> first. "+
			"Most people&nbsp;keep a pair for years, so a careful choice pays off on every long day outside.</p>\n", i, t, i)
	}
	b.WriteString(`<p>Finally, a word on lightweight trail shoe choices for summer.</p></article></main>` +
		`<footer><p>&copy; 2026 <a href="/about/">About</a></p></footer></body></html>`)
	return []byte(b.String())
})

var benchRequests = []LinkRequest{
	{ID: "up", Href: "/hiking/", Anchors: []string{"hiking boots"}, Position: Position{FirstParagraphs: 2}},
	{ID: "a", Href: "/running/shoes/", Anchors: []string{"trail running shoes"}},
	{ID: "b", Href: "/socks/", Anchors: []string{"merino socks"}},
	{ID: "c", Href: "/summer/", Anchors: []string{"lightweight trail shoes"}, Position: Position{EndOfArticle: true}},
	{ID: "d", Href: "/none/", Anchors: []string{"avalanche transceiver", "snow shovel"}},
}

func tokenizerPass(page []byte) int {
	z := html.NewTokenizer(bytes.NewReader(page))
	n := 0
	for {
		if z.Next() == html.ErrorToken {
			return n
		}
		n += len(z.Raw())
	}
}

// baselineNsPerOp times the bare tokenizer pass once per process, so that
// every benchmark can report its speed relative to it.
var baselineNsPerOp = sync.OnceValue(func() float64 {
	page := benchPage()
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			tokenizerPass(page)
		}
	})
	return float64(r.T.Nanoseconds()) / float64(r.N)
})

func reportVsTokenizer(b *testing.B, size int) {
	base := baselineNsPerOp()
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(size)/base*1e9/1e6, "tokenizer-MB/s")
	b.ReportMetric(base/per, "x-tokenizer")
}

func BenchmarkTokenizer(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if tokenizerPass(page) != len(page) {
			b.Fatal("tokenizer lost bytes")
		}
	}
}

func BenchmarkPlace5Links100KB(b *testing.B) {
	page := benchPage()
	out, pls, err := Place(page, benchRequests, Options{SiteHost: "www.example.com"})
	if err != nil {
		b.Fatal(err)
	}
	placed := 0
	for _, p := range pls {
		if p.Placed {
			placed++
		}
	}
	if placed != 4 || len(out) <= len(page) {
		b.Fatalf("placements %+v", pls)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		Place(page, benchRequests, Options{SiteHost: "www.example.com"})
	}
	reportVsTokenizer(b, len(page))
}

func BenchmarkLinks100KB(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Links(page, "https://www.example.com/guide/", ""); err != nil {
			b.Fatal(err)
		}
	}
	reportVsTokenizer(b, len(page))
}

func BenchmarkStripInserted100KB(b *testing.B) {
	page, _, _ := Place(benchPage(), benchRequests, Options{})
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		StripInserted(page)
	}
	reportVsTokenizer(b, len(page))
}

// BenchmarkGoqueryParseRender is the DOM route for comparison: parse the
// page into a tree and render it back, with no linking work at all.
func BenchmarkGoqueryParseRender100KB(b *testing.B) {
	page := benchPage()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
		if err != nil {
			b.Fatal(err)
		}
		if err := html.Render(io.Discard, doc.Nodes[0]); err != nil {
			b.Fatal(err)
		}
	}
	reportVsTokenizer(b, len(page))
}
