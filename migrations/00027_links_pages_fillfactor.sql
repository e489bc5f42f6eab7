-- +goose Up

-- A link is written three times in its first second: planned, then
-- inserted by the inject stage, then verified by the validate stage. A
-- page's row is written about five times (its version, its plan's
-- breadcrumbs, its linked HTML, its link counts). Packed full, an update
-- found no room on its block and wrote the row elsewhere, with an entry
-- in every index: in a burst of 2,000 pages, 29% of the link updates and
-- 77% of the page updates were HOT. With room left on each block, an
-- update that changes no indexed column stays on its block and writes no
-- index entry: 93% and 97% in the same burst. A link's block holds half
-- as many links at first; the other half is the room its two updates
-- take. Only blocks written from now on keep the room, and the setting
-- takes a lock that blocks neither readers nor writers.
ALTER TABLE links SET (fillfactor = 50);
ALTER TABLE pages SET (fillfactor = 70);

-- +goose Down
ALTER TABLE links RESET (fillfactor);
ALTER TABLE pages RESET (fillfactor);
