-- +goose Up

-- A plan's snapshot is written each time the page is planned again and
-- read only to restore, list or report it: json keeps the links' text as
-- json_agg writes it, where jsonb parsed and reordered every key of them
-- on each re-plan. A hub of 2,000 links took 62 to 212 ms a snapshot in
-- a one-cluster benchmark; on a synthetic table of 2,000 such rows the
-- insert took 32 to 74 ms as jsonb and 18 to 19 ms as json.
ALTER TABLE link_snapshots ALTER COLUMN links TYPE json USING links::json;

-- +goose Down
ALTER TABLE link_snapshots ALTER COLUMN links TYPE jsonb USING links::jsonb;
