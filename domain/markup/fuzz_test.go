package markup

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// fuzzAnchor picks an anchor from the text of src, so the fuzzer reaches
// placement without having to guess words: the k-th run of text between
// tags, cut to its first two words.
func fuzzAnchor(src []byte, k int) string {
	runs := bytes.FieldsFunc(src, func(r rune) bool { return r == '<' || r == '>' })
	if len(runs) == 0 {
		return ""
	}
	words := strings.Fields(html.UnescapeString(string(runs[k%len(runs)])))
	if len(words) > 2 {
		words = words[:2]
	}
	return strings.Join(words, " ")
}

func FuzzPlace(f *testing.F) {
	for _, s := range []string{
		"<p>trail map</p>",
		"<p>Good trail running shoes grip.</p><p>More trail running shoes.</p>",
		"<p><b>x</p><p>trail map",
		"<svg><p>trail map</p></svg>",
		"<table><p>trail map</table>",
		"<a><p>trail map</p><p>trail map</a>",
		"<p>Caf&eacute; &amp; running&nbsp;shoes</p>",
		"<p>我们推荐登山鞋给大家。</p>",
		"<math></p><marquee>trail map",
		"<!DOCTYPE html><p>one<table><tr><td>trail map</td></tr></table>two",
	} {
		f.Add([]byte(s), "trail map", uint8(0))
	}
	f.Fuzz(func(t *testing.T, src []byte, anchor string, k uint8) {
		if s, err := StripInserted(src); err != nil || !bytes.Equal(s, src) {
			return // pages carrying markers of their own are not round-trip material
		}
		reqs := []LinkRequest{
			{ID: "f1", Href: "/one/", Anchors: []string{anchor, fuzzAnchor(src, int(k))}},
			{ID: "f2", Href: "/two/", Anchors: []string{fuzzAnchor(src, int(k)+1)}, Position: Position{EndOfArticle: k%2 == 0}},
			{ID: "f3", Href: "/three/", Anchors: []string{fuzzAnchor(src, int(k)+2)}, Position: Position{FirstParagraphs: int(k % 3)}},
		}
		out, pls, err := Place(src, reqs, Options{MinWordsBetweenLinks: -1, MaxLinksPerParagraph: 3})
		if err != nil {
			t.Fatalf("Place: %v", err)
		}
		if msg := checkPlacement(src, out, pls); msg != "" {
			t.Fatal(msg)
		}
	})
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{
		`<p>See <a href="/a">A</a> and <a href="https://other.example/">B</a></p>`,
		`<p><a href="/x/" data-interlinker="1">x</a></p><nav data-interlinker-block="breadcrumb"><a href="/">Home</a></nav>`,
		`<a href=/a><a href=/b>x</a></a>`,
		`<section data-interlinker-block=x><section>nested</section></section>tail`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ins, err := StripInserted(src)
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) > len(src) {
			t.Fatalf("strip grew the page")
		}
		internal, err := StripInternal(src, "www.site.example")
		if err != nil {
			t.Fatal(err)
		}
		links, err := Links(internal, "https://www.site.example/p/", "")
		if err != nil {
			t.Fatal(err)
		}
		// Whatever internal links remain were not written as start tags the
		// scanner saw the first time round (a tag assembled by the removal
		// itself, such as "<<a href=/>a href=/>").
		before, _ := Links(src, "https://www.site.example/p/", "")
		if len(links) > len(before) {
			t.Fatalf("stripping added links: %d > %d", len(links), len(before))
		}
	})
}

func FuzzLinks(f *testing.F) {
	f.Add([]byte(`<header><a href="/">Home</a></header><p>x <a href="a/b" rel="nofollow">y</a></p>`), "https://www.site.example/p/q")
	f.Add([]byte(`<a href="javascript:alert(1)">x</a><a href="//evil/">e</a><a>none</a>`), "not a url")
	f.Fuzz(func(t *testing.T, src []byte, pageURL string) {
		links, err := Links(src, pageURL, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if l.Start < 0 || l.End > len(src) || l.Start >= l.End || !bytes.EqualFold(src[l.Start:l.Start+2], []byte("<a")) {
				t.Fatalf("link offsets [%d,%d) in %q", l.Start, l.End, src)
			}
			if l.Paragraph < 0 {
				t.Fatalf("paragraph %d", l.Paragraph)
			}
		}
		ps := Paragraphs(src)
		words := 0
		for i, p := range ps {
			if p.Index != i+1 || p.Start < 0 || p.End > len(src) || p.End < p.Start {
				t.Fatalf("paragraph %+v of %d bytes", p, len(src))
			}
			words += p.Words
		}
		if WordCount(src) < words {
			t.Fatalf("page words %d < paragraph words %d", WordCount(src), words)
		}
	})
}

