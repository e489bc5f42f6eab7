package bus

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmjs "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/jetstream"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// Metadata keys the unmarshaler sets on every Watermill message.
const (
	MetaSubject     = "interlinker_subject"
	MetaDeliveries  = "interlinker_deliveries"
	MetaStreamSeq   = "interlinker_stream_seq"
	MetaHeaderFault = "interlinker_header_fault"
)

// SubscriberSettings tune how a handler pulls from its durable consumer.
type SubscriberSettings struct {
	// WatermillAckWait is how long Watermill waits for the handler before
	// giving the message up to redelivery; keep it at most the consumer's
	// AckWait and above the handler's whole retry budget.
	WatermillAckWait time.Duration
	// PullBuffer bounds how many messages are fetched ahead of the handler.
	PullBuffer int
	// NakDelays are the redelivery delays after a failed attempt, by delivery
	// number; the last one repeats.
	NakDelays []time.Duration
}

// Subscriber is a Watermill subscriber bound to one durable consumer that
// can stop pulling before it is closed.
type Subscriber struct {
	*wmjs.Subscriber
	consumers *consumeTracker
}

// NewSubscriber returns a Watermill subscriber bound to the durable consumer
// spec.Durable on the stream that holds spec.Subject. It uses its own
// connection because closing the subscriber drains the connection.
func NewSubscriber(natsURL string, spec ConsumerSpec, set SubscriberSettings, logger watermill.LoggerAdapter) (*Subscriber, error) {
	nc, err := Connect(natsURL, "interlinker-"+spec.Durable)
	if err != nil {
		return nil, err
	}
	tracker := &consumeTracker{}
	sub, err := wmjs.NewSubscriber(wmjs.SubscriberConfig{
		Conn:                nc,
		Logger:              logger,
		AckWaitTimeout:      set.WatermillAckWait,
		ResourceInitializer: durableConsumer(spec, tracker),
		NakDelay:            nakDelays(set.NakDelays),
		ConsumeOptions:      []jetstream.PullConsumeOpt{jetstream.PullMaxMessages(set.PullBuffer)},
		// A lost ack only means a redelivery, which every consumer's inbox
		// turns into a no-op; waiting for the server to confirm each ack
		// would cost a round trip per message.
		AckAsync:    true,
		Unmarshaler: defensiveUnmarshaler{},
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("subscriber for %s: %w", spec.Durable, err)
	}
	return &Subscriber{Subscriber: sub, consumers: tracker}, nil
}

// StopConsuming stops pulling new messages and waits until the messages
// already fetched have been handed to the handlers and answered, or ctx
// ends. Call it before closing the router: watermill-nats closes its output
// channel while a fetch callback may still be sending on it, so closing with
// consumption running can panic.
func (s *Subscriber) StopConsuming(ctx context.Context) error {
	return s.consumers.drain(ctx)
}

// consumeTracker remembers every pull loop started through its consumers.
type consumeTracker struct {
	mu       sync.Mutex
	contexts []jetstream.ConsumeContext
}

func (t *consumeTracker) drain(ctx context.Context) error {
	t.mu.Lock()
	contexts := append([]jetstream.ConsumeContext(nil), t.contexts...)
	t.mu.Unlock()
	for _, cc := range contexts {
		cc.Drain()
	}
	for _, cc := range contexts {
		select {
		case <-cc.Closed():
		case <-ctx.Done():
			return fmt.Errorf("stop consuming: %w", ctx.Err())
		}
	}
	return nil
}

// trackedConsumer records the pull loops started on it.
type trackedConsumer struct {
	jetstream.Consumer
	tracker *consumeTracker
}

func (c trackedConsumer) Consume(handler jetstream.MessageHandler, opts ...jetstream.PullConsumeOpt) (jetstream.ConsumeContext, error) {
	cc, err := c.Consumer.Consume(handler, opts...)
	if err == nil {
		c.tracker.mu.Lock()
		c.tracker.contexts = append(c.tracker.contexts, cc)
		c.tracker.mu.Unlock()
	}
	return cc, err
}

// Connect opens a NATS connection that reconnects forever: a restarting
// server is waited for, not given up on.
func Connect(url, name string) (*nats.Conn, error) {
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectBufSize(64<<20),
	)
	if err != nil {
		return nil, fmt.Errorf("connect to nats at %s: %w", url, err)
	}
	return nc, nil
}

// durableConsumer binds to the provisioned consumer on its named stream;
// watermill-nats' own initializers would derive the stream name from the
// topic, and stream names cannot contain dots.
func durableConsumer(spec ConsumerSpec, tracker *consumeTracker) wmjs.ResourceInitializer {
	return func(ctx context.Context, js jetstream.JetStream, topic string) (jetstream.Consumer, func(context.Context, watermill.LoggerAdapter), error) {
		stream, ok := events.StreamFor(topic)
		if !ok {
			return nil, nil, fmt.Errorf("no stream holds subject %s", topic)
		}
		c, err := js.Consumer(ctx, stream, spec.Durable)
		if err != nil {
			return nil, nil, fmt.Errorf("bind consumer %s on %s: %w", spec.Durable, stream, err)
		}
		return trackedConsumer{Consumer: c, tracker: tracker}, nil, nil
	}
}

// defensiveUnmarshaler never fails: the default one returns nil for a
// message with a repeated header, which panics the subscriber outside the
// router. A header fault is recorded in metadata and the handler
// dead-letters the message with that reason.
type defensiveUnmarshaler struct{}

func (defensiveUnmarshaler) Unmarshal(msg jetstream.Msg) (*message.Message, error) {
	hdr := msg.Headers()
	id := ""
	if v := hdr.Values(nats.MsgIdHdr); len(v) == 1 {
		id = v[0]
	}
	if id == "" {
		id = watermill.NewUUID()
	}
	m := message.NewMessage(id, msg.Data())
	for k, v := range hdr {
		switch {
		case len(v) > 1:
			m.Metadata.Set(MetaHeaderFault, fmt.Sprintf("NATS header %q is repeated %d times", k, len(v)))
		case len(v) == 1:
			m.Metadata.Set(k, v[0])
		}
	}
	m.Metadata.Set(MetaSubject, msg.Subject())
	if md, err := msg.Metadata(); err == nil {
		m.Metadata.Set(MetaDeliveries, strconv.FormatUint(md.NumDelivered, 10))
		m.Metadata.Set(MetaStreamSeq, strconv.FormatUint(md.Sequence.Stream, 10))
	}
	return m, nil
}

// Deliveries reads how many times JetStream has delivered the message.
func Deliveries(m *message.Message) int {
	n, _ := strconv.Atoi(m.Metadata.Get(MetaDeliveries))
	return n
}

type nakDelays []time.Duration

func (d nakDelays) WaitTime(delivery uint64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(delivery) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(d) {
		i = len(d) - 1
	}
	return d[i]
}
