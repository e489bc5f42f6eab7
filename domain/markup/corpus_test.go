package markup

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

var updateGolden = flag.Bool("update", false, "rewrite the corpus golden files")

type corpusPage struct {
	name      string
	lang      string
	malformed bool
	anchors   [][]string
}

func loadCorpus(t testing.TB) []corpusPage {
	f, err := os.Open("testdata/corpus/anchors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pages []corpusPage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			t.Fatalf("bad manifest line %q", line)
		}
		pg := corpusPage{name: strings.TrimSpace(parts[0]), lang: strings.TrimSpace(parts[1])}
		rest := strings.TrimSpace(parts[2])
		if after, ok := strings.CutPrefix(rest, "malformed:"); ok {
			pg.malformed, rest = true, after
		}
		for _, req := range strings.Split(rest, "|") {
			var cands []string
			for _, c := range strings.Split(req, "/") {
				cands = append(cands, strings.TrimSpace(c))
			}
			pg.anchors = append(pg.anchors, cands)
		}
		pages = append(pages, pg)
	}
	return pages
}

// TestCorpus runs every property over hand-written pages in several
// languages and states of repair, and keeps what Place did in a golden file
// so that any change in behaviour shows up in review.
func TestCorpus(t *testing.T) {
	const host = "www.trailhead-outfitters.example"
	for _, pg := range loadCorpus(t) {
		t.Run(pg.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata/corpus", pg.name))
			if err != nil {
				t.Fatal(err)
			}
			var reqs []LinkRequest
			for i, cands := range pg.anchors {
				reqs = append(reqs, LinkRequest{ID: fmt.Sprintf("c%d", i+1), Href: fmt.Sprintf("/target-%d/", i+1), Anchors: cands})
			}
			reqs[0].Position.FirstParagraphs = 2
			reqs[len(reqs)-1].Position.EndOfArticle = true
			opts := Options{SiteHost: host, Language: pg.lang, Attributes: map[string]string{"class": "il"}}
			out, pls, err := Place(src, reqs, opts)
			if err != nil {
				t.Fatal(err)
			}
			if msg := checkPlacement(src, out, pls); msg != "" {
				t.Fatal(msg)
			}
			again, pls2, _ := Place(src, reqs, opts)
			if !bytes.Equal(out, again) || fmt.Sprint(pls) != fmt.Sprint(pls2) {
				t.Fatal("Place is not deterministic")
			}

			var golden strings.Builder
			placed := 0
			for _, p := range pls {
				if p.Placed {
					placed++
					fmt.Fprintf(&golden, "%s placed p%d (content p%d) cand=%d variation=%v %q\n", p.ID, p.Paragraph, p.ContentParagraph, p.CandidateIndex, p.Variation, p.Anchor)
				} else {
					fmt.Fprintf(&golden, "%s not placed: %s\n", p.ID, p.Reason)
				}
			}
			if placed == 0 {
				t.Errorf("nothing placed")
			}

			links, err := Links(out, "https://"+host+"/some/page/", host)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&golden, "links %d, words %d\n", len(links), WordCount(src))
			for _, l := range links {
				fmt.Fprintf(&golden, "  %s p%d %s internal=%v rel=%v %q\n", l.Position, l.Paragraph, l.URL, l.Internal, l.Rel, l.Text)
			}
			for _, p := range Paragraphs(src) {
				fmt.Fprintf(&golden, "  paragraph %d: %d words, %d links\n", p.Index, p.Words, p.Links)
			}
			checkGolden(t, filepath.Join("testdata/corpus", pg.name+".golden"), golden.String())

			stripped, err := StripInternal(out, host)
			if err != nil {
				t.Fatal(err)
			}
			left, _ := Links(stripped, "https://"+host+"/", host)
			for _, l := range left {
				if l.Internal {
					t.Errorf("internal link left after StripInternal: %+v", l)
				}
			}

			if !pg.malformed {
				compareWithParser(t, out, links)
			}
		})
	}
}

// compareWithParser checks the reading functions against goquery's view of
// a well-formed page.
func compareWithParser(t *testing.T, page []byte, links []Link) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var hrefs []string
	doc.Find("a").Each(func(_ int, s *goquery.Selection) {
		h, _ := s.Attr("href")
		hrefs = append(hrefs, h)
	})
	var got []string
	for _, l := range links {
		got = append(got, l.Href)
	}
	if strings.Join(got, "\n") != strings.Join(hrefs, "\n") {
		t.Errorf("links differ from goquery's:\n got %q\nwant %q", got, hrefs)
	}
	if n := doc.Find("p").Length(); n != len(Paragraphs(page)) {
		t.Errorf("paragraphs: %d, goquery %d", len(Paragraphs(page)), n)
	}
	doc.Find("p").Each(func(i int, s *goquery.Selection) {
		if ps := Paragraphs(page); i < len(ps) {
			if n := s.Find("a").Length(); n != ps[i].Links {
				t.Errorf("paragraph %d links: %d, goquery %d", i+1, ps[i].Links, n)
			}
			if n := len(strings.Fields(s.Text())); !isCJKPage(s.Text()) && n != ps[i].Words {
				t.Logf("paragraph %d words: %d, whitespace split %d", i+1, ps[i].Words, n)
			}
		}
	})
	_ = html.Render
}

func isCJKPage(s string) bool {
	for _, r := range s {
		if isNoSpaceScript(r) {
			return true
		}
	}
	return false
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update after review):\n%s", path, got)
	}
}
