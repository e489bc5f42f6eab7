-- +goose Up

-- HTTP API tokens. A token belongs to one site; only the SHA-256 of its
-- secret is kept, so a stolen database holds no usable token. A revoked
-- token stays listed, with when it was revoked.
CREATE TABLE api_tokens (
    id         text        PRIMARY KEY,
    site_id    text        NOT NULL,
    name       text        NOT NULL DEFAULT '',
    hash       bytea       NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_tokens_site ON api_tokens (site_id, created_at);

-- +goose Down
DROP TABLE api_tokens;
