-- +goose Up

-- A verification keeps its progress, as an audit does, so the UI can show
-- it running whoever asked for it. Constant defaults: a catalogue change
-- only.
ALTER TABLE verifications ADD COLUMN progress_stage text NOT NULL DEFAULT '';
ALTER TABLE verifications ADD COLUMN progress_done int NOT NULL DEFAULT 0;
ALTER TABLE verifications ADD COLUMN progress_total int NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE verifications DROP COLUMN IF EXISTS progress_total;
ALTER TABLE verifications DROP COLUMN IF EXISTS progress_done;
ALTER TABLE verifications DROP COLUMN IF EXISTS progress_stage;
