package markup

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func editLinks(t *testing.T, src string, edits ...LinkEdit) string {
	t.Helper()
	out, err := EditLinks([]byte(src), edits)
	if err != nil {
		t.Fatalf("EditLinks(%q, %+v): %v", src, edits, err)
	}
	return string(out)
}

// linkStart is the offset of the n-th "<a" start tag the scanner sees.
func linkStart(t *testing.T, src string, n int) int {
	t.Helper()
	links, err := Links([]byte(src), "", "")
	if err != nil || len(links) <= n {
		t.Fatalf("Links(%q) = %d links, %v; want a link %d", src, len(links), err, n)
	}
	return links[n].Start
}

func TestEditLinksUnwrappingEveryInsertedLinkGivesBackTheOriginal(t *testing.T) {
	pages := map[string][]byte{
		"bench page": benchPage(),
		"small page": []byte("<p>Intro on hiking boots.</p><p>Good trail running shoes &amp; merino socks grip.</p>" +
			"<p>Existing <a href=\"/x/\">link</a> stays.</p>"),
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			placed, pls, err := Place(page, benchRequests, Options{MinWordsBetweenLinks: -1})
			if err != nil {
				t.Fatal(err)
			}
			links, err := Links(placed, "", "")
			if err != nil {
				t.Fatal(err)
			}
			var edits []LinkEdit
			for _, l := range links {
				if l.Inserted {
					edits = append(edits, LinkEdit{Start: l.Start})
				}
			}
			if n := countPlaced(pls); len(edits) != n || n < 2 {
				t.Fatalf("%d marked links for %d placements", len(edits), n)
			}
			// Backwards, to show the order of edits does not matter.
			slices.Reverse(edits)
			out, err := EditLinks(placed, edits)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, page) {
				t.Fatalf("unwrapping the inserted links did not give back the page:\n%s", firstDiff(out, page))
			}
			stripped, err := StripInserted(placed)
			if err != nil || !bytes.Equal(out, stripped) {
				t.Fatalf("EditLinks and StripInserted disagree (%v):\n%s", err, firstDiff(out, stripped))
			}
		})
	}
}

func countPlaced(pls []Placement) int {
	n := 0
	for _, p := range pls {
		if p.Placed {
			n++
		}
	}
	return n
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-40)
	return fmt.Sprintf("at byte %d:\n got %q\nwant %q", i, a[lo:min(len(a), i+40)], b[lo:min(len(b), i+40)])
}

