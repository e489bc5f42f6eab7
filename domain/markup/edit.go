package markup

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// LinkEdit changes one existing <a> element of a page, found by the byte
// offset of its "<a" as Links reports it (Link.Start).
type LinkEdit struct {
	Start int
	// Href is the new href value; "" unwraps the link instead: its start tag and the
	// "</a>" that closes it go, its text stays.
	Href string
}

// ErrNoLink is wrapped by every error about an edit whose Start is not where
// an <a> element of the page begins.
var ErrNoLink = errors.New("markup: no link starts there")

// EditLinks applies edits to src. Every byte outside the edited tags stays identical.
//
// The audit edits links it found in the page as it is, so the edits are
// checked together before any is made: an offset the scanner does not see
// an <a> at (the page changed since, or the offset was never a link), two
// edits of one link, or a new href Place would refuse fails the whole call
// and nothing is written. A new href must be an absolute path ("/boots/"):
// the edit carries no site host to check a full URL against.
//
// Unwrapping removes exactly what StripInserted removes for an inserted
// link. Retargeting rewrites only the href value inside the start tag,
// escaped and in the quotes it had ("" for an unquoted one); a tag without
// an href gets one right after "<a". Edits may come in any order.
func EditLinks(src []byte, edits []LinkEdit) ([]byte, error) {
	doc, err := scanDocument(src, 0)
	if err != nil {
		return nil, fmt.Errorf("edit links: %w", err)
	}
	// Visiting the edits by offset finds duplicates next to each other and
	// reports the first bad edit in page order, whatever the caller's order.
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(edits[a].Start, edits[b].Start) })
	rs := make([]replacement, 0, 2*len(edits))
	for k, i := range order {
		e := edits[i]
		if k > 0 && edits[order[k-1]].Start == e.Start {
			return nil, fmt.Errorf("edit links: edits %d and %d both change the link at byte %d", order[k-1], i, e.Start)
		}
		l := doc.anchorAt(e.Start)
		if l == nil {
			return nil, fmt.Errorf("edit links: edit %d: %w: byte %d of %d", i, ErrNoLink, e.Start, len(src))
		}
		if e.Href == "" {
			rs = l.unwrapCuts(rs)
			continue
		}
		if err := checkHref(e.Href, ""); err != nil {
			return nil, fmt.Errorf("edit links: edit %d, link at byte %d: %w", i, e.Start, err)
		}
		r, err := retarget(src[l.start:l.tagEnd], e.Href)
		if err != nil {
			return nil, fmt.Errorf("edit links: edit %d, link at byte %d: %w", i, e.Start, err)
		}
		r.start += l.start
		r.end += l.start
		rs = append(rs, r)
	}
	return replaceRanges(src, rs), nil
}

// anchorAt is the <a> whose start tag begins at off, nil for none. The
// scanner records anchors in page order.
func (s *scan) anchorAt(off int) *anchor {
	i, found := slices.BinarySearchFunc(s.anchors, off, func(a anchor, off int) int { return cmp.Compare(a.start, off) })
	if !found {
		return nil
	}
	return &s.anchors[i]
}

// retarget says how to point the start tag tag at href, with offsets
// relative to tag. The first href counts, as the tokenizer keeps the first
// of repeated names, so that is the one rewritten.
func retarget(tag []byte, href string) (replacement, error) {
	val := escapeAttr(href)
	var a attrSpan
	for i := nextAttr(tag, attrsStart(tag), &a); a.keyEnd > 0; i = nextAttr(tag, i, &a) {
		if a.keyEnd-a.keyStart != len("href") || !equalLower(tag[a.keyStart:a.keyEnd], "href") {
			continue
		}
		switch {
		case !a.hasEq: // <a href>
			return replacement{start: a.keyEnd, end: a.keyEnd, text: `="` + val + `"`}, nil
		case a.quote == 0: // <a href=/x> or <a href=>
			return replacement{start: a.valStart, end: a.valEnd, text: `"` + val + `"`}, nil
		case a.valEnd >= len(tag) || tag[a.valEnd] != a.quote:
			// A tag the tokenizer closed has closed its quotes; this is
			// only here so that a slip elsewhere cannot write past them.
			return replacement{}, fmt.Errorf("unterminated href value in %q", tag)
		default:
			// escapeAttr escapes both quotes, so the value is safe in
			// whichever the page used.
			return replacement{start: a.valStart, end: a.valEnd, text: val}, nil
		}
	}
	// Right after "<a": the tag name is exactly "a", so a space, "/" or
	// ">" follows it, and the new attribute is not glued to another.
	return replacement{start: len("<a"), end: len("<a"), text: ` href="` + val + `"`}, nil
}
