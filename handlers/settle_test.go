package handlers

import (
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/store"
)

func TestASiteWhosePassFailsWaitsLongerEachTimeUntilOneSucceeds(t *testing.T) {
	var b settleBackoff
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if !b.due("s", now) {
		t.Fatal("a site that never failed is not due")
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		if got := b.failed("s", now); got != want {
			t.Errorf("failure %d: wait %s, want %s", i+1, got, want)
		}
	}
	if b.due("s", now.Add(3*time.Second)) || !b.due("s", now.Add(4*time.Second)) {
		t.Error("the site is due before its wait ends, or not after")
	}
	if !b.due("other", now) {
		t.Error("another site waits for this one's failures")
	}
	for range 10 {
		b.failed("s", now)
	}
	if got := b.failed("s", now); got != time.Minute {
		t.Errorf("wait after many failures %s, want at most a minute", got)
	}
	b.clear("s")
	if !b.due("s", now) {
		t.Error("a site whose pass succeeded still waits")
	}
}

func TestAPassCountsInBodyAnchors(t *testing.T) {
	tally := newAnchorTally()
	placed := func(source, target, anchor string) link.Link {
		return link.Link{SourcePageID: source, TargetPageID: target, Anchor: anchor, Zone: link.ZoneInBody, Status: link.StatusInserted}
	}
	tally.add([]link.Link{placed("a", "hub", "Hiking Boots")})
	own := []link.Link{placed("b", "hub", "hiking boots"),
		{SourcePageID: "b", TargetPageID: "hub", Anchor: "Hub", Zone: link.ZoneRelatedSection, Status: link.StatusInserted}}
	tally.add(own)
	if got := tally.counts["hub"]["hiking boots"]; got != 2 {
		t.Errorf("the pass counts %d uses of the anchor, want 2 (the list's title is not an in-body anchor)", got)
	}
}

func TestAPageWhoseScoresAloneMovedIsTheSamePageToItsPublisher(t *testing.T) {
	before := link.Link{ID: "l1", TargetPageID: "t", Type: link.TypeHorizontal, Zone: link.ZoneInBody, Status: link.StatusVerified,
		Anchor: "trail boots", Paragraph: 2, Score: 63.1, Explanation: "score 63.10"}
	after := before
	after.Score, after.Explanation = 64.7, "score 64.70"
	page := store.SettlePage{Page: store.PageRecord{LinkedHTML: "<p>x</p>"}, Links: []link.Link{before}}
	material, err := sameResult(page, []link.Link{after}, "<p>x</p>", nil, outcomes)
	if err != nil || !material {
		t.Errorf("same outcomes: %v (%v), want true", material, err)
	}
	whole, err := sameResult(page, []link.Link{after}, "<p>x</p>", nil, linkResults)
	if err != nil || whole {
		t.Errorf("same records: %v (%v), want false: the score moved", whole, err)
	}
	moved := after
	moved.Paragraph = 3
	if material, _ := sameResult(page, []link.Link{moved}, "<p>x</p>", nil, outcomes); material {
		t.Error("a link placed in another paragraph counts as the same outcome")
	}
	if material, _ := sameResult(page, []link.Link{after}, "<p>y</p>", nil, outcomes); material {
		t.Error("other HTML counts as the same outcome")
	}
}

func TestScoresThatReorderAPlansLinksLeaveItTheSamePageToItsPublisher(t *testing.T) {
	first := link.Link{ID: "l1", TargetPageID: "a", Type: link.TypeVerticalDown, Zone: link.ZoneInBody, Status: link.StatusVerified,
		Anchor: "bed leveling", Paragraph: 2, Score: 0}
	second := link.Link{ID: "l2", TargetPageID: "b", Type: link.TypeVerticalDown, Zone: link.ZoneInBody, Status: link.StatusVerified,
		Anchor: "resin printing", Paragraph: 3, Score: 0}
	page := store.SettlePage{Page: store.PageRecord{LinkedHTML: "<p>x</p>"}, Links: []link.Link{first, second}}
	rescoredFirst, rescoredSecond := first, second
	rescoredFirst.Score, rescoredSecond.Score = -1.25, -1
	material, err := sameResult(page, []link.Link{rescoredSecond, rescoredFirst}, "<p>x</p>", nil, outcomes)
	if err != nil || !material {
		t.Errorf("the same links listed in another order by their new scores: same outcome %v (%v), want true", material, err)
	}
}
