package markup

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// OwnTrail is what breadcrumb trail a page's HTML holds of its own, apart
// from the blocks interlinker wrote: a visible one (an element whose id,
// class or aria-label says "breadcrumb", or microdata of schema.org's
// BreadcrumbList, as Yoast's <p id="breadcrumbs">, Rank Math's and
// WooCommerce's trails are written) and a structured one (JSON-LD naming
// a BreadcrumbList). A finance trial's articles, which carried Yoast's
// trail, were given a second one above it.
type OwnTrail struct {
	Visible, Structured bool
}

// FindOwnTrail reads the page for the trail it holds of its own.
func FindOwnTrail(page []byte) OwnTrail {
	var own OwnTrail
	// Every page of the inject stage is read for one; most name none, and
	// a trail says one of these words ("BreadcrumbList" holds the first).
	if !holdsAnyFold(page, breadcrumbParts) {
		return own
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	inLD := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return own
		case html.TextToken:
			if inLD && bytes.Contains(z.Text(), []byte("BreadcrumbList")) {
				own.Structured = true
			}
		case html.EndTagToken:
			inLD = false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			inLD = false
			ours, breadcrumb, ld := false, false, false
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				v := strings.ToLower(string(val))
				switch string(key) {
				case BlockMarkerAttr:
					ours = true
				case "id", "class":
					for name := range strings.FieldsSeq(v) {
						breadcrumb = breadcrumb || namesBreadcrumb(name)
					}
				case "aria-label":
					breadcrumb = breadcrumb || strings.Contains(v, "breadcrumb")
				case "itemtype":
					breadcrumb = breadcrumb || strings.HasSuffix(strings.TrimRight(v, "/ "), "breadcrumblist")
				case "type":
					ld = string(name) == "script" && strings.TrimSpace(v) == "application/ld+json"
				}
			}
			if ours {
				continue
			}
			// The elements holding the document name the page's features
			// in their classes ("has-breadcrumbs"), never a trail.
			switch string(name) {
			case "html", "body", "main", "article", "script":
				breadcrumb = false
			}
			own.Visible = own.Visible || breadcrumb
			inLD = ld
		}
	}
}
