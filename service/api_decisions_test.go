package service

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/handlers"
)

// linkOnSite finds the first stored link, page by page of the linked
// example site, that want holds for (given its page and the page's
// links); the test fails when none does, naming what.
func linkOnSite(t *testing.T, h *harness, site examples.Site, what string, want func(events.PageInfo, link.Link, []link.Link) bool) (pageID string, found link.Link) {
	t.Helper()
	for _, pg := range site.Pages {
		links, err := h.svc.Store().LinksFrom(t.Context(), site.Structure.Site.ID, pg.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if want(pg, l, links) {
				return pg.ID, l
			}
		}
	}
	t.Fatalf("no %s on the example site", what)
	return "", link.Link{}
}

func (c apiClient) delete(path, token string) posted {
	c.t.Helper()
	return c.deleteKeyed(path, token, "")
}

// deleteKeyed is delete with an Idempotency-Key.
func (c apiClient) deleteKeyed(path, token, key string) posted {
	c.t.Helper()
	status, _, raw := c.do(http.MethodDelete, path, token, key, "", nil)
	out := posted{status: status, raw: raw}
	_ = json.Unmarshal(raw, &out.job)
	return out
}

func TestDecisionsMadeOverTheAPIOutliveReplans(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	// Links scored 60–69 are suggested for review too, so the queue holds
	// a few: the example site's hubs suggest no off-topic products any
	// more, which were most of its suggestions.
	site := h.linkExampleSiteWith("outdoor-gear", json.RawMessage(`{"auto_link_score": 70}`))
	siteID := site.Structure.Site.ID

	st := h.svc.Store()
	_, token, err := st.CreateToken(t.Context(), siteID, "editor")
	if err != nil {
		t.Fatal(err)
	}
	_, otherToken, err := st.CreateToken(t.Context(), "another-site", "")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	done := func(r posted, what string) {
		t.Helper()
		if r.status != 202 {
			t.Fatalf("%s: %d %s", what, r.status, r.raw)
		}
		c.poll(r.job.Location[len(handlers.APIPrefix):], token, "done")
		h.waitIdle(waitLong)
	}
	// linkTo finds the page's link to target, of typ when given: a page may
	// link a target in its body and list it in Related Reading.
	linkTo := func(source, target string, typ ...string) (link.Link, bool) {
		t.Helper()
		links, err := st.LinksFrom(t.Context(), siteID, source)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if l.TargetPageID == target && l.Type != link.TypeBreadcrumb && (len(typ) == 0 || string(l.Type) == typ[0]) {
				return l, true
			}
		}
		return link.Link{}, false
	}

	// The review queue holds the suggestions scored 40–59.
	var queue handlers.LinkList
	c.getJSON("/linker/review/?limit=500&site_id="+siteID, token, &queue)
	if len(queue.Items) < 2 {
		t.Fatalf("%d review suggestions on the example site, want at least 2", len(queue.Items))
	}
	for _, l := range queue.Items {
		if l.Status != "review" {
			t.Errorf("review queue holds a %s link", l.Status)
		}
	}
	// An in-body suggestion is accepted: a Related Reading one may be left
	// out of the section once accepted, for a link the body already has.
	accepted := queue.Items[0]
	if i := slices.IndexFunc(queue.Items, func(l handlers.SiteLink) bool { return l.Zone == string(link.ZoneInBody) }); i >= 0 {
		accepted = queue.Items[i]
	}
	var rejected handlers.SiteLink
	for _, l := range queue.Items {
		if l.SourceContentID != accepted.SourceContentID || l.TargetPageID != accepted.TargetPageID {
			rejected = l
			break
		}
	}
	if r := c.post("/linker/review/"+accepted.ID+"/accept/", otherToken, "", `{"site_id":"`+siteID+`"}`); r.status != 404 {
		t.Errorf("another site's token accepting: %d", r.status)
	}

	// Accepted: planned from now on, and placed where the page has its anchor.
	acceptedJob := c.post("/linker/review/"+accepted.ID+"/accept/", token, "accept-1", `{"site_id":"`+siteID+`"}`)
	done(acceptedJob, "accept")
	// A retry with the key gets the first job, though its link is no
	// longer up for review (an API client trial's retry answered 409).
	if r := c.post("/linker/review/"+accepted.ID+"/accept/", token, "accept-1", `{"site_id":"`+siteID+`"}`); r.status != 202 || r.job.ID != acceptedJob.job.ID {
		t.Errorf("accept retried with its key: %d, job %q; want 202 and the first job %q", r.status, r.job.ID, acceptedJob.job.ID)
	}
	if r := c.post("/linker/review/"+accepted.ID+"/reject/", token, "accept-1", `{"site_id":"`+siteID+`"}`); r.status != 409 {
		t.Errorf("a reject sent with the accept's key: %d, want 409", r.status)
	}
	if l, ok := linkTo(accepted.SourceContentID, accepted.TargetPageID, accepted.Type); !ok || l.Status == link.StatusReview || !strings.Contains(l.Reason+l.Explanation, "accepted by hand") {
		t.Errorf("accepted suggestion %s → %s is now %+v (found %v)", accepted.SourceContentID, accepted.TargetPageID, l, ok)
	}
	// The page's links.inserted carries it with its new status.
	waitFor(t, waitLong, "the accepted link in the page's links.inserted", func() bool {
		sent := h.inserted.insertedFor(t, siteID, accepted.SourceContentID)
		for _, l := range sent[len(sent)-1].Links {
			if l.TargetPageID == accepted.TargetPageID && l.Type == accepted.Type && l.Status != string(link.StatusReview) {
				return true
			}
		}
		return false
	})
	if r := c.post("/linker/review/"+accepted.ID+"/accept/", token, "", `{"site_id":"`+siteID+`"}`); r.status != 409 && r.status != 404 {
		t.Errorf("accepting a link no longer for review: %d", r.status)
	}

	// Rejected: gone from the page's plan.
	done(c.post("/linker/review/"+rejected.ID+"/reject/", token, "", `{"site_id":"`+siteID+`"}`), "reject")
	if l, ok := linkTo(rejected.SourceContentID, rejected.TargetPageID, rejected.Type); ok {
		t.Errorf("rejected suggestion %s → %s is still planned: %+v", rejected.SourceContentID, rejected.TargetPageID, l)
	}

	// Removed by hand: gone, and a re-plan does not bring it back.
	from, removed := linkOnSite(t, h, site, "a verified horizontal link", func(_ events.PageInfo, l link.Link, _ []link.Link) bool {
		return l.Status == link.StatusVerified && l.Zone == link.ZoneInBody && !l.Mandatory && l.Type == link.TypeHorizontal
	})
	removal := c.deleteKeyed(fmt.Sprintf("/linker/content/%s/links/%s/?site_id=%s", from, removed.ID, siteID), token, "remove-1")
	done(removal, "remove")
	if r := c.deleteKeyed(fmt.Sprintf("/linker/content/%s/links/%s/?site_id=%s", from, removed.ID, siteID), token, "remove-1"); r.status != 202 || r.job.ID != removal.job.ID {
		t.Errorf("removal retried with its key: %d, job %q; want 202 and the first job %q (the link is gone)", r.status, r.job.ID, removal.job.ID)
	}
	if _, ok := linkTo(from, removed.TargetPageID); ok {
		t.Errorf("removed link %s → %s is still planned", from, removed.TargetPageID)
	}
	done(c.post("/linker/links/plan/", token, "", `{"site_id":"`+siteID+`","content_id":"`+from+`"}`), "re-plan")
	if _, ok := linkTo(from, removed.TargetPageID); ok {
		t.Errorf("a re-plan brought back the link %s → %s removed by hand", from, removed.TargetPageID)
	}
	last := h.inserted.insertedFor(t, siteID, from)
	for _, l := range last[len(last)-1].Links {
		if l.TargetPageID == removed.TargetPageID && l.Type != "breadcrumb" {
			t.Errorf("the page's last links.inserted still carries the removed link: %+v", l)
		}
	}

	// Added by hand, under its anchor: planned whatever the scores say.
	target := site.Pages[0].ID
	for _, pg := range site.Pages {
		if _, linked := linkTo(from, pg.ID); !linked && pg.ID != from && pg.ID != removed.TargetPageID {
			target = pg.ID
			break
		}
	}
	done(c.post("/linker/content/"+from+"/links/", token, "", `{"site_id":"`+siteID+`","target_content_id":"`+target+`","anchor":"see also"}`), "add")
	if l, ok := linkTo(from, target); !ok || !strings.Contains(l.Reason+l.Explanation, "added by hand") || l.Candidates[0].Text != "see also" {
		t.Errorf("link added by hand %s → %s: %+v (found %v)", from, target, l, ok)
	}
	if r := c.post("/linker/content/"+from+"/links/", token, "", `{"site_id":"`+siteID+`","target_content_id":"no-such-page","anchor":"x"}`); r.status != 404 {
		t.Errorf("adding a link to a page that does not exist: %d", r.status)
	}
	if r := c.post("/linker/content/"+from+"/links/", token, "", `{"site_id":"`+siteID+`","target_content_id":"`+target+`","anchor":"   "}`); r.status != 400 {
		t.Errorf("adding a link under a blank anchor: %d %s, want 400", r.status, r.raw)
	}

	// Reverted: the planner decides again, and plans the removed link as before.
	done(c.delete(fmt.Sprintf("/linker/content/%s/decisions/%s/?site_id=%s", from, removed.TargetPageID, siteID), token), "revert")
	if l, ok := linkTo(from, removed.TargetPageID); !ok || l.Status != link.StatusVerified {
		t.Errorf("after the revert, the link %s → %s is %+v (found %v), want it verified as before", from, removed.TargetPageID, l, ok)
	}
	if r := c.delete(fmt.Sprintf("/linker/content/%s/decisions/%s/?site_id=%s", from, removed.TargetPageID, siteID), token); r.status != 404 {
		t.Errorf("reverting a decision twice: %d", r.status)
	}
}

