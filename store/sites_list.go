package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SiteIDs lists the id of every site the service knows (one whose
// site.updated was applied), in id order. It reads across sites: it is for
// operators' commands, such as auditing every site, never for a handler.
func (s *Store) SiteIDs(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM sites ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list sites: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list sites: %w", err)
	}
	return ids, nil
}
