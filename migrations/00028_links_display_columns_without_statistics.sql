-- +goose Up

-- Store.KeepStatistics analyzes links each time the table doubles, and
-- Postgres samples 30,000 rows and sorts every column's values for its
-- statistics. Most of that went on columns no statement filters, joins or
-- orders links by: the plan's explanation, candidates and factors (jsonb
-- and text of about 550 bytes a link) and the outcome's fields, which
-- statements only read or write by the link's key. A statistics target of
-- 0 leaves them out: ANALYZE of the links a 2,000-page burst leaves (about
-- 30,000 rows) went from 270-300 ms to 64 ms. The columns statements look
-- links up by (site, source, target, id, type, zone, placement, status,
-- anchor_key, target_url, position, last_verified) keep their statistics.
ALTER TABLE links
    ALTER COLUMN candidates SET STATISTICS 0,
    ALTER COLUMN factors SET STATISTICS 0,
    ALTER COLUMN explanation SET STATISTICS 0,
    ALTER COLUMN anchor SET STATISTICS 0,
    ALTER COLUMN anchor_type SET STATISTICS 0,
    ALTER COLUMN reason SET STATISTICS 0,
    ALTER COLUMN failed_rules SET STATISTICS 0,
    ALTER COLUMN score SET STATISTICS 0,
    ALTER COLUMN first_paragraphs SET STATISTICS 0,
    ALTER COLUMN paragraph SET STATISTICS 0,
    ALTER COLUMN mandatory SET STATISTICS 0,
    ALTER COLUMN source_version SET STATISTICS 0,
    ALTER COLUMN inserted_at SET STATISTICS 0,
    ALTER COLUMN updated_at SET STATISTICS 0;

-- +goose Down
ALTER TABLE links
    ALTER COLUMN candidates SET STATISTICS -1,
    ALTER COLUMN factors SET STATISTICS -1,
    ALTER COLUMN explanation SET STATISTICS -1,
    ALTER COLUMN anchor SET STATISTICS -1,
    ALTER COLUMN anchor_type SET STATISTICS -1,
    ALTER COLUMN reason SET STATISTICS -1,
    ALTER COLUMN failed_rules SET STATISTICS -1,
    ALTER COLUMN score SET STATISTICS -1,
    ALTER COLUMN first_paragraphs SET STATISTICS -1,
    ALTER COLUMN paragraph SET STATISTICS -1,
    ALTER COLUMN mandatory SET STATISTICS -1,
    ALTER COLUMN source_version SET STATISTICS -1,
    ALTER COLUMN inserted_at SET STATISTICS -1,
    ALTER COLUMN updated_at SET STATISTICS -1;