func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}

// A link removed by hand leaves the page's other links to its target: a
// hub's in-body link to an article taken out, the hub's Related Articles
// still lists the article, as it lists every article of its cluster (an
// API client trial lost both).
func TestRemovingAnInBodyLinkByHandKeepsTheTargetsListEntry(t *testing.T) {
	outcomeScenario(t)
	t.Parallel()
	h := startHarness(t, testConfig(t))
	site := h.linkExampleSite("outdoor-gear")
	siteID := site.Structure.Site.ID
	st := h.svc.Store()
	_, token, err := st.CreateToken(t.Context(), siteID, "editor")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h)
	hub, inBody := linkOnSite(t, h, site, "a hub linking an article both in its text and in its Related Articles",
		func(pg events.PageInfo, l link.Link, links []link.Link) bool {
			return pg.Kind == "hub" && l.Zone == link.ZoneInBody && l.Type == link.TypeVerticalDown && l.Placed() &&
				slices.ContainsFunc(links, func(o link.Link) bool { return o.TargetPageID == l.TargetPageID && o.Zone == link.ZoneRelatedSection })
		})
	r := c.deleteKeyed(fmt.Sprintf("/linker/content/%s/links/%s/?site_id=%s", hub, inBody.ID, siteID), token, "")
	if r.status != 202 {
		t.Fatalf("remove: %d %s", r.status, r.raw)
	}
	c.poll(r.job.Location[len(handlers.APIPrefix):], token, "done")
	h.waitIdle(waitLong)
	links, err := st.LinksFrom(t.Context(), siteID, hub)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, l := range links {
		if l.TargetPageID != inBody.TargetPageID {
			continue
		}
		switch l.Zone {
		case link.ZoneInBody:
			t.Errorf("the in-body link %s → %s removed by hand is back: %+v", hub, l.TargetPageID, l)
		case link.ZoneRelatedSection:
			listed = l.Placed()
		}
	}
	if !listed {
		t.Errorf("the hub %s no longer lists %s in its Related Articles after its in-body link was removed", hub, inBody.TargetPageID)
	}
}
