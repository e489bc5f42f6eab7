-- +goose NO TRANSACTION
-- +goose Up

-- The anchor cap counts a target's in-body links with one anchor
-- (Tx.AnchorUsage). links_target_anchor also held every breadcrumb and
-- generated block, which name a page by its title on every page under
-- it, and a generic plan could not use it (its predicate was not implied
-- by a parameter): the count read all of a hub's links, over 3,000 rows
-- for a hub of 2,000 articles, on every plan. This index holds in-body
-- links alone.
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_in_body_anchor ON links (site_id, target_page_id, anchor_key)
    WHERE anchor_key <> '' AND zone = 'in_body';
DROP INDEX CONCURRENTLY IF EXISTS links_target_anchor;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS links_target_anchor ON links (site_id, target_page_id, anchor_key) WHERE anchor_key <> '';
DROP INDEX CONCURRENTLY IF EXISTS links_in_body_anchor;
