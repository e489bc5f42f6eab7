package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// listedInRelatedArticles is the set of pages a hub's emission lists.
func listedInRelatedArticles(d events.LinksInsertedData) []string {
	var out []string
	for _, l := range d.Links {
		if l.Type == string(link.TypeVerticalDown) && l.Zone == string(link.ZoneRelatedSection) {
			out = append(out, l.TargetPageID)
		}
	}
	return out
}

// hubPlannedThrice links the fixture hub of site s1, then its articles
// care and sizing, and returns the hub's kept plans: it was planned
// alone, with care, and with care and sizing, so the two plans replaced
// are kept, newest (with care) first.
func hubPlannedThrice(t *testing.T) (*harness, []store.Snapshot) {
	t.Helper()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	h.waitIdle(waitLong)
	h.publish(pageEvent("s1", "sizing", "supporting", 1, supportingHTML(2)))
	h.waitIdle(waitLong)
	snaps, err := h.svc.Store().Snapshots(context.Background(), "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 || !strings.Contains(snaps[0].Reason, "supporting page sizing arrived") {
		t.Fatalf("hub snapshots %+v, want the two replaced plans, newest first", snaps)
	}
	return h, snaps
}

func TestReplanningKeepsSnapshotsAndAnyOneCanBeRestored(t *testing.T) {
	t.Parallel()
	h, snaps := hubPlannedThrice(t)
	ctx := context.Background()
	withCare := snaps[0]

	h.publish(mustEvent(events.LinksRestore, "s1", "restore-hub-1", events.RestoreData{PageID: "boots-hub", SnapshotID: withCare.ID}))
	h.waitIdle(waitLong)
	h.waitStoredReceived("s1", []string{"boots-hub"})
	last, _ := h.inserted.latestFor(t, "s1", "boots-hub")
	if got := listedInRelatedArticles(last); len(got) != 1 || got[0] != "care" || !strings.Contains(last.Reason, "restored snapshot") {
		t.Errorf("after restore the hub lists %v (because %q), want care alone, restored", got, last.Reason)
	}
	if strings.Contains(last.HTML, "/hiking/boots/sizing/") || !strings.Contains(last.HTML, "/hiking/boots/care/") {
		t.Errorf("restored HTML is not the snapshot's:\n%s", last.HTML)
	}
	rows, err := h.svc.Store().LinksFrom(ctx, "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range rows {
		if l.TargetPageID == "sizing" {
			t.Errorf("restored plan still holds %+v", l)
		}
	}
	after, err := h.svc.Store().Snapshots(ctx, "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 3 || !strings.Contains(after[0].Reason, "restoring snapshot") {
		t.Errorf("snapshots after restore %+v, want the plan the restore replaced kept too", after)
	}
}

func TestRestoringASnapshotOfAnotherVersionIsRefusedWithItsReason(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	h.waitIdle(waitLong)
	h.publish(pageEvent("s1", "care", "supporting", 2, supportingHTML(3)))
	h.waitIdle(waitLong)
	snaps, err := h.svc.Store().Snapshots(context.Background(), "s1", "care")
	if err != nil || len(snaps) != 1 || snaps[0].Version != 1 {
		t.Fatalf("snapshots of care %+v (err %v), want the version 1 plan", snaps, err)
	}
	h.publish(mustEvent(events.LinksRestore, "s1", "restore-care-v1", events.RestoreData{PageID: "care", SnapshotID: snaps[0].ID}))
	waitFor(t, waitLong, "restore dead-lettered", func() bool { return len(h.dead.all()) == 1 })
	if reason := h.dead.all()[0].Header.Get(bus.HeaderReason); !strings.Contains(reason, "is of version 1; the page is at version 2") {
		t.Errorf("dead-letter reason %q", reason)
	}
}

