package store

import (
	"context"
	"fmt"
	"time"
)

// PruneInbox deletes up to limit inbox rows older than retention and
// reports how many it deleted. An event is only redelivered while its
// stream keeps it, so past the stream's max age (the redelivery horizon)
// its inbox row guards nothing JetStream can send again; retention must be
// at least that. Rows go in small batches so no prune holds many locks.
func (s *Store) PruneInbox(ctx context.Context, retention time.Duration, limit int) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM inbox WHERE ctid = ANY (ARRAY(
		SELECT ctid FROM inbox WHERE processed_at < now() - $1::interval ORDER BY processed_at LIMIT $2))`,
		retention, limit)
	if err != nil {
		return 0, fmt.Errorf("prune inbox: %w", err)
	}
	if s.legacyInbox.Load() {
		if err := s.checkLegacyInbox(ctx); err != nil {
			return 0, err
		}
	}
	return int(tag.RowsAffected()), nil
}

// PruneSnapshots keeps the newest keep snapshots of a page and deletes the
// rest, after this transaction's own snapshot writes: without it a hub,
// re-planned as each article arrives, keeps a copy of its whole link list
// per article.
func (t *Tx) PruneSnapshots(ctx context.Context, siteID, pageID string, keep int) error {
	t.queue(`DELETE FROM link_snapshots WHERE site_id = $1 AND page_id = $2 AND id <= (
		SELECT id FROM link_snapshots WHERE site_id = $1 AND page_id = $2 ORDER BY id DESC OFFSET $3 LIMIT 1)`,
		siteID, pageID, keep)
	return nil
}
