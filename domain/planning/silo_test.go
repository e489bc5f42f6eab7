package planning

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

// Silo fixtures: flat onboarding pages (no cluster) related by labels, and
// cluster silos of a parent (hub) with children (supporting articles).

func siloPolicy(t *testing.T) policy.Policy {
	t.Helper()
	p, err := policy.Default(policy.Silo)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func flatPage(id string, labels ...string) site.Page {
	return site.Page{SiteID: "s", ID: id, URL: "/collections/" + id + "/", Title: "Collection Of " + id, Kind: site.KindPage,
		Labels: labels, PublishedAt: testNow}
}

func siloInput(t *testing.T, page site.Page, hub *site.Page, targets ...Target) Input {
	st := testSite(bootsCluster(), sandalsCluster())
	st.Site.Policy = policy.Silo
	return Input{Structure: st, Policy: siloPolicy(t), Page: page, Hub: hub, Targets: targets, WordCount: 800}
}

// theLabels is the label set of the flat source page in most silo tests.
var theLabels = []string{"boots", "waterproof", "leather", "winter"}

func TestSiloFlatPagesLinkOnlyWithTwoOrMoreSharedLabels(t *testing.T) {
	in := siloInput(t, flatPage("src", theLabels...), nil,
		Target{Page: flatPage("f-three", "boots", "waterproof", "leather", "summer")},
		Target{Page: flatPage("f-two", "Boots", "winter", "sandals")},
		Target{Page: flatPage("f-one", "boots", "sandals", "desert")},
		Target{Page: flatPage("f-none", "tents", "summer")},
	)
	plan := planOf(t, in)
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, []string{"f-three", "f-two"}) {
		t.Fatalf("links to %v, want [f-three f-two] (3 and 2 shared labels, best first)", got)
	}
	for _, l := range plan.Links {
		if l.Type != link.TypeRelated || l.Zone != link.ZoneInBody || l.Status != link.StatusPlanned || l.Factors["label_overlap"] < 2 {
			t.Errorf("link %+v", l)
		}
	}
	// The threshold is the policy's label_overlap_min.
	in.Policy.LabelOverlapMin = 3
	if got := targetIDs(planOf(t, in).Links); !reflect.DeepEqual(got, []string{"f-three"}) {
		t.Errorf("with label_overlap_min 3: links to %v", got)
	}
	// A page sharing too few labels with any is told so (trial Q).
	said := func(p Plan) bool {
		return slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "under silo it links, and is linked by, no page") })
	}
	if said(planOf(t, in)) {
		t.Errorf("notes %q for a page that links one", planOf(t, in).Notes)
	}
	in.Policy.LabelOverlapMin = 5
	if plan := planOf(t, in); len(plan.Links) != 0 || !said(plan) {
		t.Errorf("with label_overlap_min 5: links %v, notes %q; want none and a note saying why", targetIDs(plan.Links), plan.Notes)
	}
}

func TestSiloPriorityPagesWinTies(t *testing.T) {
	prio := flatPage("f-b", "boots", "waterproof")
	prio.Priority = 1
	in := siloInput(t, flatPage("src", theLabels...), nil,
		Target{Page: flatPage("f-a", "boots", "waterproof")}, // same overlap, sorts first by id
		Target{Page: prio},
		Target{Page: flatPage("f-c", "boots", "waterproof", "leather")}, // one more label: 3 < 2 + 2
	)
	plan := planOf(t, in)
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, []string{"f-b", "f-c", "f-a"}) {
		t.Errorf("order %v, want the priority page first: [f-b f-c f-a]", got)
	}
	if l := plan.Links[0]; l.Score != 4 || l.Factors["priority_bonus"] != 2 {
		t.Errorf("priority link scored %v with factors %v, want 2 labels + 2 bonus", l.Score, l.Factors)
	}
	// The bonus does not make a page sharing one label eligible.
	weak := flatPage("f-weak", "boots", "sandals")
	weak.Priority = 1
	in.Targets = []Target{{Page: weak}}
	if got := planOf(t, in).Links; len(got) != 0 {
		t.Errorf("a priority page sharing one label was linked: %v", targetIDs(got))
	}
}

func TestSiloDiversityPenaltyLowersWellLinkedTargets(t *testing.T) {
	in := siloInput(t, flatPage("src", theLabels...), nil,
		Target{Page: flatPage("f-a", "boots", "waterproof", "leather"), Inbound: 8}, // 3 − 8 × 0.25 = 1
		Target{Page: flatPage("f-b", "boots", "waterproof", "leather")},             // 3
		Target{Page: flatPage("f-c", "boots", "waterproof")},                        // 2
	)
	plan := planOf(t, in)
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, []string{"f-b", "f-c", "f-a"}) {
		t.Errorf("order %v, want the well-linked f-a last", got)
	}
	if l, _ := findLink(plan, "f-a", link.TypeRelated); l.Score != 1 || l.Factors["diversity_penalty"] != -2 {
		t.Errorf("f-a scored %v with factors %v, want 1 (penalty −2)", l.Score, l.Factors)
	}
	// With more eligible pages than the budget, the best-linked one is left out.
	var targets []Target
	for i := 0; i < 6; i++ {
		targets = append(targets, Target{Page: flatPage(fmt.Sprintf("g-%d", i), "boots", "winter"), Inbound: 0})
	}
	targets[0].Inbound = 4
	in.Targets = targets
	for _, l := range planOf(t, in).Links {
		if l.TargetPageID == "g-0" {
			t.Errorf("g-0, with 4 inbound links, took a place in a budget of 5 over unlinked equals")
		}
	}
}

