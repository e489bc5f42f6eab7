// Package store owns interlinker's state in PostgreSQL: the site projections,
// pages, links, link map, the inbox of applied events and the outbox of
// events to publish. All SQL lives here.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/migrations"
)

// Store is the handle on the database.
type Store struct {
	pool  *pgxpool.Pool
	sites sync.Map // site id → cachedSite
	// legacyInbox is set while inbox rows from before event identity
	// (site, source, id) remain; claims then also honour those rows.
	legacyInbox atomic.Bool
	// serverConnections is what the server lets clients open
	// (max_connections − superuser_reserved_connections); 0 if unread.
	serverConnections int
	log               *slog.Logger
}

// Options tune the connection pool.
type Options struct {
	MaxConns int32
	// FitToServer makes MaxConns a default: a pool larger than the
	// connections the server allows is cut to them, as a default pool
	// would otherwise fail with "too many clients" under load.
	FitToServer bool
	// MustExist refuses a missing database instead of creating it: a
	// client verb given a mistyped --database-url would otherwise make and
	// migrate an empty database and answer from it (an API client trial's
	// "token revoke" found "no live token" so).
	MustExist bool
	// Logger takes the database's creation and each migration applied;
	// nil is slog.Default(). A service gives its own, so that these lines
	// go where its other lines go (a test's are kept for its failure).
	Logger *slog.Logger
}

