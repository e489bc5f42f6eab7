package handlers

import (
	"testing"

	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
)

func TestPageURLsAreStoredAsTheirPathOnTheSite(t *testing.T) {
	s := site.Site{BaseURL: "https://www.shop.example"}
	for in, want := range map[string]string{
		"/hiking/boots/":                         "/hiking/boots/",
		"/hiking/boots/#top":                     "/hiking/boots/",
		"https://www.shop.example/hiking/boots/": "/hiking/boots/",
		"http://WWW.SHOP.EXAMPLE/hiking/?page=2": "/hiking/?page=2",
		"https://www.shop.example":               "/",
		"https://www.shop.example#intro":         "/",
		"http://shop.example/hiking/boots/":      "/hiking/boots/",
	} {
		if got, ok := sitePath(s, in); !ok || got != want {
			t.Errorf("sitePath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"https://other.example/hiking/", "//www.shop.example/x/", "hiking/boots/", "javascript:alert(1)", "ftp://www.shop.example/x"} {
		if got, ok := sitePath(s, in); ok {
			t.Errorf("sitePath(%q) accepted as %q", in, got)
		}
	}
}

func TestASectorPageWithoutASectorIDIsTheSectorAtItsURL(t *testing.T) {
	st := site.Structure{
		Site:    site.Site{ID: "huerto", BaseURL: "https://www.huerto.example"},
		Sectors: []site.Sector{{ID: "huerto", Name: "Huerto", URL: "https://www.huerto.example/huerto/"}, {ID: "plantas", Name: "Plantas", URL: "/plantas/"}},
	}
	pol, err := policy.Default(policy.SAG)
	if err != nil {
		t.Fatal(err)
	}
	sc := siteContext{structure: st, policy: pol}
	for url, want := range map[string]string{
		"/huerto/": "huerto", "https://www.huerto.example/huerto": "huerto", "/plantas/": "plantas", "/otros/": "",
	} {
		p, err := checkPage(sc, site.Page{ID: "s", URL: url, Title: "S", Kind: site.KindSector}, 0)
		if err != nil {
			t.Fatalf("checkPage(%s): %v", url, err)
		}
		if p.SectorID != want {
			t.Errorf("sector page at %s has sector %q, want %q", url, p.SectorID, want)
		}
	}
	// A sector_id given stands, and only sector pages are matched by url.
	p, err := checkPage(sc, site.Page{ID: "s", URL: "/huerto/", Title: "S", Kind: site.KindSector, SectorID: "plantas"}, 0)
	if err != nil || p.SectorID != "plantas" {
		t.Errorf("a given sector_id became %q (%v)", p.SectorID, err)
	}
	p, err = checkPage(sc, site.Page{ID: "h", URL: "/huerto/", Title: "H", Kind: site.KindPage}, 0)
	if err != nil || p.SectorID != "" {
		t.Errorf("a plain page at a sector's url was put in sector %q (%v)", p.SectorID, err)
	}
}