func TestSiloNeverCrossesASilo(t *testing.T) {
	boots, sandals := bootsCluster(), sandalsCluster()
	hub, otherHub := hubOf(boots), hubOf(sandals)
	everyone := []Target{
		{Page: hub},
		{Page: articleIn(boots, "b-1", "Boot Laces Explained")},
		{Page: articleIn(boots, "b-2", "Boot Soles Explained")},
		{Page: otherHub},
		{Page: articleIn(sandals, "s-1", "Sandal Straps Explained")},
		{Page: flatPage("f-1", theLabels...)},
		{Page: flatPage("f-2", theLabels...)},
	}
	// Give every page the same labels, so only the silo boundary can keep them apart.
	for i := range everyone {
		everyone[i].Labels = theLabels
	}
	child := articleIn(boots, "b-0", "Boot Care Explained")
	child.Labels = theLabels
	flat := flatPage("f-0", theLabels...)
	for _, tc := range []struct {
		name   string
		page   site.Page
		inside func(id string) bool
	}{
		{"child", child, func(id string) bool { return id == "hub-boots" || strings.HasPrefix(id, "b-") }},
		{"parent", hub, func(id string) bool { return strings.HasPrefix(id, "b-") }},
		{"flat page", flat, func(id string) bool { return strings.HasPrefix(id, "f-") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var targets []Target
			for _, tg := range everyone {
				if tg.ID != tc.page.ID {
					targets = append(targets, tg)
				}
			}
			plan := planOf(t, siloInput(t, tc.page, &hub, targets...))
			if len(plan.Links) == 0 {
				t.Fatal("no links planned")
			}
			for _, l := range plan.Links {
				if !tc.inside(l.TargetPageID) {
					t.Errorf("link leaves the silo: %s → %s (%s)", tc.page.ID, l.TargetPageID, l.Type)
				}
			}
		})
	}
}

func TestSiloParentLinksOnlyToChildren(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	targets := []Target{{Page: hubOf(sandalsCluster())}, {Page: flatPage("f-1", theLabels...)}}
	for i := 0; i < 3; i++ {
		targets = append(targets, Target{Page: articleIn(boots, fmt.Sprintf("b-%d", i), "Boot Notes Explained")})
	}
	plan := planOf(t, siloInput(t, hub, &hub, targets...))
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, []string{"b-0", "b-1", "b-2"}) {
		t.Errorf("parent links to %v, want its three children", got)
	}
	for _, l := range plan.Links {
		if l.Type != link.TypeVerticalDown || l.Zone != link.ZoneInBody {
			t.Errorf("parent link %s is %s in %s", l.TargetPageID, l.Type, l.Zone)
		}
	}
}

// A trial's silo parent noted "child heirloom-tomatoes not linked from
// the parent: budget of 5 links reached" about a child its own text
// linked, and a child planned a link to a sibling it linked already, left
// planned ("the page already links to"). Neither is picked now: the
// author's link is counted in the budget, and the slot goes to another.
func TestSiloPagesPickNoTargetTheirOwnTextLinks(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	var targets []Target
	for i := 0; i < 3; i++ {
		targets = append(targets, Target{Page: articleIn(boots, fmt.Sprintf("b-%d", i), "Boot Notes Explained")})
	}
	in := siloInput(t, hub, &hub, targets...)
	in.AuthorLinks = map[string]bool{markup.PagePath(targets[1].URL): true}
	in.ExistingLinks = 1
	plan := planOf(t, in)
	if got, want := targetIDs(plan.Links), []string{"b-0", "b-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("parent links to %v, want %v: not b-1, which its text links", got, want)
	}
	for _, n := range plan.Notes {
		if strings.Contains(n, "b-1") {
			t.Errorf("note %q about the child the parent's text links", n)
		}
	}
}

// The children a parent's budget leaves out are named in one note that
// says what holds the budget, links left for the LLM fallback included.
func TestASiloParentsNoteSaysWhatHoldsTheBudget(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	var targets []Target
	for i := 0; i < 7; i++ {
		targets = append(targets, Target{Page: articleIn(boots, fmt.Sprintf("b-%d", i), "Boot Notes Explained")})
	}
	in := siloInput(t, hub, &hub, targets...)
	in.ExistingLinks = 1
	plan := planOf(t, in)
	var notes []string
	for _, n := range plan.Notes {
		if strings.Contains(n, "not linked in its text") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "taken by 1 of its own and 4 planned") {
		t.Errorf("notes %q, want one naming the children left out and what holds the budget", notes)
	}
}

