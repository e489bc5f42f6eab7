-- +goose NO TRANSACTION
-- +goose Up

-- anchors.Normalize folds a compound's hyphens (- ‐ ‑) as spaces:
-- "noise-cancelling headphones" and "noise cancelling headphones" are one
-- anchor for the cap and the audit's anchor share, as the placer takes a
-- keyword's space for the text's hyphen. Keys written before are folded
-- the same way (runs of hyphens and spaces one space, none at the ends);
-- outside a transaction, so writers are not held behind the scan, and safe
-- to run again.
UPDATE links SET anchor_key = btrim(regexp_replace(anchor_key, '[-‐‑ ]+', ' ', 'g'))
WHERE anchor_key ~ '[-‐‑]';

-- +goose Down
SELECT 1;
