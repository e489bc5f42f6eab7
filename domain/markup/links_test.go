package markup

import (
	"bytes"
	"reflect"
	"testing"
)

func TestLinksExtraction(t *testing.T) {
	src := `<html><body><header><a href="/">Home</a></header>` +
		`<nav><ul><li><a href="/boots/">Boots</a></li></ul></nav>` +
		`<main><p>Read <a href="guide/" rel="NoFollow ugc">the&nbsp;guide</a> and ` +
		`<a href="https://other.example/x">elsewhere</a>.</p>` +
		`<p>More <a href="/x/" data-interlinker="L7">x</a></p></main>` +
		`<aside><a href="https://www.shop.example/sale">Sale</a></aside>` +
		`<div role="contentinfo"><a>no href</a></div>` +
		`<footer><a href="javascript:void(0)">js</a></footer></body></html>`
	links, err := Links([]byte(src), "https://www.shop.example/hiking/page/", "")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		URL, Text, Position string
		Internal            bool
		Paragraph           int
		Rel                 []string
		Marker              string
	}
	var got []row
	for _, l := range links {
		got = append(got, row{l.URL, l.Text, l.Position, l.Internal, l.Paragraph, l.Rel, l.MarkerID})
	}
	want := []row{
		{"https://www.shop.example/", "Home", "header", true, 0, nil, ""},
		{"https://www.shop.example/boots/", "Boots", "navigation", true, 0, nil, ""},
		{"https://www.shop.example/hiking/page/guide/", "the guide", "content", true, 1, []string{"nofollow", "ugc"}, ""},
		{"https://other.example/x", "elsewhere", "content", false, 1, nil, ""},
		{"https://www.shop.example/x/", "x", "content", true, 2, nil, "L7"},
		{"https://www.shop.example/sale", "Sale", "aside", true, 0, nil, ""},
		{"", "no href", "footer", false, 0, nil, ""},
		{"javascript:void(0)", "js", "footer", false, 0, nil, ""},
	}
	if !reflect.DeepEqual(got, want) {
		for i := range got {
			t.Logf("%d %+v", i, got[i])
		}
		t.Fatalf("mismatch")
	}
	if !links[2].Nofollow() || !links[2].UGC() || links[2].Sponsored() {
		t.Fatalf("rel helpers: %+v", links[2])
	}
	if src[links[2].Start:links[2].End] != `<a href="guide/" rel="NoFollow ugc">the&nbsp;guide</a>` {
		t.Fatalf("offsets: %q", src[links[2].Start:links[2].End])
	}
}

func TestParagraphsAndWordCount(t *testing.T) {
	src := `<title>Not counted</title><h1>Big title</h1><p>One two <a href="/x">three</a>.</p>` +
		`<script>var no = "words";</script><p>Four<br>five <b>si</b>x</p><ul><li><p>in list</p></li></ul>` +
		`<p>日本語</p>`
	ps := Paragraphs([]byte(src))
	if len(ps) != 4 {
		t.Fatalf("paragraphs %+v", ps)
	}
	wantWords := []int{3, 3, 2, 3}
	wantLinks := []int{1, 0, 0, 0}
	for i, p := range ps {
		if p.Index != i+1 || p.Words != wantWords[i] || p.Links != wantLinks[i] {
			t.Errorf("paragraph %d: %+v", i+1, p)
		}
	}
	if got := src[ps[0].Start:ps[0].End]; got != `<p>One two <a href="/x">three</a>.</p>` {
		t.Errorf("paragraph 1 bytes %q", got)
	}
	if n := WordCount([]byte(src)); n != 2+3+3+2+3 {
		t.Errorf("WordCount = %d", n)
	}
}

func TestLinksHonourBaseHref(t *testing.T) {
	src := `<head><base href="/docs/v2/"></head><p><a href="intro.html">Intro</a> <a href="/abs">Abs</a></p>`
	links, err := Links([]byte(src), "https://www.site.example/some/page", "")
	if err != nil {
		t.Fatal(err)
	}
	if links[0].URL != "https://www.site.example/docs/v2/intro.html" || links[1].URL != "https://www.site.example/abs" {
		t.Fatalf("links %+v", links)
	}
}

// The density table sizes a page by its author's text, so the blocks we
// write into it (Related Reading, a breadcrumb trail) add no words: a page
// published with them counts as the page we linked.
// A page sent whole is as long as its article: the density table sizes a
// page by the text its in-body links are counted in.
func TestWordCountLeavesOutTheSitesHeaderMenuAsideAndFooter(t *testing.T) {
	article := `<article><h1>Boot care</h1><p>Clean your boots after every walk.</p></article>`
	whole := `<!DOCTYPE html><html><head><title>Boot care | Shop</title></head><body>
<header><a href="/">Shop</a> <p>Free delivery on every order over fifty pounds</p></header>
<nav><ul><li><a href="/boots/">Hiking boots</a></li><li><a href="/tents/">Tents and shelters</a></li></ul></nav>
<main>` + article + `<aside><h3>Popular</h3><p>Our ten most read guides this month</p></aside></main>
<div role="navigation"><a href="/a/">All guides</a></div>
<footer><p>Copyright 2026 Shop Limited, all rights reserved.</p></footer></body></html>`
	if got, want := WordCount([]byte(whole)), WordCount([]byte(article)); got != want || want != 8 {
		t.Errorf("WordCount of the whole page %d, of its article %d (want 8)", got, want)
	}
}

func TestWordCountLeavesOutTheBlocksWeGenerate(t *testing.T) {
	page := []byte(`<article><h1>Boot care</h1><p>Clean your boots after every walk.</p></article>`)
	reading, err := RelatedReading([]BlockLink{{Title: "Waxing leather boots", Href: "/boots/wax/"}, {Title: "Drying wet boots", Href: "/boots/dry/"}}, BlockMarkup{}, "")
	if err != nil {
		t.Fatal(err)
	}
	nav, _, err := Breadcrumbs([]Crumb{{Name: "Home", URL: "/"}, {Name: "Boots", URL: "/boots/"}, {Name: "Boot care"}}, BlockMarkup{}, "https://shop.example")
	if err != nil {
		t.Fatal(err)
	}
	linked, err := InsertBlock(page, reading, BlockAtEnd)
	if err != nil {
		t.Fatal(err)
	}
	if linked, err = InsertBlock(linked, nav, BlockAtStart); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(linked, []byte("Waxing leather boots")) || !bytes.Contains(linked, []byte(">Boots<")) {
		t.Fatalf("blocks not written: %s", linked)
	}
	if got, want := WordCount(linked), WordCount(page); got != want || want != 8 {
		t.Errorf("WordCount with our blocks %d, without %d (want 8)", got, want)
	}
}

func TestALinkWhoseHrefIsABareFragmentJumpsWithinThePage(t *testing.T) {
	found, err := Links([]byte(`<p><a href="#step-2">Step 2</a> <a href=" #top">Top</a> <a href="#">Menu</a>
<a href="/guide/#step-2">The guide's step 2</a> <a href="https://shop.example/#deals">Deals</a> <a href="">Here</a> <a>None</a></p>`),
		"https://shop.example/page/", "shop.example")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Step 2": true, "Top": true, "Menu": true, "The guide's step 2": false, "Deals": false, "Here": false, "None": false}
	for _, l := range found {
		if got := l.JumpsWithinPage(); got != want[l.Text] {
			t.Errorf("%q (href %q): JumpsWithinPage = %v, want %v", l.Text, l.Href, got, want[l.Text])
		}
	}
	if len(found) != len(want) {
		t.Errorf("found %d links, want %d", len(found), len(want))
	}
}
