package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/domain/site"
)

// SiteRecord is a site's projected structure and its policy overrides.
type SiteRecord struct {
	Structure site.Structure
	Overrides json.RawMessage
}

// StructureOrder is where a site.updated event sits in the order the
// broker stored them: its stream's creation time (a recreated stream
// starts a new, later order) and its sequence in the stream.
type StructureOrder struct {
	StreamCreated time.Time
	Seq           uint64
}

// StructureSaved is what SaveStructure did.
type StructureSaved struct {
	// Applied is false when the stored structure came later in the
	// broker's order: nothing was saved.
	Applied bool
	// Changed is true when the structure was applied and its digest
	// differs from the one stored before: what planning reads of the site
	// changed, and its pages may plan otherwise. A site's first structure,
	// or one stored before digests were kept, counts as changed.
	Changed bool
}

// SaveStructure replaces a site's structure, unless the stored one came
// later in the broker's order; then it changes nothing and reports it not
// applied. The order is the broker's, not the producer's clock: an event's
// time is optional, and concurrent workers may apply two updates in either
// order. digest is planning.StructureDigest of st and its resolved policy,
// kept to tell whether the next structure changes anything.
func (t *Tx) SaveStructure(ctx context.Context, st site.Structure, overrides json.RawMessage, digest []byte,
	order StructureOrder, stampedAt *time.Time) (StructureSaved, error) {
	if len(overrides) == 0 {
		overrides = json.RawMessage(`{}`)
	}
	// The row is locked before its digest is read, as the update below
	// would lock it: a structure another worker applies meanwhile is then
	// the one compared with, not one it replaced, whose digest could match
	// this one while pages re-planned under it do not. NO KEY UPDATE, as
	// the update takes, lets pages inserted meanwhile check their key.
	var previous []byte
	err := t.queryRow(ctx, `SELECT structure_digest FROM sites WHERE id = $1 FOR NO KEY UPDATE`, st.Site.ID).Scan(&previous)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return StructureSaved{}, fmt.Errorf("lock site %s: %w", st.Site.ID, err)
	}
	tag, err := t.exec(ctx, `
		INSERT INTO sites (id, base_url, name, policy, overrides, structure_event_at, structure_stream_created,
			structure_stream_seq, structure_digest, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
		ON CONFLICT (id) DO UPDATE SET
			base_url = EXCLUDED.base_url, name = EXCLUDED.name, policy = EXCLUDED.policy,
			overrides = EXCLUDED.overrides, structure_event_at = EXCLUDED.structure_event_at,
			structure_stream_created = EXCLUDED.structure_stream_created,
			structure_stream_seq = EXCLUDED.structure_stream_seq,
			structure_digest = EXCLUDED.structure_digest, updated_at = now(),
			structure_version = sites.structure_version + 1
		WHERE sites.structure_stream_created IS NULL
		   OR (EXCLUDED.structure_stream_created, EXCLUDED.structure_stream_seq)
		      > (sites.structure_stream_created, sites.structure_stream_seq)`,
		st.Site.ID, st.Site.BaseURL, st.Site.Name, st.Site.Policy, overrides, stampedAt, order.StreamCreated, int64(order.Seq), digest)
	if err != nil {
		return StructureSaved{}, fmt.Errorf("save site %s: %w", st.Site.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return StructureSaved{}, nil
	}
	saved := StructureSaved{Applied: true, Changed: previous == nil || !bytes.Equal(previous, digest)}
	for _, table := range []string{"sectors", "attributes", "clusters"} {
		if _, err := t.exec(ctx, `DELETE FROM `+table+` WHERE site_id = $1`, st.Site.ID); err != nil {
			return StructureSaved{}, fmt.Errorf("clear %s of site %s: %w", table, st.Site.ID, err)
		}
	}
	sectors := make([][]any, len(st.Sectors))
	for i, s := range st.Sectors {
		sectors[i] = []any{st.Site.ID, s.ID, s.Name, s.URL, i}
	}
	if _, err := t.copyFrom(ctx, pgx.Identifier{"sectors"}, []string{"site_id", "id", "name", "url", "position"}, pgx.CopyFromRows(sectors)); err != nil {
		return StructureSaved{}, fmt.Errorf("save sectors of site %s: %w", st.Site.ID, err)
	}
	attrs := make([][]any, len(st.Attributes))
	for i, a := range st.Attributes {
		attrs[i] = []any{st.Site.ID, a.ID, a.Name, nonNil(a.Values), i}
	}
	if _, err := t.copyFrom(ctx, pgx.Identifier{"attributes"}, []string{"site_id", "id", "name", "values", "position"}, pgx.CopyFromRows(attrs)); err != nil {
		return StructureSaved{}, fmt.Errorf("save attributes of site %s: %w", st.Site.ID, err)
	}
	clusters := make([][]any, len(st.Clusters))
	for i, c := range st.Clusters {
		attrJSON, err := json.Marshal(nonNilMap(c.Attributes))
		if err != nil {
			return StructureSaved{}, fmt.Errorf("encode attributes of cluster %s: %w", c.ID, err)
		}
		clusters[i] = []any{st.Site.ID, c.ID, c.SectorID, c.Name, c.PrimaryKeyword, nonNil(c.Keywords), attrJSON, i}
	}
	if _, err := t.copyFrom(ctx, pgx.Identifier{"clusters"},
		[]string{"site_id", "id", "sector_id", "name", "primary_keyword", "keywords", "attributes", "position"},
		pgx.CopyFromRows(clusters)); err != nil {
		return StructureSaved{}, fmt.Errorf("save clusters of site %s: %w", st.Site.ID, err)
	}
	return saved, nil
}