func TestSiloChildLinksParentFirstThenSiblings(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	child := articleIn(boots, "b-0", "Boot Care Explained")
	// The parent sorts last by id and shares no labels: it comes first anyway.
	hub.ID = "zz-parent"
	targets := []Target{{Page: hub}}
	for i := 1; i <= 2; i++ {
		sib := articleIn(boots, fmt.Sprintf("b-%d", i), "Boot Notes Explained")
		sib.Labels = theLabels
		targets = append(targets, Target{Page: sib})
	}
	child.Labels = theLabels
	plan := planOf(t, siloInput(t, child, &hub, targets...))
	want := []string{"zz-parent", "b-1", "b-2"}
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, want) {
		t.Fatalf("child links to %v, want %v", got, want)
	}
	if up := plan.Links[0]; up.Type != link.TypeVerticalUp || !up.Mandatory || up.FirstParagraphs == 0 {
		t.Errorf("first link %+v, want the mandatory link to the parent", up)
	}
	for _, l := range plan.Links[1:] {
		if l.Type != link.TypeHorizontal {
			t.Errorf("sibling link %s is %s", l.TargetPageID, l.Type)
		}
	}
}

// A fourteenth trial site's products sat in clusters under silo with no
// link in or out of their cluster's parent: a silo knows parents and
// children only, so they are children.
func TestSiloProductsAndServicesOfAClusterAreItsChildren(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	product := articleIn(boots, "b-shop", "Boot Shop")
	product.Kind = site.KindProduct
	service := articleIn(boots, "b-fit", "Boot Fitting")
	service.Kind = site.KindService
	article := articleIn(boots, "b-1", "Boot Notes Explained")

	plan := planOf(t, siloInput(t, hub, &hub, Target{Page: product}, Target{Page: service}, Target{Page: article}))
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, []string{"b-1", "b-fit", "b-shop"}) {
		t.Errorf("parent links to %v, want its article, service and product", got)
	}

	plan = planOf(t, siloInput(t, product, &hub, Target{Page: hub}, Target{Page: service}, Target{Page: article}))
	if len(plan.Links) == 0 || plan.Links[0].TargetPageID != hub.ID || plan.Links[0].Type != link.TypeVerticalUp || !plan.Links[0].Mandatory {
		t.Fatalf("product's links %v: the first must be the mandatory link to its parent", targetIDs(plan.Links))
	}
	if got := targetIDs(plan.Links[1:]); !reflect.DeepEqual(got, []string{"b-1", "b-fit"}) {
		t.Errorf("product's siblings %v, want the article and the service", got)
	}
}

// The fourteenth trial site's re-run: with its products made children, a
// priority product no text named took a sibling slot of the budget, and a
// sibling the text named ("irregular income") lost it.
func TestSiloBudgetGoesToLinksTheTextCarriesBeforeThoseLeftForTheLLM(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	child := articleIn(boots, "b-0", "Boot Care Explained")
	child.HTML = `<p>Good hiking boots last for years when you look after them.</p>
<p>Wax them after every wet walk, and let them dry slowly away from the fire.</p>
<p>When the eyelets wear out, our notes on boot laces show which ones hold a knot.</p>`
	priority := articleIn(boots, "b-1", "Boot Soles Explained")
	priority.PrimaryKeyword, priority.Priority = "boot soles", 1
	named := articleIn(boots, "b-2", "Boot Laces Explained")
	named.PrimaryKeyword = "boot laces"
	in := siloInput(t, child, &hub, Target{Page: hub}, Target{Page: priority}, Target{Page: named})
	in.Policy.BudgetMax = 2 // the uplink and one sibling
	in.Texts = []string{"Good hiking boots last for years when you look after them.",
		"Wax them after every wet walk, and let them dry slowly away from the fire.",
		"When the eyelets wear out, our notes on boot laces show which ones hold a knot."}
	plan := planOf(t, in)
	if got := targetIDs(plan.Links); !reflect.DeepEqual(got, []string{"hub-boots", "b-2"}) {
		t.Errorf("child links to %v, want its parent and the sibling its text names (b-2), not the priority one it does not (b-1)", got)
	}
}

func TestSiloBudgetIsAtMostFive(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	var flats, children []Target
	for i := 0; i < 10; i++ {
		flats = append(flats, Target{Page: flatPage(fmt.Sprintf("f-%d", i), "boots", "winter")})
		children = append(children, Target{Page: articleIn(boots, fmt.Sprintf("b-%d", i), "Boot Notes Explained")})
	}
	for _, tc := range []struct {
		name     string
		page     site.Page
		targets  []Target
		existing int
		want     int
	}{
		{"flat page", flatPage("src", theLabels...), flats, 0, 5},
		{"flat page with 3 links already", flatPage("src", theLabels...), flats, 3, 2},
		{"parent of 10 children", hub, children, 0, 5},
		{"child with 9 siblings", articleIn(boots, "b-x", "Boot Care Explained"), append([]Target{{Page: hub}}, children...), 0, 5},
		{"child at its budget keeps its parent link", articleIn(boots, "b-x", "Boot Care Explained"), append([]Target{{Page: hub}}, children...), 5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := siloInput(t, tc.page, &hub, tc.targets...)
			in.ExistingLinks = tc.existing
			plan := planOf(t, in)
			// The budget counts the links in the text; a parent lists the
			// children it leaves out in its Related Articles section.
			var body []link.Link
			for _, l := range plan.Links {
				if l.Zone == link.ZoneInBody {
					body = append(body, l)
				}
			}
			if len(body) != tc.want {
				t.Errorf("%d links in the text, want %d: %v", len(body), tc.want, targetIDs(body))
			}
		})
	}
}

