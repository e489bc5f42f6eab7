package service

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
	"github.com/interlinker/interlinker/store"
)

// auditHarness is a service with collectors for the audit's events.
type auditHarness struct {
	*harness
	progress  *collector
	completed *collector
	applied   *collector
}

func startAuditHarness(t *testing.T) *auditHarness {
	h := startHarness(t, testConfig(t))
	return &auditHarness{harness: h,
		progress:  collect(t, h.js, "AUDIT", events.AuditProgress),
		completed: collect(t, h.js, "AUDIT", events.AuditCompleted),
		applied:   collect(t, h.js, "AUDIT", events.AuditApplied)}
}

// publishExisting publishes an existing site: its structure, every page
// as content.published, then the deletion of the deleted ones.
func (h *auditHarness) publishExisting(structure events.Event, pages []events.PageInfo, deleted ...string) {
	h.publish(structure)
	h.waitIdle(waitLong)
	for _, p := range pages {
		h.publish(mustEvent(events.ContentPublished, structure.SiteID, fmt.Sprintf("pub-%s-v%d", p.ID, p.Version), events.ContentData{Page: p}))
	}
	h.waitIdle(waitLong)
	for _, id := range deleted {
		h.publish(mustEvent(events.ContentDeleted, structure.SiteID, "del-"+id, events.ContentDeletedData{PageID: id, Version: 2}))
	}
	h.waitIdle(waitLong)
}

// audit asks for an audit and waits for its report.
func (h *auditHarness) audit(siteID, auditID string, data events.AuditRequestedData) events.AuditCompletedData {
	h.t.Helper()
	data.AuditID = auditID
	h.publish(mustEvent(events.AuditRequested, siteID, "req-"+auditID, data))
	var out events.AuditCompletedData
	waitFor(h.t, waitLong, "audit "+auditID+" completed", func() bool {
		for _, r := range h.completed.all() {
			var d events.AuditCompletedData
			if r.Event.SiteID == siteID && json.Unmarshal(r.Event.Data, &d) == nil && d.AuditID == auditID {
				out = d
				return true
			}
		}
		return false
	})
	return out
}

