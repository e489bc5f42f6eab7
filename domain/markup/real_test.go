package markup

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// TestRealPages runs the engine's properties over real pages: the ones kept
// in testdata/real (permissively licensed, see its README) and, when
// INTERLINKER_REAL_CORPUS names a directory, every .html file below it (at
// most INTERLINKER_REAL_CORPUS_LIMIT, default 3000). For each page, anchors
// are taken from its own paragraph text, five links are placed, and the
// output must satisfy checkPlacement (strip gives the input back byte for
// byte; the parser sees each new link once, in a <p>, not nested, not in an
// excluded element), be deterministic, and read back through Links with the
// same hrefs goquery finds.
func TestRealPages(t *testing.T) {
	files := realPages(t, "testdata/real", 0)
	if len(files) == 0 {
		t.Fatal("no real pages in testdata/real")
	}
	if dir := os.Getenv("INTERLINKER_REAL_CORPUS"); dir != "" {
		limit := 3000
		if n, err := strconv.Atoi(os.Getenv("INTERLINKER_REAL_CORPUS_LIMIT")); err == nil {
			limit = n
		}
		files = append(files, realPages(t, dir, limit)...)
	}
	var pages, placedTotal, withPlacement int
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		reqs := requestsFromText(src)
		if len(reqs) == 0 {
			continue
		}
		pages++
		opts := Options{SiteHost: "docs.example"}
		out, pls, err := Place(src, reqs, opts)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if msg := checkPlacement(src, out, pls); msg != "" {
			t.Errorf("%s: %.600s", path, msg)
			continue
		}
		again, _, _ := Place(src, reqs, opts)
		if !bytes.Equal(out, again) {
			t.Errorf("%s: Place is not deterministic", path)
		}
		placed := 0
		for _, p := range pls {
			if p.Placed {
				placed++
			}
		}
		placedTotal += placed
		if placed > 0 {
			withPlacement++
		}
		if utf8.Valid(src) {
			compareHrefs(t, path, out)
		}
	}
	t.Logf("%d real pages, %d links placed, %d pages with at least one", pages, placedTotal, withPlacement)
	if withPlacement == 0 {
		t.Error("no link placed on any real page")
	}
}

func realPages(t *testing.T, dir string, limit int) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".html") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	sort.Strings(files)
	if limit > 0 && len(files) > limit {
		// An even spread over the tree rather than its first corner.
		step := float64(len(files)) / float64(limit)
		picked := make([]string, 0, limit)
		for i := range limit {
			picked = append(picked, files[int(float64(i)*step)])
		}
		files = picked
	}
	return files
}

// requestsFromText picks anchors the page really contains: two- and
// three-word phrases from paragraphs near the start, middle and end.
func requestsFromText(src []byte) []LinkRequest {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(src))
	if err != nil {
		return nil
	}
	var texts []string
	doc.Find("p").Each(func(_ int, s *goquery.Selection) {
		if w := strings.Fields(s.Text()); len(w) >= 6 {
			texts = append(texts, strings.Join(w, " "))
		}
	})
	if len(texts) == 0 {
		return nil
	}
	var reqs []LinkRequest
	for i, at := range []int{0, len(texts) / 3, len(texts) / 2, 2 * len(texts) / 3, len(texts) - 1} {
		words := strings.Fields(texts[at])
		from := (i * 2) % (len(words) - 3)
		phrase := strings.Join(words[from:from+2+i%2], " ")
		req := LinkRequest{ID: fmt.Sprintf("r%d", i+1), Href: fmt.Sprintf("/target-%d/", i+1), Anchors: []string{phrase}}
		if i == 0 {
			req.Position.FirstParagraphs = 2
		}
		if i == 4 {
			req.Position.EndOfArticle = true
		}
		reqs = append(reqs, req)
	}
	return reqs
}

func compareHrefs(t *testing.T, path string, out []byte) {
	t.Helper()
	links, err := Links(out, "https://docs.example/page/", "docs.example")
	if err != nil {
		t.Errorf("%s: links: %v", path, err)
		return
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(out))
	if err != nil {
		return
	}
	// Compared as sets of hrefs: the parser may reconstruct one unclosed
	// <a> (XHTML-style <a id="x"/>) into several following blocks, where
	// Links reports the one tag of the source. goquery also matches <a> in
	// any namespace, while Links reports HTML anchors only, so SVG and
	// MathML links (xlink:href in diagrams) are left out.
	want := map[string]bool{}
	doc.Find("a").Each(func(_ int, s *goquery.Selection) {
		if len(s.Nodes) == 1 && s.Nodes[0].Namespace != "" {
			return
		}
		h, _ := s.Attr("href")
		want[h] = true
	})
	got := map[string]bool{}
	for _, l := range links {
		got[l.Href] = true
	}
	for h := range want {
		if !got[h] {
			t.Errorf("%s: Links missed href %q", path, h)
		}
	}
	for h := range got {
		if !want[h] {
			t.Errorf("%s: Links reported href %q the parser does not see", path, h)
		}
	}
}
