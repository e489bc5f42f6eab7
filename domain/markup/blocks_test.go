package markup

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestRelatedArticlesBlock(t *testing.T) {
	got, err := RelatedArticles([]BlockLink{
		{Title: "Boots & <Socks>", Href: "/hiking/boots/"},
		{Title: "Tents", Href: "https://www.shop.example/camping/tents/?a=1&b=2"},
	}, BlockMarkup{Class: `related "x"`, LinkAttributes: map[string]string{"class": "rel"}}, "www.shop.example")
	if err != nil {
		t.Fatal(err)
	}
	want := `<section class="related &#34;x&#34;" data-interlinker-block="related-articles">
<h2>Related Articles</h2>
<ul>
<li><a href="/hiking/boots/" class="rel">Boots &amp; &lt;Socks&gt;</a></li>
<li><a href="https://www.shop.example/camping/tents/?a=1&amp;b=2" class="rel">Tents</a></li>
</ul>
</section>`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := RelatedArticles([]BlockLink{{Title: "x", Href: "javascript:alert(1)"}}, BlockMarkup{}, ""); !errors.Is(err, ErrUnsafeHref) {
		t.Fatalf("unsafe href: %v", err)
	}
	if _, err := RelatedArticles([]BlockLink{{Title: "x", Href: "/x"}}, BlockMarkup{Container: "script"}, ""); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("bad container: %v", err)
	}
}