// Open connects to the database at url, creating the database if it does not
// exist and applying every pending migration.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	limit, err := ensureDatabase(ctx, cfg.ConnConfig, !opts.MustExist, logger)
	if err != nil {
		return nil, err
	}
	if opts.FitToServer && limit > 0 && cfg.MaxConns > int32(limit) {
		cfg.MaxConns = int32(limit)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database %s: %w", cfg.ConnConfig.Database, err)
	}
	s := &Store{pool: pool, serverConnections: limit, log: logger}
	if err := s.Migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.checkLegacyInbox(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// ensureDatabase creates the configured database when it is missing and
// create is set (else a missing one is an error), through
// the server's maintenance database. It tries the database itself first:
// a production role may not be allowed to connect to "postgres". It
// returns the connections the server lets clients open (0 if it could not
// tell).
func ensureDatabase(ctx context.Context, cfg *pgx.ConnConfig, create bool, logger *slog.Logger) (int, error) {
	name := cfg.Database
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		defer conn.Close(ctx)
		return connectionLimit(ctx, conn), nil
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // 3D000: invalid_catalog_name, no such database
		return 0, fmt.Errorf("connect to database %s: %w", name, err)
	}
	if !create {
		return 0, fmt.Errorf("database %s does not exist: check --database-url (serve creates the service's database)", name)
	}
	maint := cfg.Copy()
	maint.Database = "postgres"
	conn, err = pgx.ConnectConfig(ctx, maint)
	if err != nil {
		return 0, fmt.Errorf("connect to postgres maintenance database: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "42P04") { // 42P04: created meanwhile by another process
		return 0, fmt.Errorf("create database %s: %w", name, err)
	}
	if err == nil {
		logger.Info("created database", "database", name)
	}
	return connectionLimit(ctx, conn), nil
}

// connectionLimit is max_connections − superuser_reserved_connections, the
// connections open to a role without superuser; 0 when it cannot be read.
func connectionLimit(ctx context.Context, conn *pgx.Conn) int {
	var n int
	err := conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int
		- current_setting('superuser_reserved_connections')::int`).Scan(&n)
	if err != nil {
		return 0
	}
	return n
}

// ServerConnections is what the server lets clients open
// (max_connections − superuser_reserved_connections), read at Open; 0 if
// it could not be read.
func (s *Store) ServerConnections() int { return s.serverConnections }

// MaxConns is the size of the connection pool.
func (s *Store) MaxConns() int32 { return s.pool.Config().MaxConns }

// Migrate applies the embedded migrations under a session lock, so replicas
// starting together migrate once.
func (s *Store) Migrate(ctx context.Context) error {
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	return migrate(ctx, db, s.log)
}

func migrate(ctx context.Context, db *sql.DB, logger *slog.Logger) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range results {
		logger.Info("applied migration", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}

// Close releases every connection.
func (s *Store) Close() { s.pool.Close() }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Tx is one transaction; every repository method that changes state runs on
// a Tx so the change, its inbox row and its outbox rows commit together.
//
// The transaction is driven by hand on a pooled connection so that BEGIN
// travels with the first statement or batch, and the queued writes travel
// with COMMIT: a stage costs two round trips fewer than with a separate
// BEGIN and COMMIT. Writes whose outcome nobody reads back within the
// transaction (links, outcomes, the outbox row, the count queue) are queued;
// reads never see queued writes, so a handler reads everything before it
// writes. A connection released mid-transaction is closed by the pool.
//
// A statement whose answer a stage needs only together with later reads
// (the page saved before it is planned, the plan replaced before it is
// made again) is queued ahead: it travels in front of the transaction's
// next round trip, in order, instead of costing one of its own.
type Tx struct {
	conn   *pgx.Conn
	store  *Store
	begun  bool
	ahead  pgx.Batch
	writes pgx.Batch
	// generic runs every statement of the transaction on its generic plan
	// (InGenericTx); otherwise only the queued writes do.
	generic bool
	// pageUpdates are the page row updates in writes that later updates of
	// the same rows join (queuePageUpdate).
	pageUpdates map[string]*pageUpdate
	// heldPlans are the plans ReplaceLinks queued, by page, while no
	// statement on links came after them.
	heldPlans map[string]*heldPlan
}

// InTx runs fn in a transaction and commits it if fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	return s.inTx(ctx, false, fn)
}

// InGenericTx is InTx with every statement on a generic plan, planned once
// a session (plan_cache_mode = force_generic_plan for the transaction).
// An event handler's statements find a page, its links and its targets
// through indexes by key, cluster or term, which a generic plan does as
// well as one planned for the values; but Postgres re-plans a statement on
// every execution when its generic plan looks costlier than the custom
// ones (an array of one cluster costed as ten): in a burst of 2,000 pages
// the statements were planned 10,532 times, 1.45 s against 8.23 s of
// execution. Reads whose plan should follow their values (the outbox relay's
// queue, an audit's batches) keep InTx.
func (s *Store) InGenericTx(ctx context.Context, fn func(*Tx) error) error {
	return s.inTx(ctx, true, fn)
}

func (s *Store) inTx(ctx context.Context, generic bool, fn func(*Tx) error) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer c.Release()
	t := &Tx{conn: c.Conn(), store: s, generic: generic}
	if err := fn(t); err != nil {
		t.rollback(ctx)
		return err
	}
	return t.commit(ctx)
}

// queue adds a write to the batch sent with COMMIT.
func (t *Tx) queue(sql string, args ...any) {
	if strings.Contains(sql, "pages") {
		clear(t.pageUpdates) // a statement on pages comes between: later updates of a row go after it
	}
	if strings.Contains(sql, "links") {
		clear(t.heldPlans) // a statement on links comes between: outcomes go after it
	}
	t.writes.Queue(sql, args...)
}

// SeeWrites sends the writes queued so far with the next read, ahead of
// it, instead of with COMMIT: a stage run in the transaction of the stage
// before it reads what that stage wrote. A plan ReplaceLinks holds stays
// with the writes: ReadPlanPage reads its links from it, and their
// outcomes join it.
func (t *Tx) SeeWrites() {
	var held []*pgx.QueuedQuery
	for _, q := range t.writes.QueuedQueries {
		if t.holds(q) {
			held = append(held, q)
		} else {
			t.ahead.QueuedQueries = append(t.ahead.QueuedQueries, q)
		}
	}
	t.writes = pgx.Batch{QueuedQueries: held}
	clear(t.pageUpdates)
}

// holds reports whether q is the statement of a held plan.
func (t *Tx) holds(q *pgx.QueuedQuery) bool {
	for _, h := range t.heldPlans {
		if h.query == q {
			return true
		}
	}
	return false
}

// commit sends the queued writes and COMMIT in one round trip.
func (t *Tx) commit(ctx context.Context) error {
	if !t.begun && t.writes.Len() == 0 && t.ahead.Len() == 0 {
		return nil
	}
	var tag pgconn.CommandTag
	if t.writes.Len() > 0 && !t.generic {
		// The queued writes find their rows by key (a page, its links, an
		// outbox row), which a cached generic plan does as well as a fresh
		// one; planning each anew cost about 6% of the server's time in a
		// burst. Reads keep the session's choice (InGenericTx: they too).
		t.writes.QueuedQueries = append([]*pgx.QueuedQuery{{SQL: genericPlans}}, t.writes.QueuedQueries...)
	}
	t.writes.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error { tag = ct; return nil })
	if err := t.sendBatch(ctx, &t.writes); err != nil {
		t.rollback(ctx)
		return fmt.Errorf("commit: %w", err)
	}
	if tag.String() != "COMMIT" {
		return fmt.Errorf("commit: the transaction was rolled back (%s)", tag)
	}
	return nil
}

// rollbackTimeout bounds a ROLLBACK: on a connection that no longer
// answers it would otherwise wait for ever. A connection released with its
// transaction still open is closed by the pool.
const rollbackTimeout = 5 * time.Second

func (t *Tx) rollback(ctx context.Context) {
	if t.begun {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_, _ = t.conn.Exec(ctx, "ROLLBACK")
	}
}

// sendBatch sends a batch behind what is queued ahead, opening the
// transaction in front of both if no statement has yet.
func (t *Tx) sendBatch(ctx context.Context, b *pgx.Batch) error {
	if t.ahead.Len() > 0 {
		b.QueuedQueries = append(t.ahead.QueuedQueries, b.QueuedQueries...)
		t.ahead = pgx.Batch{}
	}
	if !t.begun {
		t.begun = true
		b.QueuedQueries = append(t.opening(), b.QueuedQueries...)
	}
	return t.conn.SendBatch(ctx, b).Close()
}

// genericPlans makes the rest of the transaction run on generic plans.
const genericPlans = "SET LOCAL plan_cache_mode = force_generic_plan"

// opening is what opens the transaction, sent ahead of its first
// statements.
func (t *Tx) opening() []*pgx.QueuedQuery {
	if t.generic {
		return []*pgx.QueuedQuery{{SQL: "BEGIN"}, {SQL: genericPlans}}
	}
	return []*pgx.QueuedQuery{{SQL: "BEGIN"}}
}

// begin opens the transaction, and sends what is queued ahead, before a
// statement sent on its own.
func (t *Tx) begin(ctx context.Context) error {
	if t.begun && t.ahead.Len() == 0 {
		return nil
	}
	if t.ahead.Len() > 0 {
		return t.sendBatch(ctx, &pgx.Batch{}) // each statement ahead says what it was
	}
	if err := t.sendBatch(ctx, &pgx.Batch{}); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	return nil
}

func (t *Tx) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.begin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.conn.Exec(ctx, sql, args...)
}

func (t *Tx) query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.begin(ctx); err != nil {
		return nil, err
	}
	return t.conn.Query(ctx, sql, args...)
}

func (t *Tx) queryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.begin(ctx); err != nil {
		return errRow{err}
	}
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *Tx) copyFrom(ctx context.Context, table pgx.Identifier, columns []string, rows pgx.CopyFromSource) (int64, error) {
	if err := t.begin(ctx); err != nil {
		return 0, err
	}
	return t.conn.CopyFrom(ctx, table, columns, rows)
}

// errRow is a row whose Scan reports why the statement was never sent.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// ClaimEvent records that consumer applies the event. It reports false when
// the consumer applied it before: the caller must then change nothing.
func (t *Tx) ClaimEvent(ctx context.Context, consumer string, id events.Identity) (bool, error) {
	tag, err := t.exec(ctx, claimSQL, t.store.claimArgs(consumer, id)...)
	if err != nil {
		return false, fmt.Errorf("claim event %s for %s: %w", id.MsgID(), consumer, err)
	}
	return tag.RowsAffected() == 1, nil
}

// claimSQL inserts the inbox row of an event unless the consumer holds it,
// or, while rows from before event identity remain ($5), holds a row for
// the same id with no site or source.
const claimSQL = `INSERT INTO inbox (consumer, site_id, source, event_id)
	SELECT $1, $2, $3, $4
	WHERE NOT $5::boolean OR NOT EXISTS (SELECT 1 FROM inbox
		WHERE consumer = $1 AND site_id = '' AND source = '' AND event_id = $4)
	ON CONFLICT DO NOTHING`

func (s *Store) claimArgs(consumer string, id events.Identity) []any {
	return []any{consumer, id.SiteID, id.Source, id.ID, s.legacyInbox.Load()}
}

// checkLegacyInbox notes whether inbox rows without an identity remain.
func (s *Store) checkLegacyInbox(ctx context.Context) error {
	var legacy bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM inbox WHERE site_id = '' AND source = '')`).Scan(&legacy)
	if err != nil {
		return fmt.Errorf("look for inbox rows without identity: %w", err)
	}
	s.legacyInbox.Store(legacy)
	return nil
}

