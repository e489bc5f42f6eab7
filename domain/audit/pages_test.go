package audit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/spill"
)

func TestPagesAreFoundByIDWhetherOrNotTheyCameInIDOrder(t *testing.T) {
	for name, ids := range map[string][]string{
		"in order":     {"a", "b", "c", "d"},
		"out of order": {"d", "a", "c", "b"},
	} {
		tbl := newPageTable()
		for _, id := range ids {
			tbl.add(Page{ID: id, URL: "/" + id + "/", Kind: site.KindPage, Live: true})
		}
		tbl.seal()
		if (tbl.byID == nil) != (name == "in order") {
			t.Errorf("%s: byID kept %v, want it only for pages out of order", name, tbl.byID != nil)
		}
		for i, id := range ids {
			if got := tbl.find(id); got != int32(i) {
				t.Errorf("%s: find(%q) = %d, want %d", name, id, got, i)
			}
		}
		if got := tbl.find("zz"); got != -1 {
			t.Errorf("%s: find of an unknown id = %d, want -1", name, got)
		}
	}
}

func TestALivePageWinsItsPathOverADeletedOneWhicheverCameFirst(t *testing.T) {
	for _, liveFirst := range []bool{true, false} {
		tbl := newPageTable()
		pages := []Page{{ID: "old", URL: "/p/", Kind: site.KindPage}, {ID: "new", URL: "https://x.example/p", Kind: site.KindPage, Live: true}}
		if liveFirst {
			pages[0], pages[1] = pages[1], pages[0]
		}
		for _, p := range pages {
			tbl.add(p)
		}
		tbl.seal()
		if got := tbl.atPath("/p"); got < 0 || tbl.id(got) != "new" {
			t.Errorf("live first %v: /p is page %d, want the live page", liveFirst, got)
		}
		if got := tbl.atPath("/q"); got != -1 {
			t.Errorf("an unknown path is page %d, want -1", got)
		}
	}
}

// Dominance is counted a range of targets at a time: a target past the
// first range is found as one in it is.
func TestDominantAnchorsAreFoundInEveryRangeOfTargets(t *testing.T) {
	n := 2*targetsPerPartition + 10
	pages := make([]Page, n)
	for i := range pages {
		pages[i] = Page{ID: fmt.Sprintf("p%06d", i), URL: fmt.Sprintf("/p/%d/", i), Kind: site.KindPage, WordCount: 100, Live: true}
	}
	a := newAuditor(t, site.Structure{}, pages)
	dominated := []int{3, targetsPerPartition + 7, n - 1}
	for i := range pages {
		var links []Link
		// Pages 10–15 link to each dominated target with one anchor.
		if i >= 10 && i < 16 {
			for _, d := range dominated {
				links = append(links, Link{URL: pages[d].URL, Internal: true, Follow: true, Position: "content", Paragraph: 1, Text: "Same Anchor"})
			}
		}
		if err := a.AddPage(pages[i].ID, links); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.DominantAnchors) != len(dominated) {
		t.Fatalf("%d dominant anchors, want %d: %+v", len(r.DominantAnchors), len(dominated), r.DominantAnchors)
	}
	for k, f := range r.DominantAnchors {
		if f.PageID != pages[dominated[k]].ID || f.Anchor != "same anchor" || f.Count != 6 || f.Limit != 6 {
			t.Errorf("dominant anchor %+v, want %s's 6 of 6 links with \"same anchor\"", f, pages[dominated[k]].ID)
		}
	}
}

type failingSpills struct{}

func (failingSpills) New() (spill.Spill, error) { return nil, errors.New("disk full") }

func TestAnAuditWhoseSpillFailsSaysSo(t *testing.T) {
	a := New(site.Structure{}, sagPolicy(t), failingSpills{})
	if err := a.Know(Page{ID: "x", URL: "/x/", Kind: site.KindPage, Live: true}); err != nil {
		t.Fatal(err)
	}
	if err := a.AddPage("x", nil); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("AddPage with no spill: %v, want the spill's error", err)
	}
	if _, err := a.Report(); err == nil {
		t.Error("a report was made without its link graph")
	}
}

