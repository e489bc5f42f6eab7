package handlers

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/llm"
	"github.com/interlinker/interlinker/store"
)

// The planner lists in Related Reading a sibling the text has no room
// for, and leaves its in-body link for the LLM fallback. Writing that
// link into the body would link the sibling twice on one page, so the
// fallback leaves it and asks the model only for targets linked nowhere
// else.
func TestTheLLMFallbackLeavesOutATargetRelatedReadingLists(t *testing.T) {
	sc := sagSiteContext(t)
	page := site.Page{SiteID: "s", ID: "page", URL: "/boots/fit/", Kind: site.KindSupporting, Version: 1}
	st := planStage{page: store.PageRecord{Page: page}, site: sc}
	html := []byte("<p>" + strings.Repeat("A boot that fits well keeps a walker on the trail for longer. ", 12) + "</p>\n" +
		"<p>" + strings.Repeat("Socks, laces and insoles all change how a boot sits on the foot. ", 12) + "</p>\n")
	awaiting := func(id, target string) link.Link {
		return link.Link{ID: id, TargetPageID: target, TargetURL: "/boots/" + target + "/", Type: link.TypeHorizontal,
			Zone: link.ZoneInBody, Status: link.StatusPlanned, Reason: "no candidate anchor found in the text; " + awaitsFallback,
			Candidates: []link.Anchor{{Text: target + " guide", Type: link.AnchorPageTitle}}}
	}
	links := []link.Link{
		awaiting("in-body-listed", "lacing"),
		awaiting("in-body-alone", "insoles"),
		{ID: "section-listed", TargetPageID: "lacing", TargetURL: "/boots/lacing/", Type: link.TypeRelated,
			Zone: link.ZoneRelatedSection, Status: link.StatusPlanned},
	}
	rw := &rewrites{model: "test-model", ask: true, callsLeft: 4,
		lookup: func([]byte) (store.Answer, bool, error) { return store.Answer{}, false, nil }}

	_, ask, err := placeByFallback(html, st, links, nil, planning.AnchorCap{MaxExact: 3}, rw)
	if err != nil {
		t.Fatal(err)
	}
	asked := "nothing"
	if ask != nil {
		asked = "link " + ask.linkID
	}
	if asked != "link in-body-alone" {
		t.Fatalf("the fallback asks the model for %s, want link in-body-alone (to insoles, which no section lists)", asked)
	}
	want := "LLM fallback not asked: the page's Related Reading lists this target"
	if l := links[0]; l.Status != link.StatusPlanned || !strings.HasSuffix(l.Reason, want) {
		t.Errorf("in-body link to a target Related Reading lists: %s %q, want it left planned with reason %q", l.Status, l.Reason, want)
	}
}

// The model is told the target's title, as the README says: a trial's
// model was told "monthly budget" of a hub titled "Budgeting: A Practical
// Guide…", the link's first candidate, its title's having been refused.
func TestTheLLMFallbackTellsTheModelTheTargetsTitle(t *testing.T) {
	sc := sagSiteContext(t)
	page := site.Page{SiteID: "s", ID: "page", URL: "/boots/fit/", Kind: site.KindSupporting, Version: 1}
	insoles := planning.Target{Page: site.Page{SiteID: "s", ID: "insoles", URL: "/boots/insoles/", Title: "Insoles: What a Boot Leaves Out", Kind: site.KindSupporting}}
	st := planStage{page: store.PageRecord{Page: page}, site: sc, targets: map[string]planning.Target{"insoles": insoles}}
	html := []byte("<p>" + strings.Repeat("Socks, laces and insoles all change how a boot sits on the foot. ", 12) + "</p>\n")
	links := []link.Link{{ID: "to-insoles", TargetPageID: "insoles", TargetURL: "/boots/insoles/", Type: link.TypeHorizontal,
		Zone: link.ZoneInBody, Status: link.StatusPlanned, Reason: "no candidate anchor found in the text; " + awaitsFallback,
		Candidates: []link.Anchor{{Text: "boot insoles", Type: link.AnchorPrimaryKeyword}}}}
	rw := &rewrites{model: "test-model", ask: true, callsLeft: 4,
		lookup: func([]byte) (store.Answer, bool, error) { return store.Answer{}, false, nil }}

	_, ask, err := placeByFallback(html, st, links, nil, planning.AnchorCap{MaxExact: 3}, rw)
	if err != nil {
		t.Fatal(err)
	}
	if ask == nil {
		t.Fatalf("the fallback asks nothing; link reason %q", links[0].Reason)
	}
	if got, want := ask.req.TargetTitle, "Insoles: What a Boot Leaves Out"; got != want {
		t.Errorf("the model is told target_title %q, want the target's title %q", got, want)
	}
}

