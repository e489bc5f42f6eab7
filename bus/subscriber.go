package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// Metadata keys the subscriber sets on every Watermill message.
const (
	MetaSubject     = "interlinker_subject"
	MetaDeliveries  = "interlinker_deliveries"
	MetaStream      = "interlinker_stream"
	MetaStreamSeq   = "interlinker_stream_seq"
	MetaStreamEpoch = "interlinker_stream_epoch" // the stream's creation time, RFC 3339 with nanoseconds
	MetaHeaderFault = "interlinker_header_fault"
	MetaConsumer    = "interlinker_consumer" // the durable consumer that delivered it
)

// SubscriberSettings tune how a handler pulls from its durable consumer.
type SubscriberSettings struct {
	// PullBuffer bounds how many messages are fetched ahead of the handler.
	// A buffered message's AckWait runs before the handler sees it, so keep
	// it small: with 1, a message waits at most one handler run.
	PullBuffer int
	// PullBytes bounds the bytes fetched ahead; it is raised to the
	// server's max payload, below which a pull would stall on a large
	// message.
	PullBytes int
	// NakDelays are the redelivery delays after a failed attempt, by delivery
	// number; the last one repeats.
	NakDelays []time.Duration
	// Logger receives what the subscriber cannot hand to a handler.
	Logger *slog.Logger
	// OnAsyncError, when set, hears each error the connection meets
	// outside any call (Connect).
	OnAsyncError func(error)
}

// Subscriber is a Watermill subscriber bound to one durable consumer. Each
// Subscribe starts one pull loop that hands a handler one message at a time
// and tells JetStream the message is in progress until the handler answers,
// so a message is never redelivered while this process still holds it. It
// is written for interlinker rather than taken from watermill-nats, whose
// subscriber starts its ack timer before the handler receives a message,
// cannot send in-progress signals, and closes its output channel while a
// fetch callback may still be sending on it.
type Subscriber struct {
	nc       *nats.Conn
	js       jetstream.JetStream
	spec     ConsumerSpec
	set      SubscriberSettings
	closing  chan struct{}
	closeMu  sync.Mutex
	closed   bool
	loops    sync.WaitGroup
	iterMu   sync.Mutex
	iters    []jetstream.MessagesContext
	stopOnce sync.Once
}

var _ message.Subscriber = (*Subscriber)(nil)

// NewSubscriber returns a subscriber bound to the durable consumer
// spec.Durable on the stream that holds spec.Subject, on its own
// connection.
func NewSubscriber(natsURL string, spec ConsumerSpec, set SubscriberSettings) (*Subscriber, error) {
	if set.Logger == nil {
		set.Logger = slog.Default()
	}
	nc, err := Connect(natsURL, "interlinker-"+spec.Durable, set.Logger, set.OnAsyncError)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream for %s: %w", spec.Durable, err)
	}
	if set.PullBuffer < 1 {
		set.PullBuffer = 1
	}
	return &Subscriber{nc: nc, js: js, spec: spec, set: set, closing: make(chan struct{})}, nil
}

// Subscribe starts one pull loop on the durable consumer and returns the
// channel it hands messages on. The channel is closed only by the loop
// itself, once it has stopped, so a closing router never races a send.
func (s *Subscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	if topic != s.spec.Subject {
		return nil, fmt.Errorf("subscriber for %s asked for %s", s.spec.Subject, topic)
	}
	stream, ok := events.StreamFor(topic)
	if !ok {
		return nil, fmt.Errorf("no stream holds subject %s", topic)
	}
	// A cluster electing its leaders can leave a look-up unanswered for a
	// while: it is asked again as provisioning's requests are.
	var st jetstream.Stream
	var cons jetstream.Consumer
	err := retryLookUp(ctx, func(ctx context.Context) error {
		var err error
		if st, err = s.js.Stream(ctx, stream); err != nil {
			return fmt.Errorf("bind stream %s: %w", stream, err)
		}
		cons, err = st.Consumer(ctx, s.spec.Durable)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bind consumer %s on %s: %w", s.spec.Durable, stream, err)
	}
	ackWait := cons.CachedInfo().Config.AckWait
	pullBytes := max(s.set.PullBytes, int(s.nc.MaxPayload())+64<<10)
	iter, err := cons.Messages(jetstream.PullMaxMessagesWithBytesLimit(s.set.PullBuffer, pullBytes))
	if err != nil {
		return nil, fmt.Errorf("pull from %s: %w", s.spec.Durable, err)
	}
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		iter.Stop()
		return nil, errors.New("subscriber closed")
	}
	s.iterMu.Lock()
	s.iters = append(s.iters, iter)
	s.iterMu.Unlock()
	s.loops.Add(1)
	s.closeMu.Unlock()

	out := make(chan *message.Message)
	l := &pullLoop{sub: s, iter: iter, out: out, ackWait: ackWait,
		epoch: st.CachedInfo().Created.UTC().Format(time.RFC3339Nano)}
	go func() {
		defer s.loops.Done()
		defer close(out)
		l.run(ctx)
	}()
	return out, nil
}

