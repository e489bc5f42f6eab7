package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store/storetest"
)

// openStore opens a store on a database of its own, closed with the test.
func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.Context(), storetest.NewDatabase(t), Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// obEnqueue writes an event about page (if any) of site to the outbox,
// with html as the bulk of its payload, and returns its encoded size.
func obEnqueue(t *testing.T, s *Store, typ, siteID, id, pageID, html string) int {
	t.Helper()
	ev, err := events.New(typ, siteID, id, "", map[string]string{"page_id": pageID, "html": html})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := ev.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InTx(t.Context(), func(tx *Tx) error {
		return tx.Enqueue(t.Context(), ev, pageID, map[string]string{"Correlation": id})
	}); err != nil {
		t.Fatal(err)
	}
	return len(payload)
}

// obPage creates a site (once) and a page in it.
func obPage(t *testing.T, s *Store, siteID, pageID string) {
	t.Helper()
	ctx := t.Context()
	if _, err := s.pool.Exec(ctx, `INSERT INTO sites (id, base_url, name, policy) VALUES ($1, 'https://example.test', $1, 'sag')
		ON CONFLICT DO NOTHING`, siteID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO pages (site_id, id, url, title, kind, version, html, state)
		VALUES ($1, $2, 'https://example.test/' || $2, $2, 'page', 1, '<p>text</p>', 'published')`, siteID, pageID); err != nil {
		t.Fatal(err)
	}
}

func obDeliveryError(t *testing.T, s *Store, siteID, pageID string) string {
	t.Helper()
	var msg string
	if err := s.pool.QueryRow(t.Context(), `SELECT delivery_error FROM pages WHERE site_id = $1 AND id = $2`, siteID, pageID).Scan(&msg); err != nil {
		t.Fatal(err)
	}
	return msg
}

// obRow is the retry state of an outbox row.
type obRow struct {
	attempts  int
	lastError string
	notBefore time.Time
}

func obOutboxRow(t *testing.T, s *Store, eventID string) (obRow, bool) {
	t.Helper()
	var r obRow
	err := s.pool.QueryRow(t.Context(), `SELECT attempts, last_error, not_before FROM outbox WHERE event_id = $1`, eventID).
		Scan(&r.attempts, &r.lastError, &r.notBefore)
	if err != nil {
		return obRow{}, false
	}
	return r, true
}

func obClock(t *testing.T, s *Store) time.Time {
	t.Helper()
	var now time.Time
	if err := s.pool.QueryRow(t.Context(), `SELECT clock_timestamp()`).Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// obRelay relays one batch through a fake publisher that decides each
// row's outcome by its event id, and returns the ids it was handed.
func obRelay(t *testing.T, s *Store, limit, maxBytes int, decide func(OutboxMessage) Outcome) ([]string, RelayResult, error) {
	t.Helper()
	var handed []string
	res, err := s.RelayOutbox(t.Context(), limit, maxBytes, func(_ context.Context, batch []OutboxMessage) []Outcome {
		outcomes := make([]Outcome, len(batch))
		for i, m := range batch {
			handed = append(handed, m.EventID)
			outcomes[i] = decide(m)
		}
		return outcomes
	})
	return handed, res, err
}

func publishAll(OutboxMessage) Outcome { return Outcome{Delivery: Published} }

func obWantIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

func TestRelayDeletesPublishedRowsParksRefusedOnesAndDelaysFailedOnesInOneBatch(t *testing.T) {
	s := openStore(t)
	obPage(t, s, "s1", "big")
	obPage(t, s, "s1", "other")
	obEnqueue(t, s, events.LinksInserted, "s1", "ok-1", "other", "<p>a</p>")
	bigSize := obEnqueue(t, s, events.LinksInserted, "s1", "too-big", "big", strings.Repeat("x", 5000))
	obEnqueue(t, s, events.LinksPlanned, "s1", "flaky", "other", "<p>b</p>")
	obEnqueue(t, s, events.LinksInserted, "s1", "ok-2", "other", "<p>c</p>")

	before := obClock(t, s)
	handed, res, err := obRelay(t, s, 10, 1<<20, func(m OutboxMessage) Outcome {
		switch m.EventID {
		case "too-big":
			return Outcome{Delivery: Refused, Err: errors.New("exceeds the server's max_payload")}
		case "flaky":
			return Outcome{Delivery: Failed, Err: errors.New("no ack within 10s")}
		}
		return Outcome{Delivery: Published}
	})
	after := obClock(t, s)
	if err != nil {
		t.Fatalf("a batch that published rows reported %v", err)
	}
	obWantIDs(t, "handed", handed, "ok-1", "too-big", "flaky", "ok-2")
	if res.Published != 2 || res.Failed != 1 || len(res.Parked) != 1 || res.More {
		t.Errorf("result %+v", res)
	}
	if p := res.Parked[0]; p.EventID != "too-big" || p.Subject != events.LinksInserted || p.PageID != "big" ||
		p.Size != bigSize || p.Reason != "exceeds the server's max_payload" {
		t.Errorf("parked %+v", p)
	}

	for _, id := range []string{"ok-1", "ok-2", "too-big"} {
		if _, ok := obOutboxRow(t, s, id); ok {
			t.Errorf("%s still in the outbox", id)
		}
	}
	flaky, ok := obOutboxRow(t, s, "flaky")
	if !ok {
		t.Fatal("the failed row left the outbox")
	}
	if flaky.attempts != 1 || flaky.lastError != "no ack within 10s" {
		t.Errorf("failed row: %+v", flaky)
	}
	// not_before is the bookkeeping transaction's now() plus the first
	// backoff, and that transaction ran between before and after.
	if start := flaky.notBefore.Add(-retryBackoff(1)); start.Before(before) || start.After(after) {
		t.Errorf("not_before %s: want %s after a moment in [%s, %s]", flaky.notBefore, retryBackoff(1), before, after)
	}

	parked, err := s.ParkedOutbox(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(parked) != 1 || parked[0].EventID != "too-big" || parked[0].Reason != "exceeds the server's max_payload" ||
		parked[0].Size != bigSize || parked[0].ParkedAt.IsZero() {
		t.Errorf("parked rows %+v", parked)
	}
	if got := obDeliveryError(t, s, "s1", "big"); !strings.Contains(got, "too-big") || !strings.Contains(got, "max_payload") {
		t.Errorf("delivery_error of the parked page: %q", got)
	}
	if got := obDeliveryError(t, s, "s1", "other"); got != "" {
		t.Errorf("delivery_error of a delivered page: %q", got)
	}
	st, err := s.OutboxStatus(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Waiting != 1 || st.Parked != 1 || st.Oldest <= 0 {
		t.Errorf("outbox status %+v, want 1 waiting and 1 parked", st)
	}
}

func TestAFailingRowWaitsAGrowingBackoffWhileTheRowsBehindItAreRelayed(t *testing.T) {
	s := openStore(t)
	obEnqueue(t, s, events.LinksInserted, "s1", "stuck", "p1", "<p>a</p>")
	obEnqueue(t, s, events.LinksInserted, "s1", "next-1", "p2", "<p>b</p>")
	obEnqueue(t, s, events.LinksInserted, "s1", "next-2", "p3", "<p>c</p>")
	fail := func(OutboxMessage) Outcome { return Outcome{Delivery: Failed, Err: errors.New("nats: timeout")} }

	// Each failure pushes not_before one backoff past the attempt; the
	// wait is then declared over by hand, so the test never sleeps.
	for attempt := 1; attempt <= 7; attempt++ {
		before := obClock(t, s)
		handed, res, err := obRelay(t, s, 1, 1<<20, fail)
		after := obClock(t, s)
		obWantIDs(t, "handed", handed, "stuck")
		if err == nil || !strings.Contains(err.Error(), "nats: timeout") {
			t.Errorf("attempt %d: a batch where every row failed transiently returned %v, want an error", attempt, err)
		}
		if res.Failed != 1 {
			t.Errorf("attempt %d: result %+v", attempt, res)
		}
		row, ok := obOutboxRow(t, s, "stuck")
		if !ok {
			t.Fatal("the failed row left the outbox")
		}
		if row.attempts != attempt || row.lastError != "nats: timeout" {
			t.Errorf("attempt %d: row %+v (the bookkeeping must commit despite the error)", attempt, row)
		}
		if start := row.notBefore.Add(-retryBackoff(attempt)); start.Before(before) || start.After(after) {
			t.Errorf("attempt %d: not_before %s, want %s after a moment in [%s, %s]", attempt, row.notBefore, retryBackoff(attempt), before, after)
		}
		if attempt < 7 {
			if _, err := s.pool.Exec(t.Context(), `UPDATE outbox SET not_before = '-infinity' WHERE event_id = 'stuck'`); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Now stuck waits a full minute: the rows behind it go out meanwhile.
	handed, res, err := obRelay(t, s, 10, 1<<20, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "handed while the first row waits", handed, "next-1", "next-2")
	if res.Published != 2 || res.More {
		t.Errorf("result %+v", res)
	}
	if row, ok := obOutboxRow(t, s, "stuck"); !ok || row.attempts != 7 {
		t.Errorf("the waiting row: %+v, present %v", row, ok)
	}
}

func TestRetryBackoffDoublesFromASecondUpToAMinute(t *testing.T) {
	want := map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second,
		6: 32 * time.Second, 7: time.Minute, 1000: time.Minute}
	for attempts, w := range want {
		if got := retryBackoff(attempts); got != w {
			t.Errorf("after %d failures: %s, want %s", attempts, got, w)
		}
	}
}

func TestAPublishedLinksInsertedClearsItsPagesDeliveryErrorUnlessALaterEventOfThePageWasParked(t *testing.T) {
	s := openStore(t)
	obPage(t, s, "s1", "p")
	refuse := map[string]bool{"v1": true, "v4": true}
	decide := func(m OutboxMessage) Outcome {
		if refuse[m.EventID] {
			return Outcome{Delivery: Refused, Err: errors.New("exceeds the stream's maximum message size")}
		}
		return Outcome{Delivery: Published}
	}
	relay := func() {
		t.Helper()
		if _, _, err := obRelay(t, s, 10, 1<<20, decide); err != nil {
			t.Fatal(err)
		}
	}

	obEnqueue(t, s, events.LinksInserted, "s1", "v1", "p", "<p>1</p>")
	relay()
	if got := obDeliveryError(t, s, "s1", "p"); !strings.Contains(got, "v1") {
		t.Fatalf("after v1 was parked: delivery_error %q", got)
	}

	obEnqueue(t, s, events.LinksReview, "s1", "review", "p", "<p>r</p>")
	relay()
	if got := obDeliveryError(t, s, "s1", "p"); !strings.Contains(got, "v1") {
		t.Errorf("a published links.review cleared the error: %q", got)
	}

	obEnqueue(t, s, events.LinksInserted, "s1", "v2", "p", "<p>2</p>")
	relay()
	if got := obDeliveryError(t, s, "s1", "p"); got != "" {
		t.Errorf("after a later links.inserted was published: delivery_error %q", got)
	}

	// In one batch, the newer event decides: v3 published, then v4 parked.
	obEnqueue(t, s, events.LinksInserted, "s1", "v3", "p", "<p>3</p>")
	obEnqueue(t, s, events.LinksInserted, "s1", "v4", "p", "<p>4</p>")
	relay()
	if got := obDeliveryError(t, s, "s1", "p"); !strings.Contains(got, "v4") {
		t.Errorf("after v3 published and v4 parked in one batch: delivery_error %q", got)
	}

	// An older result that reaches NATS late (after retries) does not hide
	// the parked newer one.
	obEnqueue(t, s, events.LinksInserted, "s1", "late", "p", "<p>old</p>")
	if _, err := s.pool.Exec(t.Context(), `UPDATE outbox SET seq = 0 WHERE event_id = 'late'`); err != nil {
		t.Fatal(err)
	}
	relay()
	if got := obDeliveryError(t, s, "s1", "p"); !strings.Contains(got, "v4") {
		t.Errorf("an older links.inserted published late cleared the error: %q", got)
	}
}

func TestABatchIsTheLongestPrefixOfReadyRowsWithinTheByteBudget(t *testing.T) {
	s := openStore(t)
	var sizes []int
	for _, id := range []string{"e1", "e2", "e3", "e4", "e5"} {
		sizes = append(sizes, obEnqueue(t, s, events.LinksInserted, "s1", id, "p-"+id, strings.Repeat("w", 1000)))
	}

	// e3 would take the batch one byte past the budget: it waits, and so
	// does e4 though it would fit after it.
	handed, res, err := obRelay(t, s, 10, sizes[0]+sizes[1]+sizes[2]-1, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "first batch", handed, "e1", "e2")
	if !res.More {
		t.Error("a batch cut by the byte budget did not report more rows")
	}

	handed, res, err = obRelay(t, s, 2, 1<<20, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "second batch", handed, "e3", "e4")
	if !res.More {
		t.Error("a batch cut by the row limit did not report more rows")
	}

	handed, res, err = obRelay(t, s, 10, sizes[4], publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "third batch", handed, "e5")
	if res.More {
		t.Error("the batch that emptied the outbox reported more rows")
	}
}

func TestARowLargerThanTheByteBudgetIsRelayedAloneAndTheRowsBehindItFollow(t *testing.T) {
	s := openStore(t)
	obEnqueue(t, s, events.LinksInserted, "s1", "huge", "p1", strings.Repeat("h", 100<<10))
	obEnqueue(t, s, events.LinksInserted, "s1", "small-1", "p2", "<p>a</p>")
	obEnqueue(t, s, events.LinksInserted, "s1", "small-2", "p3", "<p>b</p>")

	handed, res, err := obRelay(t, s, 10, 10<<10, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "first batch", handed, "huge")
	if res.Published != 1 || !res.More {
		t.Errorf("result %+v", res)
	}
	handed, _, err = obRelay(t, s, 10, 10<<10, publishAll)
	if err != nil {
		t.Fatal(err)
	}
	obWantIDs(t, "second batch", handed, "small-1", "small-2")
}

func TestParkedEventsAreListedPerSiteNewestFirstAndARequeuedOneIsRelayedWithFreshAttempts(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	refuse := func(OutboxMessage) Outcome {
		return Outcome{Delivery: Refused, Err: errors.New("exceeds the NATS server's max_payload of 1024 bytes")}
	}
	fail := func(OutboxMessage) Outcome { return Outcome{Delivery: Failed, Err: errors.New("nats: timeout")} }

	obEnqueue(t, s, events.LinksInserted, "a", "first", "p1", strings.Repeat("1", 2000))
	if _, _, err := obRelay(t, s, 10, 1<<20, fail); err == nil {
		t.Fatal("an all-failed batch returned no error")
	}
	if _, err := s.pool.Exec(ctx, `UPDATE outbox SET not_before = '-infinity'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := obRelay(t, s, 10, 1<<20, refuse); err != nil {
		t.Fatal(err)
	}
	obEnqueue(t, s, events.LinksInserted, "a", "second", "p2", strings.Repeat("2", 2000))
	obEnqueue(t, s, events.LinksInserted, "b", "other-site", "p1", strings.Repeat("3", 2000))
	if _, _, err := obRelay(t, s, 10, 1<<20, refuse); err != nil {
		t.Fatal(err)
	}

	parked, err := s.ParkedOutbox(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range parked {
		ids = append(ids, p.EventID)
		if p.SiteID != "a" || p.Subject != events.LinksInserted || p.Size < 2000 || p.Reason == "" ||
			p.MsgID != (events.Identity{SiteID: "a", Source: events.Source, ID: p.EventID}).MsgID() || p.CreatedAt.IsZero() || p.ParkedAt.Before(p.CreatedAt) {
			t.Errorf("parked %+v", p)
		}
	}
	obWantIDs(t, "site a's parked events", ids, "second", "first")
	if other, err := s.ParkedOutbox(ctx, "b"); err != nil || len(other) != 1 || other[0].EventID != "other-site" {
		t.Errorf("site b's parked events: %+v, %v", other, err)
	}
	if none, err := s.ParkedOutbox(ctx, "c"); err != nil || len(none) != 0 {
		t.Errorf("a site with nothing parked: %+v, %v", none, err)
	}

	first := parked[1]
	if err := s.RequeueParked(ctx, first.Seq); err != nil {
		t.Fatal(err)
	}
	if st, err := s.OutboxStatus(ctx); err != nil || st.Waiting != 1 || st.Parked != 2 {
		t.Errorf("after requeueing one: %+v, %v", st, err)
	}
	var requeued OutboxMessage
	if _, err := s.RelayOutbox(ctx, 10, 1<<20, func(_ context.Context, batch []OutboxMessage) []Outcome {
		requeued = batch[0]
		return []Outcome{{Delivery: Published}}
	}); err != nil {
		t.Fatal(err)
	}
	if requeued.Seq != first.Seq || requeued.EventID != "first" || requeued.Attempts != 0 ||
		requeued.Headers["Correlation"] != "first" || len(requeued.Payload) != first.Size || !requeued.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("requeued row relayed as seq %d %s attempts %d headers %v, %d bytes, created %s; want seq %d, 0 attempts, %d bytes, created %s",
			requeued.Seq, requeued.EventID, requeued.Attempts, requeued.Headers, len(requeued.Payload), requeued.CreatedAt,
			first.Seq, first.Size, first.CreatedAt)
	}
	if left, err := s.ParkedOutbox(ctx, "a"); err != nil || len(left) != 1 || left[0].EventID != "second" {
		t.Errorf("site a's parked events after the requeue: %+v, %v", left, err)
	}
	if err := s.RequeueParked(ctx, first.Seq); !errors.Is(err, ErrNotParked) {
		t.Errorf("requeueing it twice: %v, want ErrNotParked", err)
	}
}

func TestRequeueingAParkedEventThatWasEnqueuedAgainKeepsOneCopy(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	obEnqueue(t, s, events.LinksInserted, "a", "dup", "p1", "<p>x</p>")
	if _, _, err := obRelay(t, s, 10, 1<<20, func(OutboxMessage) Outcome {
		return Outcome{Delivery: Refused, Err: errors.New("too large")}
	}); err != nil {
		t.Fatal(err)
	}
	obEnqueue(t, s, events.LinksInserted, "a", "dup", "p1", "<p>x</p>") // a handler's retry emits it again
	parked, err := s.ParkedOutbox(ctx, "a")
	if err != nil || len(parked) != 1 {
		t.Fatalf("parked %+v, %v", parked, err)
	}
	if err := s.RequeueParked(ctx, parked[0].Seq); err != nil {
		t.Fatal(err)
	}
	st, err := s.OutboxStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Waiting != 1 || st.Parked != 0 {
		t.Errorf("outbox status %+v, want the one copy waiting and nothing parked", st)
	}
}

// TestAReplanRequestReplacesTheOneStillWaitingForItsPage: a page's
// dependency re-plan request takes the place of the one waiting in the
// outbox and keeps its time; one being relayed, other pages' requests and
// re-plans queued without the key (the API's, the LLM fallback's) stay.
func TestAReplanRequestReplacesTheOneStillWaitingForItsPage(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	replan := func(id, pageID string, delay time.Duration) {
		t.Helper()
		ev, err := events.New(events.LinksReplan, "site", id, "", events.ReplanData{PageID: pageID})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *Tx) error { return tx.EnqueueReplan(ctx, ev, pageID, nil, delay) }); err != nil {
			t.Fatal(err)
		}
	}
	waiting := func() []string {
		t.Helper()
		return queryStrings(t, s, `SELECT event_id FROM outbox ORDER BY event_id`)
	}

	replan("first", "hub", time.Hour)
	first, _ := obOutboxRow(t, s, "first")
	obEnqueue(t, s, events.LinksReplan, "site", "asked-over-api", "hub", "")
	replan("other-page", "article", time.Hour)
	replan("second", "hub", 2*time.Hour)
	if got, want := waiting(), []string{"asked-over-api", "other-page", "second"}; !slices.Equal(got, want) {
		t.Fatalf("waiting after the second request: %v, want %v", got, want)
	}
	if second, _ := obOutboxRow(t, s, "second"); !second.notBefore.Equal(first.notBefore) {
		t.Errorf("the second request goes at %v, want the first's %v", second.notBefore, first.notBefore)
	}
	replan("second", "hub", time.Hour) // the same request again changes nothing
	if got, want := waiting(), []string{"asked-over-api", "other-page", "second"}; !slices.Equal(got, want) {
		t.Fatalf("waiting after the same request again: %v, want %v", got, want)
	}

	// A request the relay holds is being published: a new one is queued
	// beside it, at its own time.
	relay, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Rollback(ctx)
	if _, err := relay.Exec(ctx, `SELECT seq FROM outbox WHERE event_id = 'second' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	before := obClock(t, s)
	replan("third", "hub", time.Minute)
	if err := relay.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := waiting(), []string{"asked-over-api", "other-page", "second", "third"}; !slices.Equal(got, want) {
		t.Fatalf("waiting after a request beside one being relayed: %v, want %v", got, want)
	}
	third, _ := obOutboxRow(t, s, "third")
	if third.notBefore.Before(before.Add(time.Minute)) || !third.notBefore.Before(before.Add(time.Hour)) {
		t.Errorf("the request beside one being relayed goes at %v, want a minute after %v", third.notBefore, before)
	}

	// Queued again, a request still waiting replaces nothing; a new one
	// replaces both waiting and goes at the earlier time.
	replan("second", "hub", time.Hour)
	if got, want := waiting(), []string{"asked-over-api", "other-page", "second", "third"}; !slices.Equal(got, want) {
		t.Fatalf("waiting after a waiting request again: %v, want %v", got, want)
	}
	replan("fourth", "hub", time.Hour)
	if got, want := waiting(), []string{"asked-over-api", "fourth", "other-page"}; !slices.Equal(got, want) {
		t.Fatalf("waiting after a request with two waiting: %v, want %v", got, want)
	}
	if fourth, _ := obOutboxRow(t, s, "fourth"); !fourth.notBefore.Equal(third.notBefore) {
		t.Errorf("the request replacing two goes at %v, want the earlier %v", fourth.notBefore, third.notBefore)
	}
}

// queryStrings runs a query of one text column and returns its rows.
func queryStrings(t *testing.T, s *Store, sql string) []string {
	t.Helper()
	rows, err := s.pool.Query(t.Context(), sql)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAReplanRequestFindsTheOnesItReplacesThroughTheIndex runs the
// request's statement as the queued writes run it, as a generic plan,
// beside thousands of other waiting requests: it must find the page's
// waiting request through outbox_replaceable, not read the whole outbox.
func TestAReplanRequestFindsTheOnesItReplacesThroughTheIndex(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	if _, err := s.pool.Exec(ctx, `INSERT INTO outbox (msg_id, event_id, subject, site_id, page_id, payload, size, replaces, not_before)
		SELECT 'site/test/r' || i, 'r' || i, 'links.replan', 'site', 'p' || i, convert_to(repeat('x', 600), 'UTF8'), 600,
			'links.replan:p' || i, now() + interval '1 hour'
		FROM generate_series(1, 3000) i`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE outbox`); err != nil {
		t.Fatal(err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, stmt := range []string{
		`SET plan_cache_mode = force_generic_plan`,
		`PREPARE enqueue_replan(text, text, text, text, text, jsonb, bytea, int, bigint, text) AS ` + enqueueReplanSQL,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	blocks := explainedBlocks(t, conn, `EXECUTE enqueue_replan('site/test/new', 'new',
		'links.replan', 'site', 'p7', '{}', '\x7b7d', 2, 1000, 'links.replan:p7')`)
	// A few index pages, the replaced row and the new one: tens of blocks.
	// The whole outbox is hundreds.
	if blocks > 100 {
		t.Errorf("a re-plan request beside 3,000 waiting read %d blocks, want at most 100", blocks)
	}
	if got := queryStrings(t, s, `SELECT event_id FROM outbox WHERE page_id = 'p7'`); !slices.Equal(got, []string{"new"}) {
		t.Errorf("page p7's waiting requests are %v, want the new one alone", got)
	}
}
