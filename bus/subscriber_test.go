package bus

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// The server may send a pull's inbox status messages (idle heartbeats, a
// request's timeout, a leader change) while the handler holds a message.
// A pull loop that received into a channel of one place dropped the
// second of them ("slow consumer, messages dropped"), and a message
// dropped so waited out its AckWait. None is dropped, and the next message
// comes after them.
func TestStatusMessagesWhileAHandlerHoldsAMessageDropNothing(t *testing.T) {
	srv, js := relayServer(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Provision(ctx, js, StreamSettings{DuplicateWindow: time.Minute}, ConsumerSettings{AckWait: time.Minute, DeliveryCeiling: 3}, specs); err != nil {
		t.Fatal(err)
	}
	// A core subscriber on the consumer's next-message subject hears each
	// pull request, and so learns the inbox the pull receives on.
	spy, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	inboxes := make(chan string, 64)
	if _, err := spy.Subscribe("$JS.API.CONSUMER.MSG.NEXT.CONTENT."+specs[0].Durable, func(m *nats.Msg) {
		select {
		case inboxes <- m.Reply:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}

	heard := make(chan error, 16)
	sub, err := NewSubscriber(srv.ClientURL(), specs[0], SubscriberSettings{PullBuffer: 1, OnAsyncError: func(err error) {
		select {
		case heard <- err:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	msgs, err := sub.Subscribe(ctx, events.ContentGenerated)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"evt-1", "evt-2"} {
		if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: events.ContentGenerated, Data: []byte(`{}`),
			Header: nats.Header{nats.MsgIdHdr: {id}}}); err != nil {
			t.Fatal(err)
		}
	}
	next := func() *message.Message {
		t.Helper()
		select {
		case m := <-msgs:
			return m
		case <-ctx.Done():
			t.Fatal("no message handed to the handler")
			return nil
		}
	}
	first := next()
	var inbox string
	select {
	case inbox = <-inboxes:
	case <-ctx.Done():
		t.Fatal("no pull request heard")
	}

	// While the handler holds the first message: three idle heartbeats.
	for range 3 {
		hb := nats.NewMsg(inbox)
		hb.Header.Set("Status", "100")
		hb.Header.Set("Description", "Idle Heartbeat")
		if err := spy.PublishMsg(hb); err != nil {
			t.Fatal(err)
		}
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	// The server answers the subscriber's ping after what it sent before:
	// once it has, the subscriber's client has read the heartbeats.
	if err := sub.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	first.Ack()
	second := next()
	if first.UUID != "evt-1" || second.UUID != "evt-2" {
		t.Errorf("handed %s then %s, want evt-1 then evt-2", first.UUID, second.UUID)
	}
	second.Ack()
	info, err := js.Consumer(ctx, "CONTENT", specs[0].Durable)
	if err != nil {
		t.Fatal(err)
	}
	if err := waitAcked(ctx, info, 2); err != nil {
		t.Fatal(err)
	}
	// The client calls its error and closed handlers one at a time, in
	// order: once the closed handler has run, an error it met before has
	// been heard.
	closed := make(chan struct{})
	sub.nc.SetClosedHandler(func(*nats.Conn) { close(closed) })
	sub.nc.Close()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("the subscriber's connection never said it closed")
	}
	select {
	case err := <-heard:
		if errors.Is(err, nats.ErrSlowConsumer) {
			t.Fatalf("the pull dropped what the server sent while the handler held a message: %v", err)
		}
		t.Errorf("async error %v", err)
	default:
	}
}

// waitAcked waits until the consumer's ack floor reaches seq.
func waitAcked(ctx context.Context, cons jetstream.Consumer, seq uint64) error {
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		if info.AckFloor.Stream >= seq {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("the messages handled were never acknowledged")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
