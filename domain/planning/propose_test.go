package planning

import (
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/site"
)

func TestProposeLinkTypesTheLinkByThePagesPlaces(t *testing.T) {
	pol := sagPolicy(t)
	boots, jackets := bootsCluster(), jacketsCluster()
	st := testSite(boots, jackets)
	bootsHub, jacketsHub := hubOf(boots), hubOf(jackets)
	article := articleIn(boots, "boot-fit", "How Hiking Boots Should Fit")
	sibling := articleIn(boots, "boot-care", "Caring for Hiking Boots")
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Outdoor Shop", Kind: site.KindHome}
	sector := site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking Gear", Kind: site.KindSector, SectorID: "hiking"}
	cases := []struct {
		from, to site.Page
		want     link.Type
	}{
		{article, bootsHub, link.TypeVerticalUp},
		{bootsHub, article, link.TypeVerticalDown},
		{article, sibling, link.TypeHorizontal},
		{bootsHub, jacketsHub, link.TypeCrossCluster},
		{article, jacketsHub, link.TypeRelated},
		// Down the site's hierarchy, as homeLinks and sectorHubs plan
		// them: an audit called a home page's link to a hub "related".
		{home, bootsHub, link.TypeVerticalDown},
		{home, sector, link.TypeVerticalDown},
		{sector, jacketsHub, link.TypeVerticalDown},
	}
	for _, c := range cases {
		c.from.HTML = "<p>Hiking boots and rain jackets: how hiking boots should fit, and caring for hiking boots.</p>"
		in, err := NewInput(st, pol, c.from, asTargets(0, c.to))
		if err != nil {
			t.Fatal(err)
		}
		l, ok := ProposeLink(in, c.to.ID)
		if !ok {
			t.Fatalf("%s → %s: no proposal", c.from.ID, c.to.ID)
		}
		if l.Type != c.want || l.Zone != link.ZoneInBody || l.TargetPageID != c.to.ID || l.TargetURL != c.to.URL {
			t.Errorf("%s → %s: %s %s to %s, want %s in body", c.from.ID, c.to.ID, l.Type, l.Zone, l.TargetPageID, c.want)
		}
		if len(l.Candidates) == 0 || l.Score <= 0 {
			t.Errorf("%s → %s: %d anchors, score %.1f", c.from.ID, c.to.ID, len(l.Candidates), l.Score)
		}
		if l.Mandatory != (c.want == link.TypeVerticalUp) || (l.Mandatory && l.FirstParagraphs != pol.UplinkParagraphs) {
			t.Errorf("%s → %s: mandatory %v, first paragraphs %d", c.from.ID, c.to.ID, l.Mandatory, l.FirstParagraphs)
		}
	}
	in, err := NewInput(st, pol, article, asTargets(0, bootsHub))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ProposeLink(in, "not-a-target"); ok {
		t.Error("a link proposed to a page that is not among the targets")
	}
}

func TestTargetScoresAreThePlannersScores(t *testing.T) {
	in := articleScene(t, 3, 2, 600, 0)
	scores := TargetScores(in)
	plan, err := PlanPage(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != len(in.Targets) {
		t.Errorf("%d scores for %d targets", len(scores), len(in.Targets))
	}
	for _, l := range plan.Links {
		if l.Score > 0 && scores[l.TargetPageID] != l.Score {
			t.Errorf("target %s: score %.2f, the plan's %.2f", l.TargetPageID, scores[l.TargetPageID], l.Score)
		}
	}
}

// A target every name of which is shorter than an anchor has no
// candidate; the proposal says so and what a writer could work in (a
// trial's audit said only "write one" of a sector page named "Baking").
func TestAProposalToATargetWithOnlyShortNamesSaysWhatWouldCarryIt(t *testing.T) {
	pol := sagPolicy(t)
	boots := bootsCluster()
	st := testSite(boots)
	hub := hubOf(boots)
	hub.HTML = "<p>Boots that fit make hiking easier. Our boots guide starts with the heel.</p>"
	short := site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking", PrimaryKeyword: "hiking", Kind: site.KindSector, SectorID: "hiking"}
	in, err := NewInput(st, pol, hub, asTargets(0, short))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := ProposeLink(in, short.ID)
	if !ok || len(l.Candidates) != 0 {
		t.Fatalf("proposal %+v (%v), want one without candidates", l, ok)
	}
	if want := `every name of it is shorter than the 2 words an anchor needs; a phrase such as "our hiking guide" would carry the link`; l.Reason != want {
		t.Errorf("reason %q, want %q", l.Reason, want)
	}
	long := short
	long.Title, long.PrimaryKeyword = "Hiking Gear", "hiking gear"
	if in, err = NewInput(st, pol, hub, asTargets(0, long)); err != nil {
		t.Fatal(err)
	}
	if l, _ := ProposeLink(in, long.ID); l.Reason != "" {
		t.Errorf("a target with a name as long as an anchor: reason %q, want none", l.Reason)
	}
}
