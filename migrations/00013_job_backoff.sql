-- +goose Up

-- Audit jobs back off: a job that failed waits 2^attempts seconds (at most
-- five minutes) before a runner takes it again, and one that failed for a
-- reason other than an outage (failures) three times is given up, with
-- its last error as the reason. Constant defaults: catalogue changes only.
ALTER TABLE audits ADD COLUMN failures int NOT NULL DEFAULT 0;
ALTER TABLE audits ADD COLUMN last_error text NOT NULL DEFAULT '';
ALTER TABLE audit_applies ADD COLUMN attempts int NOT NULL DEFAULT 0;
ALTER TABLE audit_applies ADD COLUMN failures int NOT NULL DEFAULT 0;
ALTER TABLE audit_applies ADD COLUMN started_at timestamptz;
ALTER TABLE audit_applies ADD COLUMN last_error text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE audit_applies DROP COLUMN IF EXISTS last_error;
ALTER TABLE audit_applies DROP COLUMN IF EXISTS started_at;
ALTER TABLE audit_applies DROP COLUMN IF EXISTS failures;
ALTER TABLE audit_applies DROP COLUMN IF EXISTS attempts;
ALTER TABLE audits DROP COLUMN IF EXISTS last_error;
ALTER TABLE audits DROP COLUMN IF EXISTS failures;