func TestPublishingANewerVersionReplansItFromTheStrippedHTML(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	h.waitIdle(waitLong)
	v1 := h.inserted.insertedFor(t, "s1", "care")[0]

	// The editor publishes version 2: our linked HTML with a new paragraph.
	edited := v1.HTML + "<p>New: how to dry wet hiking boots overnight.</p>\n"
	var d events.ContentData
	_ = json.Unmarshal(pageEvent("s1", "care", "supporting", 2, edited).Data, &d)
	h.publish(mustEvent(events.ContentPublished, "s1", "pub-care-v2", d))
	h.waitIdle(waitLong)

	h.waitStoredReceived("s1", []string{"care"})
	emitted := h.inserted.insertedFor(t, "s1", "care")
	last, _ := h.inserted.latestFor(t, "s1", "care")
	if len(emitted) != 2 || last.Version != 2 || !strings.Contains(last.Reason, "version 2 published") {
		t.Fatalf("care emitted %d times, last v%d because %q; want a re-plan of version 2", len(emitted), last.Version, last.Reason)
	}
	if n := strings.Count(last.HTML, `data-interlinker="`); n != 1 {
		t.Errorf("version 2 carries %d inserted links, want the uplink once (the old one stripped first):\n%s", n, last.HTML)
	}
	if !strings.Contains(last.HTML, "dry wet hiking boots overnight") {
		t.Error("the published edit is missing from the re-planned HTML")
	}
	snaps, err := h.svc.Store().Snapshots(context.Background(), "s1", "care")
	if err != nil || len(snaps) != 1 || snaps[0].Version != 1 || snaps[0].Links == 0 {
		t.Errorf("snapshots %+v (err %v), want version 1's plan kept", snaps, err)
	}
}

func TestRestoringASnapshotThatLinksAPageDeletedSinceIsRefusedWithItsReason(t *testing.T) {
	t.Parallel()
	h, snaps := hubPlannedThrice(t)
	ctx := context.Background()
	withCare := snaps[0] // the hub's plan listing care, before sizing came

	h.publish(mustEvent(events.ContentDeleted, "s1", "del-care", events.ContentDeletedData{PageID: "care", Version: 2}))
	h.waitIdle(waitLong)
	before, _ := h.inserted.latestFor(t, "s1", "boots-hub")
	if strings.Contains(before.HTML, "/hiking/boots/care/") {
		t.Fatalf("the hub still links the deleted article:\n%s", before.HTML)
	}

	// The API answers 409 with the same reason, before it queues anything.
	if err := h.svc.Store().CheckSnapshotLinksLive(ctx, "s1", "boots-hub", withCare.ID); !errors.Is(err, store.ErrSnapshotUnusable) ||
		!strings.Contains(err.Error(), "links page care, deleted since") {
		t.Errorf("checking the snapshot's links: %v, want it unusable, naming care", err)
	}
	h.publish(mustEvent(events.LinksRestore, "s1", "restore-hub-care", events.RestoreData{PageID: "boots-hub", SnapshotID: withCare.ID}))
	waitFor(t, waitLong, "restore dead-lettered", func() bool { return len(h.dead.all()) == 1 })
	if reason := h.dead.all()[0].Header.Get(bus.HeaderReason); !strings.Contains(reason, "links page care, deleted since") {
		t.Errorf("dead-letter reason %q, want it to name the deleted page", reason)
	}
	h.waitIdle(waitLong)
	after, _ := h.inserted.latestFor(t, "s1", "boots-hub")
	if strings.Contains(after.HTML, "/hiking/boots/care/") || after.Sequence != before.Sequence {
		t.Errorf("the refused restore changed the hub (sequence %d, was %d):\n%s", after.Sequence, before.Sequence, after.HTML)
	}
}

// A page's later version re-plans its dependants as a change, not an
// arrival (an electronics trial's hub v2 re-planned its articles "hub page
// soundbars arrived").
func TestANewerVersionReplansItsDependantsAsAChange(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	h.waitIdle(waitLong)
	h.publish(pageEvent("s1", "care", "supporting", 2, supportingHTML(1)+"<p>New: how to dry wet hiking boots overnight.</p>\n"))
	h.waitIdle(waitLong)
	snaps, err := h.svc.Store().Snapshots(context.Background(), "s1", "boots-hub")
	if err != nil || len(snaps) == 0 {
		t.Fatalf("hub snapshots %+v (err %v), want the plans the articles replaced", snaps, err)
	}
	if !strings.Contains(snaps[0].Reason, "supporting page care changed (version 2)") {
		t.Errorf("the hub's last re-plan says %q, want it to name care's version 2 as a change", snaps[0].Reason)
	}
	if len(snaps) < 2 || !strings.Contains(snaps[1].Reason, "supporting page care arrived") {
		t.Errorf("hub snapshots %+v, want the one before to say care arrived", snaps)
	}
}
