package service

import (
	"fmt"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
	"github.com/interlinker/interlinker/store"
)

// An audit's fixes to a page interlinker plans outlive its next plan: the
// links it adds and the anchors it varies are kept as decisions, the
// author's links it removes are taken out of the HTML plans start from,
// and the linked HTML never holds a fix the links table does not (an API
// client trial: an applied fix wrote links no plan knew of, and the next
// plan took them out again).
func TestAnAuditsFixesToPagesInterlinkerPlansOutliveTheirNextPlan(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startAuditHarness(t)
	structure, pages := existingSite("cadence-planned")
	siteID := structure.SiteID
	// Two clusters are planned by interlinker and put live as it linked
	// them; the rest of the site is existing content, and the page their
	// authors linked is deleted.
	planned := map[string]bool{}
	for _, p := range pages {
		if (p.ClusterID == tsClusters[0].id || p.ClusterID == tsClusters[1].id) && p.ID != existingDeleted {
			planned[p.ID] = true
		}
	}
	h.publish(structure)
	h.waitIdle(waitLong)
	for _, p := range pages {
		if planned[p.ID] {
			h.publish(mustEvent(events.ContentGenerated, siteID, "gen-"+p.ID, events.ContentData{Page: p}))
		}
	}
	h.waitIdle(waitLong)
	live := map[string]events.PageInfo{}
	for _, p := range pages {
		if planned[p.ID] {
			last, ok := h.inserted.latestFor(t, siteID, p.ID)
			if !ok {
				t.Fatalf("planned page %s never came back linked", p.ID)
			}
			p.HTML = last.HTML
		}
		live[p.ID] = p
		h.publish(mustEvent(events.ContentPublished, siteID, fmt.Sprintf("pub-%s-v%d", p.ID, p.Version), events.ContentData{Page: p}))
	}
	h.waitIdle(waitLong)
	h.publish(mustEvent(events.ContentDeleted, siteID, "del-"+existingDeleted, events.ContentDeletedData{PageID: existingDeleted, Version: 2}))
	h.waitIdle(waitLong)

	h.audit(siteID, "a1", events.AuditRequestedData{})
	h.applyFixes(siteID, "apply-1", events.AuditApplyData{AuditID: "a1", All: true})
	var fixes []store.StoredRecommendation
	actions := map[string]int{}
	for _, r := range h.recommendations(siteID, "a1") {
		if planned[r.PageID] && r.AppliedBy != "" {
			fixes = append(fixes, r)
			actions[string(r.Action)]++
		}
	}
	if actions["add"] == 0 || actions["vary_anchor"] == 0 || actions["remove"] == 0 {
		t.Fatalf("applied fixes to planned pages by action %v; the site should give additions, variations and removals", actions)
	}

	st := h.svc.Store()
	check := func(when string, reason func(string) bool) {
		t.Helper()
		for _, r := range fixes {
			last, ok := h.inserted.latestFor(t, siteID, r.PageID)
			if !ok || !reason(last.Reason) {
				t.Errorf("%s: page %s's last links.inserted has reason %q", when, r.PageID, last.Reason)
				continue
			}
			if strings.Contains(last.HTML, markup.MarkerAttr+`="rec-`) {
				t.Errorf("%s: page %s's HTML holds a fix spliced in apart from its plan", when, r.PageID)
			}
			switch r.Action {
			case "add", "vary_anchor":
				decisions, err := st.Decisions(t.Context(), siteID, r.PageID)
				if err != nil {
					t.Fatal(err)
				}
				var anchor string
				for _, d := range decisions {
					if d.TargetPageID == r.TargetID && d.DecidedBy == handlers.AuditReason("a1") && d.Action == "add" {
						anchor = d.Anchor
					}
				}
				if anchor == "" {
					t.Errorf("%s: the %s of %s's link to %s is kept as no decision: %+v", when, r.Action, r.PageID, r.TargetID, decisions)
					continue
				}
				if r.Action == "vary_anchor" && anchors.Normalize(anchor) == anchors.Normalize(r.LinkText) {
					t.Errorf("%s: %s's link to %s varied to its own anchor %q", when, r.PageID, r.TargetID, anchor)
				}
				placed := false
				for _, l := range last.Links {
					if l.TargetPageID == r.TargetID && l.Zone == "in_body" && l.Anchor == anchor &&
						(l.Status == "inserted" || l.Status == "verified" || l.Status == "flagged") {
						placed = true
					}
				}
				if !placed || !strings.Contains(last.HTML, ">"+anchor+"</a>") {
					t.Errorf("%s: %s's link to %s under %q (%s) is not placed: %+v", when, r.PageID, r.TargetID, anchor, r.Action, last.Links)
				}
			case "remove":
				for _, l := range linksOf(t, live[r.PageID], last.HTML) {
					if l.path == strings.TrimRight(r.LinkPath, "/") {
						t.Errorf("%s: %s still links %s (%q) after its removal", when, r.PageID, r.LinkPath, l.text)
					}
				}
				if !containsWords(visibleText(t, last.HTML), r.LinkText) {
					t.Errorf("%s: %s lost the removed link's text %q", when, r.PageID, r.LinkText)
				}
			}
		}
	}
	check("after the apply", func(reason string) bool { return reason == handlers.AuditReason("a1") })

	_, token, err := st.CreateToken(t.Context(), siteID, "")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h.harness)
	asked := map[string]bool{}
	for _, r := range fixes {
		if asked[r.PageID] {
			continue
		}
		asked[r.PageID] = true
		replan := c.post("/linker/links/plan/", token, "", `{"site_id":"`+siteID+`","content_id":"`+r.PageID+`"}`)
		if replan.status != 202 {
			t.Fatalf("re-plan of %s: %d %s", r.PageID, replan.status, replan.raw)
		}
		c.poll(replan.job.Location[len(handlers.APIPrefix):], token, "done")
	}
	h.waitIdle(waitLong)
	check("after the next plan", func(reason string) bool { return strings.HasPrefix(reason, "asked for over the HTTP API") })

	// A fix made from the live version of a page that interlinker plans
	// at a newer version since is stale: its plans start from other HTML.
	var newer events.PageInfo
	for _, p := range pages {
		if p.ID == fixes[0].PageID {
			newer = p
		}
	}
	newer.Version = 2
	h.publish(mustEvent(events.ContentGenerated, siteID, "gen-"+newer.ID+"-v2", events.ContentData{Page: newer}))
	h.waitIdle(waitLong)
	h.audit(siteID, "a2", events.AuditRequestedData{})
	var ids []string
	for _, r := range h.recommendations(siteID, "a2") {
		if r.PageID == newer.ID {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		t.Fatalf("the second audit recommends nothing on %s, whose live version still lacks its fixes", newer.ID)
	}
	res := h.applyFixes(siteID, "apply-2", events.AuditApplyData{AuditID: "a2", RecommendationIDs: ids})
	if res.Applied != 0 || len(res.Failed) != len(ids) {
		t.Fatalf("applying %d fixes made from version 1 of %s, planned at version 2: %d applied, failed %+v", len(ids), newer.ID, res.Applied, res.Failed)
	}
	for _, f := range res.Failed {
		if !strings.Contains(f.Reason, "which interlinker now plans at version 2") {
			t.Errorf("fix %s refused with %q, want it stale", f.ID, f.Reason)
		}
	}
}