// StopPulling stops every pull loop from fetching more; messages already
// fetched are given back to JetStream for redelivery, and a message a
// handler holds is answered when the handler returns.
func (s *Subscriber) StopPulling() {
	s.stopOnce.Do(func() {
		s.closeMu.Lock()
		s.closed = true
		close(s.closing)
		s.closeMu.Unlock()
		s.iterMu.Lock()
		for _, it := range s.iters {
			it.Drain()
		}
		s.iterMu.Unlock()
	})
}

// Durable is the name of the durable consumer it pulls from.
func (s *Subscriber) Durable() string { return s.spec.Durable }

// Wait blocks until every pull loop has stopped, or ctx ends.
func (s *Subscriber) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.loops.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for %s's handlers: %w", s.spec.Durable, ctx.Err())
	}
}

// Close stops pulling, waits up to a minute for the handlers holding
// messages to answer, and closes the connection. The router calls it once
// per handler; only the first call does anything.
func (s *Subscriber) Close() error {
	s.StopPulling()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := s.Wait(ctx)
	s.nc.Close()
	return err
}

// pullLoop hands the messages of one iterator to one handler.
type pullLoop struct {
	sub     *Subscriber
	iter    jetstream.MessagesContext
	out     chan *message.Message
	ackWait time.Duration
	epoch   string
}

func (l *pullLoop) run(ctx context.Context) {
	log := l.sub.set.Logger.With("consumer", l.sub.spec.Durable)
	for {
		msg, err := l.iter.Next()
		if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return
		}
		if err != nil {
			// The iterator reconnects by itself; these are its reports. A
			// pause keeps one that repeats (the consumer deleted, say) from
			// spinning.
			log.Debug("pull interrupted", "err", err)
			select {
			case <-l.sub.closing:
			case <-time.After(pullRetryPause):
			}
			continue
		}
		select {
		case <-l.sub.closing:
			// Fetched after the stop: give it back at once.
			_ = msg.Nak()
			continue
		case <-ctx.Done():
			_ = msg.Nak()
			continue
		default:
		}
		l.deliver(ctx, msg, log)
	}
}

// pullRetryPause is how long a pull loop waits after its iterator reports
// an error before asking again.
const pullRetryPause = 250 * time.Millisecond

