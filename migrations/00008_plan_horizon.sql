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

-- +goose Down
DROP INDEX pages_cluster_recent;
ALTER TABLE link_snapshots DROP COLUMN plan_horizon;
ALTER TABLE pages DROP COLUMN plan_horizon;