// A child the parent's budget leaves out of its text is listed in the
// parent's Related Articles section: trials t14 and t16 each ended with a
// child no page linked.
func TestASiloParentListsTheChildrenItsBudgetLeavesOutOfItsText(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	var children []Target
	for i := 0; i < 8; i++ {
		children = append(children, Target{Page: articleIn(boots, fmt.Sprintf("b-%d", i), "Boot Notes Explained")})
	}
	plan := planOf(t, siloInput(t, hub, &hub, children...))
	linked := map[string]bool{}
	listed := 0
	for _, l := range plan.Links {
		if l.Type != link.TypeVerticalDown {
			t.Errorf("link %s of type %s, want vertical_down only", l.TargetPageID, l.Type)
		}
		linked[l.TargetPageID] = true
		if l.Zone == link.ZoneRelatedSection {
			listed++
			if !strings.Contains(l.Explanation, "its budget leaves out") {
				t.Errorf("listed child %s explained %q, want the budget named", l.TargetPageID, l.Explanation)
			}
		}
	}
	if len(linked) != 8 || listed != 3 {
		t.Errorf("%d children linked, %d of them in the list; want all 8, the 3 over the budget of 5 listed", len(linked), listed)
	}
}

func TestSiloLinksExplainTheirSilo(t *testing.T) {
	hub := hubOf(bootsCluster())
	plan := planOf(t, siloInput(t, flatPage("src", theLabels...), nil, Target{Page: flatPage("f-1", "boots", "winter")}))
	if len(plan.Links) != 1 || !strings.HasPrefix(plan.Links[0].Explanation, "related:") ||
		!strings.Contains(plan.Links[0].Explanation, "shares 2 labels") {
		t.Errorf("flat link explanation %+v", plan.Links)
	}
	plan = planOf(t, siloInput(t, hub, &hub, Target{Page: articleIn(bootsCluster(), "b-1", "Boot Notes Explained")}))
	if len(plan.Links) != 1 || !strings.Contains(plan.Links[0].Explanation, `silo "cluster boots"`) {
		t.Errorf("parent link explanation %+v", plan.Links)
	}
}

func TestSiloLookupStaysInsideTheSilo(t *testing.T) {
	st := testSite(bootsCluster(), sandalsCluster())
	pol := siloPolicy(t)
	child := LookupFor(st, pol, articleIn(bootsCluster(), "b-0", "Boot Care"))
	want := Lookup{ClusterID: "boots", ClusterLimit: pol.RelatedCandidateLimit, HubClusters: []string{"boots"}, RelatedLimit: pol.RelatedCandidateLimit}
	if !reflect.DeepEqual(child, want) {
		t.Errorf("child lookup %+v, want its cluster (bounded) and its parent only", child)
	}
	flat := LookupFor(st, pol, flatPage("f-0", "Waterproof  Boots", "winter"))
	want = Lookup{Terms: []string{"label:waterproof boots", "label:winter"}, RelatedLimit: pol.RelatedCandidateLimit}
	if !reflect.DeepEqual(flat, want) {
		t.Errorf("flat lookup %+v, want %+v", flat, want)
	}
}

// A silo trial's audit recommended that a sector page (outside clusters)
// link the orphan security page, with which it shares one label: the
// silo planner needs two. A proposal is only what the silo planner would
// make.
func TestASiloProposalIsOnlyALinkTheSiloPlannerWouldMake(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	care := articleIn(boots, "care", "Boot Care")
	in := siloInput(t, flatPage("src", theLabels...), nil,
		Target{Page: flatPage("f-two", "Boots", "winter", "sandals")},
		Target{Page: flatPage("f-one", "boots", "sandals", "desert")},
		Target{Page: care})
	if _, ok := ProposeLink(in, "f-two"); !ok {
		t.Error("no proposal to a flat page sharing two labels")
	}
	for _, id := range []string{"f-one", "care"} {
		if l, ok := ProposeLink(in, id); ok {
			t.Errorf("proposed %+v to %s: one shared label, or across the silo", l, id)
		}
	}
	// In a cluster: a child to its parent and siblings, the parent to its
	// children, nothing across.
	sib := articleIn(boots, "laces", "Boot Laces")
	child := siloInput(t, care, &hub, Target{Page: hub}, Target{Page: sib}, Target{Page: flatPage("f-two", "boots", "winter")})
	for id, want := range map[string]bool{"hub-boots": true, "laces": true, "f-two": false} {
		if _, ok := ProposeLink(child, id); ok != want {
			t.Errorf("child care proposing a link to %s: %v, want %v", id, ok, want)
		}
	}
}

