package service

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/events"
)

// This file makes "Cadence Cycles" (testsite_test.go) an existing site:
// the same pages as they would be live, with a header, navigation and
// footer and the links their writers put in by hand, and with defects
// planted on purpose. It is not the demo's existing site
// (examples/home-coffee): the audit tests do not pass only because the
// audit was tuned on one site.
//
// Hand links: every supporting article links to its hub where paragraphs
// 1–2 name it and to its next sibling in paragraph 3; every hub links to
// its articles and the products it names; the home page links to the hubs
// and the sectors; products link to their hubs. The footer links to two
// term pages.
//
// Planted defects:
//   - two supporting articles without their uplink (the first article of
//     clusters 0 and 1), and one whose only uplink is in its last
//     paragraph (article 1 of cluster 2);
//   - an orphan article (article 3 of cluster 3: neither its hub nor its
//     sibling links it), an orphan product (aero-50), two orphan term pages
//     and two term pages linked only from the footer;
//   - a supporting article "old-fit-guide" of cluster 0, published and then
//     deleted, which hub 0 and article 1 of cluster 0 still link to;
//   - a link to a path that is no page, from article 2 of cluster 1;
//   - an article with eight extra links to other hubs (article 0 of
//     cluster 4), over its density maximum.

// existingDeleted is the planted page that is published, then deleted.
const existingDeleted = "old-fit-guide"

// existingSite is the existing site's structure and its pages as live,
// the deleted one included.
func existingSite(siteID string) (events.Event, []events.PageInfo) {
	structure, _ := customSite(siteID)
	pages := customSitePages()
	url := map[string]string{}
	for _, p := range pages {
		url[p.ID] = p.URL
	}
	c0 := tsClusters[0]
	oldURL := strings.TrimSuffix(c0.url, "/") + "/" + existingDeleted + "/"
	url[existingDeleted] = oldURL
	out := make([]events.PageInfo, 0, len(pages)+1)
	for _, p := range pages {
		body := p.HTML
		switch p.Kind {
		case "supporting":
			i, j := articleIndex(p.ID)
			c := tsClusters[i]
			next := c.articles[(j+1)%4]
			switch {
			case (i == 0 || i == 1) && j == 0: // missing uplink
			case i == 2 && j == 1: // uplink only at the end
				body += fmt.Sprintf("<p>There is more in <a href=\"%s\">our complete guide</a>.</p>\n", c.url)
			default:
				body = linkFirst(body, c.pk, c.url)
			}
			if !(i == 3 && j == 2) { // article 3 of cluster 3 stays an orphan
				body = linkAfter(body, "<h2>", next.pk, url[next.id])
			}
			if i == 0 && j == 1 {
				body += fmt.Sprintf("<p>We covered bike fit before in <a href=\"%s\">our old fit guide</a>.</p>\n", oldURL)
			}
			if i == 1 && j == 2 {
				body += "<p>Our <a href=\"/bikes/no-such-page/\">size chart</a> has the numbers.</p>\n"
			}
			if i == 4 && j == 0 {
				var extra []string
				for k, other := range tsClusters {
					if k != i && len(extra) < 8 {
						extra = append(extra, fmt.Sprintf("<a href=\"%s\">%s</a>", other.url, other.pk))
					}
				}
				for len(extra) < 8 {
					extra = append(extra, fmt.Sprintf("<a href=\"%s\">%s</a>", tsTerms[len(extra)%len(tsTerms)].url, tsTerms[len(extra)%len(tsTerms)].pk))
				}
				body += "<p>Further reading from the shop: " + strings.Join(extra, ", ") + ".</p>\n"
			}
		case "hub":
			i := clusterIndex(p.ID)
			c := tsClusters[i]
			for k, a := range c.articles {
				if i == 3 && k == 3 {
					continue // the orphan
				}
				name := a.pk
				if k%2 == 1 {
					name = a.kws[0]
				}
				body = linkAfter(body, "Start here", name, url[a.id])
			}
			for _, prod := range tsProducts {
				for _, by := range prod.namedBy {
					if by == c.id && prod.id != "aero-50" {
						body = linkFirst(body, prod.pk, prod.url)
					}
				}
			}
			if i == 0 {
				body += fmt.Sprintf("<p>Still looking for our <a href=\"%s\">old fit guide</a>? It has moved.</p>\n", oldURL)
			}
		case "home":
			for _, c := range tsClusters {
				body = linkFirst(body, c.pk, c.url)
			}
			body = linkFirst(body, "new bikes", "/bikes/")
			body = linkFirst(body, "cycling gear", "https://www.cadence-cycles.example/gear/")
		case "product":
			for _, prod := range tsProducts {
				if prod.id == p.ID {
					for _, h := range prod.hubs {
						c := clusterByID(h)
						body = linkFirst(body, c.pk, c.url+"?from=product")
					}
				}
			}
		}
		p.HTML = existingFrame(body)
		out = append(out, p)
	}
	old := c0.articles[0]
	out = append(out, events.PageInfo{ID: existingDeleted, URL: oldURL, Title: "Our Old Bike Fit Guide", Kind: "supporting",
		ClusterID: c0.id, SectorID: c0.sector, PrimaryKeyword: "old fit guide", PublishedAt: tsDate(1, 1), Version: 1,
		HTML: existingFrame(strings.ReplaceAll(articleHTML(0, 0), old.title, "Our Old Bike Fit Guide"))})
	return structure, out
}

