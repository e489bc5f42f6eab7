-- +goose NO TRANSACTION
-- +goose Up

-- The API pages through a site's links in (source page, position) order,
-- and a page's links are read in position order: the source index gains
-- the position, so both are index scans, and replaces the old one rather
-- than adding a second index for every link write to keep.
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_source_position ON links (site_id, source_page_id, position);
DROP INDEX CONCURRENTLY IF EXISTS links_source;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_source ON links (site_id, source_page_id);
DROP INDEX CONCURRENTLY IF EXISTS links_source_position;