func TestEditLinksUnwrapKeepsInnerTextAndMarkup(t *testing.T) {
	src := "<html><body>\r\n<p class=lead>Buy <a class=\"x\" href=\"/x\" >the <em>best</em> boots</a>  today &amp; more.</p>\n" +
		"<p>Also <A HREF=/y>other</A>.</p></body></html>"
	got := editLinks(t, src, LinkEdit{Start: strings.Index(src, "<a ")})
	want := "<html><body>\r\n<p class=lead>Buy the <em>best</em> boots  today &amp; more.</p>\n" +
		"<p>Also <A HREF=/y>other</A>.</p></body></html>"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestEditLinksUnwrapsAnUnclosedLinkByItsStartTagOnly(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`<p><a href="/a">never closed</p><p>next</p>`, `<p>never closed</p><p>next</p>`},
		// The "</a>" pairs with the latest <a>, so the first has none.
		{`<p><a href="/a">one <a href="/b">two</a> three</p>`, `<p>one <a href="/b">two</a> three</p>`},
	} {
		if got := editLinks(t, c.src, LinkEdit{Start: linkStart(t, c.src, 0)}); got != c.want {
			t.Errorf("unwrap first link of %q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestEditLinksRetargetRewritesOnlyTheHrefValue(t *testing.T) {
	for _, c := range []struct{ name, tag, want string }{
		{"double quotes", `<a class="c" href="/old/" rel=nofollow data-x='1'>`, `<a class="c" href="/new/" rel=nofollow data-x='1'>`},
		{"single quotes", `<a HREF='/old/' title="t">`, `<a HREF='/new/' title="t">`},
		{"spaces around =", "<a href =\n '/old/'>", "<a href =\n '/new/'>"},
		{"unquoted", `<a href=/old/ class=c>`, `<a href="/new/" class=c>`},
		{"unquoted before >", `<a href=/old/>`, `<a href="/new/">`},
		{"no value", `<a href class=c>`, `<a href="/new/" class=c>`},
		{"empty value", `<a href=>`, `<a href="/new/">`},
		{"missing", `<a class="c">`, `<a href="/new/" class="c">`},
		{"missing, bare tag", `<a>`, `<a href="/new/">`},
		{"missing, self-closing", `<a/>`, `<a href="/new/"/>`},
		{"missing, href only in a value", `<a title="href=/old/">`, `<a href="/new/" title="href=/old/">`},
		{"first of two", `<a href="/old/" HREF="/other/">`, `<a href="/new/" HREF="/other/">`},
		{"after a slash", `<a/href=/old/>`, `<a/href="/new/">`},
		{"entity in old value", `<a href="/old/?a=1&amp;b=2">`, `<a href="/new/">`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "<p>before</p>\n<p>" + c.tag + "text</a> after</p>"
			want := "<p>before</p>\n<p>" + c.want + "text</a> after</p>"
			got := editLinks(t, src, LinkEdit{Start: strings.Index(src, c.tag), Href: "/new/"})
			if got != want {
				t.Fatalf("got  %q\nwant %q", got, want)
			}
			links, err := Links([]byte(got), "", "")
			if err != nil || len(links) != 1 || links[0].Href != "/new/" {
				t.Fatalf("Links after retarget: %+v, %v", links, err)
			}
		})
	}
}

func TestEditLinksRetargetEscapesTheValue(t *testing.T) {
	const href = "/search/?q=boots&size=4'5"
	src := `<p><a href='/old/'>x</a> <a href="/old/">y</a></p>`
	got := editLinks(t, src, LinkEdit{Start: linkStart(t, src, 0), Href: href}, LinkEdit{Start: linkStart(t, src, 1), Href: href})
	want := `<p><a href='/search/?q=boots&amp;size=4&#39;5'>x</a> <a href="/search/?q=boots&amp;size=4&#39;5">y</a></p>`
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	links, err := Links([]byte(got), "", "")
	if err != nil || len(links) != 2 || links[0].Href != href || links[1].Href != href {
		t.Fatalf("hrefs do not read back as written: %+v, %v", links, err)
	}
	// checkHref refuses a double quote outright, so it only reaches the
	// escaping through retarget itself.
	r, err := retarget([]byte(`<a href="/old/">`), `/a"b&c<d>`)
	if err != nil || r.text != "/a&#34;b&amp;c&lt;d&gt;" {
		t.Fatalf("retarget escaped %q, %v", r.text, err)
	}
}

func TestEditLinksAppliesMixedEditsInAnyOrder(t *testing.T) {
	src := `<p><a href="/a/">one</a>, <a href=/b/>two</a> and <a href='/c/'>three</a>.</p>`
	edits := []LinkEdit{
		{Start: linkStart(t, src, 2), Href: "/z/"},
		{Start: linkStart(t, src, 0)},
		{Start: linkStart(t, src, 1), Href: "/y/"},
	}
	want := `<p>one, <a href="/y/">two</a> and <a href='/z/'>three</a>.</p>`
	for _, order := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		var es []LinkEdit
		for _, i := range order {
			es = append(es, edits[i])
		}
		if got := editLinks(t, src, es...); got != want {
			t.Fatalf("order %v: got %q\nwant %q", order, got, want)
		}
	}
}

