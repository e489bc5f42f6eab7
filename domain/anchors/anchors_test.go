package anchors

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

func pol() policy.Policy { p, _ := policy.Default(policy.SAG); return p }

var candidates = []link.Anchor{
	{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
	{Text: "The Complete Guide to Hiking Boots", Type: link.AnchorPageTitle},
	{Text: "boots", Type: link.AnchorPrimaryKeyword},
	{Text: "a guide to picking boots that fit wide feet on long trails", Type: link.AnchorNatural},
	{Text: "boots that fit", Type: link.AnchorNatural},
}

func texts(as []link.Anchor) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Text)
	}
	return out
}

func TestAnchorsOutsideTwoToEightWordsAreRefused(t *testing.T) {
	ranked, refused := Rank(pol(), candidates, Usage{})
	if len(refused) != 2 || !strings.Contains(refused[0].Reason, "1 word(s)") || !strings.Contains(refused[1].Reason, "12 word(s)") {
		t.Errorf("refused %+v", refused)
	}
	for _, a := range ranked {
		if n := len(strings.Fields(a.Text)); n < 2 || n > 8 {
			t.Errorf("ranked %q of %d words", a.Text, n)
		}
	}
}

func TestAnExactAnchorIsNotUsedMoreThanThreeTimesForOneTarget(t *testing.T) {
	ranked, refused := Rank(pol(), candidates, Usage{ByText: map[string]int{"hiking boots": 3}})
	for _, a := range ranked {
		if a.Text == "hiking boots" {
			t.Fatal("an anchor used 3 times was offered again")
		}
	}
	found := false
	for _, r := range refused {
		found = found || (r.Anchor.Text == "hiking boots" && strings.Contains(r.Reason, "used 3 times"))
	}
	if !found {
		t.Errorf("refused %+v", refused)
	}
}

func TestTheMixTendsToSixtyThirtyTenPerTarget(t *testing.T) {
	p := pol()
	// No links yet: the primary keyword has the largest deficit.
	ranked, _ := Rank(p, candidates, Usage{})
	if got := texts(ranked); !reflect.DeepEqual(got, []string{"hiking boots", "The Complete Guide to Hiking Boots", "boots that fit"}) {
		t.Errorf("first link: %v", got)
	}
	// 7 primary, 1 title, 0 natural of 8: the title is furthest below its share.
	u := Usage{ByType: map[link.AnchorType]int{link.AnchorPrimaryKeyword: 7, link.AnchorPageTitle: 1}}
	if ranked, _ := Rank(p, candidates, u); ranked[0].Type != link.AnchorPageTitle {
		t.Errorf("after 7 keyword anchors: %v", texts(ranked))
	}
	// Simulate 100 links: always take the best-ranked candidate.
	u = Usage{ByText: map[string]int{}, ByType: map[link.AnchorType]int{}}
	many := []link.Anchor{}
	for i := range 40 {
		many = append(many,
			link.Anchor{Text: "hiking boots " + strconv.Itoa(i), Type: link.AnchorPrimaryKeyword},
			link.Anchor{Text: "boot guide " + strconv.Itoa(i), Type: link.AnchorPageTitle},
			link.Anchor{Text: "boots that fit " + strconv.Itoa(i), Type: link.AnchorNatural})
	}
	for range 100 {
		ranked, _ := Rank(p, many, u)
		u.ByText[Normalize(ranked[0].Text)]++
		u.ByType[ranked[0].Type]++
	}
	if u.ByType[link.AnchorPrimaryKeyword] != 60 || u.ByType[link.AnchorPageTitle] != 30 || u.ByType[link.AnchorNatural] != 10 {
		t.Errorf("mix after 100 links: %v", u.ByType)
	}
}

func TestAnAnchorOverFortyPercentOfATargetsLinksIsFlagged(t *testing.T) {
	u := Usage{ByText: map[string]int{"hiking boots": 5, "boot guide": 3, "boots that fit": 2}}
	if got := Dominant(pol(), u); !reflect.DeepEqual(got, []string{"hiking boots"}) {
		t.Errorf("dominant %v, want [hiking boots] (5 of 10 = 50%%)", got)
	}
	u = Usage{ByText: map[string]int{"hiking boots": 4, "boot guide": 3, "boots that fit": 3}}
	if got := Dominant(pol(), u); len(got) != 0 {
		t.Errorf("dominant %v at exactly 40%%, want none", got)
	}
}

// An anchor is one however its apostrophe is typed (a French trial's
// audit counted "l’évier" and "l'évier" apart, then offered one as a
// variation of the other).
func TestNormalizeFoldsTypographicApostrophes(t *testing.T) {
	for _, typed := range []string{"Réparer une fuite sous l’évier", "réparer une fuite sous l‘évier", "réparer une fuite sous lʼévier"} {
		if a, b := Normalize(typed), Normalize("réparer une fuite sous l'évier"); a != b {
			t.Errorf("Normalize gives %q and %q, want one key", a, b)
		}
	}
}

// The anchor cap counts one anchor however Russian spells ё (trial t9
// found "черная смородина" and "чёрная смородина" counted apart).
func TestNormalizeFoldsACompoundsHyphensAsSpaces(t *testing.T) {
	for _, typed := range []string{"Noise-Cancelling Headphones", "noise‐cancelling headphones", "noise - cancelling  headphones", "noise‑cancelling headphones"} {
		if a, b := Normalize(typed), Normalize("noise cancelling headphones"); a != b {
			t.Errorf("%q is %q, not %q", typed, a, b)
		}
	}
	if got := Normalize("-e-bike-"); got != "e bike" {
		t.Errorf("Normalize(%q) = %q, want %q", "-e-bike-", got, "e bike")
	}
}

func TestNormalizeFoldsYoAsYe(t *testing.T) {
	if a, b := Normalize("Чёрная  смородина"), Normalize("черная смородина"); a != b {
		t.Errorf("Normalize gives %q and %q, want one key", a, b)
	}
}

func TestNormalizeOfASCIITextAgreesWithTheFoldsOfAnyText(t *testing.T) {
	pieces := []string{"a", "B", "z", "Q", "7", " ", "  ", "\t", "\n", "\r", "\v", "\f", "-", "'", ".", "é", "É", "ё", "’",
		"\u00a0", "\u0085", "\x00", "\x1f", "ß", "İ", "Road", "bikes"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 200_000 {
		var b strings.Builder
		for range rng.IntN(9) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		if got, want := Normalize(text), normalizeAny(text); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", text, got, want)
		}
	}
	for _, text := range []string{"", " ", "road bikes", " Road  Bikes ", "road\tbikes\n", "ROAD BIKES", "a b c"} {
		if got, want := Normalize(text), normalizeAny(text); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", text, got, want)
		}
	}
}
