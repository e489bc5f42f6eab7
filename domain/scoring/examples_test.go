package scoring

import (
	"testing"
	"time"
)

// The worked examples of README's "How a link is scored": a reader can
// check the formula against them, and these tests check them against the
// code.

func TestSharedAttributesSaturateAtTwoValues(t *testing.T) {
	p := sag()
	source := Candidate{AttributeValues: []string{"terrain=mountain", "material=leather", "season=winter", "use=hiking"}}
	for shared, want := range map[int]float64{0: 0, 1: 20, 2: 40, 3: 40} {
		values := []string{"terrain=desert", "material=mesh", "season=summer"}
		copy(values, source.AttributeValues[:shared])
		got := SAG(p, source, Candidate{AttributeValues: values}, Context{Now: now}).Factors[FactorSharedAttributes]
		if got != want {
			t.Errorf("%d shared values: %v points, want %v", shared, got, want)
		}
	}
	p.SharedAttributeSaturation = 4
	one := SAG(p, source, Candidate{AttributeValues: []string{"terrain=mountain"}}, Context{Now: now})
	if one.Factors[FactorSharedAttributes] != 10 {
		t.Errorf("one shared value at a saturation of 4: %v points, want 10", one.Factors[FactorSharedAttributes])
	}
}

// A kitchen trial site tagged each cluster with one value: its hub's
// links to its own articles, and the articles' links to each other, got
// 20 of 40 and fell to review at 59.34. A source with fewer values than
// the saturation gets the whole weight by sharing all of them, however
// many the target carries; a source with more still needs the saturation.
func TestASourceSharingAllOfItsFewerValuesGetsTheWholeWeight(t *testing.T) {
	p := sag()
	cases := []struct {
		name           string
		source, target []string
		saturation     int
		want           float64
	}{
		{"one value, its own cluster's page", []string{"difficulty=easy"}, []string{"Difficulty=Easy"}, 2, 40},
		{"one value, a target with more", []string{"difficulty=easy"}, []string{"difficulty=easy", "difficulty=hard", "cuisine=french"}, 2, 40},
		{"one value listed twice", []string{"difficulty=easy", "DIFFICULTY=easy"}, []string{"difficulty=easy"}, 2, 40},
		{"two of three at a saturation of 4", []string{"a=1", "b=2", "c=3"}, []string{"a=1", "b=2"}, 4, 26.67},
		{"three of three at a saturation of 4", []string{"a=1", "b=2", "c=3"}, []string{"a=1", "b=2", "c=3", "d=4"}, 4, 40},
		{"one of two", []string{"a=1", "b=2"}, []string{"a=1", "c=3"}, 2, 20},
		{"none of one", []string{"a=1"}, []string{"a=2"}, 2, 0},
		{"no values", nil, []string{"a=1"}, 2, 0},
	}
	for _, c := range cases {
		p.SharedAttributeSaturation = c.saturation
		got := SAG(p, Candidate{AttributeValues: c.source}, Candidate{AttributeValues: c.target}, Context{Now: now}).Factors[FactorSharedAttributes]
		if got != c.want {
			t.Errorf("%s: %v points, want %v", c.name, got, c.want)
		}
	}
}

func TestWorkedExampleHubToHubSharingTwoValuesQualifiesAsCrossCluster(t *testing.T) {
	source := Candidate{AttributeValues: []string{"terrain=mountain", "material=leather"},
		Keywords: []string{"hiking boots", "trail boots"}}
	target := Candidate{AttributeValues: []string{"terrain=mountain", "material=leather", "use=running"},
		Keywords: []string{"trail runners", "Trail Runners", "trail running shoes"},
		Inbound:  19, PublishedAt: now.Add(-14 * 24 * time.Hour)}
	s := SAG(sag(), source, target, Context{MaxInbound: 19, Now: now})
	assertScore(t, s, map[string]float64{FactorSharedAttributes: 40, FactorTargetAuthority: 25, FactorKeywordOverlap: 6.67,
		FactorRecency: 9.26, FactorLinkCountGap: 0}, 80.93, Auto)
}

func TestWorkedExampleArticleSharingOneValueLandsInReview(t *testing.T) {
	source := Candidate{AttributeValues: []string{"terrain=mountain", "material=leather"},
		Keywords: []string{"break in hiking boots"}}
	target := Candidate{AttributeValues: []string{"material=leather", "use=waterproofing"},
		Keywords: []string{"waterproofing boots"}, Inbound: 3, PublishedAt: now.Add(-30 * 24 * time.Hour)}
	s := SAG(sag(), source, target, Context{MaxInbound: 19, Now: now})
	assertScore(t, s, map[string]float64{FactorSharedAttributes: 20, FactorTargetAuthority: 11.57, FactorKeywordOverlap: 6.67,
		FactorRecency: 8.48, FactorLinkCountGap: 4.21}, 50.93, Review)
}

func TestWorkedExampleSiblingInTheSameClusterIsLinked(t *testing.T) {
	source := Candidate{AttributeValues: []string{"terrain=mountain", "material=leather"},
		Keywords: []string{"break in hiking boots"}}
	target := Candidate{AttributeValues: []string{"terrain=mountain", "material=leather"},
		Keywords: []string{"hiking boots sizing"}, Inbound: 1, PublishedAt: now.Add(-7 * 24 * time.Hour)}
	s := SAG(sag(), source, target, Context{MaxInbound: 19, Now: now})
	assertScore(t, s, map[string]float64{FactorSharedAttributes: 40, FactorTargetAuthority: 5.78, FactorKeywordOverlap: 13.33,
		FactorRecency: 9.62, FactorLinkCountGap: 4.74}, 73.47, Auto)
}

func assertScore(t *testing.T, s Score, factors map[string]float64, total float64, d Decision) {
	t.Helper()
	for name, want := range factors {
		if got := s.Factors[name]; got != want {
			t.Errorf("%s: %v points, want %v", name, got, want)
		}
	}
	if s.Total != total {
		t.Errorf("total %v, want %v", s.Total, total)
	}
	if got := Decide(sag(), s.Total); got != d {
		t.Errorf("decision %v, want %v", got, d)
	}
}
