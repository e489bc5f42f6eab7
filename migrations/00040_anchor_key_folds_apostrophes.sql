-- +goose NO TRANSACTION
-- +goose Up

-- anchors.Normalize folds the typographic apostrophes (’ ‘ ʼ) as the
-- typewriter one: "l’évier" and "l'évier" are one anchor for the cap and
-- the audit's anchor share. Keys written before are folded the same way;
-- outside a transaction, so writers are not held behind the scan, and safe
-- to run again.
UPDATE links SET anchor_key = translate(anchor_key, '’‘ʼ', '''''''') WHERE anchor_key ~ '[’‘ʼ]';

-- +goose Down
SELECT 1;
