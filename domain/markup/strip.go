package markup

import (
	"cmp"
	"slices"
)

// StripInserted removes exactly what Place (and the block generators) inserted: StripInserted(Place(x)) == x.
//
// An inserted <a> is recognised by MarkerAttr and loses its start tag and the
// "</a>" that closes it; its text stays. A generated block is recognised by
// BlockMarkerAttr on its root element and goes whole.
func StripInserted(src []byte) ([]byte, error) {
	return strip(src, hasMarker)
}

// StripInternal unwraps every internal link (a relative href or one on
// siteHost), inserted or not, and removes generated blocks, leaving external
// links, fragment-only links and everything else untouched. It is how a page
// is brought back to its state before any linking, for re-planning.
func StripInternal(src []byte, siteHost string) ([]byte, error) {
	return strip(src, func(l *anchor) bool {
		return hasMarker(l) || l.hasHref && isInternalHref(l.href, siteHost)
	})
}

func hasMarker(l *anchor) bool { return l.hasMarker }

func strip(src []byte, unwrap func(*anchor) bool) ([]byte, error) {
	doc, err := scanDocument(src, wantBlocks)
	if err != nil {
		return nil, err
	}
	var rs []replacement
	for _, b := range doc.blocks {
		rs = append(rs, replacement{start: b.start, end: b.end})
	}
	inBlock := func(off int) bool {
		for _, b := range doc.blocks {
			if b.start <= off && off < b.end {
				return true
			}
		}
		return false
	}
	for i := range doc.anchors {
		l := &doc.anchors[i]
		if !unwrap(l) || inBlock(l.start) {
			continue
		}
		rs = l.unwrapCuts(rs)
	}
	return replaceRanges(src, rs), nil
}

// unwrapCuts appends what unwrapping l removes: its start tag and the
// "</a>" paired with it, when there is one. The text between stays.
func (l *anchor) unwrapCuts(rs []replacement) []replacement {
	rs = append(rs, replacement{start: l.start, end: l.tagEnd})
	if l.closeStart >= 0 {
		rs = append(rs, replacement{start: l.closeStart, end: l.closeEnd})
	}
	return rs
}

// replacement is one change to a page: src[start:end] becomes text.
type replacement struct {
	start, end int
	text       string
}

// replaceRanges writes src with every replacement made, in one pass. A
// replacement that begins inside an earlier one is dropped: it edits bytes
// that one already replaced, as a link inside a stripped block.
func replaceRanges(src []byte, rs []replacement) []byte {
	slices.SortFunc(rs, func(a, b replacement) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	n := len(src)
	for _, r := range rs {
		n += len(r.text)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, r := range rs {
		if r.start < last {
			continue
		}
		out = append(out, src[last:r.start]...)
		out = append(out, r.text...)
		last = r.end
	}
	return append(out, src[last:]...)
}
