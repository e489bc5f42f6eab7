-- +goose Up

-- Pages whose cached link counts need recounting. Stages append here in
-- their own transaction instead of recounting hot targets (a hub, the home
-- page) inline, which would serialise every page on those rows; a
-- background refresher recounts in batches and deletes what it handled.
CREATE TABLE link_count_queue (
    seq     bigserial PRIMARY KEY,
    site_id text NOT NULL,
    page_id text NOT NULL
);

-- +goose Down
DROP TABLE link_count_queue;
