package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
	"github.com/interlinker/interlinker/store/storetest"
)

func TestAuditAllSitesRequestsOneAuditForEverySiteTheDatabaseKnows(t *testing.T) {
	srv, p, ctx := provisionedServer(t)
	dbURL := storetest.NewDatabase(t)
	st, err := store.Open(ctx, dbURL, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	// No site yet: nothing is requested, and that is no error.
	out, err := runCapturing(t, "audit", "--all-sites", "--nats-url", srv.ClientURL(), "--database-url", dbURL)
	if err != nil || !strings.Contains(out, "no site is known") {
		t.Fatalf("audit --all-sites on an empty database: %q, %v", out, err)
	}

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO sites (id, base_url, name, policy) VALUES
		('site-b', 'https://b.example', 'B', 'sag'), ('site-a', 'https://a.example', 'A', 'silo')`); err != nil {
		t.Fatal(err)
	}
	out, err = runCapturing(t, "audit", "--all-sites", "--audit-id", "nightly-1", "--nats-url", srv.ClientURL(), "--database-url", dbURL)
	if err != nil {
		t.Fatalf("audit --all-sites: %v", err)
	}
	for _, site := range []string{"site-a", "site-b"} {
		if !strings.Contains(out, "audit nightly-1 of site "+site+" requested") {
			t.Errorf("output does not name the request for %s:\n%s", site, out)
		}
	}

	cons, err := p.js.OrderedConsumer(ctx, "AUDIT", jetstream.OrderedConsumerConfig{FilterSubjects: []string{events.AuditRequested}})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(10, jetstream.FetchMaxWait(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var sites []string
	for m := range batch.Messages() {
		ev, err := events.Decode(m.Data())
		if err != nil {
			t.Fatal(err)
		}
		d, err := events.DecodeData[events.AuditRequestedData](ev)
		if err != nil || d.AuditID != "nightly-1" || d.ClusterID != "" {
			t.Errorf("site %s: audit.requested %+v, %v", ev.SiteID, d, err)
		}
		sites = append(sites, ev.SiteID)
	}
	if !slices.Equal(sites, []string{"site-a", "site-b"}) {
		t.Errorf("audit.requested went to %v, want site-a then site-b", sites)
	}

	for _, args := range [][]string{
		{"audit", "--all-sites", "--site", "site-a"},
		{"audit", "--all-sites", "--wait"},
		{"audit", "--all-sites", "--cluster", "c1"},
		{"audit", "--all-sites", "--report", "nightly-1"},
	} {
		if err := run(args); err == nil || !strings.Contains(err.Error(), "--all-sites") {
			t.Errorf("%v: %v, want it refused", args, err)
		}
	}
}
