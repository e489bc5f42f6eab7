-- +goose Up

-- A plan draws a number from plan_sequence once it holds its planning
-- locks. A re-plan asked for by a page whose plan drew a smaller number
-- than the dependant's current plan is already answered: the two plans
-- held conflicting locks, so the later one saw the earlier one committed.
-- This coalesces the re-plans a burst of articles asks of their hub.
CREATE SEQUENCE plan_sequence;
ALTER TABLE pages ADD COLUMN plan_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE link_snapshots ADD COLUMN plan_seq bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE link_snapshots DROP COLUMN plan_seq;
ALTER TABLE pages DROP COLUMN plan_seq;
DROP SEQUENCE plan_sequence;
