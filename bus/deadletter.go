package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// Headers of a dead-lettered message.
const (
	HeaderReason          = "Interlinker-Dead-Letter-Reason"
	HeaderOriginalSubject = "Interlinker-Original-Subject"
	HeaderHandler         = "Interlinker-Handler"
	HeaderDeliveries      = "Interlinker-Deliveries"
	// HeaderOriginalMsgID keeps the producer's Nats-Msg-Id, which the dead
	// letter's own id replaces: a producer that publishes a mended dead
	// letter again sends it under this one.
	HeaderOriginalMsgID = "Interlinker-Original-Msg-Id"
)

// maxReasonBytes keeps a reason readable and within header limits.
const maxReasonBytes = 2048

// deadLetter is one refused message on its way to "deadletter.<subject>".
type deadLetter struct {
	Subject    string // the subject it arrived on
	Payload    []byte
	Reason     string
	Consumer   string // the durable consumer that gave up on it
	Deliveries string
	Stream     string
	StreamSeq  string
	MsgID      string // the producer's Nats-Msg-Id, if it sent one
}

// publishDeadLetter moves a refused message, byte for byte, to
// "deadletter.<original subject>" with the reason in a header. The message
// id derives from the consumer and the message's place in its stream, so
// one message dead-lettered twice (by two replicas, or by the poison queue
// and the delivery watch) is stored once.
func publishDeadLetter(ctx context.Context, js jetstream.JetStream, d deadLetter) error {
	out := &nats.Msg{
		Subject: events.DeadLetterPrefix + d.Subject,
		Data:    d.Payload,
		Header:  nats.Header{},
	}
	out.Header.Set(HeaderReason, oneLine(d.Reason))
	out.Header.Set(HeaderOriginalSubject, d.Subject)
	out.Header.Set(HeaderHandler, d.Consumer)
	out.Header.Set(HeaderDeliveries, d.Deliveries)
	if d.MsgID != "" {
		out.Header.Set(HeaderOriginalMsgID, d.MsgID)
	}
	out.Header.Set(nats.MsgIdHdr, "dl/"+d.Consumer+"/"+d.Stream+"/"+d.StreamSeq)
	if _, err := js.PublishMsg(ctx, out); err != nil {
		return fmt.Errorf("dead-letter message %s #%s from %s: %w", d.Stream, d.StreamSeq, d.Subject, err)
	}
	return nil
}

// DeadLetterPublisher is the poison queue's publisher.
type DeadLetterPublisher struct {
	JS      jetstream.JetStream
	Timeout time.Duration
	OnDead  func(subject, consumer string)
}

var _ message.Publisher = (*DeadLetterPublisher)(nil)

// Publish ignores topic: the subject is derived from each message's origin.
func (p *DeadLetterPublisher) Publish(_ string, msgs ...*message.Message) error {
	for _, m := range msgs {
		d := deadLetter{
			Subject:    m.Metadata.Get(MetaSubject),
			Payload:    m.Payload,
			Reason:     m.Metadata.Get(middleware.ReasonForPoisonedKey),
			Consumer:   m.Metadata.Get(MetaConsumer),
			Deliveries: m.Metadata.Get(MetaDeliveries),
			Stream:     m.Metadata.Get(MetaStream),
			StreamSeq:  m.Metadata.Get(MetaStreamSeq),
			MsgID:      m.Metadata.Get(nats.MsgIdHdr),
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.Timeout)
		err := publishDeadLetter(ctx, p.JS, d)
		cancel()
		if err != nil {
			return err
		}
		if p.OnDead != nil {
			p.OnDead(d.Subject, d.Consumer)
		}
	}
	return nil
}

// Close does nothing: the connection belongs to the caller.
func (p *DeadLetterPublisher) Close() error { return nil }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxReasonBytes {
		s = s[:maxReasonBytes] + "…"
	}
	return s
}

func formatUint(n uint64) string { return strconv.FormatUint(n, 10) }

// DeadLetter is a refused message as the dead-letter stream keeps it.
type DeadLetter struct {
	Seq           uint64    // its place in the dead-letter stream
	Time          time.Time // when it was dead-lettered
	Subject       string    // the subject it arrived on
	Reason        string
	Handler       string // the durable consumer that gave up on it
	Deliveries    string
	OriginalMsgID string // the producer's Nats-Msg-Id, if it sent one
	Payload       []byte // the message as it arrived, byte for byte
}

// ReadDeadLetters returns the newest limit dead letters (every one when
// limit is 0), oldest first, of subject ("" for every subject). It reads
// the stream backwards one message at a time, so asking for the newest
// few of a large stream costs a few round trips.
func ReadDeadLetters(ctx context.Context, js jetstream.JetStream, subject string, limit int) ([]DeadLetter, error) {
	name, ok := events.StreamFor(events.DeadLetterPrefix + events.ContentGenerated)
	if !ok {
		return nil, fmt.Errorf("no stream holds %s", events.DeadLetterPrefix)
	}
	st, err := js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("dead-letter stream %s: %w", name, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("dead-letter stream %s: %w", name, err)
	}
	var out []DeadLetter
	for seq := info.State.LastSeq; seq >= info.State.FirstSeq && seq > 0 && (limit == 0 || len(out) < limit); seq-- {
		raw, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // removed from the stream
		}
		if err != nil {
			return nil, fmt.Errorf("dead letter #%d: %w", seq, err)
		}
		d := DeadLetter{Seq: raw.Sequence, Time: raw.Time, Subject: strings.TrimPrefix(raw.Subject, events.DeadLetterPrefix),
			Reason: raw.Header.Get(HeaderReason), Handler: raw.Header.Get(HeaderHandler), Deliveries: raw.Header.Get(HeaderDeliveries),
			OriginalMsgID: raw.Header.Get(HeaderOriginalMsgID), Payload: raw.Data}
		if subject != "" && d.Subject != subject {
			continue
		}
		out = append(out, d)
	}
	slices.Reverse(out)
	return out, nil
}
