-- +goose Up

-- Whether the page's HTML asks search engines not to index it (<meta
-- name="robots" content="noindex">): a gardening trial's audit reported
-- its noindex newsletter-thanks page an orphan and recommended the home
-- page link it. Pages stored before this read false until their next
-- version.
ALTER TABLE pages ADD COLUMN noindex boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE pages DROP COLUMN noindex;
