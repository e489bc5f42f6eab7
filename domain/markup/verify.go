package markup

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The scanner follows the tree builder exactly for ordinary markup. For the
// malformed rest (misnested formatting, foster parenting, markup breaking out
// of SVG or MathML...) it flags the document as uncertain, and Place then
// asks the real parser whether each inserted link ended up where intended,
// dropping any that did not. Well-formed pages never pay for a parse.

// verifyInsertions parses out and reports the IDs of inserted anchors that
// are missing, repeated, nested, outside a <p>, inside an excluded element,
// or do not hold exactly the text they were placed around.
func verifyInsertions(out []byte, want map[string]string) map[string]bool {
	doc, err := html.Parse(bytes.NewReader(out))
	bad := map[string]bool{}
	if err != nil {
		for id := range want {
			bad[id] = true
		}
		return bad
	}
	seen := make(map[string]int, len(want))
	var walk func(n *html.Node, inA, inP, excluded bool)
	walk = func(n *html.Node, inA, inP, excluded bool) {
		if n.Type == html.ElementNode {
			if n.Namespace != "" {
				excluded = true
			} else {
				switch {
				case n.DataAtom == atom.A:
					if id, ok := markerOf(n); ok {
						if text, mine := want[id]; mine {
							seen[id]++
							if inA || !inP || excluded || n.FirstChild == nil ||
								n.FirstChild != n.LastChild || n.FirstChild.Type != html.TextNode ||
								normalizeText(n.FirstChild.Data) != normalizeText(html.UnescapeString(text)) {
								bad[id] = true
							}
						}
					}
					inA = true
				case n.DataAtom == atom.P:
					inP = true
				case classify(n.DataAtom)&classExcluded != 0 || concealedNode(n):
					excluded = true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inA, inP, excluded)
		}
	}
	walk(doc, false, false, false)
	for id := range want {
		if seen[id] != 1 {
			bad[id] = true
		}
	}
	return bad
}

// concealedNode is conceals for a parsed element.
func concealedNode(n *html.Node) bool {
	var at tagAttrs
	for _, a := range n.Attr {
		if a.Namespace == "" {
			at.set(a.Key, a.Val)
		}
	}
	return conceals(n.DataAtom, at)
}

func markerOf(n *html.Node) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == MarkerAttr {
			return a.Val, true
		}
	}
	return "", false
}

// normalizeText undoes what the tokenizer and tree builder do to text
// (newline normalisation, dropped NULs) so that texts compare.
func normalizeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\x00", "")
	return strings.ReplaceAll(s, "\ufffd", "")
}
