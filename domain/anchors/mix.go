package anchors

import (
	"cmp"
	"slices"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

// Mix is how the in-body links placed to one target are anchored, set
// beside what the policy aims at: the keyword/title/natural shares each
// link's preferred type is drawn toward (PreferredType), and the exact
// anchors with their uses against max_exact_anchor_per_target. Generated
// lists and breadcrumbs name a page by its title by design and are not
// counted, as the cap does not count them.
type Mix struct {
	Placed int                         // placed in-body links to the target
	ByType map[link.AnchorType]int     // of them, by anchor type
	Share  map[link.AnchorType]float64 // ByType over Placed, by type (0–1)
	Aim    map[link.AnchorType]float64 // the policy's share of each type
	Exact  []ExactUse                  // by uses, most first, then by anchor
	Cap    int                         // max_exact_anchor_per_target
}

// ExactUse is one anchor text, as the cap counts it (Normalize), and the
// placed in-body links to the target that use it.
type ExactUse struct {
	Anchor string
	Links  int
	AtCap  bool // Links has reached the cap: no further link may use it
}

// MixOf reads the mix of the links to one target (links may hold others:
// unplaced links and those outside the body are passed over).
func MixOf(p policy.Policy, links []link.Link) Mix {
	m := Mix{ByType: map[link.AnchorType]int{}, Share: map[link.AnchorType]float64{}, Cap: p.MaxExactAnchorPerTarget,
		Aim: map[link.AnchorType]float64{
			link.AnchorPrimaryKeyword: p.AnchorSharePrimary,
			link.AnchorPageTitle:      p.AnchorShareTitle,
			link.AnchorNatural:        p.AnchorShareNatural,
		}}
	uses := map[string]int{}
	for _, l := range links {
		if !l.Placed() || l.Zone != link.ZoneInBody {
			continue
		}
		m.Placed++
		m.ByType[l.AnchorType]++
		if key := Normalize(l.Anchor); key != "" {
			uses[key]++
		}
	}
	for t, n := range m.ByType {
		m.Share[t] = float64(n) / float64(m.Placed)
	}
	for text, n := range uses {
		m.Exact = append(m.Exact, ExactUse{Anchor: text, Links: n, AtCap: m.Cap > 0 && n >= m.Cap})
	}
	slices.SortFunc(m.Exact, func(a, b ExactUse) int {
		return cmp.Or(cmp.Compare(b.Links, a.Links), cmp.Compare(a.Anchor, b.Anchor))
	})
	return m
}
