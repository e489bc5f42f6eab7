-- +goose Up

-- The links.inserted number of a page's applied fixes (fixed_html): the
-- API serves a page's HTML as its last links.inserted carried it, the
-- fixed page when the fixes went out last, the linked page otherwise.
-- NULL for fixes applied before.
ALTER TABLE pages ADD COLUMN fixed_seq bigint;

-- +goose Down
ALTER TABLE pages DROP COLUMN fixed_seq;
