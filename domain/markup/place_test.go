package markup

import (
	"errors"
	"strings"
	"testing"
)

// filler returns n distinct-enough words, to space links apart.
func filler(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "lorem"
	}
	return strings.Join(w, " ")
}

func placeOne(t *testing.T, src string, req LinkRequest, opts Options) (string, Placement) {
	t.Helper()
	out, pls, err := Place([]byte(src), []LinkRequest{req}, opts)
	if err != nil {
		t.Fatalf("Place: %v", err)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
	return string(out), pls[0]
}

func TestPlaceWrapsFirstOccurrenceInParagraph3(t *testing.T) {
	src := "<h2>Trail running shoes</h2><p>Intro.</p><p>More text.</p>" +
		"<p>Good trail running shoes grip. Other trail running shoes slip.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/collections/trail/", Anchors: []string{"trail running shoes"}}, Options{})
	want := `<h2>Trail running shoes</h2><p>Intro.</p><p>More text.</p>` +
		`<p>Good <a href="/collections/trail/" data-interlinker="l1">trail running shoes</a> grip. Other trail running shoes slip.</p>`
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	if !pl.Placed || pl.Paragraph != 3 || pl.Anchor != "trail running shoes" || pl.CandidateIndex != 0 || pl.Variation {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceNotFoundReportsReason(t *testing.T) {
	src := "<p>Nothing relevant here.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"lightweight trail shoes"}}, Options{})
	if out != src || pl.Placed || pl.Reason == "" {
		t.Fatalf("out %q placement %+v", out, pl)
	}
}

func TestPlaceAnchorOnlyInsideExistingLinkIsNotFound(t *testing.T) {
	src := `<p>See <a href="/other/">running shoes</a> today.</p>`
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"running shoes"}}, Options{})
	if out != src || pl.Placed {
		t.Fatalf("out %q placement %+v", out, pl)
	}
}

func TestPlaceCaseInsensitiveKeepsPageCasing(t *testing.T) {
	src := "<p>We love running shoes.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "l1", Href: "/x/", Anchors: []string{"Running Shoes"}}, Options{})
	if !strings.Contains(out, `>running shoes</a>`) || pl.Anchor != "running shoes" {
		t.Fatalf("out %q placement %+v", out, pl)
	}
}

