package handlers

import (
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/store"
)

// An anchor variation unwraps a link and places it again under another of
// the target's anchors. A candidate that is a close variation of the
// anchor being varied ("track pump" for the text "track pumps") finds the
// text just unwrapped through the stemmer, and must not put the same
// anchor back.
func TestAnAnchorVariationNeverPutsBackTheAnchorItVaries(t *testing.T) {
	sc := sagSiteContext(t)
	page := site.Page{SiteID: "s", ID: "page", URL: "/guides/pressure/", Kind: site.KindSupporting, Version: 1}
	const old = `<a href="/shop/track-pump/">track pumps</a>`
	src := "<h1>Pressure</h1>\n<p>Every workshop keeps one of our " + old + " by the door, and a floor pump with a gauge makes it easy at home.</p>\n"
	unwrapped := strings.Replace(src, old, "track pumps", 1)
	vary := audit.Recommendation{ID: "rec-vary", PageID: "page", PageVersion: 1, Action: audit.ActionVaryAnchor, TargetID: "track-pump",
		TargetURL: "/shop/track-pump/", LinkPath: "/shop/track-pump", LinkText: "track pumps"}

	// The only candidate lands on the old anchor: refused, with the reason.
	vary.Anchors = []string{"track pump"}
	if out, l, err := applyRecommendation([]byte(src), sc, page, vary); err == nil || !strings.Contains(err.Error(), `another anchor than "track pumps"`) {
		t.Errorf("a variation with no other anchor: placed %+v (%s), err %v; want it refused", l, out, err)
	}

	// With another candidate, that one is placed: the stemmer finds
	// "floor pump" for "floor pumps" once "track pump" is set aside.
	vary.Anchors = []string{"track pump", "floor pumps"}
	out, l, err := applyRecommendation([]byte(src), sc, page, vary)
	if err != nil {
		t.Fatalf("a variation with another anchor in the page: %v", err)
	}
	if l.Anchor != "floor pump" {
		t.Errorf("the link was placed under %q, want %q", l.Anchor, "floor pump")
	}
	stripped, err := markup.StripInserted(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(stripped) != unwrapped {
		t.Errorf("without the inserted link the page is not its input with the old link unwrapped:\n%s", stripped)
	}
	if len(vary.Anchors) != 2 || vary.Anchors[0] != "track pump" {
		t.Errorf("applying changed the recommendation's anchors: %q", vary.Anchors)
	}
}

// sagSiteContext is site s on https://shop.example under the SAG policy's
// defaults.
func sagSiteContext(t *testing.T) siteContext {
	t.Helper()
	pol, err := policy.Resolve("sag", nil)
	if err != nil {
		t.Fatal(err)
	}
	return siteContext{structure: site.Structure{Site: site.Site{ID: "s", BaseURL: "https://shop.example", Policy: "sag"}}, policy: pol}
}

// Apply places an added link as the audit's recommender predicted it:
// not inside another page's longer name that holds the anchor (the
// recommendation's NotWithin, from the planner's candidates).
func TestApplyPassesOverAnAnchorInsideAnotherPagesName(t *testing.T) {
	sc := sagSiteContext(t)
	page := site.Page{SiteID: "s", ID: "page", URL: "/guides/compost-tumbler/", Kind: site.KindSupporting, Version: 1}
	src := "<h1>Tumblers</h1>\n<p>In sun a tumbler heats like a small hot compost pile within weeks.</p>\n" +
		"<p>It is no substitute for a large compost pile if you have many leaves.</p>\n"
	add := audit.Recommendation{ID: "rec-add", PageID: "page", PageVersion: 1, Action: audit.ActionAdd, TargetID: "composting",
		TargetURL: "/composting/", Anchors: []string{"compost pile"}, NotWithin: []string{"hot compost pile"}}
	out, l, err := applyRecommendation([]byte(src), sc, page, add)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if l.Paragraph != 2 || !strings.Contains(string(out), `a large <a href="/composting/"`) {
		t.Errorf("placed %+v in %s, want the second paragraph's phrase, not the one inside \"hot compost pile\"", l, out)
	}
}

// Apply fixes the pages missing their uplink first, so that the last use
// of an anchor under the cap goes to them. Recommendations read back from
// the store carry no problem, so the uplink fix is known by what it does:
// it adds a link up to the hub.
func TestApplyKnowsAPagesUplinkFixByItsActionAndLinkType(t *testing.T) {
	stored := func(action audit.Action, typ link.Type) store.StoredRecommendation {
		return store.StoredRecommendation{Recommendation: audit.Recommendation{Action: action, LinkType: typ}}
	}
	for _, c := range []struct {
		recs []store.StoredRecommendation
		want bool
	}{
		{[]store.StoredRecommendation{stored(audit.ActionAdd, link.TypeHorizontal), stored(audit.ActionAdd, link.TypeVerticalUp)}, true},
		{[]store.StoredRecommendation{stored(audit.ActionAdd, link.TypeHorizontal)}, false},
		{[]store.StoredRecommendation{stored(audit.ActionRetarget, link.TypeVerticalUp)}, false},
		{[]store.StoredRecommendation{stored(audit.ActionAdd, link.TypeVerticalDown), stored(audit.ActionRemove, link.TypeHorizontal)}, false},
	} {
		if got := hasUplinkFix(c.recs); got != c.want {
			t.Errorf("hasUplinkFix(%+v) = %v, want %v", c.recs, got, c.want)
		}
	}
}