// The silo seed has no breadcrumbs, and a silo site has none unless it
// asks for the trail in its HTML (breadcrumb_html): then its pages get
// SAG's, whose links no silo rule judges (a trial's flag did nothing).
func TestASiloSiteThatAsksForBreadcrumbsGetsTheTrail(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	page := articleIn(boots, "care", "Boot Care")
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Welcome", Kind: site.KindHome}
	sector := site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking", Kind: site.KindSector, SectorID: "hiking"}
	in := siloInput(t, page, &hub, Target{Page: home}, Target{Page: sector}, Target{Page: hub})
	if plan := planOf(t, in); len(plan.Breadcrumbs) != 0 || len(linksOf(plan, link.TypeBreadcrumb, link.ZoneBreadcrumb)) != 0 {
		t.Errorf("silo without breadcrumb_html: trail %+v", plan.Breadcrumbs)
	}
	if l := LookupFor(in.Structure, in.Policy, page); l.Home || l.SectorID != "" {
		t.Errorf("silo without breadcrumb_html reads the crumbs' pages: %+v", l)
	}
	in.Policy.BreadcrumbHTML = true
	plan := planOf(t, in)
	want := []Crumb{
		{"Outdoor Shop", "/", "home"},
		{"Hiking", "/hiking/", "sector-hiking"},
		{"Hiking Boots", "/hiking/boots/", "hub-boots"},
		{"Boot Care", "/hiking/boots/care/", "care"},
	}
	if !reflect.DeepEqual(plan.Breadcrumbs, want) {
		t.Errorf("trail\n%+v\nwant\n%+v", plan.Breadcrumbs, want)
	}
	if got := targetIDs(linksOf(plan, link.TypeBreadcrumb, link.ZoneBreadcrumb)); !reflect.DeepEqual(got, []string{"home", "sector-hiking", "hub-boots"}) {
		t.Errorf("breadcrumb links %v, want home, sector and hub", got)
	}
	if l := LookupFor(in.Structure, in.Policy, page); !l.Home || l.SectorID != "hiking" {
		t.Errorf("silo with breadcrumb_html does not read the crumbs' pages: %+v", l)
	}
	if up := linksOf(plan, link.TypeVerticalUp, link.ZoneInBody); len(up) != 1 {
		t.Errorf("the silo child's uplink: %v", targetIDs(up))
	}
}

