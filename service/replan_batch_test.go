package service

import (
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
)

// A SaaS trial asked, over the HTTP API, to plan every page of a settled
// site again (links/batch-insert/): several pages went out with other
// uplink anchors and cross-cluster picks, and the next settle pass sent
// them back, two links.inserted each for nothing. Planned again all at
// once, a settled site's pages keep their links, and none is sent again
// with other links or HTML.
func TestPlanningEveryPageOfASettledSiteAgainKeepsItsLinks(t *testing.T) {
	outcomeScenario(t)
	const siteID = "replan-all"
	h, cfg := settledCustomSite(t, siteID)
	time.Sleep(5 * cfg.SettleDelay)
	h.waitIdle(waitLong)

	settled := lastInserted(t, h, siteID)
	for _, p := range customSitePages() {
		h.publish(mustEvent(events.LinksReplan, siteID, "replan-all-"+p.ID, events.ReplanData{PageID: p.ID,
			CauseEventID: "replan-all", CausePageID: p.ID, Reason: "asked for over the HTTP API (job replan-all)"}))
	}
	h.waitIdle(waitLong)
	time.Sleep(5 * cfg.SettleDelay)
	h.waitIdle(waitLong)

	sent := checkKeptSettled(t, h, siteID, settled, nil)
	t.Logf("%d links.inserted sent for %d pages planned again", sent, len(settled))
}
