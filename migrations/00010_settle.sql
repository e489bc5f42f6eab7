-- +goose NO TRANSACTION
-- +goose Up

-- A page the pipeline changed since its site last settled carries the
-- transaction that changed it and when; a settle pass clears the marks
-- its snapshot saw (store/settle.go). Adding nullable columns rewrites
-- nothing, and the index only holds marked pages.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS changed_xid xid8;
ALTER TABLE pages ADD COLUMN IF NOT EXISTS changed_at timestamptz;
CREATE INDEX CONCURRENTLY IF NOT EXISTS pages_unsettled ON pages (site_id, changed_at) WHERE changed_xid IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS pages_unsettled;
ALTER TABLE pages DROP COLUMN IF EXISTS changed_at;
ALTER TABLE pages DROP COLUMN IF EXISTS changed_xid;