func TestPlaceMandatoryUplinkFirstTwoParagraphs(t *testing.T) {
	src := "<p>Running shoes for every trail.</p><p>Second.</p><p>Third.</p>"
	_, pl := placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoes"},
		Position: Position{FirstParagraphs: 2}}, Options{})
	if !pl.Placed || pl.Paragraph != 1 {
		t.Fatalf("placement %+v", pl)
	}

	src = "<p>First.</p><p>Second.</p><p>Running shoes appear late.</p>"
	out, pl := placeOne(t, src, LinkRequest{ID: "up", Href: "/running-shoes/", Anchors: []string{"running shoes"},
		Position: Position{FirstParagraphs: 2}}, Options{})
	if pl.Placed || out != src || !strings.Contains(pl.Reason, "paragraphs 1-2") {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceEndOfArticlePrefersLastParagraph(t *testing.T) {
	src := "<p>Boots are great.</p><p>Middle.</p><p>Boots again at the end.</p>"
	_, pl := placeOne(t, src, LinkRequest{ID: "r", Href: "/boots/", Anchors: []string{"boots"},
		Position: Position{EndOfArticle: true}}, Options{})
	if !pl.Placed || pl.Paragraph != 3 {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceParagraphWithTwoLinksIsSkipped(t *testing.T) {
	src := `<p>one</p><p>two</p><p>three</p>` +
		`<p><a href="/a/">a</a> ` + filler(60) + ` <a href="/b/">b</a> hiking socks here.</p>` +
		`<p>Fresh hiking socks.</p>`
	_, pl := placeOne(t, src, LinkRequest{ID: "s", Href: "/socks/", Anchors: []string{"hiking socks"}}, Options{})
	if !pl.Placed || pl.Paragraph != 5 {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceLinksTooCloseMoveOn(t *testing.T) {
	src := `<p><a href="/a/">tents</a> ` + filler(20) + ` camping stoves.</p><p>Compare camping stoves.</p>`
	_, pl := placeOne(t, src, LinkRequest{ID: "s", Href: "/stoves/", Anchors: []string{"camping stoves"}}, Options{})
	if !pl.Placed || pl.Paragraph != 2 {
		t.Fatalf("placement %+v", pl)
	}
	// With 50 words between them it fits in the same paragraph.
	src = `<p><a href="/a/">tents</a> ` + filler(50) + ` camping stoves.</p><p>Compare camping stoves.</p>`
	_, pl = placeOne(t, src, LinkRequest{ID: "s", Href: "/stoves/", Anchors: []string{"camping stoves"}}, Options{})
	if !pl.Placed || pl.Paragraph != 1 {
		t.Fatalf("placement %+v", pl)
	}
}

func TestPlaceTwoRequestsDensityBetweenThem(t *testing.T) {
	src := `<p>Tents and stoves ` + filler(10) + ` and lanterns.</p><p>Lanterns glow.</p>`
	reqs := []LinkRequest{
		{ID: "1", Href: "/tents/", Anchors: []string{"tents"}},
		{ID: "2", Href: "/lanterns/", Anchors: []string{"lanterns"}},
	}
	out, pls, err := Place([]byte(src), reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
	if pls[0].Paragraph != 1 || pls[1].Paragraph != 2 {
		t.Fatalf("placements %+v", pls)
	}
}

func TestPlaceRefusesUnsafeHrefs(t *testing.T) {
	for _, href := range []string{
		"javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
		"data:text/html,<script>", "vbscript:msgbox", "//evil.example/x", "/\\evil.example", "https://evil.example/",
		"http://user@www.site.example/", "ftp://www.site.example/", "relative/path", "", "/a\"onmouseover=x",
		"&#106;avascript:alert(1)",
	} {
		_, _, err := Place([]byte("<p>x</p>"), []LinkRequest{{ID: "1", Href: href, Anchors: []string{"x"}}}, Options{SiteHost: "www.site.example"})
		if !errors.Is(err, ErrUnsafeHref) {
			t.Errorf("href %q: err %v, want ErrUnsafeHref", href, err)
		}
	}
	for _, href := range []string{"/ok/", "https://www.site.example/ok/", "HTTP://WWW.SITE.EXAMPLE/ok/?a=1&b=2"} {
		_, _, err := Place([]byte("<p>x</p>"), []LinkRequest{{ID: "1", Href: href, Anchors: []string{"x"}}}, Options{SiteHost: "www.site.example"})
		if err != nil {
			t.Errorf("href %q: %v", href, err)
		}
	}
}

func TestPlaceEscapesHrefAndAttributes(t *testing.T) {
	src := "<p>x marks</p>"
	out, _ := placeOne(t, src, LinkRequest{ID: `i"d<`, Href: "/a/?q=1&r='2'", Anchors: []string{"x"}},
		Options{Attributes: map[string]string{"rel": "nofollow", "class": `a"b`, "data-kind": "uplink"}})
	want := `<p><a href="/a/?q=1&amp;r=&#39;2&#39;" data-interlinker="i&#34;d&lt;" class="a&#34;b" data-kind="uplink" rel="nofollow">x</a> marks</p>`
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	for _, bad := range []string{"onclick", "style", "href", MarkerAttr, "data-", "data-A", "src"} {
		_, _, err := Place([]byte(src), nil, Options{Attributes: map[string]string{bad: "x"}})
		if !errors.Is(err, ErrBadAttribute) {
			t.Errorf("attribute %q: err %v", bad, err)
		}
	}
}

func TestPlaceBadRequests(t *testing.T) {
	for name, reqs := range map[string][]LinkRequest{
		"no id":     {{Href: "/a/"}},
		"dup id":    {{ID: "a", Href: "/a/"}, {ID: "a", Href: "/b/"}},
		"neg first": {{ID: "a", Href: "/a/", Position: Position{FirstParagraphs: -1}}},
	} {
		if _, _, err := Place([]byte("<p>x</p>"), reqs, Options{}); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: err %v", name, err)
		}
	}
	if _, _, err := Place([]byte("<p>x</p>"), nil, Options{Language: "klingon"}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("language: err %v", err)
	}
}

func TestStripInsertedRoundTrip(t *testing.T) {
	src := "<!DOCTYPE html><html><head><title>T</title></head><body>\n" +
		"<p class=x>Caf&eacute; &amp; running&nbsp;shoes&#x21; <!-- c --> trail\n  running shoes</p>\n</body></html>"
	reqs := []LinkRequest{{ID: "1", Href: "/shoes/", Anchors: []string{"running shoes"}}}
	out, pls, err := Place([]byte(src), reqs, Options{MinWordsBetweenLinks: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !pls[0].Placed || pls[0].Anchor != "running&nbsp;shoes" {
		t.Fatalf("placements %+v", pls)
	}
	if msg := checkPlacement([]byte(src), out, pls); msg != "" {
		t.Fatal(msg)
	}
}

func TestStripInternalKeepsExternal(t *testing.T) {
	src := `<h2>Shoes</h2><p>See <a href="/collections/a">A</a>, <a href="https://www.shop.example/collections/b">B</a>, ` +
		`<a href="../c">C</a> and <a href="https://other.com">Other</a> or <a href="#top">top</a>.</p><ul><li>x</li></ul>`
	out, err := StripInternal([]byte(src), "www.shop.example")
	if err != nil {
		t.Fatal(err)
	}
	want := `<h2>Shoes</h2><p>See A, B, C and <a href="https://other.com">Other</a> or <a href="#top">top</a>.</p><ul><li>x</li></ul>`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}