// A link's candidates may leave its target's title out (at the
// exact-anchor cap, or past the anchor length): the model asked for
// natural phrases is told the title the target's page gives, not the
// link's first candidate.
func TestTheNaturalPhrasesAskTellsTheModelTheTargetsTitle(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the model was called while the plan was made: %s %s", r.Method, r.URL.Path)
	}))
	defer model.Close()
	client, err := llm.New(llm.Config{BaseURL: model.URL + "/v1", Model: "test-model"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{LLM: client}
	html := "<p>" + strings.Repeat("Socks, laces and the footbed all change how a boot sits on the foot. ", 12) + "</p>\n"
	links := []link.Link{{ID: "to-insoles", TargetPageID: "insoles", TargetURL: "/boots/insoles/", Type: link.TypeHorizontal,
		Zone: link.ZoneInBody, Status: link.StatusPlanned, Candidates: []link.Anchor{{Text: "boot insoles", Type: link.AnchorPrimaryKeyword}}}}
	none := func([]byte) (store.Answer, bool, error) { return store.Answer{}, false, nil }

	insoles := planning.Target{Page: site.Page{SiteID: "s", ID: "insoles", URL: "/boots/insoles/", Title: "Insoles: What a Boot Leaves Out", Kind: site.KindSupporting}}
	other := planning.Target{Page: site.Page{SiteID: "s", ID: "laces", URL: "/boots/laces/", Title: "Laces", Kind: site.KindSupporting}}
	for _, tc := range []struct {
		name    string
		targets plannedTargets
		want    string
	}{
		{"the plan read the target first", plannedTargets{{other, insoles}}, "Insoles: What a Boot Leaves Out"},
		{"the plan read the target among the related clusters' pages", plannedTargets{{other}, {insoles}}, "Insoles: What a Boot Leaves Out"},
		{"the plan did not read the target", plannedTargets{{other}}, "boot insoles"},
	} {
		ask, err := p.addNaturalPhrases("s", "page", "Fitting a boot", html, "en", 1, links, tc.targets, none)
		if err != nil {
			t.Fatal(err)
		}
		if ask == nil || len(ask.req.Targets) != 1 {
			t.Fatalf("%s: asked %+v; want the phrases of one target", tc.name, ask)
		}
		if got := ask.req.Targets[0].Title; got != tc.want {
			t.Errorf("%s: the model is told title %q, want %q", tc.name, got, tc.want)
		}
	}
}

// askMissing takes, after a settle pass, up to the per-page cap of the
// answers each page lacked (upToPerPage): capped for the whole site, a
// pass asked 4 and the site was planned over again for each next 4.
func TestUpToPerPageTakesEachPagesFirstAsksInTheirOrder(t *testing.T) {
	asks := []*fallbackAsk{
		{pageID: "a", linkID: "a1"}, {pageID: "a", linkID: "a2"}, {pageID: "b", linkID: "b1"},
		{pageID: "a", linkID: "a3"}, {pageID: "c", linkID: "c1"}, {pageID: "b", linkID: "b2"},
	}
	var got []string
	for _, ask := range upToPerPage(asks, 2, func(a *fallbackAsk) string { return a.pageID }) {
		got = append(got, ask.linkID)
	}
	if want := []string{"a1", "a2", "b1", "c1", "b2"}; !slices.Equal(got, want) {
		t.Errorf("asked %v, want %v: every page's first two, in the pass's order", got, want)
	}
}
