package planning

import (
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/site"
)

// reviewFixture is an article whose sibling scores in the review band.
func reviewFixture() (Input, site.Page) {
	st, pol, hub, article := fixture()
	st.Attributes = []site.Attribute{{ID: "material", Name: "material", Values: []string{"leather"}},
		{ID: "terrain", Name: "terrain", Values: []string{"mountain"}}}
	st.Clusters[0].Attributes = map[string][]string{"material": {"leather"}, "terrain": {"mountain"}}
	st.BuildIndex()
	article.PrimaryKeyword = "boot care"
	sibling := site.Page{SiteID: "s", ID: "laces", URL: "/hiking/boots/laces/", Title: "Lacing knots",
		Kind: site.KindSupporting, ClusterID: "boots", PrimaryKeyword: "lacing knots"}
	return Input{Structure: st, Policy: pol, Page: article, Hub: &hub, Targets: []Target{{Page: hub}, {Page: sibling}}}, sibling
}

func linksTo(p Plan, target string) []link.Link {
	var out []link.Link
	for _, l := range p.Links {
		if l.TargetPageID == target {
			out = append(out, l)
		}
	}
	return out
}

func TestAnAcceptedSuggestionIsPlannedAndARejectedOneIsNotOffered(t *testing.T) {
	in, sibling := reviewFixture()
	if got := linksTo(planOf(t, in), sibling.ID); len(got) != 1 || got[0].Status != link.StatusReview {
		t.Fatalf("without a decision: %+v, want one review suggestion", got)
	}
	// Its reason says the text has no anchor for it, as the plan is made;
	// with one in the text it has none.
	if got := linksTo(planOf(t, in), sibling.ID); got[0].Reason != ReviewReason(NoAnchorInText) {
		t.Errorf("a suggestion the text names nowhere has reason %q, want %q", got[0].Reason, ReviewReason(NoAnchorInText))
	}
	named := in
	named.Texts = []string{"Tie your boots with good lacing knots before the climb."}
	if got := linksTo(planOf(t, named), sibling.ID); len(got) != 1 || got[0].Status != link.StatusReview || got[0].Reason != "" {
		t.Errorf("a suggestion the text names: %+v, want it for review with no reason", got)
	}
	in.Decisions = []Decision{{Target: sibling, Action: DecisionAccept, Anchor: "lacing knots"}}
	got := linksTo(planOf(t, in), sibling.ID)
	if len(got) != 1 || got[0].Status != link.StatusPlanned || got[0].Reason != reasonAccepted || got[0].Candidates[0].Text != "lacing knots" {
		t.Errorf("accepted: %+v, want it planned under its anchor", got)
	}
	in.Decisions = []Decision{{Target: sibling, Action: DecisionReject}}
	if got := linksTo(planOf(t, in), sibling.ID); len(got) != 0 {
		t.Errorf("rejected: %+v, want no link", got)
	}
}

func TestALinkAddedByHandIsPlannedAndOneRemovedIsNot(t *testing.T) {
	in, _ := reviewFixture()
	other := site.Page{SiteID: "s", ID: "tents", URL: "/camping/tents/", Title: "Tents", Kind: site.KindHub, ClusterID: "tents"}
	in.Decisions = []Decision{{Target: other, Action: DecisionAdd, Anchor: "our tents"}}
	got := linksTo(planOf(t, in), "tents")
	if len(got) != 1 || got[0].Status != link.StatusPlanned || got[0].Zone != link.ZoneInBody || got[0].Reason != reasonAdded ||
		got[0].Candidates[0].Text != "our tents" || got[0].TargetURL != "/camping/tents/" {
		t.Fatalf("added: %+v, want one planned in-body link under its anchor", got)
	}
	// An anchor the text does not hold is said so where the person looks
	// (trial O saw only "no candidate anchor found").
	in.Decisions = []Decision{{Target: other, Action: DecisionAdd, Anchor: "zeppelin hangars"}}
	plan := planOf(t, in)
	got = linksTo(plan, "tents")
	if len(got) != 1 || !strings.Contains(got[0].Explanation, `the anchor "zeppelin hangars" asked for is not in the page's text`) ||
		!slices.ContainsFunc(plan.Notes, func(n string) bool { return strings.Contains(n, "zeppelin hangars") }) {
		t.Errorf("added under an anchor the text lacks: %+v, notes %q; want both to say so", got, plan.Notes)
	}
	// The mandatory uplink too goes when a person removes it; breadcrumbs,
	// the site's structure, stay.
	in.Decisions = []Decision{{Target: *in.Hub, Action: DecisionRemove}}
	for _, l := range linksTo(planOf(t, in), in.Hub.ID) {
		if l.Type != link.TypeBreadcrumb {
			t.Errorf("removed by hand, still planned: %+v", l)
		}
	}
}
