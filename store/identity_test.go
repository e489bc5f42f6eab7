package store

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/migrations"
	"github.com/interlinker/interlinker/store/storetest"
)

// migratedTo creates the test database and migrates it up to version.
func migratedTo(t *testing.T, ctx context.Context, url string, version int64) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ensureDatabase(ctx, cfg, true, slog.Default()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", stdlib.RegisterConnConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
}

// claimer claims events for the planner, each in its own transaction, and
// reports whether the claim was new.
func claimer(t *testing.T, s *Store) func(events.Identity) bool {
	return func(id events.Identity) bool {
		t.Helper()
		var claimed bool
		err := s.InTx(t.Context(), func(tx *Tx) error {
			var err error
			claimed, err = tx.ClaimEvent(t.Context(), "planner", id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return claimed
	}
}

func TestClaimsAreKeyedBySiteSourceAndID(t *testing.T) {
	s := openStore(t)
	claim := claimer(t, s)
	first := events.Identity{SiteID: "a", Source: "cms", ID: "1"}
	for what, id := range map[string]events.Identity{
		"first":          first,
		"another site":   {SiteID: "b", Source: "cms", ID: "1"},
		"another source": {SiteID: "a", Source: "cms-2", ID: "1"},
	} {
		if !claim(id) {
			t.Errorf("%s: not claimed", what)
		}
	}
	if claim(first) {
		t.Error("the same (site, source, id) was claimed twice")
	}
}

func TestRowsFromBeforeEventIdentityAreMigratedAndStillHonoured(t *testing.T) {
	ctx := t.Context()
	url := storetest.NewDatabase(t)
	migratedTo(t, ctx, url, 8)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	payload := `{"specversion":"1.0","id":"links.planned-x","source":"interlinker","type":"links.planned","siteid":"shop/eu","data":{}}`
	if _, err := conn.Exec(ctx, `INSERT INTO inbox (consumer, event_id) VALUES ('planner', 'old-1');
		INSERT INTO outbox (event_id, subject, payload) VALUES ('links.planned-x', 'links.planned', convert_to('`+payload+`', 'UTF8'))`); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if claimer(t, s)(events.Identity{SiteID: "shop", Source: "cms", ID: "old-1"}) {
		t.Error("an event applied before the migration was claimed again")
	}
	var msgID string
	var size int
	if err := conn.QueryRow(ctx, `SELECT msg_id, size FROM outbox WHERE event_id = 'links.planned-x'`).Scan(&msgID, &size); err != nil {
		t.Fatal(err)
	}
	want := events.Identity{SiteID: "shop/eu", Source: "interlinker", ID: "links.planned-x"}.MsgID()
	if msgID != want || size != len(payload) {
		t.Errorf("migrated outbox row: msg_id %q size %d, want %q %d", msgID, size, want, len(payload))
	}
}

func TestOpeningAnExistingDatabaseNeverConnectsToTheMaintenanceDatabase(t *testing.T) {
	ctx := t.Context()
	url := storetest.NewDatabase(t)
	first, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	proxy := storetest.NewProxy(t, "127.0.0.1:5432")
	s, err := Open(ctx, storetest.WithHost(t, url, proxy.Addr()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, db := range proxy.Databases() {
		if db == "postgres" {
			t.Fatalf("connected to the maintenance database: %v", proxy.Databases())
		}
	}
	if len(proxy.Databases()) == 0 {
		t.Fatal("the proxy saw no connection")
	}
}
