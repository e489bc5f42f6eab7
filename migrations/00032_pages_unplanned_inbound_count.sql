-- +goose Up

-- Inbound links from the live pages we do not plan. A settle pass counts
-- these and, for the pages we plan, the links of their plans, so each
-- source page counts once: a planned page that went live is not counted
-- again by its link map.
ALTER TABLE pages ADD COLUMN unplanned_inbound_link_count int NOT NULL DEFAULT 0;

-- Every page is recounted by the link count refresher.
INSERT INTO link_count_queue (site_id, page_id) SELECT site_id, id FROM pages WHERE state <> 'deleted';

-- +goose Down
ALTER TABLE pages DROP COLUMN unplanned_inbound_link_count;
