package markup

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ParagraphTexts returns the visible text of each content <p> block a
// link may go in (Paragraph.Content), entities
// decoded, whitespace collapsed and " | " at every tag, leaving out text inside links and
// inside elements no link may go in. Planning reads it to find natural
// anchor phrases and to prefer targets the text already talks about.
func ParagraphTexts(src []byte) []string {
	paras := Paragraphs(src)
	out := make([]string, 0, len(paras))
	for _, p := range paras {
		// Text no link may go in is not the page's text to plan from: a
		// trial's hub had links planned for names it held only in a
		// <template>, a hidden paragraph and its footer, and they took
		// its density budget with no anchor the placer could use.
		if p.Content == 0 || p.Start < 0 || p.End > len(src) || p.Start >= p.End {
			continue
		}
		out = append(out, visibleOutsideLinks(src[p.Start:p.End]))
	}
	return out
}

// VisibleText returns the visible text of a page or fragment outside its
// links, as ParagraphTexts gives each paragraph's: headings, lists,
// tables and the site's menus too. A planning note reads it to tell a
// name the page gives only where no link goes from one it never gives.
func VisibleText(src []byte) string { return visibleOutsideLinks(src) }

func visibleOutsideLinks(fragment []byte) string {
	z := html.NewTokenizer(bytes.NewReader(fragment))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(strings.ReplaceAll(b.String(), string(softHyphen), "")), " ")
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			if hidesText(atom.Lookup(name)) {
				skip++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if hidesText(atom.Lookup(name)) && skip > 0 {
				skip--
			}
		}
		// Links are never placed across an element boundary, so text on
		// either side of a tag must not read as one phrase.
		b.WriteString(" | ")
	}
}

// hidesText reports the elements whose text is not prose a link could be
// placed in.
func hidesText(a atom.Atom) bool {
	switch a {
	case atom.A, atom.Script, atom.Style, atom.Code, atom.Pre, atom.Svg, atom.Math, atom.Button, atom.Select, atom.Textarea,
		atom.Del, atom.S, atom.Strike:
		return true
	}
	return false
}
