package scoring

import (
	"fmt"
	"math"
	"slices"
	"strings"
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

func TestAuthorityIsTheLinkScoreWhenThePolicySaysSo(t *testing.T) {
	inbound, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	byScore, err := policy.Resolve(policy.SAG, []byte(`{"authority": "link_score"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := Context{MaxInbound: 10}
	// Many inbound links from pages nobody links to, against few from the
	// site's strongest pages.
	crowded := Candidate{Inbound: 10, LinkScore: 20}
	endorsed := Candidate{Inbound: 1, LinkScore: 80}
	if a, b := SAG(inbound, Candidate{}, crowded, ctx), SAG(inbound, Candidate{}, endorsed, ctx); a.Factors[FactorTargetAuthority] <= b.Factors[FactorTargetAuthority] {
		t.Errorf("authority=inbound: %v for 10 links, %v for 1", a.Factors[FactorTargetAuthority], b.Factors[FactorTargetAuthority])
	}
	a, b := SAG(byScore, Candidate{}, crowded, ctx), SAG(byScore, Candidate{}, endorsed, ctx)
	if a.Factors[FactorTargetAuthority] != 5 || b.Factors[FactorTargetAuthority] != 20 {
		t.Errorf("authority=link_score: %v and %v points, want 25×0.2 = 5 and 25×0.8 = 20",
			a.Factors[FactorTargetAuthority], b.Factors[FactorTargetAuthority])
	}
	if _, err := policy.Resolve(policy.SAG, []byte(`{"authority": "pagerank"}`)); err == nil || !strings.Contains(err.Error(), "authority") {
		t.Errorf("an unknown authority was accepted: %v", err)
	}
}

func TestSharedValuesCountEachValueOnceInAnyCaseWhateverTheListsLength(t *testing.T) {
	cases := []struct {
		name string
		a, b []string
		want int
	}{
		{"repeats in the source count once", []string{"material=leather", "MATERIAL=Leather", "use=hiking"}, []string{"material=leather"}, 1},
		{"case does not matter", []string{"Use=Hiking"}, []string{"use=hiking", "use=trail"}, 1},
		{"nothing shared", []string{"a=1"}, []string{"a=2"}, 0},
		{"empty", nil, []string{"a=1"}, 0},
	}
	// The same lists, each padded past the length where sets are built,
	// must count alike.
	pad := func(list []string, prefix string) []string {
		out := slices.Clone(list)
		for i := range 20 {
			out = append(out, fmt.Sprintf("%s=%d", prefix, i))
		}
		return out
	}
	for _, c := range cases {
		if got := countShared(c.a, c.b); got != c.want {
			t.Errorf("%s: %d shared, want %d", c.name, got, c.want)
		}
		if got := countShared(pad(c.a, "only-a"), pad(c.b, "only-b")); got != c.want {
			t.Errorf("%s, long lists: %d shared, want %d", c.name, got, c.want)
		}
	}
}

// Function words tell no topic from another: a trial's kitten hub scored
// two dog hubs above the cat hub on "a" ("feeding a puppy").
func TestKeywordOverlapLeavesFunctionWordsOut(t *testing.T) {
	if got := wordOverlap([]string{"feeding a kitten", "how to feed your kitten"}, []string{"feeding a puppy", "how to choose your puppy food"}, ""); got != 1.0/3 {
		t.Errorf("overlap %v, want 1/3: of {feeding, kitten, feed} only \"feeding\" is shared", got)
	}
	if got := wordOverlap([]string{"a guide for the new owner"}, []string{"a guide for the road"}, ""); got != 1.0/3 {
		t.Errorf("overlap %v, want 1/3 ({guide, new, owner}: \"guide\")", got)
	}
	// In the site's language: a German trial's pages shared "die", "im", "für".
	if got := wordOverlap([]string{"Tomaten im Hochbeet"}, []string{"Kräuter im Topf"}, "german"); got != 0 {
		t.Errorf("overlap %v, want 0: \"im\" is a German function word", got)
	}
}
