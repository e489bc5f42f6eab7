package service

import (
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/events"
)

// siloSiteEvent is the hiking-boots fixture under the silo policy.
func siloSiteEvent(siteID string) events.Event {
	return mustEvent(events.SiteUpdated, siteID, "site-"+siteID, events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: siteID, BaseURL: "https://shop.example", Name: "Shop", Policy: "silo"},
		Sectors: []events.SectorInfo{{ID: "hiking", Name: "Hiking", URL: "/hiking/"}},
		Clusters: []events.ClusterInfo{{ID: "boots", SectorID: "hiking", Name: "Hiking Boots",
			PrimaryKeyword: "hiking boots", Keywords: []string{"hiking boot"}}},
	})
}

// A fourteenth trial site's products sat in clusters under silo with no
// link from their hub, no uplink and no first_link_rule: a silo knows
// parents and children, so a product of a cluster is one of its children.
func TestASiloClustersProductIsLinkedByItsParentAndLinksUpToItFirst(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.publish(siloSiteEvent("s1"))
	h.waitIdle(waitLong)

	hub := pageEvent("s1", "boots-hub", "hub", 1, `<h1>Hiking Boots</h1>
<p>Our guide to hiking boots covers fit, materials and care for every kind of trail.</p>
<p>When a pair needs help, our boot resoling service gives worn soles a second life.</p>
`)
	product := pageEvent("s1", "resoling", "service", 1, `<h1>Boot resoling</h1>
<p>We resole hiking boots of every make in our workshop, in about two weeks.</p>
<p>Send them clean and dry, with a note of what you want done.</p>
`)
	for _, ev := range []*events.Event{&hub, &product} {
		d, err := events.DecodeData[events.ContentData](*ev)
		if err != nil {
			t.Fatal(err)
		}
		if d.Page.Kind == "hub" {
			d.Page.URL = "/hiking/boots/"
		} else {
			d.Page.PrimaryKeyword, d.Page.Priority = "boot resoling service", 1
		}
		*ev = mustEvent(ev.Type, "s1", ev.ID, d)
	}
	h.publish(hub)
	h.publish(product)
	h.waitIdle(waitLong)

	hubOut, ok := h.inserted.latestFor(t, "s1", "boots-hub")
	if !ok {
		t.Fatal("the hub was never linked")
	}
	down := resultsOfType(hubOut.Links, link.TypeVerticalDown)
	if len(down) != 1 || down[0].TargetPageID != "resoling" || down[0].Status != string(link.StatusVerified) {
		t.Errorf("hub's links %+v, want one verified vertical_down to the service", hubOut.Links)
	}
	if !hubOut.Validation.Passed {
		t.Errorf("hub failed validation: %+v", hubOut.Validation.Rules)
	}

	out, ok := h.inserted.latestFor(t, "s1", "resoling")
	if !ok {
		t.Fatal("the service was never linked")
	}
	up := resultsOfType(out.Links, link.TypeVerticalUp)
	if len(up) != 1 || up[0].TargetPageID != "boots-hub" || !up[0].Mandatory || up[0].Status != string(link.StatusVerified) {
		t.Errorf("service's links %+v, want one verified mandatory vertical_up to the hub", out.Links)
	}
	if !hasRule(out.Validation, "first_link_rule", true) || !hasRule(out.Validation, "direction_rules", true) || !out.Validation.Passed {
		t.Errorf("service's rules %+v, want first_link_rule and direction_rules passed", out.Validation.Rules)
	}
}
