package markup

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// checkPlacement verifies what every Place result must satisfy, using the
// real HTML parser as the judge. It returns a description of the first
// broken property, or "".
func checkPlacement(src, out []byte, placements []Placement) string {
	if s, err := StripInserted(out); err != nil {
		return "strip: " + err.Error()
	} else if !bytes.Equal(s, src) {
		return fmt.Sprintf("strip(place(x)) != x\n x: %q\nout: %q\ngot: %q", src, out, s)
	}
	want := map[string]Placement{}
	for _, p := range placements {
		if p.Placed {
			want[p.ID] = p
			if got := string(out[p.Start:p.End]); !strings.HasPrefix(got, "<a ") || !strings.HasSuffix(got, p.Anchor+"</a>") {
				return fmt.Sprintf("placement %q offsets [%d,%d) hold %q", p.ID, p.Start, p.End, got)
			}
		}
	}
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		return "parse: " + err.Error()
	}
	srcDoc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return "parse src: " + err.Error()
	}
	before := markerCount(srcDoc)
	seen := map[string]int{}
	var problem string
	var walk func(n *html.Node, inA, inP bool, excluded string)
	walk = func(n *html.Node, inA, inP bool, excluded string) {
		if problem != "" {
			return
		}
		if n.Type == html.ElementNode {
			if n.DataAtom == atom.A && n.Namespace == "" {
				id, marked := attr(n, MarkerAttr)
				if marked && before[id] == 0 {
					seen[id]++
					p, ok := want[id]
					switch {
					case !ok:
						problem = fmt.Sprintf("unexpected inserted anchor %q", id)
					case inA:
						problem = fmt.Sprintf("inserted anchor %q is nested in another <a>", id)
					case !inP:
						problem = fmt.Sprintf("inserted anchor %q is not inside a <p>", id)
					case excluded != "":
						problem = fmt.Sprintf("inserted anchor %q is inside <%s>", id, excluded)
					case normalizeText(textOf(n)) != normalizeText(html.UnescapeString(p.Anchor)):
						problem = fmt.Sprintf("inserted anchor %q wraps %q, reported %q", id, textOf(n), p.Anchor)
					}
				}
				inA = true
			}
			if n.DataAtom == atom.P && n.Namespace == "" {
				inP = true
			}
			if excluded == "" && n.Namespace == "" && n.DataAtom != atom.A && n.DataAtom != atom.P &&
				classify(n.DataAtom)&classExcluded != 0 {
				excluded = n.Data
			}
			if n.Namespace != "" && excluded == "" {
				excluded = n.Namespace + " " + n.Data
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inA, inP, excluded)
		}
	}
	walk(doc, false, false, "")
	if problem != "" {
		return problem + fmt.Sprintf("\n x: %q\nout: %q", src, out)
	}
	for id := range want {
		if seen[id] != 1 {
			return fmt.Sprintf("inserted anchor %q appears %d times in the parsed output\n x: %q\nout: %q", id, seen[id], src, out)
		}
	}
	return ""
}

func markerCount(doc *html.Node) map[string]int {
	m := map[string]int{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if id, ok := attr(n, MarkerAttr); ok {
				m[id]++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return m
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
