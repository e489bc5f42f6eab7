package bus

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

func startServer(t *testing.T) (jetstream.JetStream, string) {
	t.Helper()
	srv, js := relayServer(t, 0)
	return js, srv.ClientURL()
}

var specs = []ConsumerSpec{{Durable: "planner", Subject: events.ContentGenerated}}

func TestProvisioningIsIdempotentAndBindsNamedStreams(t *testing.T) {
	js, _ := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss := StreamSettings{DuplicateWindow: time.Minute, MaxAge: time.Hour}
	cs := ConsumerSettings{AckWait: 30 * time.Second, DeliveryCeiling: 5, MaxAckPending: 100}
	for range 2 {
		if err := Provision(ctx, js, ss, cs, specs); err != nil {
			t.Fatalf("provision: %v", err)
		}
	}
	cons, err := js.Consumer(ctx, "CONTENT", "planner")
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := info.Config
	if c.FilterSubject != events.ContentGenerated || c.AckPolicy != jetstream.AckExplicitPolicy || c.AckWait != 30*time.Second || c.MaxDeliver != 5 {
		t.Errorf("consumer config %+v", c)
	}
	if err := ConsumersBound(ctx, js, append(specs, ConsumerSpec{Durable: "missing", Subject: events.LinksPlanned})); err == nil {
		t.Error("a missing consumer was reported bound")
	}
}

// A trial producer published "content.updated", a plausible typo: the
// CONTENT stream, bound to "content.>", acknowledged it, and no consumer
// ever read it. Streams bind their event types by name, so the broker
// refuses such an event when it is published, and a stream that an older
// version provisioned with a wildcard is narrowed at the next start.
func TestAnEventOfATypeNoHandlerTakesIsRefusedWhenPublished(t *testing.T) {
	js, _ := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "CONTENT", Subjects: []string{"content.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	if err := Provision(ctx, js, StreamSettings{DuplicateWindow: time.Minute}, ConsumerSettings{AckWait: time.Minute, DeliveryCeiling: 3}, specs); err != nil {
		t.Fatalf("provision: %v", err)
	}
	if ack, err := js.Publish(ctx, "content.updated", []byte(`{}`)); err == nil {
		t.Errorf("content.updated was stored (%s #%d); want it refused", ack.Stream, ack.Sequence)
	}
	for _, s := range events.Streams {
		for _, subject := range s.Subjects {
			if subject == events.DeadLetterPrefix+">" {
				subject = events.DeadLetterPrefix + events.ContentGenerated
			}
			ack, err := js.Publish(ctx, subject, []byte(`{}`))
			if err != nil || ack.Stream != s.Name {
				t.Errorf("publish %s: %v, stored in %v; want stream %s", subject, err, ack, s.Name)
			}
		}
	}
}

func TestAMessageWithARepeatedHeaderIsFlaggedNotDropped(t *testing.T) {
	js, _ := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Provision(ctx, js, StreamSettings{DuplicateWindow: time.Minute}, ConsumerSettings{AckWait: time.Minute, DeliveryCeiling: 3}, specs); err != nil {
		t.Fatal(err)
	}
	msg := &nats.Msg{Subject: events.ContentGenerated, Data: []byte(`{}`), Header: nats.Header{
		"X-Trace": {"a", "b"}, nats.MsgIdHdr: {"evt-1"}, "Correlation": {"c-1"},
	}}
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(ctx, "CONTENT", "planner")
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got *jetstream.Msg
	for m := range batch.Messages() {
		got = &m
	}
	if got == nil {
		t.Fatal("no message fetched")
	}
	m := toWatermill(*got)
	if m.UUID != "evt-1" || m.Metadata.Get("Correlation") != "c-1" || m.Metadata.Get(MetaSubject) != events.ContentGenerated ||
		Deliveries(m) != 1 || m.Metadata.Get(MetaStreamSeq) != "1" {
		t.Errorf("message %s metadata %v", m.UUID, m.Metadata)
	}
	if fault := m.Metadata.Get(MetaHeaderFault); fault != `NATS header "X-Trace" is repeated 2 times` {
		t.Errorf("header fault %q", fault)
	}
}

func TestRedeliveryDelaysGrowAndThenRepeatTheLast(t *testing.T) {
	d := nakDelays{time.Second, 5 * time.Second, time.Minute}
	for delivery, want := range map[uint64]time.Duration{0: time.Second, 1: time.Second, 2: 5 * time.Second, 3: time.Minute, 9: time.Minute} {
		if got := d.WaitTime(delivery); got != want {
			t.Errorf("after delivery %d: %s, want %s", delivery, got, want)
		}
	}
	if (nakDelays{}).WaitTime(3) != 0 {
		t.Error("no delays configured should redeliver at once")
	}
}

// An error the NATS client meets outside any call, here a subscription
// too slow for what arrives, is logged at WARN as a structured line and
// handed to the caller to count, not printed bare on stderr by the
// client's default handler.
func TestAnAsyncNATSErrorIsLoggedAtWarnAndCounted(t *testing.T) {
	srv, err := StartEmbedded(EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	var logged bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logged, mu: &mu}, nil))
	heard := make(chan error, 16)
	nc, err := Connect(srv.ClientURL(), "async-error-test", log, func(err error) {
		select {
		case heard <- err:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	sub, err := nc.SubscribeSync("slow.subject")
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.SetPendingLimits(1, -1); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := nc.Publish("slow.subject", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-heard:
		if !errors.Is(err, nats.ErrSlowConsumer) {
			t.Errorf("heard %v, want the slow consumer error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no async error heard from a subscription with a pending limit of 1 and 10 messages")
	}
	mu.Lock()
	line := logged.String()
	mu.Unlock()
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "subscription=slow.subject") {
		t.Errorf("log %q, want a WARN line naming the subscription", line)
	}
}

// lockedWriter lets a test read what a logger wrote from another goroutine.
type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A second service on the embedded server's port is told why it cannot
// start: trial U read only "did not start listening", fifteen seconds on.
func TestAnEmbeddedServerOnATakenAddressSaysItIsTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	srv, err := StartEmbedded(EmbeddedOptions{Listen: taken.Addr().String(), StoreDir: t.TempDir()})
	if err == nil {
		srv.Shutdown()
		t.Fatal("started on an address another listener holds")
	}
	if !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), taken.Addr().String()) {
		t.Errorf("error %q, want the address and why it cannot be taken", err)
	}
}
