-- +goose Up

-- Whether a recommendation's suggested anchor is text found in the page
-- (apply can place it) or the planner's candidate for a writer to work in.
-- A constant default makes this a catalogue change: no table rewrite.
ALTER TABLE audit_recommendations ADD COLUMN anchor_found boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE audit_recommendations DROP COLUMN IF EXISTS anchor_found;
