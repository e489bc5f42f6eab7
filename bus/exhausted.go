package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// advisoryStream keeps JetStream's max-deliveries advisories for
// interlinker's streams. Advisories are plain NATS messages, sent once to
// whoever listens at that moment; kept in a stream, one raised while every
// replica is down is still acted on when one comes back.
const (
	advisoryStream   = "DELIVERY_ADVISORIES"
	advisoryConsumer = "delivery-watch"
	maxDeliveriesPre = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."
)

func advisorySubjects() []string {
	var subjects []string
	for _, s := range events.Streams {
		if s.Name != "DEADLETTER" {
			subjects = append(subjects, maxDeliveriesPre+s.Name+".>")
		}
	}
	return subjects
}

// provisionDeliveryWatch creates the advisory stream and its consumer.
func provisionDeliveryWatch(ctx context.Context, js jetstream.JetStream, ss StreamSettings) error {
	err := createOrUpdateStream(ctx, js, jetstream.StreamConfig{
		Name:        advisoryStream,
		Description: "JetStream max-deliveries advisories for interlinker's consumers",
		Subjects:    advisorySubjects(),
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      ss.MaxAge,
		MaxBytes:    64 << 20,
		Discard:     jetstream.DiscardOld, // advisories are tiny; the oldest acted-on ones go first
		Replicas:    ss.Replicas,
	})
	if err != nil {
		return fmt.Errorf("provision stream %s: %w", advisoryStream, err)
	}
	err = createOrUpdateConsumer(ctx, js, advisoryStream, jetstream.ConsumerConfig{
		Durable:       advisoryConsumer,
		Description:   "dead-letters messages JetStream stopped redelivering",
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       time.Minute,
		MaxDeliver:    -1,
		Replicas:      ss.Replicas,
	})
	if err != nil {
		return fmt.Errorf("provision consumer %s: %w", advisoryConsumer, err)
	}
	return nil
}

// maxDeliveriesAdvisory is the part of JetStream's
// io.nats.jetstream.advisory.v1.max_deliver advisory the watch reads.
type maxDeliveriesAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// DeliveryWatch dead-letters every message JetStream stops redelivering
// because it reached its consumer's max_deliver, with the reason, so no
// event vanishes without a dead letter: not one whose handler kept
// failing transiently until the ceiling, and not one whose last delivery
// expired unhandled.
type DeliveryWatch struct {
	JS     jetstream.JetStream
	Logger *slog.Logger
	OnDead func(subject, consumer string)

	cc jetstream.ConsumeContext
}

// Start begins watching.
func (w *DeliveryWatch) Start(ctx context.Context) error {
	// A cluster electing its leaders can leave a look-up unanswered for a
	// while: it is asked again as provisioning's requests are.
	var cons jetstream.Consumer
	err := retryLookUp(ctx, func(ctx context.Context) error {
		var err error
		cons, err = w.JS.Consumer(ctx, advisoryStream, advisoryConsumer)
		return err
	})
	if err != nil {
		return fmt.Errorf("bind %s: %w", advisoryConsumer, err)
	}
	w.cc, err = cons.Consume(func(msg jetstream.Msg) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.handle(ctx, msg.Data()); err != nil {
			w.Logger.Warn("could not dead-letter a message JetStream stopped redelivering; retrying", "err", err)
			_ = msg.NakWithDelay(5 * time.Second)
			return
		}
		_ = msg.Ack()
	}, jetstream.PullMaxMessages(16))
	if err != nil {
		return fmt.Errorf("watch %s: %w", advisoryStream, err)
	}
	return nil
}

// Stop ends the watch; an advisory being handled finishes first.
func (w *DeliveryWatch) Stop() {
	if w.cc != nil {
		w.cc.Drain()
		<-w.cc.Closed()
	}
}

func (w *DeliveryWatch) handle(ctx context.Context, raw []byte) error {
	var adv maxDeliveriesAdvisory
	if err := json.Unmarshal(raw, &adv); err != nil || adv.Stream == "" || adv.StreamSeq == 0 {
		w.Logger.Warn("ignored a malformed max-deliveries advisory", "advisory", string(raw), "err", err)
		return nil
	}
	stream, err := w.JS.Stream(ctx, adv.Stream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", adv.Stream, err)
	}
	orig, err := stream.GetMsg(ctx, adv.StreamSeq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		w.Logger.Error("a message JetStream stopped redelivering is no longer in its stream; nothing to dead-letter",
			"stream", adv.Stream, "seq", adv.StreamSeq, "consumer", adv.Consumer, "deliveries", adv.Deliveries)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s #%d: %w", adv.Stream, adv.StreamSeq, err)
	}
	d := deadLetter{
		Subject: orig.Subject,
		Payload: orig.Data,
		Reason: fmt.Sprintf("JetStream stopped redelivering it after %d deliveries (the consumer's max_deliver); "+
			"the handler's last error is in the service log", adv.Deliveries),
		Consumer:   adv.Consumer,
		Deliveries: formatUint(adv.Deliveries),
		Stream:     adv.Stream,
		StreamSeq:  formatUint(adv.StreamSeq),
		MsgID:      orig.Header.Get(nats.MsgIdHdr),
	}
	if err := publishDeadLetter(ctx, w.JS, d); err != nil {
		return err
	}
	w.Logger.Warn("event dead-lettered: deliveries exhausted", "subject", orig.Subject, "consumer", adv.Consumer,
		"stream", adv.Stream, "seq", adv.StreamSeq, "deliveries", adv.Deliveries)
	if w.OnDead != nil {
		w.OnDead(orig.Subject, adv.Consumer)
	}
	return nil
}