// existingFrame wraps a page body as a CMS would: a header linking home,
// the sector navigation, the article and a footer.
func existingFrame(body string) string {
	return "<header><a href=\"/\">Cadence Cycles</a></header>\n" +
		"<nav><a href=\"/bikes/\">Bikes</a> <a href=\"/gear/\">Parts &amp; Gear</a></nav>\n" +
		"<main><article>\n" + body + "</article></main>\n" +
		"<footer><p><a href=\"/bikes/gravel/\">Gravel riding</a> · <a href=\"/winter-cycling/\">Winter cycling</a> · <a href=\"https://www.example.org/\" rel=\"nofollow\">Our partners</a></p></footer>\n"
}

func articleIndex(id string) (int, int) {
	for i, c := range tsClusters {
		for j, a := range c.articles {
			if a.id == id {
				return i, j
			}
		}
	}
	panic("no article " + id)
}

func clusterIndex(id string) int {
	for i, c := range tsClusters {
		if c.id == id {
			return i
		}
	}
	panic("no cluster " + id)
}

// linkFirst wraps the first whole-word occurrence of phrase inside a <p>
// in a link to href.
func linkFirst(body, phrase, href string) string { return linkAfter(body, "<p>", phrase, href) }

// linkAfter wraps the first occurrence of phrase after marker that sits
// in paragraph text and outside a link.
func linkAfter(body, marker, phrase, href string) string {
	from := strings.Index(body, marker)
	if from < 0 {
		return body
	}
	for i := from; ; {
		k := strings.Index(body[i:], phrase)
		if k < 0 {
			return body
		}
		at := i + k
		end := at + len(phrase)
		wordStart := at == 0 || !isWordByte(body[at-1])
		wordEnd := end == len(body) || !isWordByte(body[end])
		inTag := strings.LastIndex(body[:at], "<") > strings.LastIndex(body[:at], ">")
		inLink := strings.LastIndex(body[:at], "<a ") > strings.LastIndex(body[:at], "</a>")
		inPara := strings.LastIndex(body[:at], "<p>") > strings.LastIndex(body[:at], "</p>")
		if wordStart && wordEnd && !inTag && !inLink && inPara {
			return body[:at] + fmt.Sprintf("<a href=\"%s\">%s</a>", href, phrase) + body[end:]
		}
		i = end
	}
}

