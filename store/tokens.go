package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Token is an HTTP API token of one site, without its secret.
type Token struct {
	ID        string
	SiteID    string
	Name      string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// TokenPrefix starts every token secret, so a leaked one is recognisable
// in logs and by secret scanners.
const TokenPrefix = "ilk_"

// HashToken is what is stored of a token secret.
func HashToken(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// CreateToken makes a token for a site and returns it with its secret,
// which is shown once: only its hash is stored.
func (s *Store) CreateToken(ctx context.Context, siteID, name string) (Token, string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return Token{}, "", fmt.Errorf("make token: %w", err)
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	id := "tok_" + hex.EncodeToString(HashToken(secret)[:6])
	t := Token{ID: id, SiteID: siteID, Name: name}
	err := s.pool.QueryRow(ctx, `INSERT INTO api_tokens (id, site_id, name, hash) VALUES ($1, $2, $3, $4) RETURNING created_at`,
		id, siteID, name, HashToken(secret)).Scan(&t.CreatedAt)
	if err != nil {
		return Token{}, "", fmt.Errorf("store token for site %s: %w", siteID, err)
	}
	return t, secret, nil
}

// Tokens lists a site's tokens, revoked ones included, oldest first; every
// site's when siteID is "".
func (s *Store) Tokens(ctx context.Context, siteID string) ([]Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, site_id, name, created_at, revoked_at FROM api_tokens
		WHERE $1 = '' OR site_id = $1 ORDER BY created_at, id`, siteID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Token, error) {
		var t Token
		return t, r.Scan(&t.ID, &t.SiteID, &t.Name, &t.CreatedAt, &t.RevokedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken revokes a token. It reports false when there is no such
// token or it was revoked already.
func (s *Store) RevokeToken(ctx context.Context, id string) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, id)
	if err != nil {
		return false, fmt.Errorf("revoke token %s: %w", id, err)
	}
	return tag.RowsAffected() == 1, nil
}

// TokenBySecret finds the live token with this secret.
func (s *Store) TokenBySecret(ctx context.Context, secret string) (Token, bool, error) {
	var t Token
	err := s.pool.QueryRow(ctx, `SELECT id, site_id, name, created_at FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL`,
		HashToken(secret)).Scan(&t.ID, &t.SiteID, &t.Name, &t.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, false, nil
	}
	if err != nil {
		return Token{}, false, fmt.Errorf("look up token: %w", err)
	}
	return t, true, nil
}