// FuzzDecode checks the scanner's character-reference decoder against
// x/net/html's: text means the same to both.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"&amp;", "&ampx", "&amp", "&#116;", "&#x70;", "&#128;", "&#0;", "&#xD800;",
		"&notit;", "&notin;", "&NotEqualTilde;", "&middot", "&#99999999999;", "a&b", "&;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\x00\r") || !utf8.ValidString(s) {
			return // the tokenizer rewrites these before decoding
		}
		var b strings.Builder
		src := []byte(s)
		for i := 0; i < len(src); {
			r0, r1, nr, size := nextUnit(src, i)
			if size <= 0 {
				t.Fatalf("no progress at %d", i)
			}
			i += size
			b.WriteRune(r0)
			if nr == 2 {
				b.WriteRune(r1)
			}
		}
		if want := html.UnescapeString(s); b.String() != want {
			t.Fatalf("decode(%q) = %q, want %q", s, b.String(), want)
		}
	})
}

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "regenerate testdata/fuzz from the corpus pages")

// TestWriteFuzzSeeds keeps the checked-in seed corpus reproducible: the
// corpus pages, linked versions of them and the tricky snippets, in the
// go test fuzz v1 format.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		t.Skip("run with -write-fuzz-seeds to regenerate testdata/fuzz")
	}
	write := func(target, name string, values ...string) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "go test fuzz v1\n" + strings.Join(values, "\n") + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bytesV := func(b []byte) string { return "[]byte(" + strconv.Quote(string(b)) + ")" }
	stringV := func(s string) string { return "string(" + strconv.Quote(s) + ")" }
	for _, pg := range loadCorpus(t) {
		src, err := os.ReadFile(filepath.Join("testdata/corpus", pg.name))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(pg.name, ".html")
		write("FuzzPlace", name, bytesV(src), stringV(pg.anchors[0][0]), "uint8(3)")
		write("FuzzLinks", name, bytesV(src), stringV("https://www.trailhead-outfitters.example/a/b/"))
		var reqs []LinkRequest
		for i, c := range pg.anchors {
			reqs = append(reqs, LinkRequest{ID: strconv.Itoa(i), Href: "/t" + strconv.Itoa(i) + "/", Anchors: c})
		}
		out, _, err := Place(src, reqs, Options{Language: pg.lang})
		if err != nil {
			t.Fatal(err)
		}
		write("FuzzStrip", name+"-linked", bytesV(out))
	}
	snippets := []string{
		"<p><b>x</p><p>trail map", "<svg><p>trail map</p></svg>", "<table><p>trail map</table>",
		"<a><p>trail map</p><p>trail map</a>", "<math></p><marquee>trail map", "<p>0\r0",
		"<select><div><p>trail map</div></select><p>trail map", "<p><form><option>x</form><p>trail map",
		"<strong><p>x<svg>runs</strong>shoe<iframe/>& trail map</p>", "<ul><li><ul></li><p>trail map",
		"<frameset><p>trail map", "<p><kbd>x<table>y<p>trail map", "<svg><desc><style></svg><p>trail map</p>",
		"<math><mi><style>x</style></mi></math><p>trail map</p>", "<p>trail&nbsp;map &#116;rail ma&#x70;</p>",
	}
	for i, s := range snippets {
		write("FuzzPlace", fmt.Sprintf("snippet-%02d", i), bytesV([]byte(s)), stringV("trail map"), "uint8(0)")
		write("FuzzStrip", fmt.Sprintf("snippet-%02d", i), bytesV([]byte(s)))
	}
	for i, s := range []string{
		`Our <a href="/t/">lightweight trail shoes</a> suit dry summer paths and fast hikes.`,
		`<p><b>Lightweight</b> <a href="/t/">trail shoes</a> suit dry summer paths &amp; fast hikes.</p>`,
		`<a href="/t/" onclick=x>Lightweight</a><script>alert(1)</script>`,
		`<b><a href="/t/">Lightweight</b> trail shoes</a> suit dry summer paths and fast hikes.`,
		`<p>Lightweight trail shoes</p><p><a href="/t/">x</a></p>`,
	} {
		write("FuzzReplaceParagraph", fmt.Sprintf("rewrite-%02d", i), stringV(s))
	}
	for i, s := range []string{`<a href="/x/" data-interlinker=7>`, `<a HREF=/x REL='nofollow ugc' href=/y>`,
		`<a =x href=a/>`, `<a href = "x" / rel>`, `<a/href=x>`, `<a href="unterminated`, `<font color=red size=+1>`} {
		write("FuzzRawAttrs", fmt.Sprintf("tag-%02d", i), bytesV([]byte(s)))
	}
	for i, s := range []string{"&amp;", "&ampx", "&amp", "&#116;", "&#x70;", "&#128;", "&#0;", "&#xD800;",
		"&notit;", "&notin;", "&NotEqualTilde;", "&middot", "&#99999999999;", "a&b", "&;", "caf&eacute; &nbsp;x"} {
		write("FuzzDecode", fmt.Sprintf("entity-%02d", i), stringV(s))
	}
}

