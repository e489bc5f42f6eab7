-- +goose Up

-- The validation report the page's last links.inserted carried (rules,
-- severities, details), for the API's content/{page_id}/links/: a user
-- asking why a page fails had only the per-link failed rules, not the
-- page's own (density_range, first_link_rule). A column without a default
-- is added without rewriting the table.
ALTER TABLE pages ADD COLUMN validation jsonb;

-- +goose Down
ALTER TABLE pages DROP COLUMN validation;
