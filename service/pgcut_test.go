package service

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/interlinker/interlinker/store/storetest"
)

func TestAPostgresOutageOfTenSecondsLosesNothingAndDeadLettersNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("cuts Postgres away for 10 seconds")
	}
	cfg := testConfig(t)
	proxy := storetest.NewProxy(t, "127.0.0.1:5432")
	cfg.DatabaseURL = storetest.WithHost(t, cfg.DatabaseURL, proxy.Addr())
	h := startHarness(t, cfg)
	const siteID = "pg-cut"
	h.siteWithLinkedHub(siteID)

	const before, during = 10, 10
	for i := range before {
		h.publish(pageEvent(siteID, fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, waitLong, "the first pages linked", func() bool { return h.inserted.pageCount(siteID) >= 4 })
	proxy.Cut()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	readyErr := h.svc.Ready(ctx)
	cancel()
	if readyErr == nil {
		t.Errorf("ready while Postgres is away")
	}
	// Pages keep arriving while the database is away: JetStream holds
	// them until a handler can take them.
	for i := before; i < before+during; i++ {
		h.publish(pageEvent(siteID, fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
	}
	time.Sleep(10 * time.Second)
	proxy.Restore()

	pages := before + during + 1
	waitFor(t, 2*time.Minute, "every page linked after the outage", func() bool { return h.inserted.pageCount(siteID) == pages })
	h.waitIdle(2 * time.Minute)
	ctx, cancel = context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := h.svc.Ready(ctx); err != nil {
		t.Errorf("not ready once Postgres is back: %v", err)
	}
	if dead := h.dead.all(); len(dead) > 0 {
		t.Errorf("%d events dead-lettered by a Postgres outage: first %s", len(dead), dead[0].Subject)
	}
	// Every page's last links.inserted is its stored plan: nothing was
	// lost between the bus and the database.
	for pageID := range h.inserted.pagesInserted(siteID) {
		rec, found, err := h.svc.Store().Page(t.Context(), siteID, pageID)
		if err != nil || !found || rec.LinkedHTML == "" {
			t.Errorf("page %s: stored %v, linked HTML %d bytes, %v", pageID, found, len(rec.LinkedHTML), err)
		}
	}
	if n := sqlCounter(t, cfg.DatabaseURL)(`SELECT count(*) FROM pages WHERE site_id = $1`, siteID); n != pages {
		t.Errorf("%d pages stored, want %d", n, pages)
	}
}
