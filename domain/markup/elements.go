package markup

import "golang.org/x/net/html/atom"

// elemClass is what the scanner needs to know about an element to follow the
// HTML tree builder closely enough to be safe: when in doubt a class makes
// text ineligible, never eligible.
type elemClass uint16

const (
	// classVoid elements have no end tag and are never pushed.
	classVoid elemClass = 1 << iota
	// classExcluded: no link may be placed anywhere inside.
	classExcluded
	// classInline may sit between a <p> and the text a link goes into.
	classInline
	// classClosesP start tags close an open <p> (HTML "in body" rules).
	classClosesP
	// classScope stops the search for an open <p> ("button scope").
	classScope
	// classSpecial stops an unmatched generic end tag (HTML "special" category).
	classSpecial
	// classMarker elements bound the list of active formatting elements.
	classMarker
	// classForeign starts SVG or MathML content.
	classForeign
	// classZone elements give a link its position on the page.
	classZone
	// classHidden elements hold text that is not shown, so not counted.
	classHidden
	// classJoins tags do not end a word: "<b>re</b>ad" is one word.
	classJoins
	// classFormatting elements are the tree builder's formatting elements,
	// whose end tags go through the adoption agency.
	classFormatting
	// classStartRules and classEndRules elements have rules of their own
	// in the scanner's start and end tag handling; the rest skip them.
	classStartRules
	classEndRules
	// classTableContext elements (table, tbody, thead, tfoot, tr) foster-
	// parent the text and most elements put directly inside them. Foreign
	// elements of those names carry it too: the scanner's checks go by
	// name.
	classTableContext
)

// classify answers everything the scanner asks about an element in one
// lookup; the answer travels with the stack entry.
func classify(a atom.Atom) elemClass {
	c := baseClass(a)
	if isHidden(a) {
		c |= classHidden
	}
	if joinsWords(a, c) {
		c |= classJoins
	}
	if isFormatting(a) {
		c |= classFormatting
	}
	if isTableContext(a) {
		c |= classTableContext
	}
	switch a {
	case atom.Html, atom.Body, atom.Article, atom.Main, atom.A, atom.Code, atom.S, atom.Strike:
		c |= classStartRules | classEndRules
	case atom.Caption, atom.Col, atom.Colgroup, atom.Frame, atom.Tbody, atom.Td, atom.Tfoot, atom.Th,
		atom.Thead, atom.Tr, atom.Head, atom.Frameset, atom.Li, atom.Dd, atom.Dt,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		c |= classStartRules
	case atom.P, atom.Br:
		c |= classEndRules
	}
	return c
}

