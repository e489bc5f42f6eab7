-- +goose Up

-- What a plan saw of the site: the Postgres snapshot it read its targets
-- with. A re-plan asked for by a change that snapshot already saw is
-- answered by the current plan and skipped; this coalesces the re-plans a
-- burst of articles asks of their hub. NULL: the plan saw nothing (or
-- predates this column), so every re-plan is carried out.
ALTER TABLE pages ADD COLUMN plan_horizon pg_snapshot;
ALTER TABLE link_snapshots ADD COLUMN plan_horizon pg_snapshot;

-- A page other than a hub reads the most recently published pages of its
-- cluster, a bounded number (related_candidate_limit), however large the
-- cluster grows.
CREATE INDEX pages_cluster_recent ON pages (site_id, cluster_id, published_at DESC NULLS LAST, id)
    WHERE state <> 'deleted';

-- Anchor limits ask how often one anchor text already links to one target
-- on other pages, only up to the limit: anchor_key is the anchor as
-- anchors.Normalize folds it (written by the service; rows from before are
-- folded here the nearest SQL way), indexed with the target, so the answer
-- costs the same for a hub with 20 inbound links or 20,000. NULL (a link
-- restored from an older snapshot) is folded again on restore.
ALTER TABLE links ADD COLUMN anchor_key text DEFAULT '';
UPDATE links SET anchor_key = lower(regexp_replace(btrim(anchor), '\s+', ' ', 'g')) WHERE anchor <> '';
CREATE INDEX links_target_anchor ON links (site_id, target_page_id, anchor_key) WHERE anchor_key <> '';

-- +goose Down
DROP INDEX links_target_anchor;
ALTER TABLE links DROP COLUMN anchor_key;
DROP INDEX pages_cluster_recent;
ALTER TABLE link_snapshots DROP COLUMN plan_horizon;
ALTER TABLE pages DROP COLUMN plan_horizon;
