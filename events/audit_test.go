package events

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAnAuditApplyNamesRecommendationsOrAllButNotBoth(t *testing.T) {
	for _, tc := range []struct {
		data string
		ok   bool
	}{
		{`{"audit_id": "a1", "all": true}`, true},
		{`{"audit_id": "a1", "recommendation_ids": ["r1", "r2"]}`, true},
		{`{"audit_id": "a1"}`, false},
		{`{"audit_id": "a1", "all": false}`, false},
		{`{"audit_id": "a1", "all": true, "recommendation_ids": ["r1"]}`, false},
		{`{"all": true}`, false},
	} {
		raw := `{"specversion": "1.0", "id": "e1", "source": "ops", "type": "audit.apply", "siteid": "s1", "data": ` + tc.data + `}`
		_, err := Decode([]byte(raw))
		if (err == nil) != tc.ok {
			t.Errorf("audit.apply %s: error %v, want accepted %v", tc.data, err, tc.ok)
		}
	}
}

func TestAnAuditReportHoldsAtMostAHundredRecommendations(t *testing.T) {
	report := func(n int) []byte {
		recs := make([]string, n)
		for i := range recs {
			recs[i] = `{"id": "r", "content_id": "p", "action": "add", "link_type": "vertical_up", "priority": 90, "reason": "missing uplink"}`
		}
		data := `{"audit_id": "a1", "status": "complete", "pages": 1, "total_links": 0, "orphan_pages": 0, "missing_mandatory": 0,
			"broken_links": 0, "over_linked_pages": 0, "under_linked_pages": 0, "cluster_scores": {}, "overall_health_score": 100,
			"recommendations": [` + strings.Join(recs, ",") + `], "recommendations_total": 101, "link_scores": []}`
		return []byte(`{"specversion": "1.0", "id": "e1", "source": "interlinker", "type": "audit.completed", "siteid": "s1", "data": ` + data + `}`)
	}
	if _, err := Decode(report(100)); err != nil {
		t.Errorf("a report with 100 recommendations was refused: %v", err)
	}
	if _, err := Decode(report(101)); err == nil {
		t.Error("a report with 101 recommendations was accepted, want at most 100 in the event")
	}
}

// An audit's figures are in its report when they are 0 too: a reader
// told nothing about navigation-only pages cannot tell "none" from "not
// counted" (a trial's consumer read the stored audit.json that way).
func TestAnAuditReportCarriesEveryFigureEvenWhenItIsZero(t *testing.T) {
	raw, err := json.Marshal(AuditCompletedData{AuditID: "a1", Status: "complete"})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pages", "total_links", "orphan_pages", "navigation_only_pages", "missing_mandatory",
		"uplinks_outside_first_paragraphs", "broken_links", "unverified_links", "redirect_links", "over_linked_pages",
		"under_linked_pages", "dominant_anchors"} {
		if v, ok := fields[name]; !ok || v != float64(0) {
			t.Errorf("figure %s is %v (present %v), want 0", name, v, ok)
		}
	}
}
