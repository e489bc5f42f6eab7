package service

import (
	"fmt"
	"testing"

	"github.com/interlinker/interlinker/domain/link"
)

func TestAHubArrivingAfterManyArticlesReplansThemAPageAtATime(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.FanoutPage = 2
	h := startHarness(t, cfg)
	h.publish(siteEvent("s1"))
	const n = 7
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("tip-%d", i)
		h.publish(pageEvent("s1", ids[i], "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, waitLong, "articles linked without their hub", func() bool { return h.inserted.pageCount("s1") == n })
	h.waitIdle(waitLong)
	h.publish(hubEvent("s1"))
	waitFor(t, waitLong, "every article re-planned with its uplink", func() bool {
		for _, id := range ids {
			emitted := h.inserted.insertedFor(t, "s1", id)
			if len(emitted) < 2 {
				return false
			}
		}
		return true
	})
	h.waitIdle(waitLong)
	h.waitStoredReceived("s1", ids)
	for _, id := range ids {
		last, _ := h.inserted.latestFor(t, "s1", id)
		up := resultsOfType(last.Links, link.TypeVerticalUp)
		if h.inserted.pagesInserted("s1")[id] != 2 || len(up) != 1 || up[0].Status != string(link.StatusVerified) {
			t.Errorf("page %s: %d emissions, uplinks %+v; want one re-plan carrying a verified uplink (and any settle pass's)", id, len(h.inserted.insertedFor(t, "s1", id)), up)
		}
	}
	// 7 dependants, 2 a page: the hub's own transaction and 3 fan-outs.
	if !h.metricAtLeast(`interlinker_events_out_total{subject="links.fanout"}`, 3) {
		t.Error("the re-plans were not paged through links.fanout")
	}
}
