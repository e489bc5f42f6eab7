-- +goose Up

-- Link verification over HTTP. A URL's last check is kept per site, so a
-- verification that asks for checks no older than max_age reuses them and
-- a restarted one does not ask a host twice. outcome is the outbound
-- client's: ok, redirect, broken, unverified (rate-limited past the retry
-- budget, timed out, unreachable) or refused (the SSRF and scheme rules).
CREATE TABLE url_checks (
    site_id     text        NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    url         text        NOT NULL,
    outcome     text        NOT NULL CHECK (outcome IN ('ok', 'redirect', 'broken', 'unverified', 'refused')),
    status_code int         NOT NULL DEFAULT 0,
    final_url   text        NOT NULL DEFAULT '',
    redirects   text[]      NOT NULL DEFAULT '{}',
    reason      text        NOT NULL DEFAULT '',
    checked_at  timestamptz NOT NULL,
    PRIMARY KEY (site_id, url)
);

-- A link-map row whose target answered through redirects names the final
-- URL, so the report can say what to update the link to. Constant
-- default: a catalogue change only.
ALTER TABLE link_map ADD COLUMN redirect_target text NOT NULL DEFAULT '';
-- When a planned link's target was last checked over HTTP.
ALTER TABLE links ADD COLUMN last_verified timestamptz;

-- verify.requested, run in the background like an audit: taken in its
-- handler's transaction, run by the job runner, its report written whole
-- with its status.
CREATE TABLE verifications (
    site_id      text        NOT NULL,
    id           text        NOT NULL,
    request      bytea       NOT NULL, -- the verify.requested event, for follow-on ids and correlation
    status       text        NOT NULL CHECK (status IN ('running', 'complete', 'inconclusive', 'failed')),
    report       jsonb,
    requested_at timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    completed_at timestamptz,
    attempts     int         NOT NULL DEFAULT 0,
    failures     int         NOT NULL DEFAULT 0,
    last_error   text        NOT NULL DEFAULT '',
    PRIMARY KEY (site_id, id)
);
CREATE INDEX verifications_running ON verifications (requested_at) WHERE status = 'running';

-- +goose Down
DROP TABLE verifications;
ALTER TABLE links DROP COLUMN IF EXISTS last_verified;
ALTER TABLE link_map DROP COLUMN IF EXISTS redirect_target;
DROP TABLE url_checks;
