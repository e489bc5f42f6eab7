package audit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
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

// spillsFailingAfter makes n spills in memory, then fails.
type spillsFailingAfter struct{ n int }

func (f *spillsFailingAfter) New() (spill.Spill, error) {
	if f.n == 0 {
		return nil, errors.New("disk full")
	}
	f.n--
	return spill.Memory{}.New()
}

func TestARankingThatFailedFailsEveryLaterReportAlike(t *testing.T) {
	// The first spill holds the word counts while links are read, the
	// second the link graph; the next, for the path index while the ranks
	// are made, fails.
	a := New(site.Structure{}, sagPolicy(t), &spillsFailingAfter{n: 2})
	for _, id := range []string{"x", "y"} {
		if err := a.Know(Page{ID: id, URL: "/" + id + "/", Kind: site.KindPage, Live: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.AddPage("x", []Link{{URL: "/y/", Internal: true, Follow: true, Position: "navigation"}}); err != nil {
		t.Fatal(err)
	}
	_, first := a.Report()
	if first == nil || !strings.Contains(first.Error(), "disk full") {
		t.Fatalf("report without a spill for the path index: %v, want the spill's error", first)
	}
	if _, again := a.Report(); again == nil || again.Error() != first.Error() {
		t.Errorf("a second report: %v, want the first one's error %v", again, first)
	}
	if err := a.AddPage("y", nil); err == nil {
		t.Error("a page was read after the report failed")
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

// countPastTop counts one page past what T holds one by one and another up
// to the most T holds as a count (its top value marks "in the map"): the
// first ends in the map, the second in the column.
func countPastTop[T uint8 | uint16](t *testing.T, past int32) {
	t.Helper()
	held := int32(^T(0)) - 1
	var c narrow[T]
	c.grow(2)
	c.add(0)
	c.add(0)
	for range past {
		c.inc(0)
	}
	for range held {
		c.inc(1)
	}
	if got := c.at(0); got != past {
		t.Errorf("counted %d, want %d", got, past)
	}
	if got := c.at(1); got != held || len(c.wide) != 1 {
		t.Errorf("counted %d with %d in the map, want %d held in the column and only the other in the map", got, len(c.wide), held)
	}
}

func TestNarrowCountsOneByOnePastTwoBytes(t *testing.T) { countPastTop[uint16](t, 70_000) }

func TestNarrowBytesCountOneByOnePastAByte(t *testing.T) { countPastTop[uint8](t, 300) }

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
	c.grow(10)
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
		if got := c.id(int32(i)); got != id {
			t.Fatalf("id %d: %q, want %q", i, got, id)
		}
	}
}

func TestFrontCodedIDsAreFoundAndOrderedWhateverTheyShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	// Sorted ids sharing nothing, a few bytes, and more than the 15 a
	// length byte holds; rests of every length around 15 and 16; the
	// lengths 15 and 15, which would read as the escape byte.
	set := map[string]bool{"": true, strings.Repeat("p", 15) + strings.Repeat("q", 15): true,
		strings.Repeat("p", 15) + strings.Repeat("r", 15): true}
	for i := range 3000 {
		var id string
		switch i % 4 {
		case 0:
			id = fmt.Sprintf("a%07d", rng.IntN(10_000_000))
		case 1:
			id = strings.Repeat("long-shared-prefix-", 1+rng.IntN(3)) + fmt.Sprint(rng.IntN(1000))
		case 2:
			id = fmt.Sprintf("%016x", rng.Uint64())[:1+rng.IntN(16)]
		default:
			id = strings.Repeat("x", rng.IntN(40)) + strings.Repeat("y", 14+rng.IntN(4))
		}
		set[id] = true
	}
	ids := slices.Sorted(maps.Keys(set))
	var c idColumn
	c.grow(len(ids))
	for _, id := range ids {
		c.add(id)
	}
	c.compact()
	for i, id := range ids {
		if got := c.id(int32(i)); got != id {
			t.Fatalf("id %d: %q, want %q", i, got, id)
		}
		if at, found := c.search([]byte(id)); !found || at != int32(i) {
			t.Fatalf("search(%q) = %d, %v; want %d, true", id, at, found, i)
		}
		// A key just after the id is not found, and sorts before the next.
		if at, found := c.search([]byte(id + "\x00")); found || at != int32(i+1) {
			t.Fatalf("search(%q+NUL) = %d, %v; want %d, false", id, at, found, i+1)
		}
		if i > 0 {
			if got := c.compare(int32(i-1), int32(i)); got >= 0 {
				t.Fatalf("compare(%q, %q) = %d, want < 0", ids[i-1], id, got)
			}
		}
	}
	if at, found := c.search([]byte("\xff")); found || at != int32(len(ids)) {
		t.Fatalf("search past the last id = %d, %v; want %d, false", at, found, len(ids))
	}
	var whole int
	for _, id := range ids {
		whole += len(id) + 1
	}
	if len(c.bytes) >= whole {
		t.Errorf("front-coded ids take %d bytes, no fewer than the %d of the ids and a length each", len(c.bytes), whole)
	}
}

// cutSpill replays all but the last byte written to it.
type cutSpill struct{ bytes.Buffer }

func (c *cutSpill) Replay() (io.Reader, error) {
	return bytes.NewReader(c.Bytes()[:max(c.Len()-1, 0)]), nil
}

func TestThePathIndexSetAsideComesBackWholeOrSaysItCannot(t *testing.T) {
	tbl := newPageTable()
	for i := range 1000 {
		tbl.add(Page{ID: fmt.Sprintf("p%04d", i), URL: fmt.Sprintf("/a/%d/", i), Kind: site.KindPage, Live: i%7 != 0})
	}
	tbl.add(Page{ID: "p9999", URL: "/a/3/", Kind: site.KindPage, Live: false}) // a deleted page on a live one's path
	tbl.seal()
	want := map[string]int32{"/a/nowhere": -1}
	for i := range 1000 {
		want[fmt.Sprintf("/a/%d", i)] = tbl.atPath(fmt.Sprintf("/a/%d", i))
	}
	s, err := spill.Memory{}.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.setPathsAside(s); err != nil {
		t.Fatal(err)
	}
	if tbl.pathHash != nil || tbl.paths.len() != 0 {
		t.Fatal("the path index is still held once set aside")
	}
	if err := tbl.takePathsBack(s); err != nil {
		t.Fatal(err)
	}
	for path, page := range want {
		if got := tbl.atPath(path); got != page {
			t.Errorf("atPath(%q) = %d after the index came back, want %d", path, got, page)
		}
	}
	if want["/a/3"] != 3 {
		t.Errorf("/a/3 is page %d, want the live page 3", want["/a/3"])
	}

	cut := &cutSpill{}
	if err := tbl.setPathsAside(cut); err != nil {
		t.Fatal(err)
	}
	if err := tbl.takePathsBack(cut); err == nil {
		t.Error("a path index cut short came back without an error")
	}
}

// The word counts wait in a spill while links are read; every page has
// its own back, before the report and after it, two-byte counts and
// wider ones alike.
func TestWordCountsSetAsideWhileLinksAreReadComeBackWhole(t *testing.T) {
	a := New(site.Structure{}, sagPolicy(t), spill.Memory{})
	want := map[string]int{}
	for i := range 500 {
		id := fmt.Sprintf("p%03d", i)
		want[id] = i*131 + i%7
		if i == 499 {
			want[id] = 1 << 20
		}
		if err := a.Know(Page{ID: id, URL: "/" + id + "/", Kind: site.KindPage, WordCount: want[id], Live: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.AddPage("p000", []Link{{URL: "/p001/", Internal: true, Follow: true, Position: "content", Paragraph: 1}}); err != nil {
		t.Fatal(err)
	}
	if a.pages.wordsAside == nil {
		t.Fatal("the word counts are in memory while links are read")
	}
	check := func(when string) {
		for id, words := range want {
			if p, ok := a.Page(id); !ok || p.WordCount != words {
				t.Fatalf("%s: page %s has %d words (known %v), want %d", when, id, p.WordCount, ok, words)
			}
		}
	}
	check("before the report")
	if _, err := a.Report(); err != nil {
		t.Fatal(err)
	}
	check("after the report")
}

func TestPackedPositionsGiveBackEveryPositionAtEveryWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 2, 3, 63, 64, 65, 1000, 1 << 17} {
		ps := make([]int32, n)
		for k := range ps {
			ps[k] = int32(k)
		}
		rng.Shuffle(n, func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		p := newPacked(n, widthOf(uint64(n-1)))
		for k, x := range ps {
			p.set(k, uint64(x))
		}
		if want := uint(max(bits.Len32(uint32(n-1)), 1)); p.width != want {
			t.Errorf("n=%d: %d bits a position, want %d", n, p.width, want)
		}
		for k, x := range ps {
			if got := p.at(k); got != uint64(x) {
				t.Fatalf("n=%d: position %d is %d, want %d", n, k, got, x)
			}
		}
	}
	// The widest a page position can be.
	wide := []int32{1<<31 - 1, 0, 1 << 30, 12345}
	p := newPacked(len(wide), 31)
	for k, x := range wide {
		p.set(k, uint64(x))
	}
	for k, x := range wide {
		if got := p.at(k); got != uint64(x) {
			t.Errorf("position %d is %d, want %d", k, got, x)
		}
	}
}

// A supporting article's uplink counts where its best in-body link to the
// hub is, whatever the order its links come in: one in paragraphs 1–2
// anywhere in the page is enough, one in no paragraph or past paragraph 2
// is the lesser finding, and a link from navigation is none.
func TestAnUplinkCountsAtItsBestParagraph(t *testing.T) {
	st := site.Structure{Site: site.Site{ID: "s", BaseURL: "https://s.example", Policy: "sag"},
		Clusters: []site.Cluster{{ID: "c", PrimaryKeyword: "c"}}}
	a := New(st, sagPolicy(t), spill.Memory{})
	uplink := func(para int) Link {
		return Link{URL: "/hub/", Text: "hub", Internal: true, Follow: true, Position: "content", Paragraph: para}
	}
	nav := Link{URL: "/hub/", Text: "hub", Internal: true, Follow: true, Position: "navigation"}
	articles := map[string][]Link{
		"a-none":         {nav},
		"a-late":         {uplink(4), uplink(7)},
		"a-no-paragraph": {uplink(0)},
		"a-late-first":   {uplink(5), uplink(2)},
		"a-zero-first":   {uplink(0), uplink(1)},
		"a-early":        {uplink(1), uplink(9)},
	}
	if err := a.Know(Page{ID: "hub", URL: "/hub/", Kind: site.KindHub, ClusterID: "c", WordCount: 300, Live: true}); err != nil {
		t.Fatal(err)
	}
	ids := slices.Sorted(maps.Keys(articles))
	for _, id := range ids {
		if err := a.Know(Page{ID: id, URL: "/" + id + "/", Kind: site.KindSupporting, ClusterID: "c", WordCount: 300, Live: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if err := a.AddPage(id, articles[id]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a-none"}; !slices.Equal(r.MissingMandatory, want) {
		t.Errorf("missing mandatory: %v, want %v", r.MissingMandatory, want)
	}
	if want := []string{"a-late", "a-no-paragraph"}; !slices.Equal(r.UplinkOutsideFirst, want) {
		t.Errorf("uplink outside paragraphs 1–2: %v, want %v", r.UplinkOutsideFirst, want)
	}
}

// A page's cluster is packed at seal in the bits the site's cluster count
// needs; every page keeps its own, past what two bytes number too.
func TestEveryPageKeepsItsClusterOnceTheColumnIsPacked(t *testing.T) {
	for _, clusters := range []int{1, 3, 300, 70_000} {
		tbl := newPageTable()
		want := make([]string, 0, 70_001)
		for i := range 70_001 {
			c := ""
			if i%7 != 0 { // a page of no cluster among them
				c = fmt.Sprintf("c%d", (i*31)%clusters)
			}
			want = append(want, c)
			tbl.add(Page{ID: fmt.Sprintf("p%06d", i), URL: fmt.Sprintf("/p/%d/", i), Kind: site.KindSupporting, ClusterID: c, Live: true})
		}
		tbl.seal()
		for i, c := range want {
			if got := tbl.clusterOf(int32(i)); got != c {
				t.Fatalf("%d clusters: page %d is in %q, want %q", clusters, i, got, c)
			}
		}
	}
}

// The path index finds every hash's first page and no hash it was not
// given, whatever the number of pages (one bucket or many, hashes at both
// ends of the range, several pages of one hash, buckets left empty), and
// gives its entries back in order.
func TestThePathIndexFindsEveryHashItHoldsAndNoOther(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 3, 5, 64, 1000, 1<<16 + 3} {
		hashes := make([]uint64, 0, n)
		for len(hashes) < n {
			switch h := rng.Uint64(); {
			case len(hashes) == 0:
				hashes = append(hashes, 0)
			case len(hashes) == 1:
				hashes = append(hashes, math.MaxUint64)
			case len(hashes)%10 == 0:
				hashes = append(hashes, hashes[rng.IntN(len(hashes))]) // a second page of a path
			default:
				hashes = append(hashes, h)
			}
		}
		slices.Sort(hashes)
		first := map[uint64]int32{}
		b := newPathIndexBuilder(n, int32(n-1))
		for k, h := range hashes {
			page := int32((k * 7919) % max(n, 1))
			if _, seen := first[h]; !seen {
				first[h] = page
			}
			b.add(h, page)
		}
		idx := b.done()
		for h, page := range first {
			if got, ok := idx.find(h); !ok || got != page {
				t.Fatalf("n=%d: hash %x gives page %d (%v), want %d", n, h, got, ok, page)
			}
			for _, near := range []uint64{h + 1, h - 1} {
				if _, held := first[near]; !held {
					if got, ok := idx.find(near); ok {
						t.Fatalf("n=%d: hash %x, never given, gives page %d", n, near, got)
					}
				}
			}
		}
		k := 0
		if err := idx.each(func(h uint64, page int32) error {
			if h != hashes[k] {
				return fmt.Errorf("entry %d is hash %x, want %x", k, h, hashes[k])
			}
			k++
			return nil
		}); err != nil || k != n {
			t.Fatalf("n=%d: each gave %d entries: %v", n, k, err)
		}
	}
}

// Indexing pages by their hashes as they come gives the index built from
// the hashes sorted, a page that comes first among those of one hash (a
// live one) before the rest and then in the order given, whatever the
// number of pages.
func TestIndexingPathsInPlaceGivesTheSortedIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 2, 7, 100, 5000, 1<<15 + 1} {
		hashes := make([]uint64, n)
		live := make([]bool, n)
		for i := range hashes {
			hashes[i] = rng.Uint64()
			if i > 0 && rng.IntN(5) == 0 {
				hashes[i] = hashes[rng.IntN(i)] // another page of a path
			}
			live[i] = rng.IntN(3) != 0
		}
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int {
			if c := cmp.Compare(hashes[a], hashes[b]); c != 0 {
				return c
			}
			switch {
			case live[a] && !live[b]:
				return -1
			case live[b] && !live[a]:
				return 1
			}
			return 0
		})
		b := newPathIndexBuilder(n, int32(n-1))
		for _, i := range order {
			b.add(hashes[i], i)
		}
		want := b.done()
		got := indexPaths(slices.Clone(hashes), func(i int32) bool { return live[i] })
		for _, x := range []struct {
			name      string
			got, want packed
		}{{"starts", got.starts, want.starts}, {"lows", got.lows, want.lows}, {"pages", got.pages, want.pages}} {
			if x.got.len() != x.want.len() || x.got.width != x.want.width {
				t.Fatalf("n=%d: %s hold %d of %d bits, want %d of %d", n, x.name, x.got.len(), x.got.width, x.want.len(), x.want.width)
			}
			for k := range x.want.len() {
				if x.got.at(k) != x.want.at(k) {
					t.Fatalf("n=%d: %s %d is %d, want %d", n, x.name, k, x.got.at(k), x.want.at(k))
				}
			}
		}
	}
}

func TestSettingANumberReplacesWhatWasThere(t *testing.T) {
	for _, width := range []uint{1, 5, 17, 49, 63, 64} {
		p := newPacked(200, width)
		top := uint64(1)<<width - 1
		for k := range 200 {
			p.set(k, top) // every bit set, then replaced
		}
		for k := range 200 {
			p.set(k, uint64(k*2654435761)&top)
		}
		for k := range 200 {
			if got, want := p.at(k), uint64(k*2654435761)&top; got != want {
				t.Fatalf("width %d: number %d is %x, want %x", width, k, got, want)
			}
		}
	}
}

// An exact anchor used more often than max_exact_anchor_per_target is
// flagged at any share: a trial's "pruning fruit trees" linked its page 4
// times of 11 (36%) and the audit said nothing.
func TestAnAnchorOverTheExactAnchorCapIsFlaggedAtAnyShare(t *testing.T) {
	pages := make([]Page, 12)
	for i := range pages {
		pages[i] = Page{ID: fmt.Sprintf("p%02d", i), URL: fmt.Sprintf("/p/%d/", i), Kind: site.KindPage, WordCount: 100, Live: true}
	}
	a := newAuditor(t, site.Structure{}, pages)
	for i := range pages {
		var links []Link
		if i > 0 {
			text := fmt.Sprintf("other anchor %d", i)
			if i <= 4 {
				text = "pruning fruit trees"
			}
			links = append(links, Link{URL: pages[0].URL, Internal: true, Follow: true, Position: "content", Paragraph: 1, Text: text})
		}
		if err := a.AddPage(pages[i].ID, links); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.DominantAnchors) != 1 {
		t.Fatalf("%d anchor findings, want 1: %+v", len(r.DominantAnchors), r.DominantAnchors)
	}
	f := r.DominantAnchors[0]
	if f.PageID != "p00" || f.Anchor != "pruning fruit trees" || f.Count != 4 || f.Limit != 11 || !strings.Contains(f.Detail, "over the cap of 3") {
		t.Errorf("finding %+v, want p00's 4 of 11 links with \"pruning fruit trees\", over the cap of 3", f)
	}
	if n := ExcessAnchorLinks(f, sagPolicy(t)); n != 1 {
		t.Errorf("%d links to vary, want 1: 3 uses are within the cap", n)
	}
}
