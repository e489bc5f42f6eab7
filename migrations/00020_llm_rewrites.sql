-- +goose Up

-- The LLM fallback's answers, kept so that a redelivered event, a re-plan
-- or a settle pass never pays for a paragraph twice and always gets the same
-- HTML. key is the SHA-256 of what the answer depends on: the prompt's
-- version, the model, the paragraph's HTML, the anchor and the target URL
-- (llmRewriteKey). answer is the model's paragraph; refusal says why it was
-- not taken (an answer that was no JSON to the schema has no answer).
CREATE TABLE llm_rewrites (
    key            bytea       PRIMARY KEY,
    model          text        NOT NULL,
    prompt_version text        NOT NULL,
    answer         text        NOT NULL DEFAULT '',
    refusal        text        NOT NULL DEFAULT '',
    tokens_in      int         NOT NULL DEFAULT 0,
    tokens_out     int         NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE llm_rewrites;
