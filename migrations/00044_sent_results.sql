-- +goose Up

-- What the page's last links.inserted from the pipeline carried, as a
-- digest of what a publisher acts on, and its sequence: a re-plan another
-- page caused whose result is the same sends nothing (a gardening trial
-- received 24 identical events for one unchanged home page). 0 and NULL:
-- nothing sent yet, or sent before this existed.
ALTER TABLE pages ADD COLUMN sent_seq bigint NOT NULL DEFAULT 0, ADD COLUMN sent_digest bigint;

-- +goose Down
ALTER TABLE pages DROP COLUMN sent_seq, DROP COLUMN sent_digest;
