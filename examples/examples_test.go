package examples

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/interlinker/interlinker/domain/markup"
)

func TestNames(t *testing.T) {
	if got, want := Names(), []string{"outdoor-gear", "home-coffee"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range Names() {
		if _, err := Load(name); err != nil {
			t.Errorf("Load(%q): %v", name, err)
		}
	}
	if _, err := Load("no-such-site"); err == nil {
		t.Error("Load of an unknown example succeeded")
	}
}

func TestOutdoorGearIsARealisticSite(t *testing.T) {
	s, err := Load("outdoor-gear")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Structure.Sectors); n != 3 {
		t.Errorf("sectors: %d, want 3", n)
	}
	if n := len(s.Structure.Clusters); n < 8 {
		t.Errorf("clusters: %d, want at least 8", n)
	}
	hubs, supporting := map[string]int{}, map[string]int{}
	kinds := map[string]int{}
	for _, p := range s.Pages {
		kinds[p.Kind]++
		switch p.Kind {
		case "hub":
			hubs[p.ClusterID]++
		case "supporting":
			supporting[p.ClusterID]++
		}
		if w := markup.WordCount([]byte(p.HTML)); w < 300 || w > 2500 {
			t.Errorf("page %s has %d words, want 300–2500", p.ID, w)
		}
	}
	for _, c := range s.Structure.Clusters {
		if hubs[c.ID] != 1 {
			t.Errorf("cluster %s has %d hubs, want 1", c.ID, hubs[c.ID])
		}
		if n := supporting[c.ID]; n < 3 || n > 6 {
			t.Errorf("cluster %s has %d supporting articles, want 3–6", c.ID, n)
		}
	}
	if kinds["term"] == 0 || kinds["product"] == 0 {
		t.Errorf("want term and product pages, got %v", kinds)
	}
	// Generated content, and only this site's pages.
	if s.Existing || len(s.Deleted) > 0 {
		t.Errorf("outdoor-gear: existing %v, deleted %v; want a generated site with nothing deleted", s.Existing, s.Deleted)
	}
	if len(s.Pages) != 60 {
		t.Errorf("outdoor-gear has %d pages, want 60", len(s.Pages))
	}
	clusters := map[string]bool{}
	for _, c := range s.Structure.Clusters {
		clusters[c.ID] = true
	}
	for _, p := range s.Pages {
		if p.ClusterID != "" && !clusters[p.ClusterID] {
			t.Errorf("outdoor-gear page %s names cluster %q, not one of the site's", p.ID, p.ClusterID)
		}
	}
}

func TestLoadReadsTheOptionalFiles(t *testing.T) {
	site := func(extra map[string]string) fstest.MapFS {
		fsys := fstest.MapFS{
			"s/site.json":      {Data: []byte(`{"site": {"id": "s", "base_url": "https://s.example", "name": "S", "policy": "sag"}, "sectors": [], "attributes": [], "clusters": []}`)},
			"s/pages/a.json":   {Data: []byte(`{"id": "a", "url": "/a/", "title": "A", "kind": "page"}`)},
			"s/pages/a.html":   {Data: []byte(`<p>A</p>`)},
			"s/pages/b.json":   {Data: []byte(`{"id": "b", "url": "/b/", "title": "B", "kind": "page"}`)},
			"s/pages/b.html":   {Data: []byte(`<p>B</p>`)},
			"s/pages/notes.md": {Data: []byte(`not a page`)},
		}
		for name, data := range extra {
			fsys["s/"+name] = &fstest.MapFile{Data: []byte(data)}
		}
		return fsys
	}
	s, err := load(site(nil), "s")
	if err != nil || s.Existing || s.Deleted != nil || len(s.Pages) != 2 || s.Pages[0].ID != "a" || s.Pages[1].Version != 1 {
		t.Fatalf("without the optional files: %+v, %v", s, err)
	}
	s, err = load(site(map[string]string{"example.json": `{"existing": true}`, "deleted.json": `["b"]`}), "s")
	if err != nil || !s.Existing || !slices.Equal(s.Deleted, []string{"b"}) || len(s.Pages) != 2 {
		t.Fatalf("with them: %+v, %v", s, err)
	}
	for name, extra := range map[string]map[string]string{
		"unknown example.json field": {"example.json": `{"existing": true, "generated": false}`},
		"deleted page unknown":       {"deleted.json": `["c"]`},
		"deleted page twice":         {"deleted.json": `["a", "a"]`},
		"deleted.json not a list":    {"deleted.json": `{"a": true}`},
		"page json unknown field":    {"pages/c.json": `{"id": "c", "url": "/c/", "kind": "page", "colour": "red"}`, "pages/c.html": `<p>C</p>`},
		"page html missing":          {"pages/c.json": `{"id": "c", "url": "/c/", "kind": "page"}`},
		"page id not its file name":  {"pages/c.json": `{"id": "d", "url": "/c/", "kind": "page"}`, "pages/c.html": `<p>C</p>`},
	} {
		if _, err := load(site(extra), "s"); err == nil {
			t.Errorf("%s: loaded without an error", name)
		}
	}
}

