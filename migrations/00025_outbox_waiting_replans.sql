-- +goose NO TRANSACTION
-- +goose Up

-- An outbox row may name what it stands for (replaces): a later row of the
-- same site and key takes the place of one still waiting (Tx.EnqueueReplan:
-- a page's request to re-plan because a page it depends on changed). Rows
-- without a key (every other event, and re-plans asked for over the API
-- or by the LLM fallback's retry) are never replaced. A constant default
-- changes the catalogue only; the outbox is written by every stage, so the
-- index is built CONCURRENTLY.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS replaces text NOT NULL DEFAULT '';
CREATE INDEX CONCURRENTLY IF NOT EXISTS outbox_replaceable ON outbox (site_id, replaces) WHERE replaces <> '';

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS outbox_replaceable;
ALTER TABLE outbox DROP COLUMN IF EXISTS replaces;