func isWordByte(b byte) bool {
	return b == '-' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// oracle works out an audit's figures from the pages' HTML by the
// README's definitions, with x/net/html's parser and net/url: none of the
// audit's own code.
type oracle struct {
	pages      int
	totalLinks int
	orphans    map[string]bool
	navOnly    map[string]bool
	missing    map[string]bool
	outside    map[string]bool
	broken     int
	unverified int
	over       map[string]bool
	under      map[string]bool
	dominant   map[string]bool
}

type oracleLink struct {
	path      string
	position  string // content, navigation, header, footer, aside, comments
	paragraph int    // among content paragraphs
	text      string
	follow    bool
}

// auditOracle computes the figures of a site whose live pages are live
// and whose deleted ones deleted.
func auditOracle(t *testing.T, host string, live []events.PageInfo, deleted []events.PageInfo) oracle {
	t.Helper()
	pol, err := policy.Resolve("sag", nil)
	if err != nil {
		t.Fatal(err)
	}
	o := oracle{orphans: map[string]bool{}, navOnly: map[string]bool{}, missing: map[string]bool{}, outside: map[string]bool{},
		over: map[string]bool{}, under: map[string]bool{}, dominant: map[string]bool{}}
	norm := func(p string) string {
		if len(p) > 1 {
			p = strings.TrimRight(p, "/")
		}
		if p == "" {
			p = "/"
		}
		return p
	}
	livePath, deletedPath := map[string]events.PageInfo{}, map[string]bool{}
	for _, p := range deleted {
		deletedPath[norm(p.URL)] = true
	}
	for _, p := range live {
		livePath[norm(p.URL)] = p
		delete(deletedPath, norm(p.URL))
	}
	hub := map[string]string{}
	for _, p := range live {
		if p.Kind == "hub" {
			hub[p.ClusterID] = p.ID
		}
	}
	inbound, bodyInbound := map[string]int{}, map[string]int{}
	anchorsTo := map[string]map[string]int{}
	for _, p := range live {
		o.pages++
		links, words := parseLinks(t, host, "https://"+host+p.URL, p.HTML)
		inBody := 0
		uplink := -1
		counted := map[string]bool{}
		for _, l := range links {
			o.totalLinks++
			if l.position == "content" {
				inBody++
			}
			target, ok := livePath[l.path]
			switch {
			case deletedPath[l.path]:
				o.broken++
				continue
			case !ok:
				o.unverified++
				continue
			case target.ID == p.ID:
				continue
			}
			if !counted[target.ID] {
				counted[target.ID] = true
				inbound[target.ID]++
			}
			if l.position != "navigation" && l.position != "header" && l.position != "footer" {
				bodyInbound[target.ID]++
			}
			// Anchors compare as the anchor rules fold them (case, spacing,
			// punctuation): that folding is the definition of "one exact anchor".
			// Only in-body links count: a menu repeats one anchor on every page.
			if text := anchors.Normalize(l.text); text != "" && l.position == "content" {
				if anchorsTo[target.ID] == nil {
					anchorsTo[target.ID] = map[string]int{}
				}
				anchorsTo[target.ID][text]++
			}
			if p.Kind == "supporting" && target.ID == hub[p.ClusterID] && l.position == "content" && (uplink < 0 || (l.paragraph > 0 && l.paragraph < uplink)) {
				uplink = l.paragraph
			}
		}
		if p.Kind == "supporting" && hub[p.ClusterID] != "" {
			switch {
			case uplink < 0:
				o.missing[p.ID] = true
			case uplink == 0 || uplink > 2:
				o.outside[p.ID] = true
			}
		}
		if p.Kind != "home" && p.Kind != "sector" && (p.Kind != "page" || p.ClusterID != "") {
			class := map[string]policy.DensityClass{"hub": policy.ClassHub, "product": policy.ClassProduct, "service": policy.ClassProduct,
				"term": policy.ClassTerm}[p.Kind]
			rng := pol.Density(class, words)
			switch {
			case rng.Max > 0 && inBody > rng.Max:
				o.over[p.ID] = true
			case inBody < rng.Min:
				o.under[p.ID] = true
			}
		}
	}
	for _, p := range live {
		switch {
		case p.Kind == "home":
		case inbound[p.ID] == 0:
			o.orphans[p.ID] = true
		case bodyInbound[p.ID] == 0:
			o.navOnly[p.ID] = true
		}
		total := 0
		for _, n := range anchorsTo[p.ID] {
			total += n
		}
		for _, n := range anchorsTo[p.ID] {
			if total >= pol.AnchorDominanceMinInbound && float64(n)/float64(total) > pol.AnchorDominanceFlagShare {
				o.dominant[p.ID] = true
			}
		}
	}
	return o
}

// parseLinks reads a page's internal links and visible word count with
// the standard parser: position from the nearest nav, header, footer or
// aside, paragraph among the content's <p> elements.
func parseLinks(t *testing.T, host, pageURL, src string) ([]oracleLink, int) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(pageURL)
	var links []oracleLink
	words := 0
	paragraphs := 0
	var walk func(n *html.Node, position string, paragraph int)
	walk = func(n *html.Node, position string, paragraph int) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "nav":
				position = "navigation"
			case "header", "footer", "aside":
				position = n.Data
			case "p":
				if position == "content" {
					paragraphs++
					paragraph = paragraphs
				}
			case "a":
				for _, a := range n.Attr {
					if a.Key != "href" {
						continue
					}
					u, err := base.Parse(a.Val)
					if err != nil || u.Host != host {
						continue
					}
					var text bytes.Buffer
					var collect func(*html.Node)
					collect = func(c *html.Node) {
						if c.Type == html.TextNode {
							text.WriteString(c.Data)
						}
						for k := c.FirstChild; k != nil; k = k.NextSibling {
							collect(k)
						}
					}
					collect(n)
					p := u.Path
					if len(p) > 1 {
						p = strings.TrimRight(p, "/")
					}
					pg := 0
					if position == "content" {
						pg = paragraph
					}
					links = append(links, oracleLink{path: p, position: position, paragraph: pg, text: text.String()})
				}
			}
		}
		if n.Type == html.TextNode {
			words += len(strings.Fields(n.Data))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, position, paragraph)
		}
	}
	walk(doc, "content", 0)
	return links, words
}
