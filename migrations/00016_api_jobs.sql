-- +goose Up

-- A job is what an HTTP API POST started, for clients to poll: its kind
-- and the row of the work it started (an audit's id, an apply's event
-- identity), or the command events it sent, which are done once their
-- consumer (its inbox) has taken them; finished_at keeps that after the
-- inbox forgets them. A retried POST with the same Idempotency-Key finds
-- the first job; request_hash tells a retry from another request under
-- that key.
CREATE TABLE api_jobs (
    site_id         text        NOT NULL,
    id              text        NOT NULL,
    kind            text        NOT NULL CHECK (kind IN ('audit', 'apply', 'plan', 'restore')),
    ref             text        NOT NULL DEFAULT '',
    consumer        text        NOT NULL DEFAULT '',
    event_source    text        NOT NULL DEFAULT '',
    event_ids       text[]      NOT NULL DEFAULT '{}',
    idempotency_key text,
    request_hash    bytea       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    PRIMARY KEY (site_id, id)
);
CREATE UNIQUE INDEX api_jobs_idempotency ON api_jobs (site_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- An audit's progress, as audit.progress last said it, for polling.
ALTER TABLE audits ADD COLUMN progress_stage text NOT NULL DEFAULT '';
ALTER TABLE audits ADD COLUMN progress_done int NOT NULL DEFAULT 0;
ALTER TABLE audits ADD COLUMN progress_total int NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE audits DROP COLUMN IF EXISTS progress_total;
ALTER TABLE audits DROP COLUMN IF EXISTS progress_done;
ALTER TABLE audits DROP COLUMN IF EXISTS progress_stage;
DROP TABLE api_jobs;
