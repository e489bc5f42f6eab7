package service

import (
	"testing"

	"github.com/interlinker/interlinker/events"
)

// withIdentity gives an event another id and source, as another producer
// numbering its events its own way would send it.
func withIdentity(ev events.Event, source, id string) events.Event {
	ev.Source, ev.ID = source, id
	return ev
}

func TestTheSameEventIDFromTwoSitesAndTwoSourcesHasEveryEffect(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))

	// Two tenants whose CMSes both number their events from 1.
	for _, siteID := range []string{"site-a", "site-b"} {
		h.publish(withIdentity(siteEvent(siteID), "cms", "1"))
		h.publish(withIdentity(hubEvent(siteID), "cms", "2"))
	}
	// On one site, two sources that use the same ids for different pages.
	h.publish(withIdentity(pageEvent("site-a", "care", "supporting", 1, supportingHTML(1)), "cms-north", "3"))
	h.publish(withIdentity(pageEvent("site-a", "sizing", "supporting", 1, supportingHTML(2)), "cms-south", "3"))

	waitFor(t, waitLong, "both hubs and both articles linked", func() bool {
		return h.inserted.pageCount("site-a") == 3 && h.inserted.pageCount("site-b") == 1
	})
	h.waitIdle(waitLong)
	for siteID, pages := range map[string][]string{"site-a": {"boots-hub", "care", "sizing"}, "site-b": {"boots-hub"}} {
		for _, page := range pages {
			if _, found, err := h.svc.Store().Page(t.Context(), siteID, page); err != nil || !found {
				t.Errorf("site %s page %s: found %v, %v", siteID, page, found, err)
			}
		}
	}
	if n := len(h.dead.all()); n != 0 {
		t.Errorf("%d events dead-lettered", n)
	}
}
