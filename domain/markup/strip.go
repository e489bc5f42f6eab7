package markup

import "sort"

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
	type cut struct{ start, end int }
	var cuts []cut
	for _, b := range doc.blocks {
		cuts = append(cuts, cut{b.start, b.end})
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
		cuts = append(cuts, cut{l.start, l.tagEnd})
		if l.closeStart >= 0 {
			cuts = append(cuts, cut{l.closeStart, l.closeEnd})
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].start < cuts[j].start })
	out := make([]byte, 0, len(src))
	last := 0
	for _, c := range cuts {
		if c.start < last {
			continue // inside a block already cut
		}
		out = append(out, src[last:c.start]...)
		last = c.end
	}
	return append(out, src[last:]...), nil
}
