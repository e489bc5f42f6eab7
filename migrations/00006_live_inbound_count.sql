-- +goose Up

-- Inbound links from the live site alone (the link map of published
-- pages): the authority the SAG score reads. Unlike inbound_link_count it
-- does not move while generated pages are being linked, so planning a set
-- of new pages gives the same links whatever order they are handled in.
ALTER TABLE pages ADD COLUMN live_inbound_link_count int NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE pages DROP COLUMN live_inbound_link_count;
