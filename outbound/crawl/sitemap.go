package crawl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Limits of the sitemap protocol (sitemaps.org): a sitemap or sitemap index
// lists at most 50,000 URLs and is at most 50 MB uncompressed. Past them
// the rest of a file is ignored and counted, so one oversized sitemap
// cannot take the crawl's memory.
const (
	MaxSitemapEntries = 50_000
	MaxSitemapBytes   = 50 << 20
)

// Sitemap is one parsed sitemap file.
type Sitemap struct {
	Index   bool    // a sitemap index: Entries are sitemaps
	Entries []Entry // in file order
	Dropped int     // entries past MaxSitemapEntries
}

// Entry is one <url> or <sitemap> of a sitemap.
type Entry struct {
	Loc     string
	LastMod time.Time // zero when absent or unreadable
}

var gzipMagic = []byte{0x1f, 0x8b}

// ParseSitemap reads a sitemap (<urlset>), a sitemap index
// (<sitemapindex>) or a plain-text sitemap (one URL a line), gzipped or
// not, whatever the file or its Content-Type claim: servers label .xml.gz
// files every way there is. XML namespaces are ignored (many sitemaps get
// them wrong); encoding/xml expands no external entities. An error says the
// file is unreadable; entries read before the error are returned with it.
func ParseSitemap(body []byte) (Sitemap, error) {
	if bytes.HasPrefix(body, gzipMagic) {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return Sitemap{}, fmt.Errorf("crawl: sitemap: gunzip: %w", err)
		}
		unzipped, err := io.ReadAll(io.LimitReader(zr, MaxSitemapBytes+1))
		if err != nil {
			return Sitemap{}, fmt.Errorf("crawl: sitemap: gunzip: %w", err)
		}
		if len(unzipped) > MaxSitemapBytes {
			return Sitemap{}, fmt.Errorf("crawl: sitemap: over %d bytes uncompressed", MaxSitemapBytes)
		}
		body = unzipped
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 {
		return Sitemap{}, errors.New("crawl: sitemap: empty file")
	}
	if trimmed[0] != '<' {
		return parseTextSitemap(trimmed), nil
	}
	return parseXMLSitemap(trimmed)
}

func parseTextSitemap(body []byte) Sitemap {
	var sm Sitemap
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if len(sm.Entries) >= MaxSitemapEntries {
			sm.Dropped++
			continue
		}
		sm.Entries = append(sm.Entries, Entry{Loc: line})
	}
	return sm
}

// parseXMLSitemap streams the tokens: a 50 MB sitemap is never held as a
// tree, and the entries read before a syntax error are kept.
func parseXMLSitemap(body []byte) (Sitemap, error) {
	var sm Sitemap
	dec := xml.NewDecoder(bytes.NewReader(body))
	root := ""
	var cur *Entry // the <url> or <sitemap> being read
	field := ""    // loc or lastmod while inside one
	depth, entryDepth := 0, 0
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return sm, fmt.Errorf("crawl: sitemap: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			switch {
			case root == "":
				if name != "urlset" && name != "sitemapindex" {
					return sm, fmt.Errorf("crawl: sitemap: root element <%s> is neither <urlset> nor <sitemapindex>", name)
				}
				root = name
				sm.Index = name == "sitemapindex"
			case cur == nil && depth == 2 && (name == "url" && root == "urlset" || name == "sitemap" && root == "sitemapindex"):
				cur, entryDepth = &Entry{}, depth
			case cur != nil && depth == entryDepth+1 && (name == "loc" || name == "lastmod"):
				// Only the entry's own children: an extension's
				// <image:loc> inside it names an image, not the page.
				field = name
				text.Reset()
			}
		case xml.CharData:
			if field != "" {
				text.Write(t)
			}
		case xml.EndElement:
			depth--
			name := t.Name.Local
			switch {
			case field != "" && name == field && depth == entryDepth:
				v := strings.TrimSpace(text.String())
				if field == "loc" {
					cur.Loc = v
				} else {
					cur.LastMod = parseLastMod(v)
				}
				field = ""
			case cur != nil && depth == entryDepth-1:
				if cur.Loc != "" {
					if len(sm.Entries) < MaxSitemapEntries {
						sm.Entries = append(sm.Entries, *cur)
					} else {
						sm.Dropped++
					}
				}
				cur = nil
			}
		}
	}
	if root == "" {
		return sm, errors.New("crawl: sitemap: no <urlset> or <sitemapindex>")
	}
	return sm, nil
}

// lastModLayouts are the W3C datetime forms sitemaps use.
var lastModLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02",
	"2006-01",
	"2006",
}

func parseLastMod(v string) time.Time {
	for _, layout := range lastModLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
