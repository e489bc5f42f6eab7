package planning

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

func fixture() (site.Structure, policy.Policy, site.Page, site.Page) {
	st := site.Structure{
		Site:    site.Site{ID: "s", BaseURL: "https://shop.example", Name: "Shop"},
		Sectors: []site.Sector{{ID: "hiking", Name: "Hiking", URL: "/hiking/"}},
		Clusters: []site.Cluster{{ID: "boots", SectorID: "hiking", Name: "Hiking Boots", PrimaryKeyword: "hiking boots",
			Keywords: []string{"hiking boot", "boots", "Hiking Boots", "waterproof hiking boots for wet trails and muddy paths"}}},
	}
	pol, _ := policy.Default(policy.SAG)
	hub := site.Page{SiteID: "s", ID: "hub", URL: "/hiking/boots/", Title: "The Hiking Boots Guide", Kind: site.KindHub,
		ClusterID: "boots", PrimaryKeyword: "hiking boots"}
	article := site.Page{SiteID: "s", ID: "care", URL: "/hiking/boots/care/", Title: "Boot care", Kind: site.KindSupporting,
		ClusterID: "boots", SectorID: "hiking"}
	return st, pol, hub, article
}

func TestASupportingArticleGetsOneMandatoryUplinkInItsFirstParagraphs(t *testing.T) {
	st, pol, hub, article := fixture()
	plan := planOf(t, Input{Structure: st, Policy: pol, Page: article, Hub: &hub})
	up := uplinkOf(t, plan)
	if up.Type != link.TypeVerticalUp || !up.Mandatory || up.TargetPageID != "hub" || up.TargetURL != "/hiking/boots/" ||
		up.FirstParagraphs != 2 || up.Zone != link.ZoneInBody || up.Status != link.StatusPlanned {
		t.Errorf("uplink %+v", up)
	}
	if up.ID != link.NewID("s", "care", "hub", link.TypeVerticalUp, link.ZoneInBody) {
		t.Error("link id is not derived from what it connects")
	}
	again := planOf(t, Input{Structure: st, Policy: pol, Page: article, Hub: &hub})
	if !reflect.DeepEqual(plan, again) {
		t.Error("the same input planned differently")
	}
}

func TestUplinkAnchorsAreKeywordsThenTitleWithinTheWordRange(t *testing.T) {
	st, pol, hub, article := fixture()
	plan := planOf(t, Input{Structure: st, Policy: pol, Page: article, Hub: &hub})
	up := uplinkOf(t, plan)
	want := []link.Anchor{
		{Text: "hiking boots", Type: link.AnchorPrimaryKeyword},
		{Text: "hiking boot", Type: link.AnchorPrimaryKeyword},
		{Text: "Hiking Boots Guide", Type: link.AnchorPageTitle},
	}
	if !reflect.DeepEqual(up.Candidates, want) {
		t.Errorf("anchors %+v\nwant %+v (one-word and nine-word keywords and case repeats left out)", up.Candidates, want)
	}
}

func uplinkOf(t *testing.T, plan Plan) link.Link {
	t.Helper()
	for _, l := range plan.Links {
		if l.Type == link.TypeVerticalUp {
			return l
		}
	}
	t.Fatalf("no uplink in %+v", plan.Links)
	return link.Link{}
}

func TestNoUplinkWithoutAHubOrForPagesThatNeedNone(t *testing.T) {
	st, pol, hub, article := fixture()
	plan := planOf(t, Input{Structure: st, Policy: pol, Page: article})
	if len(inBody(plan)) != 0 || !slices.ContainsFunc(plan.Notes, func(n string) bool {
		return strings.Contains(n, "has no live hub page (none is published yet, or it was deleted)")
	}) {
		t.Errorf("without a hub: %+v, want no in-body link and a note saying the cluster has no hub", plan)
	}
	for _, p := range []site.Page{hub, {ID: "t", Kind: site.KindTerm}, {ID: "x", Kind: site.KindSupporting}} {
		if plan := planOf(t, Input{Structure: st, Policy: pol, Page: p, Hub: &hub}); len(inBody(plan)) != 0 {
			t.Errorf("page %s (%s): %+v, want no uplink", p.ID, p.Kind, plan.Links)
		}
	}
}