// LoadSiteAt returns the site's structure at the version the caller read in
// this transaction, from memory when it is there.
func (t *Tx) LoadSiteAt(ctx context.Context, siteID string, version int64) (rec SiteRecord, found bool, err error) {
	if cached, ok := t.store.sites.Load(siteID); ok && cached.(cachedSite).version == version {
		return cached.(cachedSite).record, true, nil
	}
	rec, found, err = loadSite(ctx, txQuerier{t}, siteID)
	if err != nil || !found {
		return rec, found, err
	}
	t.store.sites.Store(siteID, cachedSite{version: version, record: rec})
	return rec, true, nil
}

// cachedSite is a structure as read at one structure_version. Records are
// never modified after caching, so readers may share them.
type cachedSite struct {
	version int64
	record  SiteRecord
}

// LoadSite reads a site's structure outside a transaction.
func (s *Store) LoadSite(ctx context.Context, siteID string) (SiteRecord, bool, error) {
	return loadSite(ctx, s.pool, siteID)
}

// txQuerier lets read helpers shared with the pool run inside a Tx.
type txQuerier struct{ t *Tx }

func (q txQuerier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return q.t.query(ctx, sql, args...)
}

func (q txQuerier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return q.t.queryRow(ctx, sql, args...)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func loadSite(ctx context.Context, q querier, siteID string) (SiteRecord, bool, error) {
	var rec SiteRecord
	st := &rec.Structure
	err := q.QueryRow(ctx, `SELECT id, base_url, name, policy, overrides FROM sites WHERE id = $1`, siteID).
		Scan(&st.Site.ID, &st.Site.BaseURL, &st.Site.Name, &st.Site.Policy, &rec.Overrides)
	if err == pgx.ErrNoRows {
		return SiteRecord{}, false, nil
	}
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load site %s: %w", siteID, err)
	}
	rows, err := q.Query(ctx, `SELECT id, name, url FROM sectors WHERE site_id = $1 ORDER BY position`, siteID)
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load sectors of site %s: %w", siteID, err)
	}
	st.Sectors, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (site.Sector, error) {
		var s site.Sector
		return s, r.Scan(&s.ID, &s.Name, &s.URL)
	})
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load sectors of site %s: %w", siteID, err)
	}
	rows, err = q.Query(ctx, `SELECT id, name, values FROM attributes WHERE site_id = $1 ORDER BY position`, siteID)
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load attributes of site %s: %w", siteID, err)
	}
	st.Attributes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (site.Attribute, error) {
		var a site.Attribute
		return a, r.Scan(&a.ID, &a.Name, &a.Values)
	})
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load attributes of site %s: %w", siteID, err)
	}
	rows, err = q.Query(ctx, `SELECT id, sector_id, name, primary_keyword, keywords, attributes
		FROM clusters WHERE site_id = $1 ORDER BY position`, siteID)
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load clusters of site %s: %w", siteID, err)
	}
	st.Clusters, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (site.Cluster, error) {
		var c site.Cluster
		return c, r.Scan(&c.ID, &c.SectorID, &c.Name, &c.PrimaryKeyword, &c.Keywords, &c.Attributes)
	})
	if err != nil {
		return SiteRecord{}, false, fmt.Errorf("load clusters of site %s: %w", siteID, err)
	}
	st.BuildIndex()
	return rec, true, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string][]string) map[string][]string {
	if m == nil {
		return map[string][]string{}
	}
	return m
}
