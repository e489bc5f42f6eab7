package store

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/store/storetest"
)

// The planning fixture: a small SAG site with two sectors, two attributes
// and five clusters, whose pages cover every case the planning index must
// tell apart (deleted pages, a page without a plan, pages outside any
// cluster).
//
//	boots  (outdoor, leather, winter): hub, a, b, c, gone (deleted), draft (no plan)
//	tents  (outdoor, canvas, summer):  hub, a
//	knives (kitchen, leather):         hub, a
//	gloves (outdoor, winter):          hub (deleted), a
//	pans   (kitchen, summer):          hub
//
// plus home, two sector pages, four term pages (term-canvas has no plan)
// and four pages outside any cluster (free-gone is deleted).
const ptSite = "site-1"

func ptStructure() site.Structure {
	st := site.Structure{
		Site:    site.Site{ID: ptSite, BaseURL: "https://shop.example", Name: "Shop", Policy: policy.SAG},
		Sectors: []site.Sector{{ID: "outdoor", Name: "Outdoor", URL: "/outdoor/"}, {ID: "kitchen", Name: "Kitchen", URL: "/kitchen/"}},
		Attributes: []site.Attribute{
			{ID: "material", Name: "Material", Values: []string{"Leather", "Canvas"}},
			{ID: "season", Name: "Season", Values: []string{"Summer", "Winter"}},
		},
		Clusters: []site.Cluster{
			{ID: "boots", SectorID: "outdoor", Name: "Boots", PrimaryKeyword: "hiking boots",
				Attributes: map[string][]string{"material": {"Leather"}, "season": {"Winter"}}},
			{ID: "tents", SectorID: "outdoor", Name: "Tents", PrimaryKeyword: "camping tents",
				Attributes: map[string][]string{"material": {"Canvas"}, "season": {"Summer"}}},
			{ID: "knives", SectorID: "kitchen", Name: "Knives", PrimaryKeyword: "chef knives",
				Attributes: map[string][]string{"material": {"Leather"}}},
			{ID: "gloves", SectorID: "outdoor", Name: "Gloves", PrimaryKeyword: "winter gloves",
				Attributes: map[string][]string{"season": {"Winter"}}},
			{ID: "pans", SectorID: "kitchen", Name: "Pans", PrimaryKeyword: "frying pans",
				Attributes: map[string][]string{"season": {"Summer"}}},
		},
	}
	st.BuildIndex()
	return st
}

// ptPage is one fixture page; day orders published_at (day 1 oldest).
type ptPage struct {
	id, kind, cluster, sector string
	url                       string // "/<id>/" unless set
	labels                    []string
	attrs                     map[string][]string
	day                       int
	deleted, unplanned        bool
}

var ptPages = []ptPage{
	{id: "home", kind: "home", url: "/", day: 1},
	{id: "sec-outdoor", kind: "sector", sector: "outdoor", url: "/outdoor/", day: 2},
	{id: "sec-kitchen", kind: "sector", sector: "kitchen", url: "/kitchen/", day: 3},
	{id: "term-leather", kind: "term", attrs: map[string][]string{"material": {"Leather"}}, day: 4},
	{id: "term-canvas", kind: "term", attrs: map[string][]string{"material": {"Canvas"}}, day: 5, unplanned: true},
	{id: "term-winter", kind: "term", attrs: map[string][]string{"season": {"Winter"}}, day: 6},
	{id: "term-summer", kind: "term", attrs: map[string][]string{"season": {"Summer"}}, day: 7},
	{id: "boots-hub", kind: "hub", cluster: "boots", day: 8},
	{id: "boots-a", kind: "supporting", cluster: "boots", labels: []string{"Camping"}, day: 9},
	{id: "boots-b", kind: "supporting", cluster: "boots", day: 10},
	{id: "boots-c", kind: "supporting", cluster: "boots", day: 11},
	{id: "boots-gone", kind: "supporting", cluster: "boots", day: 12, deleted: true},
	{id: "boots-draft", kind: "supporting", cluster: "boots", day: 13, unplanned: true},
	{id: "tents-hub", kind: "hub", cluster: "tents", day: 14},
	{id: "tents-a", kind: "supporting", cluster: "tents", day: 15},
	{id: "knives-hub", kind: "hub", cluster: "knives", day: 16},
	{id: "knives-a", kind: "supporting", cluster: "knives", day: 17},
	{id: "gloves-hub", kind: "hub", cluster: "gloves", day: 18, deleted: true},
	{id: "gloves-a", kind: "supporting", cluster: "gloves", day: 19},
	{id: "pans-hub", kind: "hub", cluster: "pans", day: 20},
	{id: "free-1", kind: "page", labels: []string{"Camping", "Trail"}, day: 21},
	{id: "free-2", kind: "page", labels: []string{"  camping "}, day: 22},
	{id: "free-3", kind: "page", labels: []string{"cooking"}, day: 23},
	{id: "free-gone", kind: "page", labels: []string{"camping"}, day: 24, deleted: true},
	{id: "free-4", kind: "page", labels: []string{"camping"}, day: 25},
}