// A silo trial's home page named its five hubs and linked none, and its
// sector pages listed none of theirs: a strict silo forbids links across
// silos, not the way into one from above (EntersSilo). The home page links
// the sections its text names before its flat links, within the budget,
// and a sector page lists its hubs; no other page links into a silo.
func TestUnderSiloTheHomeAndSectorPagesEnterTheSilosFromAbove(t *testing.T) {
	boots, sandals := bootsCluster(), sandalsCluster()
	bootsHub, sandalsHub := hubOf(boots), hubOf(sandals)
	sector := site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking", Kind: site.KindSector, SectorID: "hiking",
		PrimaryKeyword: "hiking gear guides", PublishedAt: testNow}
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Outdoor Shop", Kind: site.KindHome, PublishedAt: testNow}
	text := "Browse our hiking gear guides, start with hiking boots, and pack hiking sandals for the summer."
	in := siloInput(t, home, nil, Target{Page: sector}, Target{Page: bootsHub}, Target{Page: sandalsHub},
		Target{Page: articleIn(boots, "b-1", "Boot Laces Explained")})
	in.Texts = []string{text}
	plan := planOf(t, in)
	down := linksOf(plan, link.TypeVerticalDown, link.ZoneInBody)
	if got := targetIDs(down); !reflect.DeepEqual(got, []string{"sector-hiking", "hub-boots", "hub-sandals"}) {
		t.Errorf("the silo home page links %v from its text, want the sector, then both hubs it names; notes %q", got, plan.Notes)
	}
	for _, l := range plan.Links {
		if l.TargetPageID == "b-1" {
			t.Errorf("the home page links article b-1 (%s): only a silo's top is entered from above", l.Type)
		}
	}
	l := LookupFor(in.Structure, in.Policy, home)
	if !l.Sectors || !slices.Contains(l.HubClusters, "boots") {
		t.Errorf("the silo home page's lookup %+v reads neither the sectors nor the hubs", l)
	}

	in = siloInput(t, sector, nil, Target{Page: bootsHub}, Target{Page: sandalsHub}, Target{Page: articleIn(boots, "b-1", "Boot Laces Explained")})
	boots.SectorID, sandals.SectorID = "hiking", "hiking"
	in.Structure = testSite(boots, sandals)
	in.Structure.Site.Policy = policy.Silo
	plan = planOf(t, in)
	if got := targetIDs(linksOf(plan, link.TypeVerticalDown, link.ZoneRelatedSection)); !reflect.DeepEqual(got, []string{"hub-boots", "hub-sandals"}) {
		t.Errorf("the silo sector page lists %v, want its two hubs; notes %q", got, plan.Notes)
	}
	if l := LookupFor(in.Structure, in.Policy, sector); !reflect.DeepEqual(l.HubClusters, []string{"boots", "sandals"}) {
		t.Errorf("the silo sector page's lookup reads the hubs of %v, want boots and sandals", l.HubClusters)
	}

	for _, tc := range []struct {
		from, to site.Kind
		want     bool
	}{
		{site.KindHome, site.KindHub, true}, {site.KindHome, site.KindSector, true}, {site.KindSector, site.KindHub, true},
		{site.KindHome, site.KindSupporting, false}, {site.KindSector, site.KindProduct, false},
		{site.KindHub, site.KindHub, false}, {site.KindPage, site.KindHub, false}, {site.KindSupporting, site.KindHome, false},
	} {
		if got := EntersSilo(tc.from, tc.to); got != tc.want {
			t.Errorf("EntersSilo(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

// A child the parent's text names but has no room for is listed too: an
// Italian trial's five such children, left planned in the text for the
// LLM fallback, had no link from anywhere.
func TestASiloParentListsAChildItsTextHasNoRoomFor(t *testing.T) {
	boots := bootsCluster()
	hub := hubOf(boots)
	hub.HTML = "<p>Start with boot waxing, then boot lacing and boot drying.</p>\n"
	var children []Target
	for _, name := range []string{"Boot Waxing", "Boot Lacing", "Boot Drying"} {
		children = append(children, Target{Page: articleIn(boots, strings.ToLower(strings.ReplaceAll(name, " ", "-")), name)})
	}
	in := siloInput(t, hub, &hub, children...)
	in.Texts = []string{"Start with boot waxing, then boot lacing and boot drying."}
	plan := planOf(t, in)
	zones := map[string]link.Zone{}
	for _, l := range plan.Links {
		zones[l.TargetPageID] = l.Zone
		// The budget of 5 has room: the list says the text is why.
		if l.Zone == link.ZoneRelatedSection && !strings.Contains(l.Explanation, "its text has no anchor or room for") {
			t.Errorf("listed child %s explained %q, want the text named, not the budget", l.TargetPageID, l.Explanation)
		}
	}
	body, listed := 0, 0
	for _, z := range zones {
		if z == link.ZoneInBody {
			body++
		} else {
			listed++
		}
	}
	if len(zones) != 3 || body == 0 || listed == 0 {
		t.Errorf("children's zones %v, want all 3 linked: those the text carries in it, the rest listed", zones)
	}
	// Nor does the note blame a budget with room left (a silo trial's
	// hubs each read "or the page's budget of 5 in-body links is taken
	// by 0 of its own and 1 planned"): the text names the children within
	// 50 words of the one it links, so the density limits are the cause.
	for _, n := range plan.Notes {
		if strings.Contains(n, "not linked in its text") && (strings.Contains(n, "budget") || !strings.Contains(n, "where its text names them, the links planned before them leave no room (2 link(s) a paragraph at most, 50 words between two)")) {
			t.Errorf("note %q, want the density limits named as the cause and no budget", n)
		}
	}
}

// The planner's trial placement reads the page's own names as the inject
// stage does (PlanOptions): a home page whose keyword "trail guide" holds
// the text's only "trail guides" does not spend its budget of 5 on the
// sector named so, which the inject stage would refuse there, and links
// the five hubs its text names instead. A trial's home page left a hub
// out so.
func TestTheHomePageSpendsNoBudgetOnANameOnlyItsOwnNamesHold(t *testing.T) {
	names := []string{"hiking boots", "hiking jackets", "hiking sandals", "trekking poles", "camp stoves"}
	var clusters []site.Cluster
	var targets []Target
	text := "Our trail guides walk every route first."
	for i, n := range names {
		c := testCluster(fmt.Sprintf("c%d", i), n, n)
		clusters = append(clusters, c)
		targets = append(targets, Target{Page: hubOf(c)})
		text += " We test " + n + " on it."
	}
	st := testSite(clusters...)
	targets = append(targets, Target{Page: site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking",
		Kind: site.KindSector, SectorID: "hiking", PrimaryKeyword: "trail guide", PublishedAt: testNow}})
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Outdoor Shop", Kind: site.KindHome, PrimaryKeyword: "outdoor shop",
		Keywords: []string{"trail guide"}, PublishedAt: testNow, HTML: "<p>" + text + "</p>"}
	in, err := NewInput(st, siloPolicy(t), home, targets)
	if err != nil {
		t.Fatal(err)
	}
	plan := planOf(t, in)
	got := targetIDs(linksOf(plan, link.TypeVerticalDown, link.ZoneInBody))
	slices.Sort(got)
	if want := []string{"hub-c0", "hub-c1", "hub-c2", "hub-c3", "hub-c4"}; !slices.Equal(got, want) {
		t.Errorf("the home page links %v (notes %q), want the five hubs its text names", got, plan.Notes)
	}
}

// A French trial's product and term page, outside clusters and related to
// each other only, named neither in their text and ended orphans without a
// word: a page whose text names none of its related pages says so.
func TestAFlatPageWhoseTextNamesNoneOfItsRelatedPagesSaysSoInANote(t *testing.T) {
	noted := func(p Plan) bool {
		return slices.ContainsFunc(p.Notes, func(n string) bool {
			return strings.Contains(n, "its text names none of the pages outside the clusters") && strings.Contains(n, "f-three, f-two")
		})
	}
	page := flatPage("src", theLabels...)
	text := "Our winter range is built for cold mornings and long walks on wet ground."
	page.HTML = "<p>" + text + "</p>\n"
	targets := []Target{
		{Page: flatPage("f-three", "boots", "waterproof", "leather", "summer")},
		{Page: flatPage("f-two", "Boots", "winter", "sandals")},
	}
	in := siloInput(t, page, nil, targets...)
	in.Texts = []string{text}
	if plan := planOf(t, in); !noted(plan) {
		t.Errorf("notes %q, want one saying its text names none of f-three, f-two", plan.Notes)
	}
	// Naming one of them is enough to say nothing.
	text = "Our winter range sits beside the Collection Of f-two for cold mornings and long walks on wet ground."
	page.HTML = "<p>" + text + "</p>\n"
	in = siloInput(t, page, nil, targets...)
	in.Texts = []string{text}
	if plan := planOf(t, in); noted(plan) {
		t.Errorf("notes %q for a page whose text names f-two", plan.Notes)
	}
}

// flatProducts are three products outside the clusters: trail-lock,
// whose labels no other shares, and leather-care-kit and boot-wax, which
// share theirs.
func flatProducts() (lock, care, wax site.Page) {
	product := func(id, title, keyword string, labels ...string) site.Page {
		return site.Page{SiteID: "s", ID: id, URL: "/products/" + id + "/", Title: title, Kind: site.KindProduct,
			PrimaryKeyword: keyword, Labels: labels, PublishedAt: testNow}
	}
	return product("trail-lock", "Trail Lock Pro", "trail lock", "security", "theft"),
		product("leather-care-kit", "Leather Care Kit", "leather care kit", "boots", "leather"),
		product("boot-wax", "Boot Wax", "boot wax tin", "boots", "leather")
}

// A silo trial's home page named its lock, a product outside the clusters
// sharing its labels with no other such page, and spent its budget of 5
// on sectors and hubs, which the sector pages link too: the lock ended an
// orphan. The page the home page alone may link comes first; a flat page
// other pages may link still waits for the budget the sections leave.
func TestASiloHomePageLinksThePageOnlyItMayLinkBeforeItsSections(t *testing.T) {
	boots, sandals := bootsCluster(), sandalsCluster()
	bootsHub, sandalsHub := hubOf(boots), hubOf(sandals)
	sector := site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking", Kind: site.KindSector, SectorID: "hiking",
		PrimaryKeyword: "hiking gear guides", PublishedAt: testNow}
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Outdoor Shop", Kind: site.KindHome, PublishedAt: testNow,
		Labels: []string{"security", "theft", "boots", "leather"}}
	lock, care, wax := flatProducts()
	in := siloInput(t, home, nil, Target{Page: sector}, Target{Page: bootsHub}, Target{Page: sandalsHub},
		Target{Page: lock}, Target{Page: care}, Target{Page: wax})
	in.Policy.BudgetMax = 3
	text := "Browse our hiking gear guides, start with hiking boots, and pack hiking sandals for the summer. " +
		"Our trail lock keeps a parked bike safe, and the leather care kit keeps boots supple."
	in.Texts, in.Page.HTML = []string{text}, "<p>"+text+"</p>\n"
	plan := planOf(t, in)
	var body []link.Link
	for _, l := range plan.Links {
		if l.Zone == link.ZoneInBody {
			body = append(body, l)
		}
	}
	got := targetIDs(body)
	if !slices.Contains(got, "trail-lock") {
		t.Errorf("the home page links %v in its body, want trail-lock, which no other page may link; notes %q", got, plan.Notes)
	}
	if slices.Contains(got, "leather-care-kit") {
		t.Errorf("the home page links %v in its body: leather-care-kit, which boot-wax may link, took a slot before the sections", got)
	}
	if len(got) != 3 || got[0] != "trail-lock" {
		t.Errorf("the home page links %v in its body, want trail-lock first and then two sections within its budget of 3", got)
	}
}

