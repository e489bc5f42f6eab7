package service

import (
	"fmt"
	"slices"
	"strings"
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

// withPage is a page event with its page changed by edit.
func withPage(t *testing.T, ev events.Event, edit func(*events.PageInfo)) events.Event {
	t.Helper()
	d, err := events.DecodeData[events.ContentData](ev)
	if err != nil {
		t.Fatal(err)
	}
	edit(&d.Page)
	return mustEvent(ev.Type, ev.SiteID, ev.ID, d)
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
	h.publish(withPage(t, hub, func(p *events.PageInfo) { p.URL = "/hiking/boots/" }))
	h.publish(withPage(t, product, func(p *events.PageInfo) { p.PrimaryKeyword, p.Priority = "boot resoling service", 1 }))
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

// A trial of the audit on a strict-silo site: its parent linking all 3 of
// its children was called under-linked by the SAG hub row, every cluster
// was faulted for its hub linking no other cluster's hub, which the silo
// forbids, and a child service without its link up to the parent was
// left to the under-linked rule. Audited under the silo's own rules, the
// parent is within its budget, the cluster keeps the points for keeping
// to its silo, and the service's missing uplink is recommended from the
// missing-uplink band.
func TestASiloSitesAuditHoldsItToTheSiloRules(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "silo-audit"
	page := func(id, kind, url, keyword, html string) events.PageInfo {
		return events.PageInfo{ID: id, URL: url, Title: keyword, Kind: kind, ClusterID: "boots", SectorID: "hiking",
			PrimaryKeyword: keyword, Version: 1, HTML: html}
	}
	pages := []events.PageInfo{
		page("boots-hub", "hub", "/hiking/boots/", "hiking boots", `<h1>Hiking Boots</h1>
<p>Start with <a href="/hiking/boots/fit/">boot fit</a> before anything else.</p>
<p>Keep them going with <a href="/hiking/boots/care/">boot care</a> after every walk.</p>
<p>When the soles wear out, our <a href="/hiking/boots/resoling/">boot resoling</a> service helps.</p>`),
		page("fit", "supporting", "/hiking/boots/fit/", "boot fit", `<h1>Boot fit</h1>
<p>Fit is the first thing to get right with <a href="/hiking/boots/">hiking boots</a>.</p>
<p>A boot that fits still needs <a href="/hiking/boots/care/">boot care</a>.</p>
<p>And worn soles need <a href="/hiking/boots/resoling/">boot resoling</a>.</p>`),
		page("care", "supporting", "/hiking/boots/care/", "boot care", `<h1>Boot care</h1>
<p>Care keeps <a href="/hiking/boots/">hiking boots</a> going for years.</p>
<p>Care starts with <a href="/hiking/boots/fit/">boot fit</a>.</p>
<p>And ends with <a href="/hiking/boots/resoling/">boot resoling</a>.</p>`),
		page("resoling", "service", "/hiking/boots/resoling/", "boot resoling", `<h1>Boot resoling</h1>
<p>We resole hiking boots of every make in our workshop, in about two weeks.</p>
<p>Good <a href="/hiking/boots/fit/">boot fit</a> and <a href="/hiking/boots/care/">boot care</a> make soles last.</p>`),
	}
	h.publishExisting(siloSiteEvent(siteID), pages)
	got := h.audit(siteID, "silo", events.AuditRequestedData{})
	if got.Status != "complete" {
		t.Fatalf("status %q (%v), want complete", got.Status, got.Reasons)
	}
	if got.MissingMandatory != 1 || got.UnderLinkedPages != 1 {
		t.Errorf("missing_mandatory %d, under_linked_pages %d: want the service alone in each", got.MissingMandatory, got.UnderLinkedPages)
	}
	health := got.ClusterScores["boots"]
	if health.Missing != 1 || slices.Contains(health.Issues, "the hub links to no other cluster's hub") {
		t.Errorf("boots health %+v: want 1 missing uplink and no fault for keeping to the silo", health)
	}
	var uplink *events.Recommendation
	for i, r := range got.Recommendations {
		if r.ContentID == "boots-hub" {
			t.Errorf("the parent, within its budget, has a recommendation: %+v", r)
		}
		if r.ContentID == "resoling" && r.TargetID == "boots-hub" {
			uplink = &got.Recommendations[i]
		}
	}
	if uplink == nil || uplink.Action != "add" || uplink.LinkType != string(link.TypeVerticalUp) || uplink.Priority < 100-100.0/6 {
		t.Errorf("the service's uplink: %+v, want an add of a vertical_up in the missing-uplink band (recommendations %+v)", uplink, got.Recommendations)
	}
}

// A silo trial's child carried its writer's link to the pricing page, a
// page outside every cluster: the budget and the first link rule counted
// it, but silo_integrity and direction_rules said every link stayed in
// the cluster. The pipeline now looks the writer's links up and the silo's
// rules judge them as ours.
func TestASiloChildsOwnLinkAcrossTheSiloFailsItsSiloRules(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.publish(siloSiteEvent("s1"))
	h.waitIdle(waitLong)

	pricing := pageEvent("s1", "pricing", "page", 1, `<h1>Pricing</h1>
<p>Every plan includes free resoling quotes and returns within thirty days.</p>
`)
	hub := pageEvent("s1", "boots-hub", "hub", 1, `<h1>Hiking Boots</h1>
<p>Our guide to hiking boots covers fit, materials and care for every kind of trail.</p>
`)
	child := pageEvent("s1", "boot-care", "supporting", 1, `<h1>Boot care</h1>
<p>Good hiking boots last for years when you clean them after every walk, as our <a href="/pricing/">care plan</a> reminds you.</p>
<p>Let them dry slowly, away from the fire, and wax the leather twice a season.</p>
`)
	h.publish(withPage(t, pricing, func(p *events.PageInfo) { p.URL, p.ClusterID, p.SectorID = "/pricing/", "", "" }))
	h.publish(withPage(t, hub, func(p *events.PageInfo) { p.URL = "/hiking/boots/" }))
	h.publish(child)
	h.waitIdle(waitLong)

	out, ok := h.inserted.latestFor(t, "s1", "boot-care")
	if !ok {
		t.Fatal("the child was never linked")
	}
	if !hasRule(out.Validation, "silo_integrity", false) || !hasRule(out.Validation, "direction_rules", false) || out.Validation.Passed {
		t.Errorf("child's rules %+v, want silo_integrity and direction_rules failed by its link to /pricing/", out.Validation.Rules)
	}
	for _, r := range out.Validation.Rules {
		if r.Name == "silo_integrity" && !strings.Contains(r.Detail, "/pricing/") {
			t.Errorf("silo_integrity's detail %q does not name the link", r.Detail)
		}
	}
}

// A silo parent's budget of 5 in-body links left a child no sibling named
// without any link (trials t14 and t16). The children it leaves out of its
// text are listed in its Related Articles section, links the validator
// judges as it does the text's.
func TestASiloParentListsTheChildrenItsBudgetLeavesOutAndStaysValid(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.publish(siloSiteEvent("s1"))
	h.waitIdle(waitLong)

	h.publish(withPage(t, pageEvent("s1", "boots-hub", "hub", 1, `<h1>Hiking Boots</h1>
<p>Our guide to hiking boots covers fit, materials and care for every kind of trail, from day hikes to long treks.</p>
`), func(p *events.PageInfo) { p.URL = "/hiking/boots/" }))
	for i := range 7 {
		id := fmt.Sprintf("boot-note-%d", i)
		h.publish(withPage(t, pageEvent("s1", id, "supporting", 1, fmt.Sprintf(`<h1>Boot note %d</h1>
<p>Hiking boots need care after every trip, and this note covers one part of it in plain words.</p>
<p>Clean the uppers, dry them slowly and keep the laces out of the sun.</p>
`, i)), func(p *events.PageInfo) {
			p.URL = "/hiking/boots/" + id + "/"
			p.Title = fmt.Sprintf("Boot Note %d", i)
		}))
	}
	h.waitIdle(waitLong)

	hubOut, ok := h.inserted.latestFor(t, "s1", "boots-hub")
	if !ok {
		t.Fatal("the hub was never linked")
	}
	children := map[string]bool{}
	listed := 0
	for _, l := range resultsOfType(hubOut.Links, link.TypeVerticalDown) {
		children[l.TargetPageID] = true
		if l.Zone == string(link.ZoneRelatedSection) {
			listed++
			if l.Status != string(link.StatusVerified) {
				t.Errorf("listed child %s is %s, want verified", l.TargetPageID, l.Status)
			}
		}
	}
	if len(children) != 7 || listed < 2 {
		t.Errorf("the parent links %d of its 7 children, %d in its list; want all 7, at least the 2 over its budget listed", len(children), listed)
	}
	if !strings.Contains(hubOut.HTML, "Related Articles") {
		t.Errorf("the parent's HTML has no Related Articles section:\n%s", hubOut.HTML)
	}
	if !hasRule(hubOut.Validation, "silo_integrity", true) || !hasRule(hubOut.Validation, "direction_rules", true) {
		t.Errorf("parent's rules %+v, want silo_integrity and direction_rules passed", hubOut.Validation.Rules)
	}
}
