package markup

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// Title returns the text of a page's <title>, character references
// decoded, whitespace collapsed and bytes that are not UTF-8 replaced by
// U+FFFD; "" when it has none. A <title> inside
// <svg> or <math> names a drawing or formula, not the page, and is passed
// over. Reading stops at the first title: it is in the head, so a page is
// rarely read far.
func Title(src []byte) string {
	z := html.NewTokenizer(bytes.NewReader(src))
	foreign := 0 // depth of <svg> and <math> elements around the token
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "svg", "math":
				foreign++
			case "title":
				if foreign > 0 {
					continue
				}
				// The tokenizer reads a title's content as one text
				// token (RCDATA), references decoded, up to </title>.
				if z.Next() != html.TextToken {
					return ""
				}
				title := strings.Join(strings.Fields(string(z.Text())), " ")
				return strings.ToValidUTF8(title, "\uFFFD")
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if n := string(name); (n == "svg" || n == "math") && foreign > 0 {
				foreign--
			}
		}
	}
}
