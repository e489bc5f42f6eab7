-- +goose NO TRANSACTION
-- +goose Up

-- anchors.Normalize folds ё as е, as the placer matches them: "чёрная
-- смородина" and "черная смородина" are one anchor for the cap. Keys
-- written before are folded the same way; outside a transaction, so
-- writers are not held behind the scan, and safe to run again.
UPDATE links SET anchor_key = translate(anchor_key, 'ё', 'е') WHERE anchor_key LIKE '%ё%';

-- +goose Down
SELECT 1;