func TestRelatedReadingBlockSizes(t *testing.T) {
	links := []BlockLink{{"A", "/a/"}, {"B", "/b/"}, {"C", "/c/"}, {"D", "/d/"}}
	for n := 0; n <= 4; n++ {
		_, err := RelatedReading(links[:n], BlockMarkup{}, "")
		if ok := n >= MinRelatedReading && n <= MaxRelatedReading; ok != (err == nil) {
			t.Errorf("%d links: err %v", n, err)
		}
	}
	got, err := RelatedReading(links[:2], BlockMarkup{Container: "aside", HeadingTag: "h3", Heading: "Read next", List: "ol"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, `<aside data-interlinker-block="related-reading">`+"\n<h3>Read next</h3>\n<ol>") {
		t.Fatalf("got %s", got)
	}
}

func TestBreadcrumbs(t *testing.T) {
	trail := BreadcrumbTrail(Crumb{"Home", "/"}, Crumb{"Hiking", "/hiking/"}, Crumb{}, Crumb{"Boots", "/hiking/boots/"},
		Crumb{Name: `Men's "Trail" </script> boots`})
	nav, ld, err := Breadcrumbs(trail, BlockMarkup{}, "https://www.shop.example")
	if err != nil {
		t.Fatal(err)
	}
	wantNav := `<nav aria-label="Breadcrumb" data-interlinker-block="breadcrumb"><ol>` +
		`<li><a href="/">Home</a></li><li><a href="/hiking/">Hiking</a></li><li><a href="/hiking/boots/">Boots</a></li>` +
		`<li aria-current="page">Men&#39;s &#34;Trail&#34; &lt;/script&gt; boots</li></ol></nav>`
	if nav != wantNav {
		t.Fatalf("nav\n%s\nwant\n%s", nav, wantNav)
	}
	wantLD := `<script type="application/ld+json" data-interlinker-block="breadcrumb-jsonld">` +
		`{"@context":"https://schema.org","@type":"BreadcrumbList","itemListElement":[` +
		`{"@type":"ListItem","position":1,"name":"Home","item":"https://www.shop.example/"},` +
		`{"@type":"ListItem","position":2,"name":"Hiking","item":"https://www.shop.example/hiking/"},` +
		`{"@type":"ListItem","position":3,"name":"Boots","item":"https://www.shop.example/hiking/boots/"},` +
		`{"@type":"ListItem","position":4,"name":"Men's \"Trail\" \u003c/script\u003e boots"}]}</script>`
	if ld != wantLD {
		t.Fatalf("json-ld\n%s\nwant\n%s", ld, wantLD)
	}
	if _, _, err := Breadcrumbs([]Crumb{{"Evil", "https://evil.example/"}, {"x", ""}}, BlockMarkup{}, "https://www.shop.example"); !errors.Is(err, ErrUnsafeHref) {
		t.Fatalf("foreign crumb: %v", err)
	}
}

func TestInsertBlockAndStrip(t *testing.T) {
	pages := map[string]struct {
		src        string
		start, end string // the text just before each inserted block
	}{
		"fragment": {"<p>Body text.</p>", "", "<p>Body text.</p>"},
		"article":  {"<html><body><header>h</header><main><article><h1>T</h1><p>x</p></article><aside>a</aside></main></body></html>", "<main>", "<p>x</p>"},
		"body":     {"<!DOCTYPE html><html><body class=x><p>x</p>\n</body></html>", "<body class=x>", "\n"},
		// Several articles are cards, not the page's article.
		"cards": {"<p>Intro.</p><article class=card><h3>A</h3><p>a</p></article><article class=card><h3>B</h3><p>b</p></article><p>Closing.</p>",
			"", "<p>Closing.</p>"},
		"cards in main": {"<body><main><p>x</p><article><p>a</p></article><article><p>b</p></article></main></body>", "<main>", "<p>b</p></article>"},
		// Comments nested in the page's article leave it the one.
		"nested comments": {"<article><h1>T</h1><p>x</p><section><article class=comment><p>c</p></article></section></article><p>after</p>",
			"<article>", "</section>"},
		// Related posts and comments written as <article>s after the
		// page's article (Astra) leave it the one (a German trial's
		// Related Reading went after the comments).
		"related posts and comments after it": {"<main><article class=post><p>x</p></article>" +
			"<div class=ast-single-related-posts-container><article class=ast-related-post><p>r</p></article><article class=ast-related-post><p>s</p></article></div>" +
			"<div id=comments class=comments-area><ol><li><article class=comment-body><p>c</p></article></li></ol></div></main>",
			"<main>", "<p>x</p>"},
		// Without main or article, the blocks go between the site's
		// header and footer, not around them.
		"site chrome": {"<!DOCTYPE html><html><body><header><nav><a href=/>Home</a></nav></header><div id=content><h1>T</h1><p>x</p></div><footer><p>f</p></footer><script src=/x.js></script></body></html>",
			"</header>", "</div>"},
		"footer inside content": {"<html><body><div><p>x</p><footer>meta</footer><p>more</p></div></body></html>", "<body>", "</div>"},
		// The end block follows the post's last paragraph, before the
		// boxes after it in its article (a recipe trial's Related
		// Articles came after the author's bio), whatever holds them.
		"boxes after the content": {"<main><article class=post><div class=entry-content><p>x</p><ul><li>y</li></ul></div>" +
			"<footer class=entry-footer>Tags</footer><div class=author-box><p>bio</p></div>" +
			"<nav class=post-navigation><a href=/p/>Previous</a></nav><div id=comments class=comments-area><p>c</p></div></article></main>",
			"<main>", "<li>y</li></ul></div>"},
		"author box in the content": {"<article><div class=entry-content><p>x</p><div class=saboxplugin-wrap><p>bio</p></div></div></article>",
			"<article>", "<p>x</p>"},
		"sidebar before the footer": {"<body><header>h</header><div id=content><p>x</p></div><aside class=sidebar><p>s</p></aside><footer><p>f</p></footer></body>",
			"</header>", "<p>x</p></div>"},
		// A block theme's comments and Jetpack's share bar (an electronics
		// trial's Twenty Twenty-Four probe had the section after the
		// comments, whose paragraph read as the post's).
		"block theme": {"<main><div class=\"entry-content wp-block-post-content\"><p>x</p><div class=\"sharedaddy sd-sharing-enabled\"><h3>Share this:</h3><ul><li><a href=/s>Share</a></li></ul></div></div>" +
			"<nav aria-label=\"Post navigation\"><a href=/p/>Previous</a></nav><div class=wp-block-comments><ol class=wp-block-comment-template><li class=comment><div class=wp-block-comment-content><p>Nice.</p></div></li></ol></div></main>",
			"<main>", "<p>x</p>"},
		// A box the post goes on after, or one nested in another element
		// than those holding its last paragraph, is no end of it.
		"box between paragraphs":      {"<article><p>x</p><aside class=pullquote>q</aside><p>y</p></article>", "<article>", "<p>y</p>"},
		"box in a section of its own": {"<article><p>x</p><section><div class=author-box>bio</div></section></article>", "<article>", "</section>"},
		// Content that is no paragraph after a box makes it a box inside
		// the content (a recipe trial's Related Reading went between its
		// notes <aside> and its timings <table>); a box after that content
		// is the end.
		"table after a box": {"<p>Intro.</p><ol><li>Mix.</li></ol><aside class=\"recipe-notes\"><p>Note.</p></aside><table><tr><td>20 min</td></tr></table>",
			"", "</table>"},
		"table after a box, then an author box": {"<article><p>Intro.</p><aside class=\"recipe-notes\"><p>Note.</p></aside><table><tr><td>20 min</td></tr></table>" +
			"<div class=author-box><p>bio</p></div></article>", "<article>", "</table>"},
	}
	nav, ld, err := Breadcrumbs([]Crumb{{"Home", "/"}, {"Page", ""}}, BlockMarkup{}, "https://www.shop.example")
	if err != nil {
		t.Fatal(err)
	}
	reading, err := RelatedReading([]BlockLink{{"A", "/a/"}, {"B", "/b/"}}, BlockMarkup{}, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, pg := range pages {
		t.Run(name, func(t *testing.T) {
			out, err := InsertBlock([]byte(pg.src), reading, BlockAtEnd)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(out, []byte(pg.end+reading)) {
				t.Fatalf("related reading misplaced: %s", out)
			}
			if _, err := InsertBlock(out, nav+ld, BlockAtStart); err == nil {
				t.Fatal("two elements accepted as one block")
			}
			if out, err = InsertBlock(out, ld, BlockAtStart); err != nil {
				t.Fatal(err)
			}
			if out, err = InsertBlock(out, nav, BlockAtStart); err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(out, []byte(pg.start+nav+ld)) || pg.start == "" && !bytes.HasPrefix(out, []byte(nav)) {
				t.Fatalf("breadcrumbs misplaced: %s", out)
			}
			if _, err := InsertBlock(out, nav, BlockAtStart); !errors.Is(err, ErrBadRequest) {
				t.Fatalf("second breadcrumb: %v", err)
			}
			links, err := Links(out, "https://www.shop.example/p/", "")
			if err != nil {
				t.Fatal(err)
			}
			blocks := map[string]int{}
			for _, l := range links {
				blocks[l.InBlock]++
			}
			if blocks[BlockBreadcrumb] != 1 || blocks[BlockRelatedReading] != 2 {
				t.Fatalf("links by block %v", blocks)
			}
			back, err := StripInserted(out)
			if err != nil || string(back) != pg.src {
				t.Fatalf("strip: %v\n%s", err, back)
			}
		})
	}
}

// A block keeps a page's byte order mark first and its CRLF line ends.
func TestInsertBlockKeepsByteOrderMarkAndLineEnds(t *testing.T) {
	reading, err := RelatedReading([]BlockLink{{Title: "A", Href: "/a/"}, {Title: "B", Href: "/b/"}}, BlockMarkup{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reading, "\n") {
		t.Fatalf("the block has no line to end: %q", reading)
	}
	src := "\xef\xbb\xbf<p>Line one.</p>\r\n<p>Line two.</p>\r\n"
	out, err := InsertBlock([]byte(src), reading, BlockAtStart)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte("\xef\xbb\xbf<")) {
		t.Errorf("the block went before the byte order mark: %q", out)
	}
	if bare := bytes.Count(out, []byte("\n")) - bytes.Count(out, []byte("\r\n")); bare != 0 {
		t.Errorf("%d bare LF in a CRLF page: %q", bare, out)
	}
	if back, err := StripInserted(out); err != nil || string(back) != src {
		t.Fatalf("strip: %v %q", err, back)
	}
}