// FuzzReplaceParagraph feeds arbitrary model output to the fallback: it is
// refused or it yields a page with exactly the one new link, in place.
func FuzzReplaceParagraph(f *testing.F) {
	f.Add(`Our <a href="/t/">lightweight trail shoes</a> suit dry summer paths and fast hikes.`)
	f.Add(`<p><b>Lightweight</b> <a href="/t/">trail shoes</a> suit dry summer paths &amp; fast hikes.</p>`)
	f.Add(`<a href="/t/" onclick=x>Lightweight</a><script>alert(1)</script>`)
	src := []byte(fallbackPage)
	p, _ := FallbackParagraph(src, "lightweight trail shoes", 0, 0)
	f.Fuzz(func(t *testing.T, rewrite string) {
		out, anchor, err := ReplaceParagraph(src, p, rewrite, "lightweight trail shoes", "F1", "/t/", Options{})
		if err != nil {
			if !errors.Is(err, ErrBadRewrite) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		links, err := Links(out, "https://www.site.example/", "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range links {
			if l.Inserted {
				n++
				if l.Href != "/t/" || l.Paragraph != p.Index {
					t.Fatalf("inserted link %+v", l)
				}
			}
		}
		if n != 1 || anchor == "" {
			t.Fatalf("%d inserted links in %q", n, out)
		}
		if bad := verifyInsertions(out, map[string]string{"F1": escapeText(anchor)}); len(bad) > 0 {
			t.Fatalf("parser disagrees: %q", out)
		}
	})
}

// FuzzRawAttrs holds rawAttrs to the tokenizer's own reading of a tag.
func FuzzRawAttrs(f *testing.F) {
	for _, s := range []string{
		`<a href="/x/" data-interlinker=7>`, `<a HREF=/x REL='nofollow ugc' href=/y>`, `<a =x href=a/>`,
		`<a href = "x" / rel>`, `<a href=x>y`, `<a href='&amp;'>`, `<a href="x\ry">`, `<a/href=x>`,
		`<a href="unterminated`, `<svg role=img data-interlinker-block=b>`, `<font color=red size=+1>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		z := html.NewTokenizer(bytes.NewReader(src))
		if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			return
		}
		raw := bytes.Clone(z.Raw())
		fast, ok := rawAttrs(raw)
		if !ok {
			return
		}
		var slow tagAttrs
		for more := true; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			if k != nil {
				slow.set(string(k), string(v))
			}
		}
		if fast != slow {
			t.Fatalf("rawAttrs(%q) = %+v, tokenizer says %+v", raw, fast, slow)
		}
	})
}
