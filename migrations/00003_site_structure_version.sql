-- +goose Up

-- Increases with every structure saved, so a process can keep a site's
-- structure in memory and check it with one indexed read.
ALTER TABLE sites ADD COLUMN structure_version bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE sites DROP COLUMN structure_version;
