-- +goose Up

-- A plan or restore job answers with the links its commands planned, page by
-- page: it keeps its pages, in the order of its event ids. Constant default:
-- a catalogue change only.
ALTER TABLE api_jobs ADD COLUMN page_ids text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE api_jobs DROP COLUMN IF EXISTS page_ids;
