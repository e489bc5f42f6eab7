-- +goose Up

-- With toast_tuple_target at 256 (00004), Postgres moved not only the HTML
-- out of line but every small column with it, so reading 200 planning
-- targets cost several TOAST lookups per row (6.4 ms a page planned,
-- against about 4 ms with these columns inline). MAIN keeps them in the row,
-- compressed if need be; the HTML columns stay EXTERNAL. Rows move back
-- inline as they are next written (VACUUM FULL pages rewrites them at once).
ALTER TABLE pages
    ALTER COLUMN url SET STORAGE MAIN,
    ALTER COLUMN title SET STORAGE MAIN,
    ALTER COLUMN primary_keyword SET STORAGE MAIN,
    ALTER COLUMN keywords SET STORAGE MAIN,
    ALTER COLUMN labels SET STORAGE MAIN,
    ALTER COLUMN attributes SET STORAGE MAIN,
    ALTER COLUMN terms SET STORAGE MAIN,
    ALTER COLUMN breadcrumbs SET STORAGE MAIN;

-- The breadcrumb query looks up one sector page among all of a site's.
DROP INDEX pages_kind;
CREATE INDEX pages_kind ON pages (site_id, kind, sector_id) WHERE kind IN ('home', 'sector', 'term');

-- +goose Down
DROP INDEX pages_kind;
CREATE INDEX pages_kind ON pages (site_id, kind) WHERE kind IN ('home', 'sector', 'term');
ALTER TABLE pages
    ALTER COLUMN url SET STORAGE EXTENDED,
    ALTER COLUMN title SET STORAGE EXTENDED,
    ALTER COLUMN primary_keyword SET STORAGE EXTENDED,
    ALTER COLUMN keywords SET STORAGE EXTENDED,
    ALTER COLUMN labels SET STORAGE EXTENDED,
    ALTER COLUMN attributes SET STORAGE EXTENDED,
    ALTER COLUMN terms SET STORAGE EXTENDED,
    ALTER COLUMN breadcrumbs SET STORAGE EXTENDED;
