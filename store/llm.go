package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Kinds of question a model is asked, as its answers are kept.
const (
	AnswerRewrite = "rewrite" // the LLM fallback's paragraph
	AnswerPhrases = "phrases" // anchor phrases for a page's targets
)

// Answer is a model's answer as kept: what it said, and why it was
// refused, if it was.
type Answer struct {
	Answer  string
	Refusal string
}

const answerSQL = `SELECT answer, refusal FROM llm_answers WHERE key = $1`

// CachedAnswer reads the kept answer of key in the transaction; found is
// false when the model was never asked.
func (t *Tx) CachedAnswer(ctx context.Context, key []byte) (Answer, bool, error) {
	return scanAnswer(t.queryRow(ctx, answerSQL, key))
}

// KeptAnswer reads the kept answer of key outside any transaction.
func (s *Store) KeptAnswer(ctx context.Context, key []byte) (Answer, bool, error) {
	return scanAnswer(s.pool.QueryRow(ctx, answerSQL, key))
}

func scanAnswer(row pgx.Row) (a Answer, found bool, err error) {
	err = row.Scan(&a.Answer, &a.Refusal)
	if errors.Is(err, pgx.ErrNoRows) {
		return Answer{}, false, nil
	}
	if err != nil {
		return Answer{}, false, fmt.Errorf("read kept LLM answer: %w", err)
	}
	return a, true, nil
}

// KeepAnswer keeps an answer of the model under key. The first answer kept
// stands: a replica that asked at the same moment keeps nothing, so every
// result built from key is the same.
func (s *Store) KeepAnswer(ctx context.Context, key []byte, kind, model, promptVersion string, a Answer, tokensIn, tokensOut int) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO llm_answers (key, kind, model, prompt_version, answer, refusal, tokens_in, tokens_out)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (key) DO NOTHING`,
		key, kind, model, promptVersion, a.Answer, a.Refusal, tokensIn, tokensOut)
	if err != nil {
		return fmt.Errorf("keep LLM answer: %w", err)
	}
	return nil
}
