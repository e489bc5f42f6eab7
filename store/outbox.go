package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/interlinker/interlinker/events"
)

// OutboxMessage is one event waiting to be published.
type OutboxMessage struct {
	Seq       int64
	MsgID     string // its Nats-Msg-Id (events.Identity.MsgID)
	EventID   string
	Subject   string
	SiteID    string
	PageID    string // the page the event reports on; '' if none
	Headers   map[string]string
	Payload   []byte
	Size      int // len(Payload), known before the payload is read
	Attempts  int // failed publish attempts so far
	CreatedAt time.Time
}

// Enqueue writes an event to the outbox in the caller's transaction, so it
// is published if and only if the state change that caused it commits.
// pageID names the page the event reports on, if any: a row NATS refuses
// for good is parked, and the page says so.
func (t *Tx) Enqueue(ctx context.Context, ev events.Event, pageID string, headers map[string]string) error {
	return t.EnqueueAfter(ctx, ev, pageID, headers, 0)
}

// EnqueueAfter is Enqueue for an event the relay publishes no sooner than
// delay after the transaction.
func (t *Tx) EnqueueAfter(ctx context.Context, ev events.Event, pageID string, headers map[string]string, delay time.Duration) error {
	payload, hdr, err := encodeOutbound(ev, headers)
	if err != nil {
		return err
	}
	if delay > 0 {
		t.queue(`INSERT INTO outbox (msg_id, event_id, subject, site_id, page_id, headers, payload, size, not_before)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + $9 * interval '1 microsecond') ON CONFLICT (msg_id) DO NOTHING`,
			ev.MsgID(), ev.ID, ev.Type, ev.SiteID, pageID, hdr, payload, len(payload), delay.Microseconds())
		return nil
	}
	t.queue(`INSERT INTO outbox (msg_id, event_id, subject, site_id, page_id, headers, payload, size)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (msg_id) DO NOTHING`,
		ev.MsgID(), ev.ID, ev.Type, ev.SiteID, pageID, hdr, payload, len(payload))
	return nil
}

// EnqueueReplan queues a request to re-plan pageID because a page it
// depends on changed, in place of such requests for that page still
// waiting in the outbox (column replaces), and publishes it when the
// earliest of them would have gone, or delay after the transaction when
// none waits. A page asked again and again while its request waits (a hub
// as its articles arrive) is then asked once per delay, not once per
// change, and no request is published only to be dropped as coalesced.
//
// Only the caller's request replaces: its change commits after every
// change of the requests it finds (they are visible to it), so a plan that
// answers it answers them too. A request being relayed is locked and
// skipped (SKIP LOCKED), never replaced, and the relay skips one being
// replaced in turn, so a request is either published or replaced, never
// both. The same request queued again (its msg_id waiting already)
// replaces nothing. Re-plans asked for over the API or by the LLM fallback
// are queued without the key and are never replaced.
func (t *Tx) EnqueueReplan(ctx context.Context, ev events.Event, pageID string, headers map[string]string, delay time.Duration) error {
	payload, hdr, err := encodeOutbound(ev, headers)
	if err != nil {
		return err
	}
	t.queue(enqueueReplanSQL,
		ev.MsgID(), ev.ID, ev.Type, ev.SiteID, pageID, hdr, payload, len(payload), delay.Microseconds(), replanKey(pageID))
	return nil
}

// enqueueReplanSQL queues a re-plan request in place of those waiting for
// its page. It says that replaces is not empty although $10 never is: the
// queued writes run as generic plans (Tx.commit), which can use the
// partial index outbox_replaceable only when the query implies its
// predicate; without it every request read the whole outbox.
const enqueueReplanSQL = `WITH replaced AS (
		DELETE FROM outbox WHERE seq IN (
			SELECT seq FROM outbox WHERE site_id = $4 AND replaces = $10 AND replaces <> ''
				AND NOT EXISTS (SELECT 1 FROM outbox WHERE msg_id = $1)
			FOR UPDATE SKIP LOCKED)
		RETURNING not_before)
	INSERT INTO outbox (msg_id, event_id, subject, site_id, page_id, headers, payload, size, replaces, not_before)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $10,
		COALESCE((SELECT min(not_before) FROM replaced), now() + $9 * interval '1 microsecond'))
	ON CONFLICT (msg_id) DO NOTHING`

