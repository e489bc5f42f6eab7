-- +goose Up

-- Which of a recommendation's anchors are its target's own names
-- (audit.Recommendation.Names), so apply places a fix where the audit
-- said it would: the author's linked words hold back none of them where
-- a longer name holds those words. Constant default: a catalogue change
-- only.
ALTER TABLE audit_recommendations ADD COLUMN names text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE audit_recommendations DROP COLUMN IF EXISTS names;