func TestBreadcrumbsFollowTheHierarchy(t *testing.T) {
	st, _, hub, article := fixture()
	trail := Breadcrumbs(st, policy.English, article, &hub, nil)
	want := []Crumb{{"Shop", "/", ""}, {"Hiking", "/hiking/", ""}, {"Hiking Boots", "/hiking/boots/", "hub"}, {"Boot care", "/hiking/boots/care/", "care"}}
	if !reflect.DeepEqual(trail, want) {
		t.Errorf("article trail %+v", trail)
	}
	hubTrail := Breadcrumbs(st, policy.English, hub, &hub, nil)
	if len(hubTrail) != 3 || hubTrail[2].URL != "/hiking/boots/" {
		t.Errorf("hub trail %+v, want Home → Sector → Hub", hubTrail)
	}
	home := Breadcrumbs(st, policy.English, site.Page{Kind: site.KindHome, URL: "/"}, nil, nil)
	if len(home) != 1 {
		t.Errorf("home trail %+v", home)
	}
}

func inBody(p Plan) []link.Link {
	var out []link.Link
	for _, l := range p.Links {
		if l.Zone == link.ZoneInBody {
			out = append(out, l)
		}
	}
	return out
}

func TestATargetIsOfferedOnceEvenAsAReviewSuggestion(t *testing.T) {
	st, pol, hub, article := fixture()
	st.Attributes = []site.Attribute{{ID: "material", Name: "material", Values: []string{"leather"}},
		{ID: "terrain", Name: "terrain", Values: []string{"mountain"}}}
	st.Clusters[0].Attributes = map[string][]string{"material": {"leather"}, "terrain": {"mountain"}}
	st.BuildIndex()
	article.PrimaryKeyword = "boot care"
	// A sibling that scores in the review band: two shared attribute
	// values (the full 40) and the link-count gap (5), little keyword
	// overlap.
	sibling := Target{Page: site.Page{SiteID: "s", ID: "laces", URL: "/hiking/boots/laces/", Title: "Lacing knots",
		Kind: site.KindSupporting, ClusterID: "boots", PrimaryKeyword: "lacing knots"}}
	plan := planOf(t, Input{Structure: st, Policy: pol, Page: article, Hub: &hub, Targets: []Target{{Page: hub}, sibling}})
	var toSibling []link.Link
	for _, l := range plan.Links {
		if l.TargetPageID == "laces" {
			toSibling = append(toSibling, l)
		}
	}
	if len(toSibling) != 1 || toSibling[0].Status != link.StatusReview || toSibling[0].Type != link.TypeHorizontal {
		t.Errorf("links to the sibling %+v, want one horizontal review suggestion", toSibling)
	}
}

func TestAReplanIsAnsweredOnlyByAPlanThatSawItsCause(t *testing.T) {
	// Changes 100–109 had ended, 112 and 115 were running, 120 on had not begun.
	h := Horizon{Settled: 110, Unstarted: 120, Running: []uint64{112, 115}}
	for _, c := range []struct {
		cause    uint64
		answered bool
	}{
		{cause: 105, answered: true},  // ended before the plan
		{cause: 111, answered: true},  // committed between, not running
		{cause: 112, answered: false}, // still running when the plan read
		{cause: 120, answered: false}, // began after the plan read
		{cause: 500, answered: false},
		{cause: 0, answered: false}, // an unnumbered cause always re-plans
	} {
		if got := ReplanAnswered(c.cause, h); got != c.answered {
			t.Errorf("ReplanAnswered(cause %d, %+v) = %v, want %v", c.cause, h, got, c.answered)
		}
	}
	if ReplanAnswered(5, Horizon{}) {
		t.Error("a plan that saw nothing answered a re-plan")
	}
}
