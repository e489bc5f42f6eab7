-- +goose Up

-- A site is one tenant: its structure comes from site.updated.
CREATE TABLE sites (
    id                 text PRIMARY KEY,
    base_url           text NOT NULL,
    name               text NOT NULL,
    policy             text NOT NULL CHECK (policy IN ('sag', 'silo')),
    overrides          jsonb NOT NULL DEFAULT '{}',
    structure_event_at timestamptz,
    updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sectors (
    site_id  text NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    id       text NOT NULL,
    name     text NOT NULL,
    url      text NOT NULL,
    position int  NOT NULL,
    PRIMARY KEY (site_id, id)
);

CREATE TABLE attributes (
    site_id  text   NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    id       text   NOT NULL,
    name     text   NOT NULL,
    values   text[] NOT NULL,
    position int    NOT NULL,
    PRIMARY KEY (site_id, id)
);

CREATE TABLE clusters (
    site_id         text   NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    id              text   NOT NULL,
    sector_id       text   NOT NULL,
    name            text   NOT NULL,
    primary_keyword text   NOT NULL,
    keywords        text[] NOT NULL,
    attributes      jsonb  NOT NULL DEFAULT '{}',
    position        int    NOT NULL,
    PRIMARY KEY (site_id, id)
);

-- A page keeps the HTML it arrived with (html) and the HTML we made of it
-- (linked_html); re-planning always starts again from html.
CREATE TABLE pages (
    site_id             text        NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    id                  text        NOT NULL,
    url                 text        NOT NULL,
    title               text        NOT NULL,
    kind                text        NOT NULL,
    cluster_id          text        NOT NULL DEFAULT '',
    sector_id           text        NOT NULL DEFAULT '',
    primary_keyword     text        NOT NULL DEFAULT '',
    keywords            text[]      NOT NULL DEFAULT '{}',
    labels              text[]      NOT NULL DEFAULT '{}',
    attributes          jsonb       NOT NULL DEFAULT '{}',
    priority            int         NOT NULL DEFAULT 0,
    published_at        timestamptz,
    version             bigint      NOT NULL,
    html                text        NOT NULL,
    linked_html         text,
    published_html      text,
    state               text        NOT NULL CHECK (state IN ('generated', 'published', 'deleted')),
    plan_id             text        NOT NULL DEFAULT '',
    word_count          int         NOT NULL DEFAULT 0,
    inbound_link_count  int         NOT NULL DEFAULT 0,
    outbound_link_count int         NOT NULL DEFAULT 0,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (site_id, id)
);
CREATE INDEX pages_cluster ON pages (site_id, cluster_id, kind);
CREATE INDEX pages_url ON pages (site_id, url);

-- A link we plan, place and validate (the SAGLink lifecycle).
CREATE TABLE links (
    site_id        text        NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    id             text        NOT NULL,
    source_page_id text        NOT NULL,
    source_version bigint      NOT NULL,
    target_page_id text        NOT NULL,
    target_url     text        NOT NULL,
    type           text        NOT NULL,
    anchor         text        NOT NULL DEFAULT '',
    anchor_type    text        NOT NULL DEFAULT '',
    candidates     jsonb       NOT NULL DEFAULT '[]',
    zone           text        NOT NULL,
    first_paragraphs int       NOT NULL DEFAULT 0, -- placement limit: paragraphs 1..N, 0 for any
    paragraph      int,
    score          double precision NOT NULL DEFAULT 0,
    factors        jsonb       NOT NULL DEFAULT '{}',
    mandatory      boolean     NOT NULL DEFAULT false,
    placement      text        NOT NULL DEFAULT '',
    status         text        NOT NULL CHECK (status IN ('planned', 'review', 'inserted', 'verified', 'flagged', 'broken', 'removed')),
    reason         text        NOT NULL DEFAULT '',
    failed_rules   text[]      NOT NULL DEFAULT '{}',
    position       int         NOT NULL,
    inserted_at    timestamptz,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (site_id, id)
);
CREATE INDEX links_source ON links (site_id, source_page_id);
CREATE INDEX links_target ON links (site_id, target_page_id);

-- Every <a> found in published HTML: the site's actual link graph.
CREATE TABLE link_map (
    site_id        text    NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
    source_page_id text    NOT NULL,
    ordinal        int     NOT NULL,
    target_url     text    NOT NULL,
    target_page_id text    NOT NULL DEFAULT '',
    anchor         text    NOT NULL,
    internal       boolean NOT NULL,
    follow         boolean NOT NULL,
    position       text    NOT NULL,
    paragraph      int     NOT NULL DEFAULT 0,
    status         text    NOT NULL CHECK (status IN ('active', 'broken', 'removed')),
    last_verified  timestamptz,
    PRIMARY KEY (site_id, source_page_id, ordinal)
);
CREATE INDEX link_map_target ON link_map (site_id, target_page_id);

-- Event ids a consumer has applied; written in the same transaction as the
-- effect, so a redelivered event is recognised and has no second effect.
CREATE TABLE inbox (
    consumer     text        NOT NULL,
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);

-- Follow-on events, written with the state change and relayed to NATS.
CREATE TABLE outbox (
    seq        bigserial PRIMARY KEY,
    event_id   text        NOT NULL UNIQUE,
    subject    text        NOT NULL,
    headers    jsonb       NOT NULL DEFAULT '{}',
    payload    bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE outbox;
DROP TABLE inbox;
DROP TABLE link_map;
DROP TABLE links;
DROP TABLE pages;
DROP TABLE clusters;
DROP TABLE attributes;
DROP TABLE sectors;
DROP TABLE sites;
