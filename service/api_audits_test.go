package service

import (
	"net/http"
	"testing"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
)

// The site's latest audit is its latest completed whole-site audit: a
// cluster audit or a failed one run after it changes none of the site-wide
// reads nor what apply applies, and each audit is still reached by its id.
func TestTheLatestAuditIsTheLatestCompletedWholeSiteAuditAndAnyIsReachedByItsID(t *testing.T) {
	t.Parallel()
	h := startAuditHarness(t)
	const siteID = "cadence-latest"
	structure, pages := existingSite(siteID)
	h.publishExisting(structure, pages, existingDeleted)
	whole := h.audit(siteID, "whole-site", events.AuditRequestedData{})
	cluster := h.audit(siteID, "one-cluster", events.AuditRequestedData{ClusterID: tsClusters[0].id})
	failed := h.audit(siteID, "mistyped", events.AuditRequestedData{ClusterID: "nope2"})
	if whole.Status != "complete" || cluster.Status != "complete" || failed.Status != "failed" {
		t.Fatalf("audits: %q, %q, %q; want complete, complete, failed", whole.Status, cluster.Status, failed.Status)
	}
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "latest")
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, h.harness)
	q := "?site_id=" + siteID

	var health handlers.Health
	c.getJSON("/linker/health/"+q, token, &health)
	if health.AuditID != "whole-site" || health.ClusterID != "" || health.OverallHealthScore != whole.OverallHealthScore ||
		len(health.ClusterScores) != len(tsClusters) {
		t.Errorf("health/: audit %q (cluster %q), score %v over %d clusters; want the whole-site audit's %v over %d",
			health.AuditID, health.ClusterID, health.OverallHealthScore, len(health.ClusterScores), whole.OverallHealthScore, len(tsClusters))
	}
	var recs handlers.RecommendationList
	c.getJSON("/linker/audit/recommendations/"+q, token, &recs)
	if recs.AuditID != "whole-site" || len(recs.Items) == 0 {
		t.Errorf("audit/recommendations/: audit %q, %d items; want the whole-site audit's", recs.AuditID, len(recs.Items))
	}
	var orphans handlers.OrphanList
	c.getJSON("/linker/orphans/"+q, token, &orphans)
	if orphans.AuditID != "whole-site" || len(orphans.Items) == 0 {
		t.Errorf("orphans/: audit %q, %d items; want the whole-site audit's", orphans.AuditID, len(orphans.Items))
	}
	if status, hdr, _ := c.get("/linker/audit/"+q, token); status != http.StatusOK || hdr.Get("ETag") != `"whole-site"` {
		t.Errorf("audit/: %d, ETag %s; want the whole-site audit", status, hdr.Get("ETag"))
	}

	// A cluster audit, and the failed one, by their ids.
	var clusterHealth handlers.Health
	c.getJSON("/linker/health/"+q+"&audit_id=one-cluster", token, &clusterHealth)
	if health := clusterHealth; health.AuditID != "one-cluster" || health.ClusterID != tsClusters[0].id || len(health.ClusterScores) != 1 {
		t.Errorf("health/ of the cluster audit: %+v", health)
	}
	var clusterRecs handlers.RecommendationList
	c.getJSON("/linker/audit/recommendations/"+q+"&audit_id=one-cluster", token, &clusterRecs)
	if recs := clusterRecs; recs.AuditID != "one-cluster" {
		t.Errorf("audit/recommendations/ of the cluster audit: audit %q", recs.AuditID)
	}
	var report events.AuditCompletedData
	c.getJSON("/linker/audit/"+q+"&audit_id=mistyped", token, &report)
	if report.AuditID != "mistyped" || report.Status != "failed" {
		t.Errorf("audit/ of the failed audit: %q %q", report.AuditID, report.Status)
	}
	for _, path := range []string{"/linker/audit/", "/linker/health/", "/linker/audit/recommendations/", "/linker/orphans/"} {
		if status, _, body := c.get(path+q+"&audit_id=no-such-audit", token); status != http.StatusNotFound {
			t.Errorf("GET %s of an unknown audit: %d %.200s, want 404", path, status, body)
		}
	}

	// Apply takes the same audit, or the one it names; never a failed one.
	apply := c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`","recommendation_ids":["rec-nope"]}`)
	if apply.status != http.StatusAccepted {
		t.Fatalf("POST audit/apply/: %d %s", apply.status, apply.raw)
	}
	if job := c.poll(apply.job.Location[len(handlers.APIPrefix):], token, "done"); job.AuditID != "whole-site" {
		t.Errorf("apply without audit_id applied audit %q, want whole-site", job.AuditID)
	} else if job.Done != 1 || job.Total != 1 {
		t.Errorf("the finished apply of one recommendation shows %d of %d taken, want 1 of 1", job.Done, job.Total)
	}
	apply = c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`","audit_id":"one-cluster","recommendation_ids":["rec-nope"]}`)
	if apply.status != http.StatusAccepted {
		t.Fatalf("POST audit/apply/ of the cluster audit: %d %s", apply.status, apply.raw)
	}
	if job := c.poll(apply.job.Location[len(handlers.APIPrefix):], token, "done"); job.AuditID != "one-cluster" {
		t.Errorf("apply of audit_id one-cluster applied audit %q", job.AuditID)
	}
	if got := c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`","audit_id":"mistyped","all":true}`); got.status != http.StatusConflict {
		t.Errorf("apply of the failed audit: %d %s, want 409", got.status, got.raw)
	}
	if got := c.post("/linker/audit/apply/", token, "", `{"site_id":"`+siteID+`","audit_id":"no-such-audit","all":true}`); got.status != http.StatusNotFound {
		t.Errorf("apply of an unknown audit: %d %s, want 404", got.status, got.raw)
	}
}
