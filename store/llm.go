package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Rewrite is an answer of the LLM fallback as kept: the model's paragraph,
// and why it was refused, if it was.
type Rewrite struct {
	Answer  string
	Refusal string
}

// CachedRewrite reads the kept answer of key; found is false when the
// model was never asked.
func (t *Tx) CachedRewrite(ctx context.Context, key []byte) (r Rewrite, found bool, err error) {
	err = t.queryRow(ctx, `SELECT answer, refusal FROM llm_rewrites WHERE key = $1`, key).Scan(&r.Answer, &r.Refusal)
	if errors.Is(err, pgx.ErrNoRows) {
		return Rewrite{}, false, nil
	}
	if err != nil {
		return Rewrite{}, false, fmt.Errorf("read kept LLM rewrite: %w", err)
	}
	return r, true, nil
}

// KeepRewrite keeps an answer of the model under key. The first answer
// kept stands: a replica that asked at the same moment keeps nothing, so
// every page built from key has the same HTML.
func (s *Store) KeepRewrite(ctx context.Context, key []byte, model, promptVersion string, r Rewrite, tokensIn, tokensOut int) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO llm_rewrites (key, model, prompt_version, answer, refusal, tokens_in, tokens_out)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO NOTHING`,
		key, model, promptVersion, r.Answer, r.Refusal, tokensIn, tokensOut)
	if err != nil {
		return fmt.Errorf("keep LLM rewrite: %w", err)
	}
	return nil
}

// KeptRewrite reads the kept answer of key outside any transaction.
func (s *Store) KeptRewrite(ctx context.Context, key []byte) (r Rewrite, found bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT answer, refusal FROM llm_rewrites WHERE key = $1`, key).Scan(&r.Answer, &r.Refusal)
	if errors.Is(err, pgx.ErrNoRows) {
		return Rewrite{}, false, nil
	}
	if err != nil {
		return Rewrite{}, false, fmt.Errorf("read kept LLM rewrite: %w", err)
	}
	return r, true, nil
}
