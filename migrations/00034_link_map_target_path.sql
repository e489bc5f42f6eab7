-- +goose NO TRANSACTION
-- +goose Up

-- A link in a published page is matched to its target page when the
-- page is projected; a target the site had not yet sent stayed unmatched
-- (target_page_id '') for good, so a site imported in any order lost
-- those links from its live inbound counts and its deletions' broken
-- links. The link's page path (markup.PagePath) is kept, and the link
-- count refresher matches the rows of the pages it recounts, and those
-- waiting for their paths (store.Tx.resolveLinkMap). Rows written before
-- this keep '' and match once their page is published again.
-- Adding a column with a constant default rewrites no row.
ALTER TABLE link_map ADD COLUMN IF NOT EXISTS target_path text NOT NULL DEFAULT '';
CREATE INDEX CONCURRENTLY IF NOT EXISTS link_map_unresolved ON link_map (site_id, target_path)
	WHERE target_page_id = '' AND target_path <> '';

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS link_map_unresolved;
ALTER TABLE link_map DROP COLUMN IF EXISTS target_path;
