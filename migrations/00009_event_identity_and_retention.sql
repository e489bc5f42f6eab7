-- +goose NO TRANSACTION
-- +goose Up

-- Heavy migrations run outside one transaction and build their indexes
-- CONCURRENTLY, so writers are never blocked behind a table rewrite; each
-- statement is written to be safe to run again after a failure half-way.

-- An event is identified by (siteid, source, id), as CloudEvents defines
-- identity within a tenant: two producers (or two sites) may use the same
-- id. Rows from before this migration carry no site or source (both ''),
-- and are honoured as "this id, from anyone" until they age out of the
-- inbox's retention.
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS site_id text NOT NULL DEFAULT '';
ALTER TABLE inbox ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS inbox_identity ON inbox (consumer, site_id, source, event_id);
ALTER TABLE inbox DROP CONSTRAINT IF EXISTS inbox_pkey;
ALTER TABLE inbox ADD CONSTRAINT inbox_pkey PRIMARY KEY USING INDEX inbox_identity;
-- Pruning reads the oldest rows first.
CREATE INDEX CONCURRENTLY IF NOT EXISTS inbox_processed_at ON inbox (processed_at);

-- The outbox is keyed by the Nats-Msg-Id its event goes out with
-- (siteid/source/id, see events.MsgID); size lets the relay batch by
-- bytes; page_id says whose delivery a parked row holds up; attempts,
-- last_error and not_before let one failing row wait without stalling the
-- rows behind it.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS msg_id text;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS size int NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS site_id text NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS page_id text NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS attempts int NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS last_error text NOT NULL DEFAULT '';
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS not_before timestamptz NOT NULL DEFAULT '-infinity';
UPDATE outbox SET
    site_id = convert_from(payload, 'UTF8')::jsonb ->> 'siteid',
    msg_id = replace(replace(convert_from(payload, 'UTF8')::jsonb ->> 'siteid', '%', '%25'), '/', '%2F') || '/' ||
             replace(replace(convert_from(payload, 'UTF8')::jsonb ->> 'source', '%', '%25'), '/', '%2F') || '/' ||
             replace(replace(event_id, '%', '%25'), '/', '%2F'),
    size = octet_length(payload)
WHERE msg_id IS NULL;
ALTER TABLE outbox ALTER COLUMN msg_id SET NOT NULL;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS outbox_msg_id ON outbox (msg_id);
ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_event_id_key;

-- Events NATS refused for good (too large for the server, say): kept with
-- the reason, out of the relay's way, so one row never stalls every tenant.
CREATE TABLE IF NOT EXISTS outbox_parked (
    seq        bigint      PRIMARY KEY,
    msg_id     text        NOT NULL,
    event_id   text        NOT NULL,
    subject    text        NOT NULL,
    site_id    text        NOT NULL,
    page_id    text        NOT NULL,
    headers    jsonb       NOT NULL,
    payload    bytea       NOT NULL,
    size       int         NOT NULL,
    reason     text        NOT NULL,
    created_at timestamptz NOT NULL,
    parked_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS outbox_parked_page ON outbox_parked (site_id, page_id);

-- What went live is tracked apart from the draft being planned: an older
-- published version still records its link map. inserted_seq numbers a
-- page's links.inserted events, so a publisher can drop a stale one that
-- arrives late. delivery_error says why the page's last result could not
-- be published (empty when it was).
ALTER TABLE pages ADD COLUMN IF NOT EXISTS live_version bigint;
ALTER TABLE pages ADD COLUMN IF NOT EXISTS inserted_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN IF NOT EXISTS delivery_error text NOT NULL DEFAULT '';
-- No backfill, which would rewrite every page: a NULL live_version of a
-- published page reads as its version (store.liveVersionSQL).

-- site.updated events apply in the order the broker stored them: the SITE
-- stream's creation time and the event's sequence in it. NULL sorts as the
-- oldest order (a structure saved before this migration).
ALTER TABLE sites ADD COLUMN IF NOT EXISTS structure_stream_created timestamptz;
ALTER TABLE sites ADD COLUMN IF NOT EXISTS structure_stream_seq bigint;

-- +goose Down
ALTER TABLE sites DROP COLUMN IF EXISTS structure_stream_seq;
ALTER TABLE sites DROP COLUMN IF EXISTS structure_stream_created;
ALTER TABLE pages DROP COLUMN IF EXISTS delivery_error;
ALTER TABLE pages DROP COLUMN IF EXISTS inserted_seq;
ALTER TABLE pages DROP COLUMN IF EXISTS live_version;
DROP TABLE IF EXISTS outbox_parked;
DROP INDEX IF EXISTS outbox_msg_id;
ALTER TABLE outbox DROP COLUMN IF EXISTS not_before;
ALTER TABLE outbox DROP COLUMN IF EXISTS last_error;
ALTER TABLE outbox DROP COLUMN IF EXISTS attempts;
ALTER TABLE outbox DROP COLUMN IF EXISTS page_id;
ALTER TABLE outbox DROP COLUMN IF EXISTS site_id;
ALTER TABLE outbox DROP COLUMN IF EXISTS size;
ALTER TABLE outbox DROP COLUMN IF EXISTS msg_id;
DELETE FROM outbox a USING outbox b WHERE a.event_id = b.event_id AND a.seq > b.seq;
ALTER TABLE outbox ADD CONSTRAINT outbox_event_id_key UNIQUE (event_id);
DROP INDEX IF EXISTS inbox_processed_at;
ALTER TABLE inbox DROP CONSTRAINT IF EXISTS inbox_pkey;
DELETE FROM inbox a USING inbox b
    WHERE a.consumer = b.consumer AND a.event_id = b.event_id AND a.ctid > b.ctid;
ALTER TABLE inbox ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id);
ALTER TABLE inbox DROP COLUMN IF EXISTS source;
ALTER TABLE inbox DROP COLUMN IF EXISTS site_id;
