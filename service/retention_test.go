package service

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/interlinker/interlinker/events"
)

func TestAHubKeepsOnlyItsNewestSnapshots(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	site := siteEvent("s1")
	var d events.SiteUpdatedData
	_ = json.Unmarshal(site.Data, &d)
	d.Site.Overrides = json.RawMessage(`{"snapshots_kept": 2}`)
	h.publish(mustEvent(events.SiteUpdated, "s1", "site-s1", d))
	h.publish(hubEvent("s1"))
	waitFor(t, waitLong, "hub linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "boots-hub")) == 1 })
	// Each article arriving alone re-plans the hub, which keeps the plan
	// it replaces.
	for i := range 6 {
		h.publish(pageEvent("s1", fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
		h.waitIdle(waitLong)
	}
	if n := len(h.inserted.insertedFor(t, "s1", "boots-hub")); n < 4 {
		t.Fatalf("hub emitted %d times; the test needs it re-planned more often than it keeps snapshots", n)
	}
	snaps, err := h.svc.Store().Snapshots(t.Context(), "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 2 {
		t.Fatalf("hub has %d snapshots, want the newest 2", len(snaps))
	}
	if snaps[0].ID <= snaps[1].ID || snaps[0].Links < snaps[1].Links {
		t.Errorf("kept snapshots %+v are not the newest", snaps)
	}
}
