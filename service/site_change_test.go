package service

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/events"
)

// siteUpdateWithOverrides is the fixture site's site.updated under another
// event id, with the given policy overrides (JSON).
func siteUpdateWithOverrides(t *testing.T, siteID, eventID, overrides string) events.Event {
	t.Helper()
	ev := siteEvent(siteID)
	var d events.SiteUpdatedData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		t.Fatal(err)
	}
	d.Site.Overrides = json.RawMessage(overrides)
	return mustEvent(ev.Type, siteID, eventID, d)
}

// A site.updated that changes only the policy (the generated sections'
// headings, in Spanish) re-plans every linked page of the site, paged
// through links.fanout, and each comes out again with the new headings
// and a reason naming the change. The same structure sent again (a
// producer re-sending it under a new id) re-plans nothing.
func TestASiteUpdateChangingOnlyTheHeadingsReplansEveryLinkedPageAndTheSameOneResentNone(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// Two a page: the four pages are asked in the site.updated's own
	// transaction and then through links.fanout.
	cfg.FanoutPage = 2
	// A settle pass that finds the site quiet between a re-plan's stages
	// takes the page over and sends it as "settled": the re-plan's own
	// links.inserted, with its reason, is what this test reads.
	cfg.SettleDelay = time.Second
	h := startHarness(t, cfg)
	// Siblings sharing no attribute value score under the default
	// review_score: at 0 each article's Related Reading lists its two.
	const english = `{"max_exact_anchor_per_target": 100, "review_score": 0}`
	h.siteWithOverrides("s1", english)
	h.publish(hubEvent("s1"))
	articles := []string{"care", "laces", "socks"}
	for i, id := range articles {
		h.publish(pageEvent("s1", id, "supporting", 1, supportingHTML(i+1)))
	}
	pages := append([]string{"boots-hub"}, articles...)
	waitFor(t, waitLong, "every page linked", func() bool { return h.inserted.pageCount("s1") == len(pages) })
	h.waitIdle(waitLong)
	h.waitStoredReceived("s1", pages)

	// What each page shows now, and what it must show after the change.
	heading := map[string][2]string{"boots-hub": {"Related Articles", "Artículos relacionados"}}
	for _, id := range articles {
		heading[id] = [2]string{"Related Reading", "Lecturas relacionadas"}
	}
	emitted := map[string]int{}
	for _, id := range pages {
		last, _ := h.inserted.latestFor(t, "s1", id)
		if !strings.Contains(last.HTML, heading[id][0]) {
			t.Fatalf("page %s linked without its %q section, which the test changes:\n%s", id, heading[id][0], last.HTML)
		}
		emitted[id] = len(h.inserted.insertedFor(t, "s1", id))
	}
	fanouts := h.metricTotal("interlinker_events_out_total", `subject="links.fanout"`)

	const spanish = `{"max_exact_anchor_per_target": 100, "review_score": 0,
		"related_articles_heading": "Artículos relacionados", "related_reading_heading": "Lecturas relacionadas"}`
	h.publish(siteUpdateWithOverrides(t, "s1", "site-s1-es", spanish))
	const why = "site structure or policy changed (site.updated site-s1-es)"
	changedFor := func(id string) bool {
		for _, e := range h.inserted.insertedFor(t, "s1", id) {
			if strings.Contains(e.Reason, why) {
				return true
			}
		}
		return false
	}
	waitFor(t, waitLong, "every page emitted again for the change", func() bool {
		for _, id := range pages {
			if !changedFor(id) {
				return false
			}
		}
		return true
	})
	h.waitIdle(waitLong)
	h.waitStoredReceived("s1", pages)
	for _, id := range pages {
		last, _ := h.inserted.latestFor(t, "s1", id)
		if !strings.Contains(last.HTML, heading[id][1]) || strings.Contains(last.HTML, heading[id][0]) {
			t.Errorf("page %s ends with HTML lacking %q or still carrying %q:\n%s", id, heading[id][1], heading[id][0], last.HTML)
		}
	}
	if got := h.metricTotal("interlinker_events_out_total", `subject="links.fanout"`); got <= fanouts {
		t.Errorf("links.fanout sent %v times, %v before the change: the re-plans were not paged through it", got, fanouts)
	}

	// The same site.updated again, under a new id: applied (it is later
	// in the stream), but nothing planning reads has changed.
	for _, id := range pages {
		emitted[id] = len(h.inserted.insertedFor(t, "s1", id))
	}
	h.publish(siteUpdateWithOverrides(t, "s1", "site-s1-es-again", spanish))
	h.waitIdle(waitLong)
	for _, id := range pages {
		if n := len(h.inserted.insertedFor(t, "s1", id)); n != emitted[id] {
			t.Errorf("page %s emitted %d more time(s) after an identical site.updated, want none", id, n-emitted[id])
		}
	}
}
