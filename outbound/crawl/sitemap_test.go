package crawl

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseSitemap(t *testing.T) {
	sm, err := ParseSitemap([]byte("\xef\xbb\xbf" + `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc> https://example.com/a?x=1&amp;y=2 </loc>
    <lastmod>2024-05-06T07:08:09+02:00</lastmod>
    <image:image><image:loc>https://example.com/a.jpg</image:loc></image:image>
  </url>
  <url><loc>https://example.com/b</loc><lastmod>not a date</lastmod></url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc><![CDATA[https://example.com/c]]></loc><lastmod>2023-02</lastmod></url>
</urlset>`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Loc: "https://example.com/a?x=1&y=2", LastMod: time.Date(2024, 5, 6, 5, 8, 9, 0, time.UTC)},
		{Loc: "https://example.com/b"},
		{Loc: "https://example.com/c", LastMod: time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC)},
	}
	if sm.Index || len(sm.Entries) != len(want) {
		t.Fatalf("parsed %+v", sm)
	}
	for i, e := range sm.Entries {
		if e.Loc != want[i].Loc || !e.LastMod.Equal(want[i].LastMod) {
			t.Errorf("entry %d = %+v, want %+v (an image's loc is not a page)", i, e, want[i])
		}
	}

	idx, err := ParseSitemap([]byte(`<sitemapindex><sitemap><loc>https://example.com/s1.xml</loc></sitemap><sitemap><loc>https://example.com/s2.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`))
	if err != nil || !idx.Index || len(idx.Entries) != 2 || idx.Entries[1].Loc != "https://example.com/s2.xml.gz" {
		t.Errorf("index: %+v, %v", idx, err)
	}

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`<urlset><url><loc>https://example.com/z</loc></url></urlset>`))
	zw.Close()
	if sm, err := ParseSitemap(gz.Bytes()); err != nil || len(sm.Entries) != 1 || sm.Entries[0].Loc != "https://example.com/z" {
		t.Errorf("gzip: %+v, %v", sm, err)
	}

	if sm, err := ParseSitemap([]byte("https://example.com/t1\n\n  https://example.com/t2\r\n")); err != nil || len(sm.Entries) != 2 || sm.Entries[1].Loc != "https://example.com/t2" {
		t.Errorf("text sitemap: %+v, %v", sm, err)
	}

	// A broken file keeps what was read before the damage.
	sm, err = ParseSitemap([]byte(`<urlset><url><loc>https://example.com/ok</loc></url><url><loc>https://example.com/cut`))
	if err == nil || len(sm.Entries) != 1 {
		t.Errorf("truncated: %+v, %v", sm, err)
	}
	for _, bad := range []string{"", "   ", "<html><body>not a sitemap</body></html>", "<?xml version=\"1.0\"?>", "\x1f\x8bnot gzip"} {
		if _, err := ParseSitemap([]byte(bad)); err == nil {
			t.Errorf("ParseSitemap(%q) took it", bad)
		}
	}
}

func TestParseSitemapCapsEntries(t *testing.T) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for i := range MaxSitemapEntries + 5 {
		fmt.Fprintf(&b, "<url><loc>https://example.com/%d</loc></url>", i)
	}
	b.WriteString("</urlset>")
	sm, err := ParseSitemap([]byte(b.String()))
	if err != nil || len(sm.Entries) != MaxSitemapEntries || sm.Dropped != 5 {
		t.Errorf("%d entries, %d dropped, %v", len(sm.Entries), sm.Dropped, err)
	}
}
