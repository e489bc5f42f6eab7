package bus

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

func TestAMessageJetStreamStopsRedeliveringIsDeadLetteredWithTheReason(t *testing.T) {
	js, _ := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Provision(ctx, js, StreamSettings{DuplicateWindow: time.Minute, MaxAge: time.Hour},
		ConsumerSettings{AckWait: time.Second, DeliveryCeiling: 2}, specs); err != nil {
		t.Fatal(err)
	}
	watch := &DeliveryWatch{JS: js, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := watch.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer watch.Stop()
	payload := []byte(`{"specversion":"1.0"}`)
	if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: events.ContentGenerated, Data: payload,
		Header: nats.Header{nats.MsgIdHdr: {"s1/cms/e1"}}}); err != nil {
		t.Fatal(err)
	}
	// A handler that takes the message and never answers, twice: the
	// second delivery is the consumer's last.
	cons, err := js.Consumer(ctx, "CONTENT", "planner")
	if err != nil {
		t.Fatal(err)
	}
	// JetStream finds the delivery limit reached when a pull next waits
	// for the message, as a running handler's pull always does: hence the
	// third fetch, which gets nothing.
	for range 3 {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(3*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for range batch.Messages() {
		}
	}
	dlCons, err := js.OrderedConsumer(ctx, "DEADLETTER", jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := dlCons.Next(jetstream.FetchMaxWait(20 * time.Second))
	if err != nil {
		t.Fatalf("no dead letter: %v", err)
	}
	if msg.Subject() != events.DeadLetterPrefix+events.ContentGenerated || string(msg.Data()) != string(payload) {
		t.Errorf("dead letter %s %q", msg.Subject(), msg.Data())
	}
	if reason := msg.Headers().Get(HeaderReason); !strings.Contains(reason, "after 2 deliveries") {
		t.Errorf("reason %q does not say the deliveries ran out", reason)
	}
	if got := msg.Headers().Get(HeaderOriginalMsgID); got != "s1/cms/e1" {
		t.Errorf("original Nats-Msg-Id %q, want the producer's", got)
	}
	if msg.Headers().Get(HeaderHandler) != "planner" {
		t.Errorf("consumer header %q", msg.Headers().Get(HeaderHandler))
	}
}