// recommendations reads an audit's stored recommendations, in report
// order.
func (h *auditHarness) recommendations(siteID, auditID string) []store.StoredRecommendation {
	h.t.Helper()
	recs, err := h.svc.Store().Recommendations(h.t.Context(), siteID, auditID, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return recs
}

// applyFixes applies recommendations and waits for audit.applied.
func (h *auditHarness) applyFixes(siteID, eventID string, data events.AuditApplyData) events.AuditAppliedData {
	h.t.Helper()
	ev := mustEvent(events.AuditApply, siteID, eventID, data)
	h.publish(ev)
	var out events.AuditAppliedData
	waitFor(h.t, waitLong, "apply "+eventID+" done", func() bool {
		for _, r := range h.applied.all() {
			if r.Event.SiteID == siteID && r.Event.ID == events.DerivedID(ev, events.AuditApplied) {
				return json.Unmarshal(r.Event.Data, &out) == nil
			}
		}
		return false
	})
	h.waitIdle(waitLong)
	return out
}

// fixedPages are the pages an audit's fixes sent out, last HTML each.
func (h *auditHarness) fixedPages(siteID, auditID string) map[string]events.LinksInsertedData {
	out := map[string]events.LinksInsertedData{}
	for _, r := range h.inserted.all() {
		if r.Inserted != nil && r.Event.SiteID == siteID && r.Inserted.Reason == handlers.AuditReason(auditID) {
			out[r.Inserted.PageID] = *r.Inserted
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var tagOfLink = regexp.MustCompile(`(?i)</?a\b[^>]*>`)

// withoutLinks is a page's HTML with every <a> tag taken out, their text
// kept: two pages that differ only in links have the same.
func withoutLinks(s string) string { return tagOfLink.ReplaceAllString(s, "") }

func TestAnExistingSitesAuditFiguresAreTheCountsOfItsHTML(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-live"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	var live, deleted []events.PageInfo
	for _, p := range pages {
		if p.ID == existingDeleted {
			deleted = append(deleted, p)
		} else {
			live = append(live, p)
		}
	}
	want := auditOracle(t, "www.cadence-cycles.example", live, deleted)
	got := h.audit(siteID, "first", events.AuditRequestedData{})

	if got.Status != "complete" {
		t.Errorf("status %q (%v), want complete", got.Status, got.Reasons)
	}
	figures := []struct {
		name      string
		got, want int
	}{
		{"pages", got.Pages, want.pages},
		{"total_links", got.TotalLinks, want.totalLinks},
		{"orphan_pages", got.OrphanPages, len(want.orphans)},
		{"navigation_only_pages", got.NavigationOnlyPages, len(want.navOnly)},
		{"missing_mandatory", got.MissingMandatory, len(want.missing)},
		{"uplinks_outside_first_paragraphs", got.UplinksOutsideOpening, len(want.outside)},
		{"broken_links", got.BrokenLinks, want.broken},
		{"unverified_links", got.UnverifiedLinks, want.unverified},
		{"over_linked_pages", got.OverLinkedPages, len(want.over)},
		{"under_linked_pages", got.UnderLinkedPages, len(want.under)},
		{"dominant_anchors", got.DominantAnchors, len(want.dominant)},
	}
	for _, f := range figures {
		if f.got != f.want {
			t.Errorf("%s = %d, the HTML says %d", f.name, f.got, f.want)
		}
	}
	// The planted defects are among them.
	for name, set := range map[string]map[string]bool{
		"orphans": want.orphans, "missing": want.missing, "outside": want.outside, "over": want.over} {
		t.Logf("%s: %v", name, sortedKeys(set))
	}
	for _, id := range []string{tsClusters[0].articles[0].id, tsClusters[1].articles[0].id} {
		if !want.missing[id] {
			t.Errorf("planted missing uplink %s not found by the oracle", id)
		}
	}
	if !want.orphans[tsClusters[3].articles[3].id] || !want.orphans["aero-50"] || !want.over[tsClusters[4].articles[0].id] ||
		!want.outside[tsClusters[2].articles[1].id] || want.broken != 2 || want.unverified == 0 {
		t.Errorf("the planted defects are not what the site was written with: %+v", want)
	}

	// The stored report has every list whole, under the same figures.
	rec, found, err := h.svc.Store().Audit(t.Context(), siteID, "first")
	if err != nil || !found || rec.Status != "complete" {
		t.Fatalf("stored audit: found %v, status %q, err %v", found, rec.Status, err)
	}
	var stored events.AuditCompletedData
	if err := json.Unmarshal(rec.Report, &stored); err != nil {
		t.Fatal(err)
	}
	if stored.Findings == nil || len(stored.Findings.Orphans) != got.OrphanPages || len(stored.Findings.Broken) != got.BrokenLinks {
		t.Errorf("stored findings do not match the figures: %+v", stored.Findings)
	}
	var orphans []string
	orphans = append(orphans, stored.Findings.Orphans...)
	sort.Strings(orphans)
	if strings.Join(orphans, ",") != strings.Join(sortedKeys(want.orphans), ",") {
		t.Errorf("orphans %v, the HTML says %v", orphans, sortedKeys(want.orphans))
	}
	if got.RecommendationsTotal == 0 || len(got.Recommendations) != min(got.RecommendationsTotal, 100) {
		t.Errorf("recommendations: %d of %d in the event", len(got.Recommendations), got.RecommendationsTotal)
	}
	if len(got.LinkScores) != min(got.Pages, 100) || got.LinkScores[0].Score != 100 {
		t.Errorf("link scores: %d, first %+v", len(got.LinkScores), got.LinkScores[0])
	}
	for i := 1; i < len(got.Recommendations); i++ {
		if got.Recommendations[i].Priority > got.Recommendations[i-1].Priority {
			t.Errorf("recommendations out of priority order at %d", i)
		}
	}
	if len(got.ClusterScores) != len(tsClusters) {
		t.Errorf("cluster scores for %d clusters, want %d", len(got.ClusterScores), len(tsClusters))
	}
	progress := 0
	for _, r := range h.progress.all() {
		var d events.AuditProgressData
		if json.Unmarshal(r.Event.Data, &d) == nil && d.AuditID == "first" {
			progress++
		}
	}
	if progress < 4 {
		t.Errorf("%d audit.progress events, want one per stage at least", progress)
	}

	// Apply everything, publish what came back, audit again.
	res := h.applyFixes(siteID, "apply-all", events.AuditApplyData{AuditID: "first", All: true})
	if res.Applied == 0 {
		t.Fatalf("nothing applied: %+v", res)
	}
	t.Logf("applied %d, failed %d: %+v", res.Applied, len(res.Failed), res.Failed)
	fixed := h.fixedPages(siteID, "first")
	byID := map[string]events.PageInfo{}
	for _, p := range live {
		byID[p.ID] = p
	}
	var republish []events.PageInfo
	for id, f := range fixed {
		before := byID[id]
		if withoutLinks(f.HTML) != withoutLinks(before.HTML) {
			t.Errorf("fixed page %s differs from its live HTML in more than links", id)
		}
		if f.HTML == before.HTML {
			t.Errorf("page %s sent as fixed but unchanged", id)
		}
		after := before
		after.Version, after.HTML = 2, f.HTML
		republish = append(republish, after)
	}
	if len(fixed) == 0 {
		t.Fatal("no page came back fixed")
	}

	// Applying the recommendations applied once again changes nothing.
	storedRecs := h.recommendations(siteID, "first")
	var appliedIDs []string
	for _, r := range storedRecs {
		if r.AppliedBy != "" {
			appliedIDs = append(appliedIDs, r.ID)
		}
	}
	if len(appliedIDs) != res.Applied {
		t.Errorf("%d recommendations recorded as applied, audit.applied says %d", len(appliedIDs), res.Applied)
	}
	again := h.applyFixes(siteID, "apply-again", events.AuditApplyData{AuditID: "first", RecommendationIDs: appliedIDs})
	if again.Applied != 0 || len(again.Failed) != len(appliedIDs) || len(h.fixedPages(siteID, "first")) != len(fixed) {
		t.Errorf("second apply applied %d, refused %d of %d, pages sent %d (first time %d)", again.Applied, len(again.Failed),
			len(appliedIDs), len(h.fixedPages(siteID, "first")), len(fixed))
	}
	for _, f := range again.Failed {
		if f.Reason != "already applied" {
			t.Errorf("second apply: %s refused for %q, want \"already applied\"", f.ID, f.Reason)
		}
	}

	for _, p := range republish {
		h.publish(mustEvent(events.ContentPublished, siteID, fmt.Sprintf("pub-%s-v%d", p.ID, p.Version), events.ContentData{Page: p}))
	}
	h.waitIdle(waitLong)
	after := h.audit(siteID, "second", events.AuditRequestedData{})
	// An uplink whose every name in the page's text is at the anchor cap
	// (other live pages use it three times for the hub) is refused with
	// that reason and stays missing: the cap holds for every link.
	cappedUplinks := 0
	for _, f := range res.Failed {
		for _, r := range storedRecs {
			if r.ID == f.ID && r.Problem == audit.ProblemMissingUplink && strings.HasPrefix(f.Reason, "anchor cap: ") {
				cappedUplinks++
			}
		}
	}
	if after.MissingMandatory != cappedUplinks || after.BrokenLinks != 0 {
		t.Errorf("after the fixes: missing_mandatory %d, broken_links %d; want %d (the uplinks refused at the anchor cap) and 0",
			after.MissingMandatory, after.BrokenLinks, cappedUplinks)
	}
	if after.OrphanPages >= got.OrphanPages {
		t.Errorf("orphans %d after the fixes, %d before", after.OrphanPages, got.OrphanPages)
	}
	if after.OverallHealthScore <= got.OverallHealthScore {
		t.Errorf("health %.2f after the fixes, %.2f before", after.OverallHealthScore, got.OverallHealthScore)
	}
}

func TestAuditRefusesWhatItCannotDoWithAReason(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-refusals"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)

	unknownSite := h.audit("no-such-site", "nobody", events.AuditRequestedData{})
	if unknownSite.Status != "failed" || len(unknownSite.Reasons) != 1 || !strings.Contains(unknownSite.Reasons[0], "unknown site") {
		t.Errorf("audit of an unknown site: %q %v", unknownSite.Status, unknownSite.Reasons)
	}
	unknownCluster := h.audit(siteID, "no-cluster", events.AuditRequestedData{ClusterID: "unicycles"})
	if unknownCluster.Status != "failed" || !strings.Contains(strings.Join(unknownCluster.Reasons, ""), `unknown cluster "unicycles"`) {
		t.Errorf("audit of an unknown cluster: %q %v", unknownCluster.Status, unknownCluster.Reasons)
	}
	one := h.audit(siteID, "one-cluster", events.AuditRequestedData{ClusterID: tsClusters[0].id})
	if one.Status != "complete" || len(one.ClusterScores) != 1 || one.MissingMandatory != 1 {
		t.Errorf("audit of cluster %s: status %q, %d cluster scores, missing %d", tsClusters[0].id, one.Status, len(one.ClusterScores), one.MissingMandatory)
	}

	report := h.audit(siteID, "full", events.AuditRequestedData{})
	if len(report.Recommendations) == 0 {
		t.Fatal("no recommendations")
	}
	rec := report.Recommendations[0]
	var page events.PageInfo
	for _, p := range pages {
		if p.ID == rec.ContentID {
			page = p
		}
	}
	page.Version = 2
	h.publish(mustEvent(events.ContentPublished, siteID, "pub-newer", events.ContentData{Page: page}))
	h.waitIdle(waitLong)
	res := h.applyFixes(siteID, "apply-stale", events.AuditApplyData{AuditID: "full", RecommendationIDs: []string{rec.ID, "rec-nope"}})
	reasons := map[string]string{}
	for _, f := range res.Failed {
		reasons[f.ID] = f.Reason
	}
	if res.Applied != 0 || !strings.HasPrefix(reasons[rec.ID], "stale: made from version 1") || !strings.Contains(reasons["rec-nope"], "unknown recommendation") {
		t.Errorf("apply of a stale and an unknown recommendation: %+v", res)
	}
	if fixed := h.fixedPages(siteID, "full"); len(fixed) != 0 {
		t.Errorf("refused fixes sent pages: %v", fixed)
	}
	noAudit := h.applyFixes(siteID, "apply-nothing", events.AuditApplyData{AuditID: "never-ran", All: true})
	if noAudit.Applied != 0 || len(noAudit.Failed) != 1 || !strings.Contains(noAudit.Failed[0].Reason, `unknown audit "never-ran"`) {
		t.Errorf("apply of an unknown audit: %+v", noAudit)
	}
	if dead := h.dead.all(); len(dead) > 0 {
		t.Errorf("%d dead letters", len(dead))
	}
}

// A gardening trial's audit reported its noindex newsletter-thanks page
// an orphan and recommended the home page link it. The robots meta is
// read as the page is published, and the audit owes such a page no link.
func TestAnAuditOwesANoIndexPageNoLinks(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "noindex-live"
	page := func(id, url, kind, head, body string) events.PageInfo {
		p := events.PageInfo{ID: id, URL: url, Title: id, Kind: kind, Version: 1,
			HTML: "<html><head>" + head + "</head><body><main><article>\n" + body + "</article></main></body></html>\n"}
		if kind == "hub" || kind == "supporting" {
			p.ClusterID, p.SectorID = "boots", "hiking"
		}
		return p
	}
	h.publishExisting(verifySiteEvent(siteID, "https://boots.example"), []events.PageInfo{
		page("home", "/", "home", "", "<p>Welcome. See <a href=\"/boots/\">our hiking boots</a>.</p>\n"),
		page("boots", "/boots/", "hub", "", "<p>All about hiking boots: <a href=\"/boots/a/\">fit</a>.</p>\n"),
		page("a", "/boots/a/", "supporting", "", "<p>Fit matters for <a href=\"/boots/\">hiking boots</a>.</p>\n"),
		page("thanks", "/thanks/", "page", `<meta name="robots" content="noindex, follow">`, "<p>Thanks for signing up to our newsletter.</p>\n"),
		page("about", "/about/", "page", `<meta name="robots" content="index, follow">`, "<p>About our shop.</p>\n"),
	})
	got := h.audit(siteID, "noindex", events.AuditRequestedData{})
	rec, found, err := h.svc.Store().Audit(t.Context(), siteID, "noindex")
	if err != nil || !found {
		t.Fatalf("stored audit: found %v, err %v", found, err)
	}
	var stored events.AuditCompletedData
	if err := json.Unmarshal(rec.Report, &stored); err != nil {
		t.Fatal(err)
	}
	if got.OrphanPages != 1 || stored.Findings == nil || strings.Join(stored.Findings.Orphans, ",") != "about" {
		t.Errorf("orphans: %d %+v, want 1, about alone: thanks asks not to be indexed", got.OrphanPages, stored.Findings)
	}
	for _, r := range h.recommendations(siteID, "noindex") {
		if r.TargetID == "thanks" {
			t.Errorf("recommendation %s %s links the noindex page: %s", r.PageID, r.Action, r.Reason)
		}
	}
}