func baseClass(a atom.Atom) elemClass {
	switch a {
	case atom.Area, atom.Base, atom.Basefont, atom.Bgsound, atom.Br, atom.Col, atom.Embed,
		atom.Frame, atom.Hr, atom.Img, atom.Image, atom.Input, atom.Keygen, atom.Link,
		atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		c := classVoid
		if a == atom.Hr {
			c |= classClosesP
		}
		return c | classSpecial

	case atom.A, atom.Code, atom.Kbd, atom.Samp, atom.Var, atom.Tt:
		return classExcluded
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return classExcluded | classClosesP | classSpecial
	case atom.Li, atom.Dd, atom.Dt, atom.Pre, atom.Listing, atom.Plaintext, atom.Xmp:
		return classExcluded | classClosesP | classSpecial
	case atom.Script, atom.Style, atom.Template, atom.Textarea, atom.Title, atom.Noscript,
		atom.Iframe, atom.Noembed, atom.Noframes, atom.Head, atom.Select, atom.Frameset:
		c := classExcluded | classSpecial
		switch a {
		case atom.Template:
			c |= classMarker | classScope
		case atom.Select:
			// x/net/html parses <select> content in body mode, with select
			// as a scope boundary.
			c |= classScope
		}
		return c
	case atom.Button:
		return classExcluded | classScope | classSpecial
	case atom.Option, atom.Optgroup, atom.Datalist, atom.Label, atom.Output, atom.Progress,
		atom.Meter, atom.Canvas, atom.Audio, atom.Video, atom.Map, atom.Ruby, atom.Rt, atom.Rp:
		return classExcluded
	case atom.Object, atom.Applet, atom.Marquee:
		return classExcluded | classScope | classMarker | classSpecial
	case atom.Svg, atom.Math:
		return classExcluded | classForeign | classScope

	case atom.Table:
		return classClosesP | classScope | classSpecial
	case atom.Td:
		return classScope | classMarker | classSpecial
	case atom.Th, atom.Caption:
		// A header cell or a table's caption labels the data; a link there
		// reads as navigation, as in a heading.
		return classExcluded | classScope | classMarker | classSpecial
	case atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot, atom.Colgroup:
		return classSpecial

	case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Main, atom.Article:
		return classClosesP | classSpecial | classZone
	case atom.Figcaption, atom.Summary, atom.Blockquote:
		// A caption labels its figure, and a summary is the control that
		// opens its details: a link there is a label's, not the prose's.
		// A quotation is another's words, or the page's own again as a
		// pull quote (a SaaS trial's link sat in a customer's quote).
		return classExcluded | classClosesP | classSpecial
	case atom.Address, atom.Center, atom.Details, atom.Dialog, atom.Dir,
		atom.Div, atom.Dl, atom.Fieldset, atom.Figure, atom.Hgroup,
		atom.Menu, atom.Ol, atom.P, atom.Search, atom.Section, atom.Ul, atom.Form:
		return classClosesP | classSpecial
	case atom.Html, atom.Body:
		return classSpecial

	case atom.B, atom.I, atom.Em, atom.Strong, atom.Span, atom.Small, atom.Mark, atom.U,
		atom.Sub, atom.Sup, atom.Abbr, atom.Cite, atom.Q, atom.Dfn, atom.Time,
		atom.Data, atom.Bdi, atom.Bdo, atom.Ins, atom.Font, atom.Big, atom.Nobr:
		return classInline
	case atom.Del, atom.S, atom.Strike:
		// Struck-through text is what the page no longer says.
		return classInline | classExcluded
	}
	return 0
}

// joinsWords reports tags that do not end a word: "<b>re</b>ad" is one word,
// "re<br>ad" is two.
func joinsWords(a atom.Atom, c elemClass) bool {
	if c&classInline != 0 {
		return true
	}
	switch a {
	case atom.A, atom.Code, atom.Kbd, atom.Samp, atom.Var, atom.Tt, atom.Label:
		return true
	}
	return false
}

// isHidden reports elements whose text is not shown on the page and so is
// not counted as words.
func isHidden(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Template, atom.Title, atom.Noscript, atom.Head,
		atom.Iframe, atom.Noembed, atom.Noframes, atom.Textarea, atom.Select, atom.Object,
		atom.Applet:
		return true
	}
	return false
}

// zone is where on a page a link sits, from the semantic element around it.
type zone uint8

const (
	zoneContent zone = iota
	zoneNavigation
	zoneHeader
	zoneFooter
	zoneAside
	zoneComments // the readers' comment section
)

func (z zone) String() string {
	switch z {
	case zoneNavigation:
		return "navigation"
	case zoneHeader:
		return "header"
	case zoneFooter:
		return "footer"
	case zoneAside:
		return "aside"
	case zoneComments:
		return "comments"
	}
	return "content"
}

func zoneOf(a atom.Atom) zone {
	switch a {
	case atom.Nav:
		return zoneNavigation
	case atom.Header:
		return zoneHeader
	case atom.Footer:
		return zoneFooter
	case atom.Aside:
		return zoneAside
	}
	return zoneContent
}

func zoneOfRole(role string) (zone, bool) {
	switch role {
	case "navigation":
		return zoneNavigation, true
	case "banner":
		return zoneHeader, true
	case "contentinfo":
		return zoneFooter, true
	case "complementary":
		return zoneAside, true
	case "main", "article":
		return zoneContent, true
	}
	return 0, false
}