func TestASiteWithoutLivePagesHasAnEmptyReport(t *testing.T) {
	a := newAuditor(t, testStructure, []Page{{ID: "gone", URL: "/gone/", Kind: site.KindPage}})
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if r.Pages != 0 || len(r.LinkScores) != 0 || len(r.Orphans) != 0 {
		t.Errorf("report of a site with no live page: %+v", r)
	}
	if _, err := a.Report(); err != nil {
		t.Errorf("a second report: %v", err)
	}
	if err := a.Know(Page{ID: "late"}); err == nil {
		t.Error("a page given after the report was taken")
	}
}

func TestPermuteOrdersHashesInPlaceAsACopyWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 65, 1000} {
		hashes := make([]uint64, n)
		for i := range hashes {
			hashes[i] = rng.Uint64()
		}
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		want := make([]uint64, n)
		for k, from := range order {
			want[k] = hashes[from]
		}
		permute(hashes, order)
		for k := range want {
			if hashes[k] != want[k] {
				t.Fatalf("n=%d: hash %d is %x, want %x", n, k, hashes[k], want[k])
			}
		}
	}
}

func TestNarrowKeepsNumbersPastTwoBytes(t *testing.T) {
	var c narrow[uint16]
	const top = 1<<16 - 1 // what the column holds as "in the map"
	want := []int32{0, 1, top - 1, top, top + 1, 70_000, 1<<31 - 1}
	for _, x := range want {
		c.add(x)
	}
	for i, x := range want {
		if got := c.at(int32(i)); got != x {
			t.Errorf("at(%d) = %d, want %d", i, got, x)
		}
	}
	c.set(5, 7)
	if got := c.at(5); got != 7 || len(c.wide) != 3 {
		t.Errorf("after set(5, 7): at(5) = %d and %d wide, want 7 and 3", got, len(c.wide))
	}
}

// A page of more words and in-body links than two bytes hold is reported
// with its own figures.
func TestAPageOfSeventyThousandLinksIsCountedWhole(t *testing.T) {
	st := site.Structure{Site: site.Site{ID: "s", BaseURL: "https://s.example", Policy: "sag"},
		Clusters: []site.Cluster{{ID: "c", PrimaryKeyword: "c"}}}
	a := New(st, sagPolicy(t), spill.Memory{})
	for _, p := range []Page{
		{ID: "big", URL: "/big/", Kind: site.KindSupporting, ClusterID: "c", WordCount: 100_000, Live: true},
		{ID: "hub", URL: "/hub/", Kind: site.KindHub, ClusterID: "c", WordCount: 300, Live: true},
	} {
		if err := a.Know(p); err != nil {
			t.Fatal(err)
		}
	}
	links := make([]Link, 70_000)
	for i := range links {
		links[i] = Link{URL: "/hub/", Text: "hub", Internal: true, Follow: true, Position: "content", Paragraph: 1 + i/2}
	}
	if err := a.AddPage("big", links); err != nil {
		t.Fatal(err)
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.OverLinked) != 1 || r.OverLinked[0].Count != 70_000 || !strings.Contains(r.OverLinked[0].Detail, "page of 100000 words") {
		t.Fatalf("over-linked: %+v, want the big page's 70000 links and 100000 words", r.OverLinked)
	}
	if got := a.LinksIn("hub"); got != 70_000 {
		t.Errorf("links in to the hub: %d, want 70000", got)
	}
}

func TestIDColumnGivesBackIdsOfAnyLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var c idColumn
	c.grow(10, 8)
	var want []string
	for i := range 1000 {
		n := rng.IntN(40)
		if i%97 == 0 {
			n = 250 + rng.IntN(400) // past what a byte holds
		}
		id := strings.Repeat(string(rune('a'+i%26)), n) + fmt.Sprint(i)
		want = append(want, id)
		c.add(id)
	}
	if c.len() != len(want) {
		t.Fatalf("%d ids, want %d", c.len(), len(want))
	}
	for i, id := range want {
		if got := string(c.at(int32(i))); got != id {
			t.Fatalf("id %d: %q, want %q", i, got, id)
		}
	}
}
