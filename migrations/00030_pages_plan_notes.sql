-- +goose Up

-- What the planner noted about a page's current plan (a link type left
-- out and why, a term page no page can link): links.inserted carries the
-- notes, so a page left without a link says why where its result is read,
-- not only in the service's log. NULL for a plan from before, or one
-- restored from a snapshot, whose notes were not kept.
ALTER TABLE pages ADD COLUMN plan_notes text[];

-- +goose Down
ALTER TABLE pages DROP COLUMN plan_notes;
