-- +goose Up

-- The verdict a page's last links.inserted carried (which rules passed
-- and failed, at which severity), as a hash. A settle pass compares its
-- own verdict with it: a page whose links and HTML stay as they are, but
-- whose verdict changes (an anchor's count on other pages settled), is
-- sent again, so the last event of every page carries the settled
-- verdict.
ALTER TABLE pages ADD COLUMN validation_digest bigint;

-- +goose Down
ALTER TABLE pages DROP COLUMN validation_digest;
