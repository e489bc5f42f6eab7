-- +goose Up

-- A hash of what planning reads of a site (its structure and resolved
-- policy, planning.StructureDigest), so that a site.updated changing any
-- of it re-plans the site's pages and one changing none of it (a
-- producer sending the same structure again) re-plans nothing, without
-- reading the stored structure back. NULL for structures saved before:
-- the next site.updated of such a site counts as a change.
ALTER TABLE sites ADD COLUMN structure_digest bytea;

-- +goose Down
ALTER TABLE sites DROP COLUMN structure_digest;
