package examples

import (
	"testing"

	"github.com/interlinker/interlinker/domain/markup"
)

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
}