// A German trial's hub named "Bügelschlösser" and "Faltschlösser" five
// words apart, linked the first, and said of the second only that its text
// had "no anchor or no room" for it, which read as a fault of the placer.
// The note now tells the children the density limits crowd out from those
// the text does not name.
func TestASiloParentsNoteTellsChildrenCrowdedOutFromChildrenItsTextDoesNotName(t *testing.T) {
	raw, err := json.Marshal(map[string]any{"language": "de"})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Resolve(policy.Silo, raw)
	if err != nil {
		t.Fatal(err)
	}
	c := testCluster("schloss", "Fahrradschloss", "Fahrradschloss")
	st := testSite(c)
	st.Site.Policy = policy.Silo
	hub := hubOf(c)
	hub.HTML = `<p>Ein E-Bike kostet schnell mehr als 3.000 Euro, umso wichtiger ist ein gutes Fahrradschloss.</p>
<p>Bügelschlösser gelten als besonders sicher, Faltschlösser sind flexibler und leichter zu transportieren.</p>
`
	var targets []Target
	for _, a := range []struct{ id, title, keyword string }{
		{"buegelschloss", "Bügelschloss im Test", "Bügelschloss"},
		{"faltschloss", "Faltschloss: flexibel und sicher", "Faltschloss"},
		{"halterung", "Die richtige Halterung am Rahmen", "Schlosshalterung"},
	} {
		p := articleIn(c, a.id, a.title)
		p.PrimaryKeyword = a.keyword
		targets = append(targets, Target{Page: p})
	}
	in, err := NewInput(st, pol, hub, targets)
	if err != nil {
		t.Fatal(err)
	}
	plan := planOf(t, in)
	zones := map[string]link.Zone{}
	for _, l := range plan.Links {
		zones[l.TargetPageID] = l.Zone
	}
	want := map[string]link.Zone{"buegelschloss": link.ZoneInBody, "faltschloss": link.ZoneRelatedSection, "halterung": link.ZoneRelatedSection}
	if !maps.Equal(zones, want) {
		t.Fatalf("children's zones %v, want %v", zones, want)
	}
	wantNotes := []string{
		"children faltschloss listed in the parent's Related Articles section, not linked in its text: where its text names them, the links planned before them leave no room (2 link(s) a paragraph at most, 50 words between two)",
		"children halterung listed in the parent's Related Articles section, not linked in its text: its text has no anchor for them",
	}
	for _, n := range wantNotes {
		if !slices.Contains(plan.Notes, n) {
			t.Errorf("notes %q, want %q", plan.Notes, n)
		}
	}
}

