package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDefaultsAreTheSeedsNumbers(t *testing.T) {
	p, err := Default(SAG)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxLinksPerParagraph != 2 || p.MinWordsBetweenLinks != 50 || p.UplinkParagraphs != 2 ||
		p.AutoLinkScore != 60 || p.ReviewScore != 40 || p.AnchorMinWords != 2 || p.AnchorMaxWords != 8 ||
		p.MaxExactAnchorPerTarget != 3 || p.LabelOverlapMin != 2 || p.BudgetMin != 3 || p.BudgetMax != 5 {
		t.Errorf("defaults differ from the seeds: %+v", p)
	}
	if sum := p.WeightSharedAttributes + p.WeightTargetAuthority + p.WeightKeywordOverlap + p.WeightRecency + p.WeightLinkCountGap; sum != 100 {
		t.Errorf("score weights sum to %v, want 100", sum)
	}
}

func TestOverridesReplaceNamedValues(t *testing.T) {
	p, err := Resolve(Silo, json.RawMessage(`{"max_links_per_paragraph": 3, "budget_max": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxLinksPerParagraph != 3 || p.BudgetMax != 7 || p.Name != Silo || p.MinWordsBetweenLinks != 50 {
		t.Errorf("resolved %+v", p)
	}
}

func TestBadOverridesAreRefusedWithTheirName(t *testing.T) {
	for raw, want := range map[string]string{
		`{"max_link_per_paragraph": 3}`:                     "max_link_per_paragraph",
		`{"max_links_per_paragraph": 0}`:                    "max_links_per_paragraph must be positive",
		`{"anchor_min_words": 9}`:                           "anchor_min_words 9 exceeds anchor_max_words 8",
		`{"review_score": 70}`:                              "review_score 70 exceeds auto_link_score 60",
		`{"budget_min": 6}`:                                 "budget_min 6 exceeds budget_max 5",
		`{"max_links_per_paragraph": "two"}`:                "max_links_per_paragraph",
		`{"density_hub": {"short": {"min": 1, "max": 2}}} `: "",
	} {
		_, err := Resolve(SAG, json.RawMessage(raw))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", raw, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to name %q", raw, err, want)
		}
	}
	if _, err := Resolve("wiki", nil); err == nil {
		t.Error("unknown policy name accepted")
	}
}

func TestDensityRangeFollowsTheTableByPageTypeAndWordCount(t *testing.T) {
	p, _ := Default(SAG)
	cases := []struct {
		class    DensityClass
		words    int
		min, max int
	}{
		{ClassHub, 800, 5, 10}, {ClassHub, 1500, 10, 15}, {ClassHub, 2500, 15, 20},
		{ClassArticle, 999, 2, 5}, {ClassArticle, 1000, 3, 8}, {ClassArticle, 2001, 4, 12},
		{ClassProduct, 500, 2, 3}, {ClassProduct, 1500, 3, 5}, {ClassProduct, 3000, 3, 5},
		{ClassTerm, 200, 3, 0}, {ClassTerm, 5000, 3, 0},
	}
	for _, c := range cases {
		got := p.Density(c.class, c.words)
		if got.Min != c.min || got.Max != c.max {
			t.Errorf("class %d at %d words: %+v, want %d-%d", c.class, c.words, got, c.min, c.max)
		}
	}
}
