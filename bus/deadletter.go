package bus

import (
	"context"
	"fmt"
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
)

// maxReasonBytes keeps a reason readable and within header limits.
const maxReasonBytes = 2048

// DeadLetterPublisher is the poison queue's publisher: it moves a refused
// message, byte for byte, to "deadletter.<original subject>" with the reason
// in a header. The message id derives from the handler and stream sequence,
// so dead-lettering one message twice stores it once.
type DeadLetterPublisher struct {
	JS      jetstream.JetStream
	Timeout time.Duration
	OnDead  func(subject, handler string)
}

var _ message.Publisher = (*DeadLetterPublisher)(nil)

// Publish ignores topic: the subject is derived from each message's origin.
func (p *DeadLetterPublisher) Publish(_ string, msgs ...*message.Message) error {
	for _, m := range msgs {
		original := m.Metadata.Get(MetaSubject)
		handler := m.Metadata.Get(middleware.PoisonedHandlerKey)
		reason := oneLine(m.Metadata.Get(middleware.ReasonForPoisonedKey))
		out := &nats.Msg{
			Subject: events.DeadLetterPrefix + original,
			Data:    m.Payload,
			Header:  nats.Header{},
		}
		out.Header.Set(HeaderReason, reason)
		out.Header.Set(HeaderOriginalSubject, original)
		out.Header.Set(HeaderHandler, handler)
		out.Header.Set(HeaderDeliveries, m.Metadata.Get(MetaDeliveries))
		out.Header.Set(nats.MsgIdHdr, "dl-"+handler+"-"+m.Metadata.Get(MetaStreamSeq))
		ctx, cancel := context.WithTimeout(context.Background(), p.Timeout)
		_, err := p.JS.PublishMsg(ctx, out)
		cancel()
		if err != nil {
			return fmt.Errorf("dead-letter message %s from %s: %w", m.UUID, original, err)
		}
		if p.OnDead != nil {
			p.OnDead(original, handler)
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
