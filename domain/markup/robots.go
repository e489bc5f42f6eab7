package markup

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// NoIndex reports whether a page asks search engines not to index it: a
// <meta name="robots"> (or "googlebot") whose content holds "noindex" or
// "none". Such a page (a thank-you page, a tag archive) is meant to have
// no search traffic, so no link is owed to it: an orphan that is not
// indexed is no finding. Reading stops at the first element that belongs
// in no head (<body>, or a fragment's first <article>), so it costs a page
// sent without a head nothing.
func NoIndex(src []byte) bool {
	z := html.NewTokenizer(bytes.NewReader(src))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "meta":
				if hasAttr && metaSaysNoIndex(z) {
					return true
				}
			case "html", "head", "title", "link", "base", "script", "style", "noscript", "template":
			default:
				return false
			}
		}
	}
}

func metaSaysNoIndex(z *html.Tokenizer) bool {
	var name, content string
	for {
		key, val, more := z.TagAttr()
		switch strings.ToLower(string(key)) {
		case "name":
			name = strings.ToLower(strings.TrimSpace(string(val)))
		case "content":
			content = string(val)
		}
		if !more {
			break
		}
	}
	if name != "robots" && name != "googlebot" {
		return false
	}
	for directive := range strings.SplitSeq(content, ",") {
		switch strings.ToLower(strings.TrimSpace(directive)) {
		case "noindex", "none":
			return true
		}
	}
	return false
}
