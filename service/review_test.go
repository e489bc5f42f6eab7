package service

import (
	"encoding/json"
	"testing"

	"github.com/interlinker/interlinker/events"
)

// Every optional link here scores for review (auto_link_score 100). care
// first suggests its sibling socks; socks is then deleted and care planned
// again without it. care's last links.review must say it has no
// suggestions left, with the sequence of its last links.inserted, or a
// reviewer would be shown a link to a deleted page for ever.
func TestAPageWhoseSuggestionsAreGoneGetsAnEmptyReview(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	h := startHarness(t, cfg)
	reviews := collect(t, h.js, "LINKS", events.LinksReview)
	h.siteWithOverrides("rv", `{"max_exact_anchor_per_target": 100, "auto_link_score": 100, "review_score": 1}`)
	h.publish(hubEvent("rv"))
	h.publish(pageEvent("rv", "socks", "supporting", 1, supportingHTML(2)))
	h.waitIdle(waitLong)
	h.publish(pageEvent("rv", "care", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "care linked", func() bool { return len(h.inserted.insertedFor(t, "rv", "care")) > 0 })
	h.waitIdle(waitLong)

	lastReview := func() (events.LinksReviewData, bool) {
		t.Helper()
		var last events.LinksReviewData
		found := false
		for _, m := range reviews.all() {
			var d events.LinksReviewData
			if m.Event.SiteID != "rv" || json.Unmarshal(m.Event.Data, &d) != nil || d.PageID != "care" {
				continue
			}
			if !found || d.Sequence >= last.Sequence {
				last, found = d, true
			}
		}
		return last, found
	}
	before, ok := lastReview()
	if !ok || len(before.Suggestions) == 0 {
		t.Fatalf("care sent no suggestion while its sibling socks was live: %+v", before)
	}

	h.publish(mustEvent(events.ContentDeleted, "rv", "del-socks-v2", events.ContentDeletedData{PageID: "socks", Version: 2}))
	waitFor(t, waitLong, "care planned again", func() bool {
		last, _ := h.inserted.latestFor(t, "rv", "care")
		return last.Sequence > before.Sequence
	})
	h.waitIdle(waitLong)
	inserted, _ := h.inserted.latestFor(t, "rv", "care")
	waitFor(t, waitLong, "care's review of its last links", func() bool {
		last, _ := lastReview()
		return last.Sequence == inserted.Sequence
	})
	after, _ := lastReview()
	for _, s := range after.Suggestions {
		if s.TargetPageID == "socks" {
			t.Errorf("care's last links.review still suggests the deleted page socks: %+v", after)
		}
	}
	for _, l := range inserted.Links {
		if l.Status == "review" && len(after.Suggestions) == 0 {
			t.Errorf("care's last links.inserted has review link %+v, but its last links.review lists none", l)
		}
	}
}