// A French trial's home page, with no labels of its own, named a term
// page, a product and a service whose labels no other page outside the
// clusters shared; all three ended orphans, the home page sharing no
// labels with them either. Only the home page may link such a page, and
// it does where its text names it, whatever labels the two share; a page
// another flat page may link still needs the labels.
func TestASiloHomePageWithoutLabelsLinksThePageOnlyItMayLink(t *testing.T) {
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Outdoor Shop", Kind: site.KindHome, PublishedAt: testNow}
	lock, care, wax := flatProducts()
	in := siloInput(t, home, nil, Target{Page: lock}, Target{Page: care}, Target{Page: wax})
	text := "Our trail lock keeps a parked bike safe, and the leather care kit keeps boots supple."
	in.Texts, in.Page.HTML = []string{text}, "<p>"+text+"</p>\n"
	plan := planOf(t, in)
	got := targetIDs(plan.Links)
	if !slices.Equal(got, []string{"trail-lock"}) {
		t.Errorf("the home page links %v, want trail-lock alone: leather-care-kit shares its labels with boot-wax; notes %q", got, plan.Notes)
	}
	for _, l := range plan.Links {
		if l.TargetPageID == "trail-lock" && !strings.Contains(l.Explanation, "the home page alone may link it") {
			t.Errorf("link to trail-lock explained %q, want the reason the home page links it", l.Explanation)
		}
	}
	// The page itself is told that the home page may link it.
	lockIn := siloInput(t, lock, nil, Target{Page: care}, Target{Page: wax})
	lockPlan := planOf(t, lockIn)
	if !slices.ContainsFunc(lockPlan.Notes, func(n string) bool {
		return strings.Contains(n, "no page but the home page where the home page's text names it")
	}) {
		t.Errorf("trail-lock's notes %q, want the home page named as the one page that may link it", lockPlan.Notes)
	}
}

// A French trial's term page shared two labels with the home page, planned
// an in-body link to it and asked the writer to name "(accueil)". The home
// and sector pages are the site's structure, which the trail links: no
// page outside the clusters links them by its labels.
func TestASiloFlatPageLinksNoHomeOrSectorPageByItsLabels(t *testing.T) {
	home := site.Page{SiteID: "s", ID: "home", URL: "/", Title: "Outdoor Shop", Kind: site.KindHome, PublishedAt: testNow,
		Labels: []string{"winter", "travel"}}
	sector := site.Page{SiteID: "s", ID: "sector-hiking", URL: "/hiking/", Title: "Hiking", Kind: site.KindSector, SectorID: "hiking",
		Labels: []string{"winter", "travel"}, PublishedAt: testNow}
	peer := flatPage("winter-packing", "winter", "travel")
	term := site.Page{SiteID: "s", ID: "winter-travel", URL: "/topics/winter-travel/", Title: "Winter Travel", Kind: site.KindTerm,
		Labels: []string{"winter", "travel"}, PublishedAt: testNow}
	in := siloInput(t, term, nil, Target{Page: home}, Target{Page: sector}, Target{Page: peer})
	text := "Plan winter travel with our Outdoor Shop guides on hiking and the collection of winter-packing lists."
	in.Texts, in.Page.HTML = []string{text}, "<p>"+text+"</p>\n"
	plan := planOf(t, in)
	for _, l := range plan.Links {
		if l.Zone != link.ZoneBreadcrumb && (l.TargetPageID == "home" || l.TargetPageID == "sector-hiking") {
			t.Errorf("the term page plans %s %s link %s to %s, want none: the trail links the structure", l.Zone, l.Type, l.Status, l.TargetPageID)
		}
	}
	if got := targetIDs(plan.Links); !slices.Contains(got, "winter-packing") {
		t.Errorf("the term page links %v, want its peer winter-packing, which shares its labels", got)
	}
	for _, n := range plan.Notes {
		if strings.Contains(n, "home") && !strings.Contains(n, "home page") {
			t.Errorf("note %q names the home page's id", n)
		}
	}
}