// The defects planted in home-coffee (its README.md lists them all).
var (
	homeCoffeeDeleted    = []string{"chemex-brewing-guide"}
	homeCoffeeUnverified = []string{"/brewing/water-for-coffee"} // markup.PagePath of the link
	homeCoffeeNoUplink   = []string{"cleaning-a-french-press", "descaling-an-espresso-machine", "v60-vs-kalita-wave"}
)

func TestHomeCoffeeIsARealisticExistingSite(t *testing.T) {
	s, err := Load("home-coffee")
	if err != nil {
		t.Fatal(err)
	}
	st := s.Structure
	if st.Site.ID != "crema-and-grind" || st.Site.BaseURL != "https://www.cremaandgrind.example" || st.Site.Name != "Crema & Grind" || st.Site.Policy != "sag" {
		t.Errorf("site = %+v", st.Site)
	}
	if !s.Existing {
		t.Error("home-coffee is not marked existing")
	}
	if !slices.Equal(s.Deleted, homeCoffeeDeleted) {
		t.Errorf("deleted = %v, want %v", s.Deleted, homeCoffeeDeleted)
	}
	if n := len(st.Sectors); n != 2 {
		t.Errorf("sectors: %d, want 2", n)
	}
	if n := len(st.Attributes); n < 2 || n > 3 {
		t.Errorf("attributes: %d, want 2–3", n)
	}
	if n := len(st.Clusters); n != 5 {
		t.Errorf("clusters: %d, want 5", n)
	}
	if n := len(s.Pages); n < 26 || n > 32 {
		t.Errorf("pages: %d, want 26–32", n)
	}

	byID := map[string]int{}
	byPath := map[string]string{}
	kinds := map[string]int{}
	hubs, supporting := map[string]int{}, map[string]int{}
	for i, p := range s.Pages {
		byID[p.ID] = i
		if other, dup := byPath[markup.PagePath(p.URL)]; dup {
			t.Errorf("pages %s and %s share the path %s", other, p.ID, p.URL)
		}
		byPath[markup.PagePath(p.URL)] = p.ID
		kinds[p.Kind]++
		switch p.Kind {
		case "hub":
			hubs[p.ClusterID]++
		case "supporting":
			supporting[p.ClusterID]++
		case "home":
			if p.URL != "/" {
				t.Errorf("home page %s is at %s, want /", p.ID, p.URL)
			}
		case "term":
			if len(p.Attributes) != 1 {
				t.Errorf("term page %s has attributes %v, want one value of one attribute", p.ID, p.Attributes)
			}
			for _, vs := range p.Attributes {
				if len(vs) != 1 {
					t.Errorf("term page %s has attributes %v, want one value of one attribute", p.ID, p.Attributes)
				}
			}
		}
		if p.Version != 1 {
			t.Errorf("page %s has version %d, want 1", p.ID, p.Version)
		}
		if p.PublishedAt == nil {
			t.Errorf("page %s has no published_at", p.ID)
		}
		if w := markup.WordCount([]byte(p.HTML)); w < 300 || w > 1500 {
			t.Errorf("page %s has %d words, want 300–1500", p.ID, w)
		}
	}
	for kind, want := range map[string][2]int{"home": {1, 1}, "sector": {2, 2}, "hub": {5, 5}, "term": {2, 3}, "product": {3, 4}} {
		if n := kinds[kind]; n < want[0] || n > want[1] {
			t.Errorf("%s pages: %d, want %d–%d", kind, n, want[0], want[1])
		}
	}
	for _, c := range st.Clusters {
		if hubs[c.ID] != 1 {
			t.Errorf("cluster %s has %d hubs, want 1", c.ID, hubs[c.ID])
		}
		if n := supporting[c.ID]; n < 3 || n > 5 {
			t.Errorf("cluster %s has %d supporting articles, want 3–5", c.ID, n)
		}
	}
	for _, id := range s.Deleted {
		if _, ok := byID[id]; !ok {
			t.Errorf("deleted page %s is no page of the site", id)
		}
	}

	// Every page is a CMS page: the site's header, menu and footer around
	// an article, whose body links resolve to the site's pages, save the
	// planted broken and unverified ones.
	deleted := map[string]bool{}
	for _, id := range s.Deleted {
		deleted[id] = true
	}
	host := strings.TrimPrefix(st.Site.BaseURL, "https://")
	var unverified []string
	toDeleted := 0
	external := false
	for _, p := range s.Pages {
		links, err := markup.Links([]byte(p.HTML), st.Site.BaseURL+p.URL, host)
		if err != nil {
			t.Errorf("page %s: %v", p.ID, err)
			continue
		}
		for _, tag := range []string{"<header", "<nav", "<main", "<article", "<h1", "<p>", "<h2", "<footer"} {
			if !strings.Contains(p.HTML, tag) {
				t.Errorf("page %s has no %s>", p.ID, tag)
			}
		}
		internal, body := 0, 0
		positions := map[string]bool{}
		for _, l := range links {
			if !l.Internal {
				external = external || l.URL != ""
				continue
			}
			internal++
			positions[l.Position] = true
			if l.Position != "content" {
				continue
			}
			body++
			target, known := byPath[markup.PagePath(l.URL)]
			switch {
			case !known:
				unverified = append(unverified, markup.PagePath(l.URL))
			case deleted[target]:
				if !deleted[p.ID] {
					toDeleted++
				}
			}
		}
		if internal == 0 || body == 0 {
			t.Errorf("page %s has %d internal links, %d in its body", p.ID, internal, body)
		}
		for _, pos := range []string{"header", "navigation", "footer"} {
			if !positions[pos] {
				t.Errorf("page %s has no internal link in its %s", p.ID, pos)
			}
		}
	}
	if !slices.Equal(unverified, homeCoffeeUnverified) {
		t.Errorf("body links to no known page: %v, want %v", unverified, homeCoffeeUnverified)
	}
	if toDeleted != 2 {
		t.Errorf("%d body links to deleted pages from live ones, want 2", toDeleted)
	}
	if !external {
		t.Error("no page links to another site")
	}

	// The supporting articles planted without an uplink say their hub's
	// keyword in paragraphs 1–2, so a fix has somewhere to put the link.
	// The site's menu links to some hubs; a menu link is no uplink, and
	// only in-body links count as the page already linking to its hub.
	for _, id := range homeCoffeeNoUplink {
		p := s.Pages[byID[id]]
		var anchors []string
		for _, c := range st.Clusters {
			if c.ID == p.ClusterID {
				anchors = append([]string{c.PrimaryKeyword}, c.Keywords...)
			}
		}
		hub := ""
		for _, q := range s.Pages {
			if q.Kind == "hub" && q.ClusterID == p.ClusterID {
				hub = q.URL
			}
		}
		_, placed, err := markup.Place([]byte(p.HTML), []markup.LinkRequest{{ID: "uplink", Href: hub, Anchors: anchors,
			Position: markup.Position{FirstParagraphs: 2}}}, markup.Options{SiteHost: host, DuplicateTargetsInBodyOnly: true})
		if err != nil || len(placed) != 1 || !placed[0].Placed {
			t.Errorf("page %s: no place for an uplink to %s in paragraphs 1–2 (%v, %+v)", id, hub, err, placed)
		}
	}
}
