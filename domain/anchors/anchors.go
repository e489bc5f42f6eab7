// Package anchors chooses anchor texts: which candidates may be used for a
// link to a target, in which order, so that anchors stay natural and the
// site-wide mix per target tends to the policy's shares.
package anchors

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

// Usage is how the links already pointing at one target are anchored,
// site-wide.
type Usage struct {
	ByText map[string]int          // normalised anchor text → links
	ByType map[link.AnchorType]int // anchor type → links
}

// Normalize is the form anchors are counted in: lower case, single spaces.
func Normalize(text string) string {
	if n, ok := normalizeASCII(text); ok {
		return n
	}
	return normalizeAny(text)
}

// normalizeAny is Normalize for any text.
func normalizeAny(text string) string {
	n := strings.ToLower(strings.Join(strings.Fields(text), " "))
	if strings.ContainsRune(n, 'ё') {
		// Russian writes е for ё at will, and the placer matches them as
		// one letter (markup folds them): one anchor, one count.
		n = strings.ReplaceAll(n, "ё", "е")
	}
	if strings.ContainsAny(n, "’‘ʼ") {
		// "l’évier" and "l'évier" are one anchor: editors and CMSs turn
		// one into the other, and a French trial's audit counted them
		// apart, then offered one as a variation of the other.
		n = apostrophes.Replace(n)
	}
	if strings.ContainsAny(n, "-‐‑") {
		// "noise-cancelling headphones" and "noise cancelling headphones"
		// are one anchor, as the placer takes a keyword's space for the
		// text's hyphen: an electronics trial's hub had four links of
		// those words, counted as two anchors under the cap, and the
		// hyphenated ones typed natural beside the keyword.
		n = strings.Join(strings.Fields(hyphens.Replace(n)), " ")
	}
	return n
}

// normalizeASCII is Normalize for text of ASCII letters, digits, marks and
// spaces without a hyphen, in one pass and at most one allocation; ok is
// false for any other text. Planning a page normalizes its targets'
// anchors thousands of times, and most are such text, often normalized
// already.
func normalizeASCII(text string) (n string, ok bool) {
	normal := true
	afterSpace := true // a leading space is dropped
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c >= utf8.RuneSelf || c == '-':
			return "", false
		case asciiSpace(c):
			if afterSpace || c != ' ' {
				normal = false
			}
			afterSpace = true
		case 'A' <= c && c <= 'Z':
			normal, afterSpace = false, false
		default:
			afterSpace = false
		}
	}
	if normal && !(len(text) > 0 && afterSpace) {
		return text, true
	}
	b := make([]byte, 0, len(text))
	space := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if asciiSpace(c) {
			space = len(b) > 0
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b), true
}

// asciiSpace reports whether c is one of the ASCII bytes strings.Fields
// splits on.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// apostrophes folds the typographic apostrophes to the typewriter one.
var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'")

// hyphens are the hyphens a compound is written with, each a space.
var hyphens = strings.NewReplacer("-", " ", "‐", " ", "‑", " ")

// Refusal says why a candidate may not be used.
type Refusal struct {
	Anchor link.Anchor
	Reason string
}

// Rank returns the usable candidates, best first, and the refused ones with
// their reason. A candidate is refused outside the policy's word range
// (2–8 words) or when its exact text already anchors max_exact_anchor_per_target
// (3) links to the target. The usable ones are ordered by how far their
// anchor type is below its target share (60% primary keyword, 30% title,
// 10% natural), then in the caller's order, so the mix drifts toward the
// policy and the same usage always gives the same order.
func Rank(p policy.Policy, candidates []link.Anchor, u Usage) (ranked []link.Anchor, refused []Refusal) {
	deficit := deficits(p, u)
	type entry struct {
		a     link.Anchor
		order int
	}
	var ok []entry
	seen := map[string]bool{}
	for i, c := range candidates {
		key := Normalize(c.Text)
		words := len(strings.Fields(key))
		switch {
		case key == "" || seen[key]:
			continue
		case words < p.AnchorMinWords || words > p.AnchorMaxWords:
			refused = append(refused, Refusal{c, fmt.Sprintf("anchor has %d word(s), outside %d–%d", words, p.AnchorMinWords, p.AnchorMaxWords)})
		case u.ByText[key] >= p.MaxExactAnchorPerTarget:
			refused = append(refused, Refusal{c, fmt.Sprintf("anchor already used %d times for this target", u.ByText[key])})
		default:
			ok = append(ok, entry{c, i})
		}
		seen[key] = true
	}
	sort.SliceStable(ok, func(i, j int) bool {
		di, dj := deficit[ok[i].a.Type], deficit[ok[j].a.Type]
		if di != dj {
			return di > dj
		}
		return ok[i].order < ok[j].order
	})
	for _, e := range ok {
		ranked = append(ranked, e.a)
	}
	return ranked, refused
}

// deficits is, per anchor type, its target share minus its current share.
// Branded anchors (home page links) have no share in the mix.
func deficits(p policy.Policy, u Usage) map[link.AnchorType]float64 {
	total := 0
	for _, n := range u.ByType {
		total += n
	}
	share := func(t link.AnchorType) float64 {
		if total == 0 {
			return 0
		}
		return float64(u.ByType[t]) / float64(total)
	}
	return map[link.AnchorType]float64{
		link.AnchorPrimaryKeyword: p.AnchorSharePrimary - share(link.AnchorPrimaryKeyword),
		link.AnchorPageTitle:      p.AnchorShareTitle - share(link.AnchorPageTitle),
		link.AnchorNatural:        p.AnchorShareNatural - share(link.AnchorNatural),
	}
}

// Dominant lists, sorted, the anchor texts that carry more than the policy's
// dominance share (40%) of the links to a target: the diversification
// audit flags them.
func Dominant(p policy.Policy, u Usage) []string {
	total := 0
	for _, n := range u.ByText {
		total += n
	}
	var out []string
	for text, n := range u.ByText {
		if total > 0 && float64(n)/float64(total) > p.AnchorDominanceFlagShare {
			out = append(out, text)
		}
	}
	sort.Strings(out)
	return out
}

// PreferredType draws the anchor type a link from source to target should
// prefer, with the policy's shares as weights, from a hash of the two page
// ids: the same pair always draws the same type, and over many pairs the
// types come out in the policy's proportions.
func PreferredType(p policy.Policy, sourceID, targetID string) link.AnchorType {
	h := fnv.New64a()
	h.Write([]byte(sourceID + "\x00" + targetID))
	total := p.AnchorSharePrimary + p.AnchorShareTitle + p.AnchorShareNatural
	if total <= 0 {
		return link.AnchorPrimaryKeyword
	}
	draw := float64(h.Sum64()>>11) / float64(1<<53) * total
	switch {
	case draw < p.AnchorSharePrimary:
		return link.AnchorPrimaryKeyword
	case draw < p.AnchorSharePrimary+p.AnchorShareTitle:
		return link.AnchorPageTitle
	default:
		return link.AnchorNatural
	}
}