func (p ptPage) page() site.Page {
	url := p.url
	if url == "" {
		url = "/" + p.id + "/"
	}
	return site.Page{
		SiteID: ptSite, ID: p.id, URL: url, Title: "Title of " + p.id, Kind: site.Kind(p.kind),
		ClusterID: p.cluster, SectorID: p.sector, PrimaryKeyword: "keyword " + p.id, Labels: p.labels,
		Attributes: p.attrs, PublishedAt: time.Date(2025, 1, p.day, 12, 0, 0, 0, time.UTC), Version: 1,
		HTML: "<p>Body of " + p.id + ".</p>",
	}
}

func ptFixturePage(t *testing.T, id string) site.Page {
	t.Helper()
	for _, p := range ptPages {
		if p.id == id {
			return p.page()
		}
	}
	t.Fatalf("no fixture page %s", id)
	return site.Page{}
}

func ptPlanID(pageID string, version int64) string {
	return "plan-" + pageID + "-v" + strconv.FormatInt(version, 10)
}

// ptOpen gives the test a store on a database of its own, holding the
// fixture site.
func ptOpen(t *testing.T) (*Store, site.Structure) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, storetest.NewDatabase(t), Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	st := ptStructure()
	err = s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.SaveStructure(ctx, st, nil, nil, StructureOrder{}, nil); err != nil {
			return err
		}
		for _, fp := range ptPages {
			p := fp.page()
			planID := ptPlanID(p.ID, 1)
			state := StateGenerated
			if fp.unplanned {
				planID, state = "", StatePublished
			}
			applied, err := tx.SavePageVersion(ctx, p, state, planID, 3, false, planning.IndexTerms(st, p))
			if err != nil {
				return err
			}
			if !applied {
				return errors.New("fixture page " + p.ID + " not applied")
			}
		}
		for _, fp := range ptPages {
			if fp.deleted {
				if _, err := tx.MarkPageDeleted(ctx, ptSite, fp.id, 2); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	return s, st
}

// ptTargets runs PlanningTargets for the page and returns the target ids,
// sorted, failing on a target returned twice.
func ptTargets(t *testing.T, s *Store, pageID string, l planning.Lookup, locks planning.Locks) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	err := s.InTx(ctx, func(tx *Tx) error {
		targets, _, err := tx.PlanningTargets(ctx, ptSite, pageID, l, locks)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, tg := range targets {
			if seen[tg.ID] {
				t.Errorf("target %s returned twice", tg.ID)
			}
			seen[tg.ID] = true
			ids = append(ids, tg.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids)
	return ids
}

func ptDependants(t *testing.T, s *Store, d planning.Dependants) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		ids, err = tx.Dependants(ctx, ptSite, d, "", 1000)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func ptWant(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	want = append([]string(nil), want...)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %v\n want %v", what, got, want)
	}
}

func TestPlanningTargetsReturnsTheClustersLiveMembersButNotThePageItself(t *testing.T) {
	s, _ := ptOpen(t)
	got := ptTargets(t, s, "boots-a", planning.Lookup{ClusterID: "boots", RelatedLimit: 200}, planning.Locks{})
	// boots-gone is deleted; boots-draft is live (it only has no plan).
	ptWant(t, "members of boots", got, []string{"boots-b", "boots-c", "boots-draft", "boots-hub"})
}

func TestPlanningTargetsBoundsTheClusterToItsNewestPagesAndStillFindsTheHub(t *testing.T) {
	s, _ := ptOpen(t)
	// boots by recency: draft (13), c (11), b (10), hub (8); a is the page.
	got := ptTargets(t, s, "boots-a", planning.Lookup{ClusterID: "boots", ClusterLimit: 2, HubClusters: []string{"boots"}, RelatedLimit: 200},
		planning.Locks{})
	ptWant(t, "the two newest members and the hub", got, []string{"boots-c", "boots-draft", "boots-hub"})
}

func TestPlanningTargetsReturnsOnlyTheLiveHubsOfHubClusters(t *testing.T) {
	s, _ := ptOpen(t)
	got := ptTargets(t, s, "term-winter", planning.Lookup{HubClusters: []string{"gloves", "knives", "tents", "nope"}, RelatedLimit: 1},
		planning.Locks{})
	// gloves-hub is deleted; supporting articles are not hubs; RelatedLimit
	// does not cap hubs.
	ptWant(t, "hubs", got, []string{"knives-hub", "tents-hub"})
}

func TestPlanningTargetsTakesTheNewestRelatedClusterPagesUpToRelatedLimit(t *testing.T) {
	s, _ := ptOpen(t)
	related := []string{"boots", "tents", "knives", "gloves"}
	// Live hubs and supporting articles of those clusters, newest first:
	// gloves-a (19), knives-a (17), knives-hub (16), tents-a (15), ...
	got := ptTargets(t, s, "pans-hub", planning.Lookup{RelatedClusters: related, RelatedLimit: 3}, planning.Locks{})
	ptWant(t, "limit 3", got, []string{"gloves-a", "knives-a", "knives-hub"})

	all := ptTargets(t, s, "boots-b", planning.Lookup{RelatedClusters: related, RelatedLimit: 200}, planning.Locks{})
	ptWant(t, "no limit reached", all, []string{"boots-a", "boots-c", "boots-draft", "boots-hub", "gloves-a",
		"knives-a", "knives-hub", "tents-a", "tents-hub"})
}

func TestPlanningTargetsFindsClusterlessPagesBySharedTermsOnly(t *testing.T) {
	s, _ := ptOpen(t)
	// boots-a carries the label too, but is in a cluster; free-gone is
	// deleted; free-3 has another label; labels are matched normalised.
	got := ptTargets(t, s, "free-2", planning.Lookup{Terms: []string{"label:camping"}, RelatedLimit: 200}, planning.Locks{})
	ptWant(t, "pages labelled camping", got, []string{"free-1", "free-4"})

	got = ptTargets(t, s, "free-3", planning.Lookup{Terms: []string{"label:camping", "label:trail"}, RelatedLimit: 2}, planning.Locks{})
	ptWant(t, "newest two", got, []string{"free-2", "free-4"})

	got = ptTargets(t, s, "free-3", planning.Lookup{Terms: []string{"label:nothing"}, RelatedLimit: 200}, planning.Locks{})
	ptWant(t, "unknown term", got, nil)
}

func TestPlanningTargetsReturnsTheHomeSectorAndTermCrumbPages(t *testing.T) {
	s, _ := ptOpen(t)
	got := ptTargets(t, s, "boots-a", planning.Lookup{SectorID: "outdoor",
		CrumbTerms: []string{"facet:material=leather", "facet:season=winter"}, RelatedLimit: 200}, planning.Locks{})
	ptWant(t, "crumbs", got, []string{"home", "sec-outdoor", "term-leather", "term-winter"})

	// Without crumb terms: home and the sector page only.
	got = ptTargets(t, s, "knives-a", planning.Lookup{SectorID: "kitchen", RelatedLimit: 200}, planning.Locks{})
	ptWant(t, "crumbs without terms", got, []string{"home", "sec-kitchen"})

	// Term pages are found by their own facet, not by a cluster page
	// carrying a label that looks like one.
	got = ptTargets(t, s, "home", planning.Lookup{SectorID: "nope", CrumbTerms: []string{"facet:material=canvas"}, RelatedLimit: 200},
		planning.Locks{})
	ptWant(t, "crumbs of the home page", got, []string{"term-canvas"})
}

func TestPlanningTargetsNeverReturnsDeletedPagesOrThePageItself(t *testing.T) {
	s, _ := ptOpen(t)
	everything := planning.Lookup{
		ClusterID:       "boots",
		HubClusters:     []string{"boots", "gloves", "tents"},
		RelatedClusters: []string{"boots", "gloves"},
		Terms:           []string{"label:camping"},
		SectorID:        "outdoor",
		CrumbTerms:      []string{"facet:material=leather"},
		RelatedLimit:    200,
	}
	for _, self := range []string{"boots-hub", "boots-a", "free-1", "home", "sec-outdoor", "term-leather", "gloves-a"} {
		got := ptTargets(t, s, self, everything, planning.Locks{})
		for _, id := range got {
			if id == self {
				t.Errorf("planning %s: the page itself is a target", self)
			}
			if id == "boots-gone" || id == "gloves-hub" || id == "free-gone" {
				t.Errorf("planning %s: deleted page %s is a target", self, id)
			}
		}
		if len(got) == 0 {
			t.Errorf("planning %s: no targets", self)
		}
	}
}

// The lookup the domain computes for a supporting article, end to end.
func TestPlanningTargetsForASupportingArticleUnderTheSAGPolicy(t *testing.T) {
	s, st := ptOpen(t)
	pol, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	page := ptFixturePage(t, "boots-a")
	got := ptTargets(t, s, page.ID, planning.LookupFor(st, pol, page), planning.LocksFor(st, page, planning.Arriving))
	ptWant(t, "targets of boots-a", got, []string{
		"boots-b", "boots-c", "boots-draft", "boots-hub", // its cluster
		"gloves-a", "knives-a", "knives-hub", // clusters sharing leather or winter
		"home", "sec-outdoor", "term-leather", "term-winter", // breadcrumbs
	})

	hub := ptFixturePage(t, "tents-hub")
	got = ptTargets(t, s, hub.ID, planning.LookupFor(st, pol, hub), planning.LocksFor(st, hub, planning.Arriving))
	// Its members, the hub of pans (summer) and its breadcrumbs, with the
	// term pages of both its values (term-canvas has no plan of its own
	// but is live).
	ptWant(t, "targets of tents-hub", got, []string{"tents-a", "pans-hub", "home", "sec-outdoor", "term-canvas", "term-summer"})
}

// Known bug, kept as the regression test for its fix: under SAG every
// breadcrumb trail starts at the home page, but PlanningTargets only queues
// the crumbs query when the lookup has a SectorID or CrumbTerms, so a page
// with neither (a term page, a product or plain page without a sector)
// never gets the home page as a target and its plan has no breadcrumb link
// to home.
func TestPlanningTargetsFindTheHomePageForEverySAGPage(t *testing.T) {
	s, st := ptOpen(t)
	pol, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"term-leather", "free-1"} {
		page := ptFixturePage(t, id)
		got := ptTargets(t, s, page.ID, planning.LookupFor(st, pol, page), planning.LocksFor(st, page, planning.Arriving))
		if !slices.Contains(got, "home") {
			t.Errorf("targets of %s: %v, without the home page", id, got)
		}
	}
}

func TestDependantsOfASupportingArticleIsItsHub(t *testing.T) {
	s, st := ptOpen(t)
	got := ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "boots-a"), false))
	ptWant(t, "dependants of boots-a", got, []string{"boots-hub"})

	// gloves-hub is deleted: nothing depends on gloves-a.
	got = ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "gloves-a"), false))
	ptWant(t, "dependants of gloves-a", got, nil)
}

