-- +goose NO TRANSACTION
-- +goose Up

-- Every primary key and unique index of a per-site table starts with
-- site_id, so the schema can be spread by site (Citus distributing on
-- site_id, or a router from site to database); store/catalog_test.go holds
-- the schema to it. The inbox was keyed (consumer, site_id, source,
-- event_id): the same columns in another order. Claims look rows up by
-- all four, so any order serves them; the new order also serves the look-up
-- for rows without an identity (site_id '').
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS inbox_site_identity ON inbox (site_id, consumer, source, event_id);
-- One statement: the table is never without its key. Uniqueness holds
-- throughout, and a claim's ON CONFLICT names no index.
ALTER TABLE inbox DROP CONSTRAINT IF EXISTS inbox_pkey,
    ADD CONSTRAINT inbox_pkey PRIMARY KEY USING INDEX inbox_site_identity;

-- +goose Down
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS inbox_identity ON inbox (consumer, site_id, source, event_id);
ALTER TABLE inbox DROP CONSTRAINT IF EXISTS inbox_pkey,
    ADD CONSTRAINT inbox_pkey PRIMARY KEY USING INDEX inbox_identity;
