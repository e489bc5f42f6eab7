package service

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
)

// queryValue reads one value from the service's database.
func queryValue[T any](t *testing.T, h *harness, sql string, args ...any) T {
	t.Helper()
	var v T
	conn, err := pgx.Connect(t.Context(), h.svc.cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func TestADeleteHandledBeforeItsGenerateKeepsThePageGone(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")

	h.publish(mustEvent(events.ContentDeleted, "s1", "del-care-v2", events.ContentDeletedData{PageID: "care", Version: 2}))
	h.waitIdle(waitLong)
	// The generate and publish of an older version arrive after the delete.
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	var d events.ContentData
	_ = json.Unmarshal(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)).Data, &d)
	h.publish(mustEvent(events.ContentPublished, "s1", "pub-care-v1", d))
	// A page published after them proves the pipeline got past them.
	h.publish(pageEvent("s1", "sizing", "supporting", 1, supportingHTML(2)))
	waitFor(t, waitLong, "the later page linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "sizing")) == 1 })
	h.waitIdle(waitLong)

	if n := len(h.inserted.insertedFor(t, "s1", "care")); n != 0 {
		t.Errorf("the deleted page was linked %d times", n)
	}
	care, found, err := h.svc.Store().Page(t.Context(), "s1", "care")
	if err != nil || !found || care.State != "deleted" || care.Version != 2 {
		t.Errorf("page care: found %v, state %q, version %d (%v); want a deleted tombstone at version 2", found, care.State, care.Version, err)
	}
	if n := queryValue[int64](t, h, `SELECT count(*) FROM link_map WHERE site_id = 's1' AND source_page_id = 'care'`); n != 0 {
		t.Errorf("the deleted page's older publish recorded %d link map rows", n)
	}

	// A newer version brings the page back.
	h.publish(pageEvent("s1", "care", "supporting", 3, supportingHTML(3)))
	waitFor(t, waitLong, "the page's newer version linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) == 1 })
}

func TestAnOlderVersionGoingLiveAfterANewerDraftRecordsItsLinkMap(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "version 1 linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) == 1 })
	linked := h.inserted.insertedFor(t, "s1", "care")[0]
	// The pipeline drafts version 2 while the publisher puts version 1 live.
	h.publish(pageEvent("s1", "care", "supporting", 2, supportingHTML(2)))
	waitFor(t, waitLong, "version 2 linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) == 2 })
	var d events.ContentData
	_ = json.Unmarshal(pageEvent("s1", "care", "supporting", 1, linked.HTML).Data, &d)
	h.publish(mustEvent(events.ContentPublished, "s1", "pub-care-v1", d))
	h.waitIdle(waitLong)

	rows := queryValue[int64](t, h, `SELECT count(*) FROM link_map WHERE site_id = 's1' AND source_page_id = 'care' AND target_page_id = 'boots-hub'`)
	if rows == 0 {
		t.Error("the live version's links to the hub are not in the link map")
	}
	live := queryValue[int64](t, h, `SELECT live_version FROM pages WHERE site_id = 's1' AND id = 'care'`)
	care, _, err := h.svc.Store().Page(t.Context(), "s1", "care")
	if err != nil {
		t.Fatal(err)
	}
	if live != 1 || care.Version != 2 || care.State != "generated" || care.PublishedHTML != linked.HTML {
		t.Errorf("care: live version %d, draft version %d in state %s, published HTML recorded %v; want live 1 beside draft 2",
			live, care.Version, care.State, care.PublishedHTML == linked.HTML)
	}
	if n := len(h.inserted.insertedFor(t, "s1", "care")); n != 2 {
		t.Errorf("care emitted %d times; going live with an older version should re-plan nothing", n)
	}
}

func TestSiteUpdatesApplyInTheOrderTheBrokerStoredThem(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	// The producer's clock runs backwards, one update has no time at all,
	// and the site projector's workers take them concurrently: the last
	// one published is the structure that stands.
	start := time.Now().Add(time.Hour)
	const n = 30
	for i := 1; i <= n; i++ {
		ev := siteEvent("s1")
		var d events.SiteUpdatedData
		_ = json.Unmarshal(ev.Data, &d)
		d.Site.Name = fmt.Sprintf("Shop v%d", i)
		ev = mustEvent(events.SiteUpdated, "s1", fmt.Sprintf("site-s1-v%d", i), d)
		if i != n/2 {
			stamp := start.Add(-time.Duration(i) * time.Minute)
			ev.Time = &stamp
		}
		h.publish(ev)
	}
	h.waitIdle(waitLong)
	rec, found, err := h.svc.Store().LoadSite(t.Context(), "s1")
	if err != nil || !found {
		t.Fatalf("site: found %v, %v", found, err)
	}
	if want := fmt.Sprintf("Shop v%d", n); rec.Structure.Site.Name != want {
		t.Errorf("site name %q, want the last published %q", rec.Structure.Site.Name, want)
	}
}

func TestEachLinksInsertedOfAPageCarriesAHigherSequence(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	for i := range 5 {
		h.publish(pageEvent("s1", fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
	}
	h.publish(pageEvent("s1", "tip-0", "supporting", 2, supportingHTML(9)))
	h.waitIdle(waitLong)
	hub := h.inserted.insertedFor(t, "s1", "boots-hub")
	if len(hub) < 2 {
		t.Fatalf("hub emitted %d times, want it re-planned as its articles arrived", len(hub))
	}
	for _, page := range []string{"boots-hub", "tip-0"} {
		emitted := h.inserted.insertedFor(t, "s1", page)
		// Sequences rise in the order the events go out; a plan replaced
		// before it was validated leaves a gap.
		var newest events.LinksInsertedData
		for _, d := range emitted {
			if d.Sequence <= newest.Sequence {
				t.Errorf("page %s: sequence %d after %d", page, d.Sequence, newest.Sequence)
			}
			newest = d
		}
		rec, _, err := h.svc.Store().Page(t.Context(), "s1", page)
		if err != nil {
			t.Fatal(err)
		}
		if newest.HTML != rec.LinkedHTML || newest.Version != rec.Version {
			t.Errorf("page %s: the highest sequence (version %d) is not the stored plan (version %d)", page, newest.Version, rec.Version)
		}
	}
}
