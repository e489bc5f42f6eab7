package site

import (
	"context"
	"strings"
	"testing"
)

func structure() Structure {
	return Structure{
		Site:       Site{ID: "s", BaseURL: "https://www.shop.example", Name: "Shop", Policy: "sag"},
		Sectors:    []Sector{{ID: "hiking", Name: "Hiking", URL: "/hiking/"}},
		Attributes: []Attribute{{ID: "weight-class", Name: "weight class", Values: []string{"ultralight", "standard"}}},
		Clusters: []Cluster{{ID: "boots", SectorID: "hiking", Name: "Boots", PrimaryKeyword: "hiking boots",
			Attributes: map[string][]string{"weight-class": {"ultralight"}}}},
	}
}

func TestAConsistentStructureValidates(t *testing.T) {
	if err := structure().Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := structure().Site.Host(); got != "www.shop.example" {
		t.Errorf("host %q", got)
	}
}

func TestInconsistentStructuresAreRefusedWithTheReason(t *testing.T) {
	cases := map[string]func(*Structure){
		"not an http(s) URL":               func(s *Structure) { s.Site.BaseURL = "ftp://x" },
		`sector id "hiking" appears twice`: func(s *Structure) { s.Sectors = append(s.Sectors, s.Sectors[0]) },
		`unknown sector "camping"`:         func(s *Structure) { s.Clusters[0].SectorID = "camping" },
		`unknown attribute "colour"`:       func(s *Structure) { s.Clusters[0].Attributes = map[string][]string{"colour": {"red"}} },
		`has no value "heavy"`:             func(s *Structure) { s.Clusters[0].Attributes = map[string][]string{"weight class": {"heavy"}} },
		`cluster id "boots" appears twice`: func(s *Structure) { s.Clusters = append(s.Clusters, s.Clusters[0]) },
	}
	for want, mutate := range cases {
		s := structure()
		mutate(&s)
		if err := s.Validate(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// A cluster may be in no sector (sector_id "" or left out): a site of
// topics alone.
func TestAClusterOfNoSectorIsValid(t *testing.T) {
	s := structure()
	s.Clusters[0].SectorID = ""
	if err := s.Validate(context.Background()); err != nil {
		t.Fatalf("a cluster of no sector refused: %v", err)
	}
	if got := s.SectorOf(Page{ID: "p", Kind: KindSupporting, ClusterID: s.Clusters[0].ID}); got != "" {
		t.Errorf("its page's sector %q, want none", got)
	}
}

func TestPagesMustFitTheirSite(t *testing.T) {
	st := structure()
	ok := Page{ID: "p", Kind: KindSupporting, ClusterID: "boots", SectorID: "hiking", Attributes: map[string][]string{"weight class": {"standard"}}}
	if err := st.CheckPage(ok); err != nil {
		t.Fatal(err)
	}
	for want, p := range map[string]Page{
		`unknown cluster "tents"`: {ID: "p", Kind: KindSupporting, ClusterID: "tents"},
		`unknown sector "x"`:      {ID: "p", Kind: KindPage, SectorID: "x"},
		"has no cluster_id":       {ID: "p", Kind: KindHub},
	} {
		if err := st.CheckPage(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	if _, err := ParseKind("listicle"); err == nil || !strings.Contains(err.Error(), "supporting") {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestAKindNamesItsPageInProse(t *testing.T) {
	for k, want := range map[Kind]string{KindHub: "hub page", KindSupporting: "supporting page", KindPage: "page"} {
		if got := k.Page(); got != want {
			t.Errorf("%s.Page() = %q, want %q", k, got, want)
		}
	}
}
