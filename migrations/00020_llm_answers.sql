-- +goose Up

-- The model's answers, kept so that a redelivered event, a re-plan, a
-- settle pass or another audit never pays for the same question twice and
-- always gets the same result. key is the SHA-256 of what the answer depends
-- on: the prompt's version, the model and the request (handlers'
-- rewriteKey, phrasesKey). kind is the question: rewrite (the LLM fallback's
-- paragraph) or phrases (anchor phrases for a page's targets). answer is
-- the model's answer; refusal says why it was not taken (an answer that was
-- no JSON to the schema has no answer).
CREATE TABLE llm_answers (
    key            bytea       PRIMARY KEY,
    kind           text        NOT NULL CHECK (kind IN ('rewrite', 'phrases')),
    model          text        NOT NULL,
    prompt_version text        NOT NULL,
    answer         text        NOT NULL DEFAULT '',
    refusal        text        NOT NULL DEFAULT '',
    tokens_in      int         NOT NULL DEFAULT 0,
    tokens_out     int         NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE llm_answers;
