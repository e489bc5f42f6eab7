-- +goose Up

-- A recommendation whose anchor a model proposed says so: "llm", else "".
-- Constant default: a catalogue change only.
ALTER TABLE audit_recommendations ADD COLUMN suggested_by text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE audit_recommendations DROP COLUMN IF EXISTS suggested_by;
