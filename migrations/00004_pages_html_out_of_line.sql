-- +goose Up

-- Keep a page's HTML out of the main row (in TOAST) even when it is a few
-- kilobytes: the row is updated by every stage and by the count refresher,
-- and an update that does not change the HTML then copies a TOAST pointer
-- instead of rewriting and WAL-logging the HTML again.
ALTER TABLE pages SET (toast_tuple_target = 256);
ALTER TABLE pages ALTER COLUMN html SET STORAGE EXTERNAL;
ALTER TABLE pages ALTER COLUMN linked_html SET STORAGE EXTERNAL;
ALTER TABLE pages ALTER COLUMN published_html SET STORAGE EXTERNAL;

-- +goose Down
ALTER TABLE pages RESET (toast_tuple_target);
ALTER TABLE pages ALTER COLUMN html SET STORAGE EXTENDED;
ALTER TABLE pages ALTER COLUMN linked_html SET STORAGE EXTENDED;
ALTER TABLE pages ALTER COLUMN published_html SET STORAGE EXTENDED;