func TestDependantsOfAHubAreItsClusterTheTermPagesOfItsValuesItsSectorAndHome(t *testing.T) {
	s, st := ptOpen(t)
	// Not boots-gone (deleted), boots-draft (no plan) or the hub itself.
	got := ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "boots-hub"), false))
	ptWant(t, "dependants of boots-hub", got, []string{"boots-a", "boots-b", "boots-c", "home", "sec-outdoor", "term-leather", "term-winter"})

	// term-canvas has no plan.
	got = ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "tents-hub"), false))
	ptWant(t, "dependants of tents-hub", got, []string{"home", "sec-outdoor", "tents-a", "term-summer"})
}

// ptDependantsPaged reads d's dependants size at a time, as a fan-out
// does, each page after the last id of the one before; each page must be
// in id order after that id.
func ptDependantsPaged(t *testing.T, s *Store, d planning.Dependants, size int) []string {
	t.Helper()
	var pages []string
	after := ""
	for {
		var page []string
		err := s.InTx(t.Context(), func(tx *Tx) error {
			var err error
			page, err = tx.Dependants(t.Context(), ptSite, d, after, size)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(page) || (len(page) > 0 && page[0] <= after) {
			t.Fatalf("page after %q is %v: not in id order after it", after, page)
		}
		pages = append(pages, page...)
		if len(page) < size {
			return pages
		}
		after = page[len(page)-1]
	}
}

func TestDependantsArePagedInIDOrder(t *testing.T) {
	s, st := ptOpen(t)
	d := planning.DependantsOf(st, ptFixturePage(t, "boots-hub"), false)
	pages := ptDependantsPaged(t, s, d, 3)
	ptWant(t, "dependants paged 3 at a time", pages, []string{"boots-a", "boots-b", "boots-c", "home", "sec-outdoor", "term-leather", "term-winter"})
}

func TestDependantsOfASiteChangeAreItsPlannedPagesPagedInIDOrder(t *testing.T) {
	s, _ := ptOpen(t)
	pages := ptDependantsPaged(t, s, planning.Dependants{Site: true}, 4)
	// Every fixture page but the deleted (boots-gone, gloves-hub,
	// free-gone) and the unplanned (term-canvas, boots-draft) ones.
	var want []string
	for _, p := range ptPages {
		if !p.deleted && !p.unplanned {
			want = append(want, p.id)
		}
	}
	ptWant(t, "dependants of a site change, paged 4 at a time", pages, want)

	// Other kinds named beside it add nothing; the excluded page is left out.
	got := ptDependants(t, s, planning.Dependants{Site: true, HubOf: "boots", LinkingTo: "boots-c", ExcludedPageID: "home"})
	ptWant(t, "dependants of a site change with other kinds and home excluded", got,
		slices.DeleteFunc(slices.Clone(want), func(id string) bool { return id == "home" }))
}

func TestDependantsOfATermPageAreThePagesOfTheClustersWithItsValue(t *testing.T) {
	s, st := ptOpen(t)
	got := ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "term-leather"), false))
	ptWant(t, "dependants of term-leather", got, []string{"boots-a", "boots-b", "boots-c", "boots-hub", "knives-a", "knives-hub"})

	got = ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "term-winter"), false))
	ptWant(t, "dependants of term-winter", got, []string{"boots-a", "boots-b", "boots-c", "boots-hub", "gloves-a"})
}

