-- +goose Up

-- Inbound links of the plans committed so far (every zone but breadcrumbs,
-- review suggestions, broken and removed links aside), from the pages we
-- plan: what a page planned as it arrives adds to the live links of the
-- pages we do not plan when its site settles, so its scores are those the
-- settle pass gives rather than a new site's zeros.
ALTER TABLE pages ADD COLUMN planned_graph_inbound_link_count int NOT NULL DEFAULT 0;

-- Every page is recounted by the link count refresher.
INSERT INTO link_count_queue (site_id, page_id) SELECT site_id, id FROM pages WHERE state <> 'deleted';

-- +goose Down
ALTER TABLE pages DROP COLUMN planned_graph_inbound_link_count;
