-- +goose Up

-- Index terms (labels, own attribute values, keywords) find a page's
-- related pages without reading the site; breadcrumbs keep the trail the
-- plan chose, for the inject and validate stages.
ALTER TABLE pages ADD COLUMN terms text[] NOT NULL DEFAULT '{}';
ALTER TABLE pages ADD COLUMN breadcrumbs jsonb NOT NULL DEFAULT '[]';
CREATE INDEX pages_terms ON pages USING gin (terms);
CREATE INDEX pages_kind ON pages (site_id, kind) WHERE kind IN ('home', 'sector', 'term');

-- Why a link exists, how it scored and how its anchors were ordered.
ALTER TABLE links ADD COLUMN explanation text NOT NULL DEFAULT '';

-- Re-planning is a clean slate; what it replaced is kept and can be
-- restored.
CREATE TABLE link_snapshots (
    site_id     text        NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    id          bigserial,
    page_id     text        NOT NULL,
    version     bigint      NOT NULL,
    plan_id     text        NOT NULL,
    linked_html text,
    breadcrumbs jsonb       NOT NULL,
    links       jsonb       NOT NULL,
    reason      text        NOT NULL,
    taken_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (site_id, id)
);
CREATE INDEX link_snapshots_page ON link_snapshots (site_id, page_id, id);

-- +goose Down
DROP TABLE link_snapshots;
ALTER TABLE links DROP COLUMN explanation;
DROP INDEX pages_kind;
DROP INDEX pages_terms;
ALTER TABLE pages DROP COLUMN breadcrumbs;
ALTER TABLE pages DROP COLUMN terms;
