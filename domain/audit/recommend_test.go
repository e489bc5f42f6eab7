package audit

import (
	"testing"

	"github.com/interlinker/interlinker/domain/policy"
)

func TestPriorityBandsFollowTheOrderOfSeverityThenWeight(t *testing.T) {
	cases := []struct {
		problem Problem
		weight  float64
		want    float64
	}{
		{ProblemMissingUplink, 1, 100},
		{ProblemMissingUplink, 0, 85.71},
		{ProblemOrphan, 1, 85.71},
		{ProblemUnderLinked, 0.5, 64.29},
		{ProblemSiloCrossing, 1, 28.57},
		{ProblemDominantAnchor, 0, 0},
		{ProblemDominantAnchor, 2, 14.29}, // weights are clamped to 0–1
	}
	for _, c := range cases {
		if got := Priority(c.problem, c.weight); got != c.want {
			t.Errorf("Priority(%s, %v) = %v, want %v", c.problem, c.weight, got, c.want)
		}
	}
	// Every weight of a more severe problem ranks above every weight of a
	// less severe one, but for the shared band edge.
	for p := ProblemMissingUplink; p < ProblemDominantAnchor; p++ {
		if Priority(p, 0) < Priority(p+1, 1) {
			t.Errorf("%s at weight 0 ranks below %s at weight 1", p, p+1)
		}
	}
}

func TestPrioritiseOrdersGivesStableIDsAndDropsTheSameChangeTwice(t *testing.T) {
	recs := []Recommendation{
		{Problem: ProblemBroken, PageID: "a", Action: ActionRemove, LinkPath: "/gone", LinkText: "gone", Weight: 0.9},
		{Problem: ProblemUnderLinked, PageID: "b", Action: ActionAdd, TargetID: "hub", Weight: 0.2},
		{Problem: ProblemMissingUplink, PageID: "b", Action: ActionAdd, TargetID: "hub", Weight: 0.7},
		{Problem: ProblemOrphan, PageID: "c", Action: ActionAdd, TargetID: "o", Weight: 0.5},
	}
	out := Prioritise(append([]Recommendation(nil), recs...))
	if len(out) != 3 {
		t.Fatalf("got %d recommendations, want 3 (b→hub once)", len(out))
	}
	wantOrder := []Problem{ProblemMissingUplink, ProblemOrphan, ProblemBroken}
	for i, r := range out {
		if r.Problem != wantOrder[i] {
			t.Errorf("position %d: %s, want %s", i, r.Problem, wantOrder[i])
		}
		if len(r.ID) != len("rec-")+16 {
			t.Errorf("id %q", r.ID)
		}
	}
	again := Prioritise(append([]Recommendation(nil), recs...))
	for i := range out {
		if out[i].ID != again[i].ID {
			t.Errorf("ids differ between runs: %s, %s", out[i].ID, again[i].ID)
		}
	}
}

func TestExcessAnchorLinksBringTheShareWithinTheFlag(t *testing.T) {
	var p policy.Policy
	p.AnchorDominanceFlagShare, p.AnchorDominanceMinInbound, p.MaxExactAnchorPerTarget = 0.4, 5, 0
	cases := []struct{ count, links, want int }{
		{count: 4, links: 6, want: 2},  // keep 2 of 6 (33%)
		{count: 5, links: 5, want: 3},  // keep 2 of 5 (40%)
		{count: 2, links: 10, want: 0}, // 20%: nothing to do
		{count: 3, links: 4, want: 0},  // under anchor_dominance_min_inbound no share is flagged
	}
	for _, c := range cases {
		if got := ExcessAnchorLinks(Finding{Count: c.count, Limit: c.links}, p); got != c.want {
			t.Errorf("%d of %d: vary %d, want %d", c.count, c.links, got, c.want)
		}
		left := c.count - ExcessAnchorLinks(Finding{Count: c.count, Limit: c.links}, p)
		if c.links >= p.AnchorDominanceMinInbound && float64(left)/float64(c.links) > 0.4 {
			t.Errorf("%d of %d: %d left, still over 40%%", c.count, c.links, left)
		}
	}
	// Under the minimum, the exact-anchor cap alone bounds an anchor (a
	// Spanish trial was asked to vary one carrying 2 of 4 links).
	p.MaxExactAnchorPerTarget = 3
	for _, c := range []struct{ count, links, want int }{{2, 4, 0}, {3, 4, 0}, {4, 4, 1}} {
		if got := ExcessAnchorLinks(Finding{Count: c.count, Limit: c.links}, p); got != c.want {
			t.Errorf("%d of %d under a cap of 3: vary %d, want %d", c.count, c.links, got, c.want)
		}
	}
}

func TestWeakestNeverPicksTheUplinkAndPrefersLaterLinksAmongEquals(t *testing.T) {
	links := []ScoredLink{
		{Path: "/hub", Score: 10, Mandatory: true},
		{Path: "/a", Score: 50},
		{Path: "/b", Score: 20},
		{Path: "/c", Score: 20},
		{Path: "/d", Score: 90},
	}
	got := Weakest(links, 3)
	want := []string{"/c", "/b", "/a"}
	if len(got) != len(want) {
		t.Fatalf("got %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Path != want[i] {
			t.Errorf("position %d: %s, want %s", i, got[i].Path, want[i])
		}
	}
	if n := len(Weakest(links, 10)); n != 4 {
		t.Errorf("asked for more than there are: %d, want the 4 optional links", n)
	}
}

func TestWeakestTakesLinksOutsideTheStructureBeforeHigherScoresInIt(t *testing.T) {
	links := []ScoredLink{
		{Path: "/sibling", Score: 45},
		{Path: "/popular-elsewhere", Score: 90, OutsideStructure: true},
		{Path: "/other-hub", Score: 70, OutsideStructure: true},
	}
	got := Weakest(links, 2)
	if len(got) != 2 || got[0].Path != "/other-hub" || got[1].Path != "/popular-elsewhere" {
		t.Errorf("got %+v, want the two links outside the structure, the weaker first", got)
	}
}