// replanKey is what a dependency re-plan request of a page replaces.
func replanKey(pageID string) string { return events.LinksReplan + ":" + pageID }

// encodeOutbound encodes an event and its headers as the outbox keeps them.
func encodeOutbound(ev events.Event, headers map[string]string) (payload, hdr []byte, err error) {
	payload, err = ev.Encode()
	if err != nil {
		return nil, nil, err
	}
	if headers == nil {
		headers = map[string]string{}
	}
	hdr, err = json.Marshal(headers)
	if err != nil {
		return nil, nil, fmt.Errorf("encode headers of event %s: %w", ev.ID, err)
	}
	return payload, hdr, nil
}

// Delivery is what became of one outbox row handed to the publisher.
type Delivery int

// The zero Delivery is none of these and counts as Failed, so a publisher
// that forgets a row delays it instead of losing it.
const (
	// Published: the broker stored the event; its row is deleted.
	Published Delivery = iota + 1
	// Refused: the broker can never accept the event as it is (too large,
	// say); its row moves to outbox_parked, out of the way of the rest.
	Refused
	// Failed: the event may go through later; its row waits a backoff.
	Failed
)

// Outcome is the publisher's report on one row.
type Outcome struct {
	Delivery Delivery
	Err      error // why it was refused (the parked reason) or failed; nil if published
}

// PublishFunc publishes a batch and reports one outcome per message, in
// the batch's order.
type PublishFunc func(ctx context.Context, batch []OutboxMessage) []Outcome

// RelayResult says what one relayed batch did.
type RelayResult struct {
	Published int
	Failed    int
	Parked    []ParkedMessage // the rows parked, as parked (ParkedAt unset)
	// More reports that the batch stopped at its row limit or byte budget,
	// so more rows may be ready now.
	More bool
}

// Handled counts the rows the batch dealt with, one way or another.
func (r RelayResult) Handled() int { return r.Published + r.Failed + len(r.Parked) }

// Retry backoff of a row whose publish failed transiently: it doubles from
// retryBackoffBase per failed attempt up to retryBackoffMax, so a row NATS
// keeps failing is retried without delaying the rows behind it and without
// hammering a broker that is down.
const (
	retryBackoffBase = time.Second
	retryBackoffMax  = time.Minute
)

// retryBackoff is how long a row waits after its attempts-th failure.
func retryBackoff(attempts int) time.Duration {
	d := retryBackoffBase
	for i := 1; i < attempts && d < retryBackoffMax; i++ {
		d *= 2
	}
	return min(d, retryBackoffMax)
}

// RelayOutbox hands the oldest ready events to publish, at most limit rows
// and, past the first row, at most maxBytes of payload, and records each
// row's outcome in the same transaction: published rows are deleted,
// refused rows are parked (and their page's delivery_error says why),
// failed rows wait retryBackoff before they are ready again. A row is ready
// when its not_before has passed, so one failing row never holds up the
// rows behind it.
//
// Candidate rows are locked with SKIP LOCKED reading only their sizes, so
// several replicas relay without publishing one row twice at once and a
// batch holds at most maxBytes of payloads (or one larger row) in memory.
// A crash after publishing, or ctx ending before the outcomes are
// recorded, leaves the rows as they were: they are published again with
// the same Nats-Msg-Ids, which JetStream drops as duplicates.
//
// When rows were handed out and every one failed transiently (NATS is
// unreachable, say), RelayOutbox commits their backoff and returns an
// error, so the caller backs off too.
func (s *Store) RelayOutbox(ctx context.Context, limit, maxBytes int, publish PublishFunc) (RelayResult, error) {
	var res RelayResult
	var firstFailure error
	err := s.InTx(ctx, func(tx *Tx) error {
		seqs, more, err := tx.lockOutboxBatch(ctx, limit, maxBytes)
		if err != nil || len(seqs) == 0 {
			return err
		}
		res.More = more
		batch, err := tx.readOutboxRows(ctx, seqs)
		if err != nil {
			return err
		}
		outcomes := publish(ctx, batch)
		firstFailure = tx.recordOutcomes(batch, outcomes, &res)
		return nil
	})
	if err != nil {
		return RelayResult{}, err
	}
	if res.Published == 0 && len(res.Parked) == 0 && res.Failed > 0 {
		return res, fmt.Errorf("relay outbox: none of %d events could be published: %w", res.Failed, firstFailure)
	}
	return res, nil
}