func TestDependantsOfADeletedPageIncludeThePagesLinkingToIt(t *testing.T) {
	s, st := ptOpen(t)
	ctx := context.Background()
	linkTo := func(source, target string) link.Link {
		return link.Link{ID: source + "->" + target, SourcePageID: source, TargetPageID: target, TargetURL: "/" + target + "/",
			Type: link.TypeRelated, Zone: link.ZoneInBody, Status: link.StatusPlanned}
	}
	err := s.InTx(ctx, func(tx *Tx) error {
		// Sources: two live planned pages, a page without a plan and a
		// deleted page; free-3 links elsewhere.
		for _, src := range []string{"tents-a", "free-1", "boots-draft", "free-gone"} {
			if err := tx.ReplaceLinks(ctx, ptSite, src, 1, []link.Link{linkTo(src, "boots-c")}); err != nil {
				return err
			}
		}
		if err := tx.ReplaceLinks(ctx, ptSite, "free-3", 1, []link.Link{linkTo("free-3", "boots-b")}); err != nil {
			return err
		}
		_, err := tx.MarkPageDeleted(ctx, ptSite, "boots-c", 2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got := ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "boots-c"), true))
	ptWant(t, "dependants of deleted boots-c", got, []string{"boots-hub", "free-1", "tents-a"})

	// A deleted page outside any cluster: only the pages linking to it.
	err = s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, ptSite, "knives-a", 1, []link.Link{linkTo("knives-a", "free-4")}); err != nil {
			return err
		}
		_, err := tx.MarkPageDeleted(ctx, ptSite, "free-4", 2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got = ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "free-4"), true))
	ptWant(t, "dependants of deleted free-4", got, []string{"knives-a"})

	// The same page not deleted: nobody is re-planned for links to it.
	got = ptDependants(t, s, planning.DependantsOf(st, ptFixturePage(t, "free-3"), false))
	ptWant(t, "dependants of free-3", got, nil)
}

