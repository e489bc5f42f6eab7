-- +goose Up

-- The longer names of other pages a recommendation's anchors are not taken
-- inside (link.Anchor.NotWithin), so apply places a fix where the audit
-- said it would. Constant default: a catalogue change only.
ALTER TABLE audit_recommendations ADD COLUMN not_within text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE audit_recommendations DROP COLUMN IF EXISTS not_within;