func TestEditLinksRefusesBadEdits(t *testing.T) {
	src := `<p>x <!-- <a href="/c/">c</a> --><script>"<a href='/s/'>"</script><a href="/a/">a</a> <a href="/b/">b</a></p>`
	a := strings.Index(src, `<a href="/a/"`)
	b := strings.Index(src, `<a href="/b/"`)
	for _, c := range []struct {
		name  string
		edits []LinkEdit
		want  error
	}{
		{"negative offset", []LinkEdit{{Start: -1}}, ErrNoLink},
		{"offset inside a tag", []LinkEdit{{Start: a + 1}}, ErrNoLink},
		{"offset of a <p>", []LinkEdit{{Start: 0}}, ErrNoLink},
		{"offset of an </a>", []LinkEdit{{Start: strings.Index(src, "</a> <a")}}, ErrNoLink},
		{"link in a comment", []LinkEdit{{Start: strings.Index(src, `<a href="/c/"`)}}, ErrNoLink},
		{"link in a script", []LinkEdit{{Start: strings.Index(src, `<a href='/s/'`)}}, ErrNoLink},
		{"end of page", []LinkEdit{{Start: len(src)}}, ErrNoLink},
		{"past the end", []LinkEdit{{Start: 1 << 40}}, ErrNoLink},
		{"good edit then a bad one", []LinkEdit{{Start: a}, {Start: b + 2, Href: "/n/"}}, ErrNoLink},
		{"javascript:", []LinkEdit{{Start: a, Href: "javascript:alert(1)"}}, ErrUnsafeHref},
		{"JavaScript: with spaces", []LinkEdit{{Start: a, Href: " JavaScript:alert(1)"}}, ErrUnsafeHref},
		{"protocol-relative", []LinkEdit{{Start: a, Href: "//evil.example/"}}, ErrUnsafeHref},
		{"other host", []LinkEdit{{Start: a, Href: "https://evil.example/x"}}, ErrUnsafeHref},
		{"attribute breakout", []LinkEdit{{Start: a, Href: `/x" onclick="alert(1)`}}, ErrUnsafeHref},
		{"relative path", []LinkEdit{{Start: a, Href: "x/"}}, ErrUnsafeHref},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := EditLinks([]byte(src), c.edits)
			if !errors.Is(err, c.want) || out != nil {
				t.Fatalf("EditLinks = %q, %v; want an error wrapping %v", out, err, c.want)
			}
		})
	}
	t.Run("duplicate edits", func(t *testing.T) {
		for _, edits := range [][]LinkEdit{
			{{Start: a}, {Start: a}},
			{{Start: b, Href: "/n/"}, {Start: a}, {Start: b}},
		} {
			out, err := EditLinks([]byte(src), edits)
			if err == nil || out != nil || !strings.Contains(err.Error(), "both change") {
				t.Fatalf("EditLinks(%+v) = %q, %v; want a duplicate-edit error", edits, out, err)
			}
		}
	})
}

func TestEditLinksWithNoEditsCopiesThePage(t *testing.T) {
	src := []byte(`<p><a href="/a/">a</a></p>`)
	out, err := EditLinks(src, nil)
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("EditLinks(nil) = %q, %v", out, err)
	}
	out[0] = 'X'
	if src[0] != '<' {
		t.Fatal("EditLinks returned the caller's slice")
	}
}

// tokenSpan is one token of a page, by its source bytes.
type tokenSpan struct {
	tt         html.TokenType
	start, end int
}

func tokenize(src []byte) []tokenSpan {
	z := html.NewTokenizer(bytes.NewReader(src))
	var toks []tokenSpan
	off := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return toks
		}
		n := len(z.Raw())
		toks = append(toks, tokenSpan{tt, off, off + n})
		off += n
	}
}

// tokenShape is a page's tokens as types and bytes, adjacent text merged,
// so that two pages compare equal when the tokenizer reads them alike.
func tokenShape(src []byte, drop func(start int) bool) []string {
	var shape []string
	for _, tk := range tokenize(src) {
		if drop != nil && drop(tk.start) {
			continue
		}
		s := tk.tt.String() + ":" + string(src[tk.start:tk.end])
		if n := len(shape); n > 0 && tk.tt == html.TextToken && strings.HasPrefix(shape[n-1], "Text:") {
			shape[n-1] += string(src[tk.start:tk.end])
			continue
		}
		shape = append(shape, s)
	}
	return shape
}

