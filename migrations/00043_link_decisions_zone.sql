-- +goose Up

-- The zone of the link a removal or a rejection was made on: a person who
-- took out a hub's in-body link to an article took its entry out of the
-- hub's Related Articles too, the decision naming only the target (an API
-- client trial). Empty: every zone, as the decisions made before this.
ALTER TABLE link_decisions ADD COLUMN zone text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE link_decisions DROP COLUMN zone;