// DropDatabase removes the database named in url, closing its sessions; the
// demo uses it to start from a clean slate.
func DropDatabase(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to postgres maintenance database: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// statsTables are the tables the pipeline's statements look pages and
// links up in.
var statsTables = []string{"pages", "links", "link_map", "link_snapshots"}

// KeepStatistics analyzes each of the pipeline's tables that has more than
// doubled (and grown by at least minStatsGrowth rows) since it was last
// analyzed, or that holds rows and was never analyzed. Until its first
// ANALYZE the planner takes a site's rows for a small part of a table
// (site_id = $1 at its default 0.5%) and will find one page through the
// index of the site's URLs, reading every page of the site: in a burst on
// a new database, 867 of 3,795 hub lookups did so while the first ANALYZE
// waited for 200 rows, and 465 with this rule, which still waits up to
// statsInterval for its first look.
// Sessions plan a prepared statement once for good (a generic plan) after
// its first executions: planned while a table was small, with
// nothing to tell its indexes apart, a statement can read every link of a
// site through the (site, target) index to find one page's links, and
// keep doing so as the table grows. Analyzing replans them with what the
// table holds now. Autovacuum does the same, but only after its nap
// (a minute by default) and at 10% growth of tables it has seen, while a
// burst on a new site doubles them every few seconds. It reports the
// tables analyzed; a table another session is analyzing is skipped.
func (s *Store) KeepStatistics(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
		WHERE s.schemaname = current_schema() AND s.relname = ANY($1)
		  AND (s.n_live_tup >= $2 + 2 * GREATEST(c.reltuples, 0)
		       -- never analyzed, and rows written: the file's size tells at once,
		       -- where n_live_tup lags by up to a second per session
		       OR c.reltuples < 0 AND pg_relation_size(c.oid) > 0)
		ORDER BY s.relname`, statsTables, minStatsGrowth)
	if err != nil {
		return nil, fmt.Errorf("find tables to analyze: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		return nil, err
	}
	ids := make([]string, len(tables))
	for i, t := range tables {
		ids[i] = pgx.Identifier{t}.Sanitize()
	}
	if _, err := s.pool.Exec(ctx, "ANALYZE (SKIP_LOCKED) "+strings.Join(ids, ", ")); err != nil {
		return nil, fmt.Errorf("analyze %s: %w", strings.Join(tables, ", "), err)
	}
	return tables, nil
}

// minStatsGrowth is how many rows a table grows by at least before
// KeepStatistics analyzes it again.
const minStatsGrowth = 200
