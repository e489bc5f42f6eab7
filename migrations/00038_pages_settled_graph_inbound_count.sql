-- +goose Up

-- Inbound links in the planned graph of the site's last settle pass
-- (handlers.plannedGraph); NULL for a page no pass has counted. A page
-- planned as it arrives on a settled site scores with it, as the pass did,
-- so planning a page again on a settled site gives the pass's links.
ALTER TABLE pages ADD COLUMN settled_graph_inbound_link_count int;

-- +goose Down
ALTER TABLE pages DROP COLUMN settled_graph_inbound_link_count;
