package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/interlinker/interlinker/events"
)

// OutboxMessage is one event waiting to be published.
type OutboxMessage struct {
	Seq       int64
	MsgID     string // its Nats-Msg-Id (events.Identity.MsgID)
	EventID   string
	Subject   string
	Headers   map[string]string
	Payload   []byte
	CreatedAt time.Time
}

// Enqueue writes an event to the outbox in the caller's transaction, so it
// is published if and only if the state change that caused it commits.
// pageID names the page the event reports on, if any: a row NATS refuses
// for good is parked, and the page says so.
func (t *Tx) Enqueue(ctx context.Context, ev events.Event, pageID string, headers map[string]string) error {
	payload, err := ev.Encode()
	if err != nil {
		return err
	}
	if headers == nil {
		headers = map[string]string{}
	}
	hdr, err := json.Marshal(headers)
	if err != nil {
		return fmt.Errorf("encode headers of event %s: %w", ev.ID, err)
	}
	t.queue(`INSERT INTO outbox (msg_id, event_id, subject, site_id, page_id, headers, payload, size)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (msg_id) DO NOTHING`,
		ev.MsgID(), ev.ID, ev.Type, ev.SiteID, pageID, hdr, payload, len(payload))
	return nil
}

// RelayOutbox hands up to limit waiting events, oldest first, to publish and
// deletes them once publish returns nil. Rows are locked with SKIP LOCKED, so
// several replicas relay without publishing one row twice at once; a crash
// after publishing republishes the same event ids, which JetStream drops as
// duplicates.
func (s *Store) RelayOutbox(ctx context.Context, limit int, publish func(context.Context, []OutboxMessage) error) (int, error) {
	var n int
	err := s.InTx(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, `SELECT seq, msg_id, event_id, subject, headers, payload, created_at FROM outbox
			ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
		if err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		var batch []OutboxMessage
		var seqs []int64
		for rows.Next() {
			var m OutboxMessage
			if err := rows.Scan(&m.Seq, &m.MsgID, &m.EventID, &m.Subject, &m.Headers, &m.Payload, &m.CreatedAt); err != nil {
				rows.Close()
				return fmt.Errorf("read outbox: %w", err)
			}
			batch = append(batch, m)
			seqs = append(seqs, m.Seq)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read outbox: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		if err := publish(ctx, batch); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `DELETE FROM outbox WHERE seq = ANY($1)`, seqs); err != nil {
			return fmt.Errorf("delete relayed outbox rows: %w", err)
		}
		n = len(batch)
		return nil
	})
	return n, err
}

// OutboxLag reports how many events wait and how long the oldest has waited.
func (s *Store) OutboxLag(ctx context.Context) (waiting int, oldest time.Duration, err error) {
	var age *float64
	err = s.pool.QueryRow(ctx, `SELECT count(*), EXTRACT(EPOCH FROM now() - min(created_at)) FROM outbox`).Scan(&waiting, &age)
	if err != nil {
		return 0, 0, fmt.Errorf("measure outbox lag: %w", err)
	}
	if age != nil {
		oldest = time.Duration(*age * float64(time.Second))
	}
	return waiting, oldest, nil
}
