package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
	"github.com/interlinker/interlinker/store/storetest"
)

// relayServer starts an embedded server that accepts messages up to
// maxPayload bytes (0: the default) and connects to it.
func relayServer(t *testing.T, maxPayload int32) (*server.Server, jetstream.JetStream) {
	t.Helper()
	srv, err := StartEmbedded(EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), MaxPayload: maxPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	return srv, connectJetStream(t, srv.ClientURL(), "relay-test")
}

// connectJetStream connects a test to a server as name, closed with the
// test.
func connectJetStream(t *testing.T, url, name string) jetstream.JetStream {
	t.Helper()
	nc, err := Connect(url, name, slog.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func relayStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), storetest.NewDatabase(t), store.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// enqueueInserted writes a links.inserted event of site s1 whose HTML is
// htmlBytes long to the outbox and returns its Nats-Msg-Id.
func enqueueInserted(t *testing.T, s *store.Store, id string, htmlBytes int) string {
	t.Helper()
	data := map[string]any{"page_id": "page-" + id, "version": 1, "html": strings.Repeat("x", htmlBytes)}
	ev, err := events.New(events.LinksInserted, "s1", id, "", data)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.Enqueue(t.Context(), ev, "page-"+id, nil)
	}); err != nil {
		t.Fatal(err)
	}
	return ev.MsgID()
}

// relayUntilEmpty runs RelayOnce until the outbox holds nothing waiting,
// failing if that takes more rounds than a relay that never stalls needs.
func relayUntilEmpty(t *testing.T, r *Relay, rounds int) (handled int) {
	t.Helper()
	ctx := t.Context()
	for range rounds {
		n, err := r.RelayOnce(ctx)
		if err != nil {
			t.Fatalf("relay: %v", err)
		}
		handled += n
		st, err := r.Store.OutboxStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Waiting == 0 {
			return handled
		}
	}
	t.Fatalf("the outbox still holds events after %d rounds", rounds)
	return 0
}