func FuzzEditLinks(f *testing.F) {
	for _, s := range []string{
		`<p>See <a href="/a">A</a> and <a href="https://other.example/">B</a></p>`,
		`<p><a href="/x/" data-interlinker="1">x</a></p><nav data-interlinker-block="breadcrumb"><a href="/">Home</a></nav>`,
		`<a href=/a><a href=/b>x</a></a>`,
		`<p><a HREF='/o' href=/p class=c>the <em>best</em> boots</A> <a>bare</a><a/>`,
		`<table><a href=x>t</a><tr><td><a href=y>u</td></table></a>`,
		`<svg><a href=/s>s</a></svg><math><mi><a href=/m>m</a></mi></math>`,
		`<<a href=/a>b>x</a>`,
		`<a href=/a><svg></a><a href=/b>x</a>`,
	} {
		f.Add([]byte(s), "/new/?a=1&b='2'")
	}
	f.Fuzz(func(t *testing.T, src []byte, href string) {
		links, err := Links(src, "", "")
		if err != nil {
			if _, err := EditLinks(src, []LinkEdit{{Start: 0}}); err == nil {
				t.Fatalf("Links fails (%v) but EditLinks does not", err)
			}
			return
		}
		doc, err := scanDocument(src, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The scanner's tokens are the bare tokenizer's unless CDATA was
		// allowed, which only foreign content does.
		foreign := containsFold(src, "<svg") || containsFold(src, "<math")
		toks := map[int]tokenSpan{}
		for _, tk := range tokenize(src) {
			toks[tk.start] = tk
		}
		for i, l := range links {
			a := doc.anchorAt(l.Start)
			if a == nil {
				t.Fatalf("link %d at %d: the editor's scan has no anchor there", i, l.Start)
			}
			cuts := a.unwrapCuts(nil)
			for _, c := range cuts {
				tag := src[c.start:c.end]
				if !bytes.HasPrefix(bytes.ToLower(tag), []byte("<a")) && !bytes.HasPrefix(bytes.ToLower(tag), []byte("</a")) ||
					tag[len(tag)-1] != '>' {
					t.Fatalf("link %d: cut %q is not an <a> tag", i, tag)
				}
				if tk, ok := toks[c.start]; !foreign && (!ok || tk.end != c.end || tk.tt == html.TextToken) {
					t.Fatalf("link %d: cut [%d,%d) %q is not one tokenizer tag (%+v)", i, c.start, c.end, tag, tk)
				}
			}
			// What unwrapping writes: src with exactly the cut ranges gone.
			var want []byte
			last := 0
			for _, c := range cuts {
				want = append(append(want, src[last:c.start]...), c.text...)
				last = c.end
			}
			want = append(want, src[last:]...)
			out, err := EditLinks(src, []LinkEdit{{Start: l.Start}})
			if err != nil {
				t.Fatalf("unwrap link %d: %v", i, err)
			}
			if !bytes.Equal(out, want) {
				t.Fatalf("unwrap link %d of %q:\n got %q\nwant %q", i, src, out, want)
			}
			// One link fewer, the others where they were. Only where the
			// page still tokenizes alike: a cut can join "<" with the text
			// after it into a new tag ("<<a>b>"), and in foreign content
			// an "</a>" can end an <svg>, so cutting it moves later links
			// into SVG. Neither changes the bytes, which are checked above.
			cut := func(off int) bool {
				return slices.ContainsFunc(cuts, func(c replacement) bool { return c.start == off })
			}
			if foreign || !slices.Equal(tokenShape(src, cut), tokenShape(out, nil)) {
				continue
			}
			after, err := Links(out, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(links)-1 {
				t.Fatalf("unwrap link %d of %q: %d links before, %d after (%q)", i, src, len(links), len(after), out)
			}
			for j, m := range slices.Delete(slices.Clone(links), i, i+1) {
				shift := 0
				for _, c := range cuts {
					if c.end <= m.Start {
						shift += c.end - c.start
					}
				}
				if after[j].Start != m.Start-shift || after[j].Href != m.Href {
					t.Fatalf("unwrap link %d of %q: link %+v became %+v", i, src, m, after[j])
				}
			}
		}
		if href == "" {
			return // that is an unwrap, checked above
		}
		for i, l := range links {
			out, err := EditLinks(src, []LinkEdit{{Start: l.Start, Href: href}})
			if checkHref(href, "") != nil {
				if !errors.Is(err, ErrUnsafeHref) || out != nil {
					t.Fatalf("retarget to %q = %q, %v; want ErrUnsafeHref", href, out, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("retarget link %d to %q: %v", i, href, err)
			}
			// Only the start tag changes, and the page reads the same
			// apart from the one href.
			tagEnd := doc.anchorAt(l.Start).tagEnd
			if !bytes.HasPrefix(out, src[:l.Start]) || !bytes.HasSuffix(out[l.Start:], src[tagEnd:]) {
				t.Fatalf("retarget link %d of %q changed bytes outside its tag: %q", i, src, out)
			}
			after, err := Links(out, "", "")
			if err != nil || len(after) != len(links) {
				t.Fatalf("retarget link %d of %q: %d links before, %d after, %v (%q)", i, src, len(links), len(after), err, out)
			}
			for j := range after {
				wantHref, wantStart := links[j].Href, links[j].Start
				if j == i {
					wantHref = href
				} else if wantStart > l.Start {
					wantStart += len(out) - len(src)
				}
				if after[j].Href != wantHref || after[j].Start != wantStart {
					t.Fatalf("retarget link %d of %q to %q: link %d is %+v (%q)", i, src, href, j, after[j], out)
				}
			}
		}
	})
}