// ptSnapshot is a link_snapshots row.
type ptSnapshot struct {
	Version     int64
	PlanID      string
	LinkedHTML  *string
	Breadcrumbs []planning.Crumb
	LinkIDs     []string
	Reason      string
}

func ptSnapshots(t *testing.T, s *Store, pageID string) []ptSnapshot {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT version, plan_id, linked_html, breadcrumbs, links, reason
		FROM link_snapshots WHERE site_id = $1 AND page_id = $2 ORDER BY id`, ptSite, pageID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ptSnapshot
	for rows.Next() {
		var sn ptSnapshot
		var links []map[string]any
		if err := rows.Scan(&sn.Version, &sn.PlanID, &sn.LinkedHTML, &sn.Breadcrumbs, &links, &sn.Reason); err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			id, _ := l["id"].(string)
			sn.LinkIDs = append(sn.LinkIDs, id)
		}
		out = append(out, sn)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ptPlanState reads a page's plan id and linked HTML.
func ptPlanState(t *testing.T, s *Store, pageID string) (planID string, linkedHTML *string) {
	t.Helper()
	err := s.pool.QueryRow(context.Background(), `SELECT plan_id, linked_html FROM pages WHERE site_id = $1 AND id = $2`,
		ptSite, pageID).Scan(&planID, &linkedHTML)
	if err != nil {
		t.Fatal(err)
	}
	return planID, linkedHTML
}

// ptGivePlan stores a plan's output for the page: two links (in reverse
// id order, to check the snapshot keeps their position order), linked HTML
// and breadcrumbs.
func ptGivePlan(t *testing.T, s *Store, pageID string, version int64) {
	t.Helper()
	ctx := context.Background()
	links := []link.Link{
		{ID: pageID + "-link-2", SourcePageID: pageID, TargetPageID: "boots-hub", TargetURL: "/boots-hub/",
			Type: link.TypeVerticalUp, Zone: link.ZoneInBody, Status: link.StatusPlanned, Anchor: "hiking boots"},
		{ID: pageID + "-link-1", SourcePageID: pageID, TargetPageID: "home", TargetURL: "/",
			Type: link.TypeBreadcrumb, Zone: link.ZoneBreadcrumb, Status: link.StatusPlanned, Anchor: "Shop"},
	}
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.ReplaceLinks(ctx, ptSite, pageID, version, links); err != nil {
			return err
		}
		if err := tx.SetLinkedHTML(ctx, ptSite, pageID, "<p>linked "+pageID+"</p>"); err != nil {
			return err
		}
		return tx.RecordPlan(ctx, ptSite, pageID, planning.Horizon{}, []planning.Crumb{{Name: "Shop", URL: "/", PageID: "home"}}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReplacePlanKeepsTheReplacedPlanAsASnapshot(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	ptGivePlan(t, s, "boots-b", 1)
	replace := func(planID string) bool {
		t.Helper()
		var replaced bool
		err := s.InTx(ctx, func(tx *Tx) error {
			var err error
			replaced, err = tx.ReplacePlan(ctx, ptSite, "boots-b", planID, "re-planned: hub changed")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return replaced
	}
	if !replace("plan-boots-b-replan") {
		t.Fatal("ReplacePlan reported the live page gone")
	}
	linked := "<p>linked boots-b</p>"
	want := []ptSnapshot{{Version: 1, PlanID: ptPlanID("boots-b", 1), LinkedHTML: &linked,
		Breadcrumbs: []planning.Crumb{{Name: "Shop", URL: "/", PageID: "home"}},
		LinkIDs:     []string{"boots-b-link-2", "boots-b-link-1"}, Reason: "re-planned: hub changed"}}
	if got := ptSnapshots(t, s, "boots-b"); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshots:\n got  %+v\n want %+v", got, want)
	}
	planID, linkedHTML := ptPlanState(t, s, "boots-b")
	if planID != "plan-boots-b-replan" || linkedHTML != nil {
		t.Errorf("after ReplacePlan: plan %q, linked html %v; want the new plan and no linked html", planID, linkedHTML)
	}

	// The same plan again (a redelivered event) changes nothing.
	if replace("plan-boots-b-replan") {
		t.Error("ReplacePlan with the current plan id reported a replacement")
	}
	if got := ptSnapshots(t, s, "boots-b"); len(got) != 1 {
		t.Errorf("%d snapshots after replacing with the current plan, want 1", len(got))
	}
}

func TestReplacePlanChangesNothingForADeletedPage(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	var replaced bool
	err := s.InTx(ctx, func(tx *Tx) error {
		var err error
		replaced, err = tx.ReplacePlan(ctx, ptSite, "boots-gone", "plan-new", "re-planned")
		if err != nil {
			return err
		}
		missing, err := tx.ReplacePlan(ctx, ptSite, "never-existed", "plan-new", "re-planned")
		if missing {
			t.Error("ReplacePlan of a page that never existed reported a replacement")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if replaced {
		t.Error("ReplacePlan of a deleted page reported a replacement")
	}
	if got := ptSnapshots(t, s, "boots-gone"); len(got) != 0 {
		t.Errorf("snapshots of a deleted page: %+v", got)
	}
	if planID, _ := ptPlanState(t, s, "boots-gone"); planID != ptPlanID("boots-gone", 1) {
		t.Errorf("deleted page's plan changed to %q", planID)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM link_snapshots`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d snapshots in the table, want 0", n)
	}
}

