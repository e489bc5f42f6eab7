package anchors

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
)

func TestPreferredTypesComeOutInThePolicysMix(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	counts := map[link.AnchorType]int{}
	const pairs = 20000
	for i := 0; i < pairs; i++ {
		counts[PreferredType(p, fmt.Sprintf("article-%d", i), "hub-boots")]++
	}
	for typ, want := range map[link.AnchorType]float64{link.AnchorPrimaryKeyword: 0.6, link.AnchorPageTitle: 0.3, link.AnchorNatural: 0.1} {
		if got := float64(counts[typ]) / pairs; math.Abs(got-want) > 0.02 {
			t.Errorf("%s drawn for %.3f of links, want %.2f", typ, got, want)
		}
	}
	if PreferredType(p, "a", "b") != PreferredType(p, "a", "b") {
		t.Error("the same pair drew different types")
	}
}

func TestCandidatesFollowTheSeedsOrderWithShortTitleAndNaturalPhrases(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	texts := []string{"Before a long trip, waterproof | your leather boots and check the boots for cracks.",
		"Good leather hiking boots last for years."}
	got := Candidates(Target{
		PrimaryKeywords: []string{"leather hiking boots"},
		Variations:      []string{"Leather Hiking Boots", "leather boots"},
		Title:           "Leather Boots: Care and Repair",
	}, NewText(texts), p)
	want := []link.Anchor{
		{Text: "leather hiking boots", Type: link.AnchorPrimaryKeyword},
		{Text: "leather boots", Type: link.AnchorPrimaryKeyword},
		{Text: "Leather Boots: Care and Repair", Type: link.AnchorPageTitle},
		{Text: "leather boots and check the boots", Type: link.AnchorNatural},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates\n%+v\nwant\n%+v", got, want)
	}
}

func TestNaturalPhrasesNeverCrossPunctuationOrTags(t *testing.T) {
	p, _ := policy.Default(policy.SAG)
	got := NaturalPhrases(NewText([]string{"trail | running on the, shoes. Running trail shoes; running on a trail"}), []string{"trail running shoes"}, p)
	if !reflect.DeepEqual(got, []string{"running on a trail"}) {
		t.Errorf("phrases %q", got)
	}
}
