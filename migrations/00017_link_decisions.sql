-- +goose Up

-- Links decided by hand: a review suggestion accepted or rejected, a link
-- added or removed through the API. Every plan of the source page keeps
-- them until they are reverted (the row deleted).
CREATE TABLE link_decisions (
    site_id        text        NOT NULL,
    source_page_id text        NOT NULL,
    target_page_id text        NOT NULL,
    action         text        NOT NULL CHECK (action IN ('accept', 'reject', 'add', 'remove')),
    anchor         text        NOT NULL DEFAULT '',
    decided_by     text        NOT NULL DEFAULT '',
    decided_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (site_id, source_page_id, target_page_id)
);

-- +goose Down
DROP TABLE link_decisions;