// lockOutboxBatch locks up to limit ready rows in outbox order and returns
// the longest prefix whose payloads fit in maxBytes, never less than one
// row. more reports that rows were left out by either bound.
func (t *Tx) lockOutboxBatch(ctx context.Context, limit, maxBytes int) (seqs []int64, more bool, err error) {
	rows, err := t.query(ctx, `SELECT seq, size FROM outbox WHERE not_before <= now()
		ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
	if err != nil {
		return nil, false, fmt.Errorf("lock outbox batch: %w", err)
	}
	defer rows.Close()
	total, locked, full := 0, 0, false
	for rows.Next() {
		var seq int64
		var size int
		if err := rows.Scan(&seq, &size); err != nil {
			return nil, false, fmt.Errorf("lock outbox batch: %w", err)
		}
		locked++
		// Once a row is left out, so is every row after it: the batch
		// stays a prefix of the outbox, and the rows left out stay locked
		// (and skipped by other replicas) only until this batch commits.
		if full || (len(seqs) > 0 && total+size > maxBytes) {
			full = true
			continue
		}
		seqs = append(seqs, seq)
		total += size
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("lock outbox batch: %w", err)
	}
	return seqs, locked == limit || len(seqs) < locked, nil
}

// readOutboxRows reads the locked rows of a batch, payloads included.
func (t *Tx) readOutboxRows(ctx context.Context, seqs []int64) ([]OutboxMessage, error) {
	rows, err := t.query(ctx, `SELECT seq, msg_id, event_id, subject, site_id, page_id, headers, payload, size, attempts, created_at
		FROM outbox WHERE seq = ANY($1) ORDER BY seq`, seqs)
	if err != nil {
		return nil, fmt.Errorf("read outbox batch: %w", err)
	}
	defer rows.Close()
	batch := make([]OutboxMessage, 0, len(seqs))
	for rows.Next() {
		var m OutboxMessage
		if err := rows.Scan(&m.Seq, &m.MsgID, &m.EventID, &m.Subject, &m.SiteID, &m.PageID, &m.Headers, &m.Payload,
			&m.Size, &m.Attempts, &m.CreatedAt); err != nil {
			return nil, fmt.Errorf("read outbox batch: %w", err)
		}
		batch = append(batch, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read outbox batch: %w", err)
	}
	return batch, nil
}

// pageKey names a page within its site.
type pageKey struct{ site, page string }

// sortedPages lists a map's pages in one order, so that two relays
// updating the same page rows lock them in the same order.
func sortedPages[V any](m map[pageKey]V) []pageKey {
	keys := make([]pageKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pageKey) int {
		return cmp.Or(strings.Compare(a.site, b.site), strings.Compare(a.page, b.page))
	})
	return keys
}

// recordOutcomes queues the bookkeeping of a published batch, to be sent
// with COMMIT, fills res, and returns the first transient failure.
func (t *Tx) recordOutcomes(batch []OutboxMessage, outcomes []Outcome, res *RelayResult) error {
	var (
		published    []int64
		parkSeqs     []int64
		parkReasons  []string
		failSeqs     []int64
		failErrs     []string
		failWaits    []float64
		firstFailure error
		// The batch is in seq order, so the last entry per page is its newest.
		pageErrors   = map[pageKey]string{} // page → why its newest parked event was parked
		pageDelivers = map[pageKey]int64{}  // page → seq of its newest links.inserted published
	)
	for i, m := range batch {
		var o Outcome
		if i < len(outcomes) {
			o = outcomes[i]
		}
		switch o.Delivery {
		case Published:
			published = append(published, m.Seq)
			res.Published++
			if m.Subject == events.LinksInserted && m.PageID != "" {
				pageDelivers[pageKey{m.SiteID, m.PageID}] = m.Seq
			}
		case Refused:
			reason := "refused by NATS"
			if o.Err != nil {
				reason = o.Err.Error()
			}
			parkSeqs = append(parkSeqs, m.Seq)
			parkReasons = append(parkReasons, reason)
			res.Parked = append(res.Parked, ParkedMessage{Seq: m.Seq, MsgID: m.MsgID, EventID: m.EventID, Subject: m.Subject,
				SiteID: m.SiteID, PageID: m.PageID, Size: m.Size, Reason: reason, CreatedAt: m.CreatedAt})
			if m.PageID != "" {
				pageErrors[pageKey{m.SiteID, m.PageID}] = fmt.Sprintf("event %s was not published: %s", m.EventID, reason)
			}
		default:
			err := o.Err
			if err == nil {
				err = fmt.Errorf("publish %s %s: the publisher reported no outcome", m.Subject, m.EventID)
			}
			if firstFailure == nil {
				firstFailure = err
			}
			failSeqs = append(failSeqs, m.Seq)
			failErrs = append(failErrs, err.Error())
			failWaits = append(failWaits, retryBackoff(m.Attempts+1).Seconds())
			res.Failed++
		}
	}
	if len(published) > 0 {
		t.queue(`DELETE FROM outbox WHERE seq = ANY($1)`, published)
	}
	if len(parkSeqs) > 0 {
		t.queue(`WITH moved AS (
				DELETE FROM outbox o USING unnest($1::bigint[], $2::text[]) AS r(seq, reason) WHERE o.seq = r.seq
				RETURNING o.seq, o.msg_id, o.event_id, o.subject, o.site_id, o.page_id, o.headers, o.payload, o.size, r.reason, o.created_at)
			INSERT INTO outbox_parked (seq, msg_id, event_id, subject, site_id, page_id, headers, payload, size, reason, created_at)
			SELECT * FROM moved`, parkSeqs, parkReasons)
	}
	if len(pageErrors) > 0 {
		var sites, pages, reasons []string
		for _, k := range sortedPages(pageErrors) {
			sites, pages, reasons = append(sites, k.site), append(pages, k.page), append(reasons, pageErrors[k])
		}
		// Only rows that change are written: a page row is hot.
		t.queue(`UPDATE pages p SET delivery_error = u.reason
			FROM unnest($1::text[], $2::text[], $3::text[]) AS u(site_id, page_id, reason)
			WHERE p.site_id = u.site_id AND p.id = u.page_id AND p.delivery_error <> u.reason`, sites, pages, reasons)
	}
	if len(pageDelivers) > 0 {
		var sites, pages []string
		var seqs []int64
		for _, k := range sortedPages(pageDelivers) {
			sites, pages, seqs = append(sites, k.site), append(pages, k.page), append(seqs, pageDelivers[k])
		}
		// A page's later result reaching NATS clears the error an earlier
		// parked one left; one parked after it (in this batch or an
		// earlier one) still stands.
		t.queue(`UPDATE pages p SET delivery_error = ''
			FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(site_id, page_id, seq)
			WHERE p.site_id = u.site_id AND p.id = u.page_id AND p.delivery_error <> ''
			AND NOT EXISTS (SELECT 1 FROM outbox_parked k
				WHERE k.site_id = u.site_id AND k.page_id = u.page_id AND k.seq > u.seq)`, sites, pages, seqs)
	}
	if len(failSeqs) > 0 {
		t.queue(`UPDATE outbox o SET attempts = o.attempts + 1, last_error = u.err, not_before = now() + u.wait * interval '1 second'
			FROM unnest($1::bigint[], $2::text[], $3::float8[]) AS u(seq, err, wait) WHERE o.seq = u.seq`,
			failSeqs, failErrs, failWaits)
	}
	return firstFailure
}

// OutboxStatus is the state of the outbox at one moment.
type OutboxStatus struct {
	Waiting int           // events not yet published, those backing off included
	Oldest  time.Duration // how long the oldest of them has waited; 0 if none
	Parked  int           // events NATS refused for good, waiting for an operator
}

// OutboxStatus measures the outbox in one round trip.
func (s *Store) OutboxStatus(ctx context.Context) (OutboxStatus, error) {
	var st OutboxStatus
	var age *float64
	err := s.pool.QueryRow(ctx, `SELECT o.waiting, o.age, (SELECT count(*) FROM outbox_parked)
		FROM (SELECT count(*) AS waiting, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS age FROM outbox) o`).
		Scan(&st.Waiting, &age, &st.Parked)
	if err != nil {
		return OutboxStatus{}, fmt.Errorf("measure outbox: %w", err)
	}
	if age != nil {
		st.Oldest = time.Duration(*age * float64(time.Second))
	}
	return st, nil
}

// ParkedMessage is an event NATS refused for good, kept aside with why.
type ParkedMessage struct {
	Seq       int64
	MsgID     string
	EventID   string
	Subject   string
	SiteID    string
	PageID    string
	Size      int
	Reason    string
	CreatedAt time.Time // when it was enqueued
	ParkedAt  time.Time
}

// ErrNotParked reports that no parked event has the given seq.
var ErrNotParked = errors.New("no parked outbox event has this seq")

// ParkedOutbox lists a site's parked events, newest first, without their
// payloads.
func (s *Store) ParkedOutbox(ctx context.Context, siteID string) ([]ParkedMessage, error) {
	rows, err := s.pool.Query(ctx, `SELECT seq, msg_id, event_id, subject, site_id, page_id, size, reason, created_at, parked_at
		FROM outbox_parked WHERE site_id = $1 ORDER BY parked_at DESC, seq DESC`, siteID)
	if err != nil {
		return nil, fmt.Errorf("list parked outbox events of site %s: %w", siteID, err)
	}
	defer rows.Close()
	var parked []ParkedMessage
	for rows.Next() {
		var p ParkedMessage
		if err := rows.Scan(&p.Seq, &p.MsgID, &p.EventID, &p.Subject, &p.SiteID, &p.PageID, &p.Size, &p.Reason,
			&p.CreatedAt, &p.ParkedAt); err != nil {
			return nil, fmt.Errorf("list parked outbox events of site %s: %w", siteID, err)
		}
		parked = append(parked, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list parked outbox events of site %s: %w", siteID, err)
	}
	return parked, nil
}

// RequeueParked moves a parked event back into the outbox with a clean
// slate of attempts, for an operator who has made room for it (raised the
// server's max_payload, say). It keeps its seq, so it goes out ahead of
// events enqueued after it. If the same event was enqueued again meanwhile,
// that copy stands and the parked one is dropped.
func (s *Store) RequeueParked(ctx context.Context, seq int64) error {
	var moved int
	err := s.pool.QueryRow(ctx, `WITH moved AS (
			DELETE FROM outbox_parked WHERE seq = $1
			RETURNING seq, msg_id, event_id, subject, site_id, page_id, headers, payload, size, created_at),
		requeued AS (
			INSERT INTO outbox (seq, msg_id, event_id, subject, site_id, page_id, headers, payload, size, created_at)
			SELECT * FROM moved ON CONFLICT (msg_id) DO NOTHING)
		SELECT count(*) FROM moved`, seq).Scan(&moved)
	if err != nil {
		return fmt.Errorf("requeue parked outbox event %d: %w", seq, err)
	}
	if moved == 0 {
		return fmt.Errorf("requeue parked outbox event %d: %w", seq, ErrNotParked)
	}
	return nil
}