// deliver hands one message to the handler and answers JetStream when the
// handler does, telling it the message is in progress meanwhile.
func (l *pullLoop) deliver(ctx context.Context, msg jetstream.Msg, log *slog.Logger) {
	m := toWatermill(msg)
	m.Metadata.Set(MetaStreamEpoch, l.epoch)
	m.Metadata.Set(MetaConsumer, l.sub.spec.Durable)
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m.SetContext(mctx)

	beat := time.NewTicker(heartbeatInterval(l.ackWait))
	defer beat.Stop()
	for handed := false; !handed; {
		select {
		case l.out <- m:
			handed = true
		case <-beat.C:
			_ = msg.InProgress()
		case <-l.sub.closing:
			_ = msg.Nak() // not started: another replica may take it now
			return
		case <-ctx.Done():
			_ = msg.Nak()
			return
		}
	}
	for {
		select {
		case <-m.Acked():
			// A lost ack only means a redelivery, which every consumer's
			// inbox turns into a no-op; waiting for the server to confirm
			// each ack would cost a round trip per message.
			if err := l.ack(msg); err != nil {
				log.Warn("ack not sent; the event will be redelivered and skipped", "message_id", m.UUID, "err", err)
			}
			return
		case <-m.Nacked():
			delay := nakDelays(l.sub.set.NakDelays).WaitTime(uint64(Deliveries(m)))
			if err := msg.NakWithDelay(delay); err != nil {
				log.Warn("nak not sent; JetStream redelivers after its ack wait", "message_id", m.UUID, "err", err)
			}
			return
		case <-beat.C:
			// The handler runs on, even past a close: it answers soon,
			// bounded by its timeout and retry budget.
			_ = msg.InProgress()
		}
	}
}

// ack sends a message's ack. One that cannot be sent (the connection is
// moving to another server while the cluster elects a leader) is tried
// again with backoff until the consumer's AckWait: past it JetStream
// redelivers anyway. A redelivery of a handled event is skipped by the
// consumer's inbox, and never counts towards dead-lettering: only failed
// handling does.
func (l *pullLoop) ack(msg jetstream.Msg) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 50*time.Millisecond, time.Second, l.ackWait
	return backoff.Retry(msg.Ack, b)
}

// heartbeatInterval is how often a held message is reported in progress:
// well inside the consumer's AckWait.
func heartbeatInterval(ackWait time.Duration) time.Duration {
	if ackWait <= 0 {
		ackWait = 30 * time.Second
	}
	return max(ackWait/3, 100*time.Millisecond)
}

// toWatermill never fails: a NATS message with a repeated header would
// make the default unmarshalers return nil, so a header fault is recorded
// in metadata instead and the handler dead-letters the message with it.
func toWatermill(msg jetstream.Msg) *message.Message {
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
		m.Metadata.Set(MetaStream, md.Stream)
		m.Metadata.Set(MetaStreamSeq, strconv.FormatUint(md.Sequence.Stream, 10))
	}
	return m
}

// Deliveries reads how many times JetStream has delivered the message.
func Deliveries(m *message.Message) int {
	n, _ := strconv.Atoi(m.Metadata.Get(MetaDeliveries))
	return n
}

// StreamPosition is where a message sits in its stream: the stream's
// creation time (so a recreated stream starts a new order) and the
// message's sequence in it. Later positions were stored later.
type StreamPosition struct {
	Epoch time.Time
	Seq   uint64
}

// Position reads the message's stream position; ok is false when the
// message did not come from a stream.
func Position(m *message.Message) (StreamPosition, bool) {
	seq, err := strconv.ParseUint(m.Metadata.Get(MetaStreamSeq), 10, 64)
	if err != nil {
		return StreamPosition{}, false
	}
	epoch, err := time.Parse(time.RFC3339Nano, m.Metadata.Get(MetaStreamEpoch))
	if err != nil {
		return StreamPosition{}, false
	}
	return StreamPosition{Epoch: epoch, Seq: seq}, true
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

// Connect opens a NATS connection that reconnects forever: a restarting
// server is waited for, not given up on. Errors the client meets outside
// any call (a slow consumer dropping messages) go to log at WARN and to
// onAsyncError, when given, not to the client's default of a bare line
// on stderr that no log filter sees; disconnects and reconnects are
// logged at INFO.
func Connect(url, name string, log *slog.Logger, onAsyncError func(error)) (*nats.Conn, error) {
	nc, err := nats.Connect(url,
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectBufSize(64<<20),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Warn("nats client error", "error", err, "subscription", subject)
			if onAsyncError != nil {
				onAsyncError(err)
			}
		}),
		// The client reconnects by itself, and a server stopping with
		// the process is a disconnect too: worth a line, not a warning.
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Info("nats disconnected; reconnecting", "error", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("nats reconnected", "url", nc.ConnectedUrlRedacted())
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("connect to nats at %s: %w", url, err)
	}
	return nc, nil
}