func TestSavingANewGeneratedVersionSnapshotsThePreviousPlan(t *testing.T) {
	s, st := ptOpen(t)
	ctx := context.Background()
	save := func(p site.Page, state, planID string) bool {
		t.Helper()
		var applied bool
		err := s.InTx(ctx, func(tx *Tx) error {
			var err error
			applied, err = tx.SavePageVersion(ctx, p, state, planID, 3, false, planning.IndexTerms(st, p))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return applied
	}
	// A page's first version has no plan to keep.
	fresh := ptFixturePage(t, "boots-a")
	fresh.ID, fresh.URL = "boots-new", "/boots-new/"
	if !save(fresh, StateGenerated, ptPlanID(fresh.ID, 1)) {
		t.Fatal("first version not applied")
	}
	if got := ptSnapshots(t, s, fresh.ID); len(got) != 0 {
		t.Errorf("snapshots of a new page: %+v", got)
	}

	ptGivePlan(t, s, "boots-b", 1)
	v2 := ptFixturePage(t, "boots-b")
	v2.Version, v2.HTML = 2, "<p>Second version.</p>"
	if !save(v2, StateGenerated, ptPlanID("boots-b", 2)) {
		t.Fatal("version 2 not applied")
	}
	linked := "<p>linked boots-b</p>"
	want := []ptSnapshot{{Version: 1, PlanID: ptPlanID("boots-b", 1), LinkedHTML: &linked,
		Breadcrumbs: []planning.Crumb{{Name: "Shop", URL: "/", PageID: "home"}},
		LinkIDs:     []string{"boots-b-link-2", "boots-b-link-1"}, Reason: "replaced by version 2 (plan " + ptPlanID("boots-b", 2) + ")"}}
	if got := ptSnapshots(t, s, "boots-b"); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshots:\n got  %+v\n want %+v", got, want)
	}
	if planID, linkedHTML := ptPlanState(t, s, "boots-b"); planID != ptPlanID("boots-b", 2) || linkedHTML != nil {
		t.Errorf("after version 2: plan %q, linked html %v", planID, linkedHTML)
	}

	// Publishing version 2 keeps its plan: no snapshot. A stale generated
	// version 1 is not applied: no snapshot either.
	if !save(v2, StatePublished, "") {
		t.Fatal("publishing version 2 not applied")
	}
	v1 := ptFixturePage(t, "boots-b")
	if save(v1, StateGenerated, "plan-stale") {
		t.Error("stale version 1 applied")
	}
	if got := ptSnapshots(t, s, "boots-b"); len(got) != 1 {
		t.Errorf("%d snapshots after publishing and a stale version, want 1: %+v", len(got), got)
	}
	if planID, _ := ptPlanState(t, s, "boots-b"); planID != ptPlanID("boots-b", 2) {
		t.Errorf("plan after publishing: %q", planID)
	}
}

// A page's URL is kept as its publisher sent it, and WordPress sends a
// slug of "Gemüse" percent-encoded in lower case hex: a trial's audit fix
// found no hub at "/gemüse/" and its page failed first_link_rule for a
// hub it linked. A link's path, decoded, finds the page however its URL
// is written.
func TestPagesByPathFindsPagesWhoseURLIsPercentEncoded(t *testing.T) {
	s, _ := ptOpen(t)
	ctx := context.Background()
	urls := map[string]string{"lower": "/gem%c3%bcse/", "upper": "/obstb%C3%A4ume/s%C3%A4ulenobst/", "raw": "/kräuter/"}
	err := s.InTx(ctx, func(tx *Tx) error {
		for id, url := range urls {
			p := ptPage{id: id, kind: "page", url: url, day: 26}.page()
			if _, err := tx.SavePageVersion(ctx, p, StatePublished, "", 3, false, nil); err != nil {
				return err
			}
		}
		got, err := tx.PagesByPath(ctx, ptSite, []string{"/gemüse", "/obstbäume/säulenobst", "/kräuter", "/boots-a"})
		if err != nil {
			return err
		}
		want := map[string]string{"/gemüse": "lower", "/obstbäume/säulenobst": "upper", "/kräuter": "raw", "/boots-a": "boots-a"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pages by path %v, want %v", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A silo home page reads the pages outside the clusters whatever their
// labels (planning.Lookup.Flat): a French trial's home page named a term
// page sharing no label with it, the one page that may link it, and never
// read it. The home and sector pages are no such page, a deleted one is
// left out, and RelatedLimit keeps the most recently published.
func TestPlanningTargetsReadsThePagesOutsideTheClustersForFlat(t *testing.T) {
	s, _ := ptOpen(t)
	got := ptTargets(t, s, "home", planning.Lookup{Flat: true, RelatedLimit: 200}, planning.Locks{})
	ptWant(t, "pages outside the clusters", got, []string{"free-1", "free-2", "free-3", "free-4",
		"term-canvas", "term-leather", "term-summer", "term-winter"})
	got = ptTargets(t, s, "home", planning.Lookup{Flat: true, RelatedLimit: 2}, planning.Locks{})
	ptWant(t, "the two newest", got, []string{"free-3", "free-4"})
}
