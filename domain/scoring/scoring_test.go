package scoring

import (
	"math"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/policy"
)

var now = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

func sag() policy.Policy { p, _ := policy.Default(policy.SAG); return p }

func TestEachFactorIsWorthAtMostItsWeightAndTheTotalIsZeroToHundred(t *testing.T) {
	p := sag()
	source := Candidate{AttributeValues: []string{"terrain=mountain", "season=winter"}, Keywords: []string{"hiking boots"}}
	best := Candidate{AttributeValues: []string{"terrain=mountain", "season=winter"}, Keywords: []string{"hiking boots"},
		Inbound: 10, PublishedAt: now}
	s := SAG(p, source, best, Context{MaxInbound: 10, Now: now})
	want := map[string]float64{FactorSharedAttributes: 40, FactorTargetAuthority: 25, FactorKeywordOverlap: 20, FactorRecency: 10, FactorLinkCountGap: 0}
	for name, points := range want {
		if s.Factors[name] != points {
			t.Errorf("%s: %v points, want %v", name, s.Factors[name], points)
		}
	}
	if s.Total != 95 {
		t.Errorf("total %v, want 95 (the most linked target gets no gap boost)", s.Total)
	}
	worst := SAG(p, source, Candidate{}, Context{MaxInbound: 10, Now: now})
	if worst.Total < 0 || worst.Total > 100 || worst.Factors[FactorLinkCountGap] != 5 {
		t.Errorf("unrelated, unlinked, undated target: %+v", worst)
	}
}

func TestRecencyDecaysExponentiallyOverSixMonths(t *testing.T) {
	p := sag()
	at := func(age time.Duration) float64 {
		return SAG(p, Candidate{}, Candidate{PublishedAt: now.Add(-age)}, Context{Now: now}).Factors[FactorRecency]
	}
	if at(0) != 10 || math.Abs(at(182*24*time.Hour)-3.68) > 0.01 || at(365*24*time.Hour) >= at(182*24*time.Hour) {
		t.Errorf("recency points: now %v, 6 months %v, a year %v", at(0), at(182*24*time.Hour), at(365*24*time.Hour))
	}
}

func TestTheLeastLinkedTargetGetsTheGapBoostAndLessAuthority(t *testing.T) {
	p := sag()
	ctx := Context{MaxInbound: 50, Now: now}
	lonely := SAG(p, Candidate{}, Candidate{Inbound: 0}, ctx)
	popular := SAG(p, Candidate{}, Candidate{Inbound: 50}, ctx)
	if lonely.Factors[FactorLinkCountGap] != 5 || popular.Factors[FactorLinkCountGap] != 0 {
		t.Errorf("gap: lonely %v, popular %v", lonely.Factors, popular.Factors)
	}
	if lonely.Factors[FactorTargetAuthority] != 0 || popular.Factors[FactorTargetAuthority] != 25 {
		t.Errorf("authority: lonely %v, popular %v", lonely.Factors, popular.Factors)
	}
}

func TestScoresAtOrAboveSixtyAreAutomaticFortyToFiftyNineForReview(t *testing.T) {
	p := sag()
	for total, want := range map[float64]Decision{100: Auto, 60: Auto, 59.99: Review, 40: Review, 39.99: Drop, 0: Drop} {
		if got := Decide(p, total); got != want {
			t.Errorf("score %v: decision %v, want %v", total, got, want)
		}
	}
}

func TestSiloScoreIsOverlapPlusPriorityMinusDiversityPenalty(t *testing.T) {
	p, _ := policy.Default(policy.Silo)
	total, overlap := Silo(p, []string{"running", "trail", "shoes"}, []string{"Trail", "shoes", "socks"}, true, 4)
	if overlap != 2 || total != 2+2-1 {
		t.Errorf("silo score %v with overlap %d, want 3 with overlap 2", total, overlap)
	}
	plain, _ := Silo(p, []string{"running", "trail"}, []string{"trail", "running"}, false, 0)
	busy, _ := Silo(p, []string{"running", "trail"}, []string{"trail", "running"}, false, 8)
	if plain <= busy {
		t.Errorf("a target with more inbound links should score lower: %v vs %v", plain, busy)
	}
}
