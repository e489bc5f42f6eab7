-- +goose Up

-- Every page's links.inserted carries its linked HTML through the outbox,
-- and its snapshot keeps the same HTML and links: two large values a page,
-- each compressed by pglz on the way in (0.8% of the machine's CPU samples
-- in a profiled burst).
-- lz4 compresses several times faster for a little less ratio. A server
-- built without lz4 keeps pglz; values written before keep theirs. The
-- setting takes a brief exclusive lock and rewrites nothing.
-- +goose StatementBegin
DO $$
BEGIN
	ALTER TABLE outbox ALTER COLUMN payload SET COMPRESSION lz4;
	ALTER TABLE link_snapshots ALTER COLUMN linked_html SET COMPRESSION lz4,
		ALTER COLUMN links SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	RAISE NOTICE 'this server has no lz4: outbox and snapshot values stay pglz';
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE outbox ALTER COLUMN payload SET COMPRESSION default;
ALTER TABLE link_snapshots ALTER COLUMN linked_html SET COMPRESSION default,
	ALTER COLUMN links SET COMPRESSION default;
