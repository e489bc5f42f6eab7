package markup

import (
	"errors"
	"strings"
	"testing"
)

const fallbackPage = `<h2>Shoes</h2>` +
	`<p>Our range covers every kind of trail and every budget.</p>` +
	`<p>Lightweight trail shoes suit dry summer paths and fast hikes.</p>` +
	`<p>See <a href="/socks/">socks</a> for the rest.</p>` +
	`<ul><li><p>In a list item</p></li></ul>`

// Seed scenario: rule-based injection fails for "lightweight trail shoes";
// the best paragraph is chosen, rewritten and replaced.
func TestFallbackParagraphChoice(t *testing.T) {
	p, ok := FallbackParagraph([]byte(fallbackPage), "lightweight trail shoes", 0)
	if !ok || p.Index != 2 {
		t.Fatalf("paragraph %+v, %v", p, ok)
	}
	// The mandatory uplink's fallback targets paragraph 1 or 2 only.
	p, ok = FallbackParagraph([]byte(fallbackPage), "socks", 1)
	if !ok || p.Index != 1 {
		t.Fatalf("paragraph %+v, %v", p, ok)
	}
	// Paragraphs with links, in list items or outside the content are never chosen.
	if _, ok := FallbackParagraph([]byte(`<p>a <a href="/x">b</a></p><li><p>c</p></li><nav><p>d</p></nav>`), "c", 0); ok {
		t.Fatal("chose an unsuitable paragraph")
	}
}

func TestReplaceParagraph(t *testing.T) {
	src := []byte(fallbackPage)
	p, _ := FallbackParagraph(src, "lightweight trail shoes", 0)
	rewrite := `<p>Our <a href="/collections/lightweight-trail">lightweight trail shoes</a> suit dry summer paths &amp; fast hikes.</p>`
	out, anchor, err := ReplaceParagraph(src, p, rewrite, "L1", "/collections/lightweight-trail", Options{Attributes: map[string]string{"class": "il"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `<p>Our <a href="/collections/lightweight-trail" data-interlinker="L1" class="il">lightweight trail shoes</a> suit dry summer paths &amp; fast hikes.</p>`
	if !strings.Contains(string(out), want) || anchor != "lightweight trail shoes" {
		t.Fatalf("got %s (anchor %q)", out, anchor)
	}
	// Exactly one <a> for the target, everything else unchanged.
	links, _ := Links(out, "https://www.site.example/", "www.site.example")
	if len(links) != 2 || links[0].MarkerID != "L1" {
		t.Fatalf("links %+v", links)
	}
	if strings.Replace(string(out), want, `<p>Lightweight trail shoes suit dry summer paths and fast hikes.</p>`, 1) != fallbackPage {
		t.Fatalf("bytes outside the paragraph changed: %s", out)
	}
}

// Seed scenario: the model's answer has no valid link or is malformed; the
// link stays planned with the reason.
func TestReplaceParagraphRefusesBadRewrites(t *testing.T) {
	src := []byte(fallbackPage)
	p, _ := FallbackParagraph(src, "lightweight trail shoes", 0)
	const href = "/collections/lightweight-trail"
	for name, rewrite := range map[string]string{
		"no link":         `Lightweight trail shoes suit dry summer paths and fast hikes.`,
		"two links":       `<a href="/collections/lightweight-trail">Lightweight</a> <a href="/collections/lightweight-trail">trail shoes</a> suit dry summer paths and fast hikes.`,
		"wrong target":    `<a href="/other/">Lightweight trail shoes</a> suit dry summer paths and fast hikes.`,
		"script":          `<a href="/collections/lightweight-trail">Lightweight trail shoes</a> suit dry <script>alert(1)</script> summer paths and fast hikes.`,
		"event handler":   `<a href="/collections/lightweight-trail" onclick="x()">Lightweight trail shoes</a> suit <b onmouseover="y">dry</b> summer paths and fast hikes.`,
		"javascript":      `<a href="javascript:alert(1)">Lightweight trail shoes</a> suit dry summer paths and fast hikes.`,
		"unclosed":        `<a href="/collections/lightweight-trail">Lightweight trail shoes suit dry summer paths and fast hikes.`,
		"misnested":       `<b><a href="/collections/lightweight-trail">Lightweight</b> trail shoes</a> suit dry summer paths and fast hikes.`,
		"two paragraphs":  `<p><a href="/collections/lightweight-trail">Lightweight trail shoes</a> suit dry</p><p>summer paths and fast hikes.</p>`,
		"meaning changed": `Buy <a href="/collections/lightweight-trail">boots</a> now, cheap, today only, while stocks last!`,
		"empty link":      `<a href="/collections/lightweight-trail"> </a>Lightweight trail shoes suit dry summer paths and fast hikes.`,
		"image":           `<img src=x onerror=alert(1)><a href="/collections/lightweight-trail">Lightweight trail shoes</a> suit dry summer paths and fast hikes.`,
	} {
		if _, _, err := ReplaceParagraph(src, p, rewrite, "L1", href, Options{}); !errors.Is(err, ErrBadRewrite) {
			t.Errorf("%s: err %v, want ErrBadRewrite", name, err)
		}
	}
	// A paragraph with links of its own is not rewritten.
	ps := Paragraphs(src)
	if _, _, err := ReplaceParagraph(src, ps[2], `See <a href="/x/">x</a> for the rest.`, "L1", "/x/", Options{}); !errors.Is(err, ErrBadRewrite) {
		t.Errorf("paragraph with links: err %v", err)
	}
	// An unsafe href is an unusable request, not a bad rewrite.
	if _, _, err := ReplaceParagraph(src, p, "x", "L1", "javascript:x", Options{}); !errors.Is(err, ErrUnsafeHref) {
		t.Errorf("unsafe href: err %v", err)
	}
}