// streamMsgIDs reads every message of the LINKS stream back and returns
// their Nats-Msg-Ids in stream order.
func streamMsgIDs(t *testing.T, js jetstream.JetStream) []string {
	t.Helper()
	ctx := t.Context()
	stream, err := js.Stream(ctx, "LINKS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for uint64(len(ids)) < info.State.Msgs {
		batch, err := cons.Fetch(int(info.State.Msgs)-len(ids), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		n := len(ids)
		for m := range batch.Messages() {
			ids = append(ids, m.Headers().Get(nats.MsgIdHdr))
		}
		if err := batch.Error(); err != nil {
			t.Fatal(err)
		}
		if len(ids) == n {
			t.Fatalf("read %d of the stream's %d messages", n, info.State.Msgs)
		}
	}
	return ids
}

type parkCall struct{ subject, reason string }

func TestRelayParksAnEventOverTheServersMaxPayloadAndPublishesTheRestInOrder(t *testing.T) {
	const maxPayload = 64 << 10
	_, js := relayServer(t, maxPayload)
	ctx := t.Context()
	if err := Provision(ctx, js, StreamSettings{DuplicateWindow: time.Minute}, ConsumerSettings{}, nil); err != nil {
		t.Fatal(err)
	}
	s := relayStore(t)
	var small []string
	small = append(small, enqueueInserted(t, s, "small-1", 100), enqueueInserted(t, s, "small-2", 100))
	enqueueInserted(t, s, "big", 200<<10)
	for i := 3; i <= 6; i++ {
		small = append(small, enqueueInserted(t, s, fmt.Sprintf("small-%d", i), 100))
	}

	var parks []parkCall
	var published []string
	r := &Relay{Store: s, JS: js, BatchSize: 2, AckWait: 10 * time.Second,
		OnPublish: func(subject string) { published = append(published, subject) },
		OnPark:    func(subject, reason string) { parks = append(parks, parkCall{subject, reason}) }}
	if handled := relayUntilEmpty(t, r, 10); handled != 7 {
		t.Errorf("relay dealt with %d rows, want 7", handled)
	}

	if got := streamMsgIDs(t, js); !slices.Equal(got, small) {
		t.Errorf("stream holds %v, want the small events in outbox order %v", got, small)
	}
	if len(published) != len(small) {
		t.Errorf("OnPublish called %d times, want %d", len(published), len(small))
	}
	parked, err := s.ParkedOutbox(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(parked) != 1 || parked[0].EventID != "big" || parked[0].PageID != "page-big" {
		t.Fatalf("parked %+v, want the big event", parked)
	}
	reason := parked[0].Reason
	if !strings.Contains(reason, "max_payload") || !strings.Contains(reason, fmt.Sprint(maxPayload)) {
		t.Errorf("parked reason %q does not name the server's max_payload", reason)
	}
	if want := []parkCall{{events.LinksInserted, reason}}; !slices.Equal(parks, want) {
		t.Errorf("OnPark calls %v, want %v", parks, want)
	}
	if st, err := s.OutboxStatus(ctx); err != nil || st.Waiting != 0 || st.Parked != 1 {
		t.Errorf("outbox status %+v, %v", st, err)
	}
}

func TestRelayParksAnEventOverTheStreamsMaximumMessageSize(t *testing.T) {
	_, js := relayServer(t, 0)
	ctx := t.Context()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "LINKS", Subjects: []string{"links.>"}, MaxMsgSize: 4 << 10}); err != nil {
		t.Fatal(err)
	}
	s := relayStore(t)
	first := enqueueInserted(t, s, "small-1", 100)
	enqueueInserted(t, s, "big", 8<<10)
	last := enqueueInserted(t, s, "small-2", 100)

	var parks []parkCall
	r := &Relay{Store: s, JS: js, OnPark: func(subject, reason string) { parks = append(parks, parkCall{subject, reason}) }}
	relayUntilEmpty(t, r, 3)

	if got := streamMsgIDs(t, js); !slices.Equal(got, []string{first, last}) {
		t.Errorf("stream holds %v, want %v", got, []string{first, last})
	}
	parked, err := s.ParkedOutbox(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(parked) != 1 || parked[0].EventID != "big" ||
		!strings.Contains(parked[0].Reason, "maximum message size") || !strings.Contains(parked[0].Reason, "10054") {
		t.Errorf("parked %+v, want the big event with the stream's size limit as reason", parked)
	}
	if len(parks) != 1 {
		t.Errorf("OnPark calls %v, want one", parks)
	}
}

func TestRelayReturnsAnErrorAndKeepsEveryEventWhenNATSIsUnreachable(t *testing.T) {
	srv, js := relayServer(t, 0)
	ctx := t.Context()
	if err := Provision(ctx, js, StreamSettings{DuplicateWindow: time.Minute}, ConsumerSettings{}, nil); err != nil {
		t.Fatal(err)
	}
	s := relayStore(t)
	enqueueInserted(t, s, "a", 100)
	enqueueInserted(t, s, "b", 100)
	srv.Shutdown()
	srv.WaitForShutdown()

	r := &Relay{Store: s, JS: js, AckWait: 200 * time.Millisecond,
		OnPark: func(subject, reason string) { t.Errorf("parked %s while NATS was away: %s", subject, reason) }}
	n, err := r.RelayOnce(ctx)
	if err == nil {
		t.Fatal("relaying with NATS away returned no error, so the drainer would not back off")
	}
	if n != 2 {
		t.Errorf("relay dealt with %d rows, want both put back to wait", n)
	}
	st, err := s.OutboxStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Waiting != 2 || st.Parked != 0 {
		t.Errorf("outbox status %+v, want both events still waiting and none parked", st)
	}
}

func TestOnlyAMessageTooLargeForTheServerOrTheStreamIsRefusedForGood(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"over the server's max_payload", nats.ErrMaxPayload, true},
		{"over max_payload, wrapped", fmt.Errorf("publish links.inserted e1: %w", nats.ErrMaxPayload), true},
		{"over the stream's max size, as the server answers", &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamMessageExceedsMaximum}, true},
		{"over the stream's max size, as the library names it", jetstream.ErrStreamMessageExceedsMaximum, true},
		{"another API error", &jetstream.APIError{Code: 503, ErrorCode: jetstream.JSErrCodeJetStreamNotEnabled}, false},
		{"no responders", nats.ErrNoResponders, false},
		{"no stream response", jetstream.ErrNoStreamResponse, false},
		{"timeout", nats.ErrTimeout, false},
		{"async publish timeout", jetstream.ErrAsyncPublishTimeout, false},
		{"connection closed", nats.ErrConnectionClosed, false},
		{"reconnect buffer full", nats.ErrReconnectBufExceeded, false},
		{"too many stalled", jetstream.ErrTooManyStalledMsgs, false},
		{"no ack within the relay's wait", errors.New("no ack within 10s"), false},
		{"cancelled", context.Canceled, false},
	} {
		if got := refusedForGood(c.err); got != c.want {
			t.Errorf("%s (%v): refused for good %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
