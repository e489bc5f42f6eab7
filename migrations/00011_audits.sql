-- +goose Up

-- Existing-content mode. The link map keeps which generated block a link
-- is in (the audit leaves those out of a page's own links) and the link's
-- paragraph among the content's paragraphs (the uplink rule counts those).
ALTER TABLE link_map ADD COLUMN IF NOT EXISTS in_block text NOT NULL DEFAULT '';
ALTER TABLE link_map ADD COLUMN IF NOT EXISTS content_paragraph int NOT NULL DEFAULT 0;

-- An audit is taken as soon as audit.requested arrives and run in the
-- background from one snapshot of the site; a process that stops mid-audit
-- leaves it running, and the next runner starts it again. report holds
-- the whole report once status leaves 'running'.
CREATE TABLE audits (
    site_id      text        NOT NULL,
    id           text        NOT NULL,
    cluster_id   text        NOT NULL DEFAULT '',
    request      bytea       NOT NULL, -- the audit.requested event, for follow-on ids and correlation
    status       text        NOT NULL CHECK (status IN ('running', 'complete', 'inconclusive', 'failed')),
    report       jsonb,
    requested_at timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    completed_at timestamptz,
    attempts     int         NOT NULL DEFAULT 0,
    PRIMARY KEY (site_id, id)
);
CREATE INDEX audits_running ON audits (requested_at) WHERE status = 'running';

-- Every recommendation of an audit, in report order. A recommendation
-- names the page version it was made from: applied to a newer version it
-- is refused as stale. Removals and retargets find their link by its
-- target path, its text and which such link of the page it is.
CREATE TABLE audit_recommendations (
    site_id       text             NOT NULL,
    audit_id      text             NOT NULL,
    id            text             NOT NULL,
    ordinal       int              NOT NULL,
    content_id    text             NOT NULL,
    page_version  bigint           NOT NULL,
    action        text             NOT NULL,
    link_type     text             NOT NULL,
    target_id     text             NOT NULL DEFAULT '',
    target_url    text             NOT NULL DEFAULT '',
    anchor        text             NOT NULL DEFAULT '',
    anchors       text[]           NOT NULL DEFAULT '{}',
    first_paragraphs int           NOT NULL DEFAULT 0,
    priority      double precision NOT NULL,
    reason        text             NOT NULL,
    link_path     text             NOT NULL DEFAULT '',
    link_text     text             NOT NULL DEFAULT '',
    occurrence    int              NOT NULL DEFAULT 0,
    applied_by    text             NOT NULL DEFAULT '',
    applied_at    timestamptz,
    PRIMARY KEY (site_id, audit_id, id),
    FOREIGN KEY (site_id, audit_id) REFERENCES audits (site_id, id) ON DELETE CASCADE
);
CREATE INDEX audit_recommendations_order ON audit_recommendations (site_id, audit_id, ordinal);

CREATE TABLE audit_link_scores (
    site_id  text             NOT NULL,
    audit_id text             NOT NULL,
    page_id  text             NOT NULL,
    ordinal  int              NOT NULL,
    rank     double precision NOT NULL,
    score    double precision NOT NULL,
    PRIMARY KEY (site_id, audit_id, page_id),
    FOREIGN KEY (site_id, audit_id) REFERENCES audits (site_id, id) ON DELETE CASCADE
);

-- An audit.apply is taken as it arrives and run in the background, a page
-- a transaction; result holds its audit.applied once done.
CREATE TABLE audit_applies (
    site_id      text        NOT NULL,
    id           text        NOT NULL, -- the audit.apply event's identity
    audit_id     text        NOT NULL,
    request      bytea       NOT NULL,
    status       text        NOT NULL CHECK (status IN ('running', 'done')),
    result       jsonb,
    requested_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    PRIMARY KEY (site_id, id)
);
CREATE INDEX audit_applies_running ON audit_applies (requested_at) WHERE status = 'running';

-- What audit fixes made of a page's live version: the next fix of the same
-- version starts from it, so fixes applied one after another add up.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS fixed_html text;
ALTER TABLE pages ADD COLUMN IF NOT EXISTS fixed_version bigint;

-- The link score of the site's last whole-site audit, for the policy
-- authority=link_score.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS link_score double precision;

-- +goose Down
ALTER TABLE pages DROP COLUMN IF EXISTS link_score;
ALTER TABLE pages DROP COLUMN IF EXISTS fixed_version;
ALTER TABLE pages DROP COLUMN IF EXISTS fixed_html;
DROP TABLE audit_applies;
DROP TABLE audit_link_scores;
DROP TABLE audit_recommendations;
DROP TABLE audits;
ALTER TABLE link_map DROP COLUMN IF EXISTS content_paragraph;
ALTER TABLE link_map DROP COLUMN IF EXISTS in_block;
