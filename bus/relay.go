package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/interlinker/interlinker/store"
)

// Relay defaults, used where a field is left zero.
const (
	DefaultBatchSize  = 256
	DefaultBatchBytes = 8 << 20
	DefaultAckWait    = 10 * time.Second
)

// Relay publishes the outbox to JetStream. Each event goes out with its
// identity (siteid/source/id) as Nats-Msg-Id, so a batch published twice
// (after a crash or a lost ack) is stored once.
//
// An event NATS can never accept as it is (larger than the server's
// max_payload, say) is parked with the reason; one that fails for a
// passing cause waits a growing backoff. Neither holds up the events
// behind it.
type Relay struct {
	Store      *store.Store
	JS         jetstream.JetStream
	BatchSize  int           // rows per RelayOnce; 0 means DefaultBatchSize
	BatchBytes int           // payload bytes per transaction; 0 means DefaultBatchBytes
	AckWait    time.Duration // how long to wait for a batch's acks; 0 means DefaultAckWait
	OnPublish  func(subject string)
	OnPark     func(subject, reason string)
	Logger     *slog.Logger // nil means slog.Default()
	// Tracer makes the publishing of each traced event a span, a child of
	// the span that caused it; the event's consumer continues from it.
	// nil: events go out with the trace context they were written with.
	Tracer trace.Tracer
}

// RelayOnce relays up to BatchSize waiting events, in as many transactions
// as BatchBytes requires, and reports how many rows it dealt with:
// published, parked or put back to wait. The count reaches BatchSize when
// more may be waiting. It returns an error when a batch had events and
// none of them could be published, so the caller backs off.
func (r *Relay) RelayOnce(ctx context.Context) (int, error) {
	limit := orDefault(r.BatchSize, DefaultBatchSize)
	handled := 0
	for handled < limit {
		res, err := r.Store.RelayOutbox(ctx, limit-handled, orDefault(r.BatchBytes, DefaultBatchBytes), r.publish)
		r.reportParked(res.Parked)
		handled += res.Handled()
		if err != nil {
			return handled, err
		}
		if res.Failed > 0 {
			r.logger().Warn("some outbox events could not be published; they will be retried",
				"failed", res.Failed, "published", res.Published, "parked", len(res.Parked))
		}
		if !res.More {
			break
		}
	}
	return handled, nil
}

// orDefault returns v, or def when v is not positive.
func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

func (r *Relay) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

func (r *Relay) reportParked(parked []store.ParkedMessage) {
	for _, p := range parked {
		r.logger().Error("outbox event refused by NATS for good; parked until an operator requeues it",
			"seq", p.Seq, "event_id", p.EventID, "subject", p.Subject, "site_id", p.SiteID, "page_id", p.PageID,
			"size", p.Size, "reason", p.Reason)
		if r.OnPark != nil {
			r.OnPark(p.Subject, p.Reason)
		}
	}
}

// publish sends a batch asynchronously and reports each message's outcome.
func (r *Relay) publish(ctx context.Context, batch []store.OutboxMessage) []store.Outcome {
	outcomes := make([]store.Outcome, len(batch))
	futures := make([]jetstream.PubAckFuture, len(batch))
	spans := make([]trace.Span, len(batch))
	defer func() {
		for i, span := range spans {
			if span == nil {
				continue
			}
			if o := outcomes[i]; o.Delivery != store.Published {
				if o.Err != nil {
					span.RecordError(o.Err)
				}
				span.SetStatus(codes.Error, "not published")
			}
			span.End()
		}
	}()
	for i, m := range batch {
		msg := &nats.Msg{Subject: m.Subject, Data: m.Payload, Header: nats.Header{}}
		for k, v := range m.Headers {
			msg.Header.Set(k, v)
		}
		msg.Header.Set(nats.MsgIdHdr, m.MsgID)
		spans[i] = r.startPublishSpan(ctx, m, msg.Header)
		f, err := r.JS.PublishMsgAsync(msg)
		if err != nil {
			// One message refused at once (too large, say) must not keep
			// the rest of the batch from going out.
			outcomes[i] = r.failure(m, err)
			continue
		}
		futures[i] = f
	}
	ackWait := r.AckWait
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	ackCtx, cancel := context.WithTimeoutCause(ctx, ackWait, fmt.Errorf("no ack within %s", ackWait))
	defer cancel()
	for i, f := range futures {
		if f == nil {
			continue
		}
		if err := awaitAck(ackCtx, f); err != nil {
			outcomes[i] = r.failure(batch[i], err)
			continue
		}
		outcomes[i] = store.Outcome{Delivery: store.Published}
		if r.OnPublish != nil {
			r.OnPublish(batch[i].Subject)
		}
	}
	return outcomes
}

// startPublishSpan starts the span of publishing a traced event, a child
// of the span that wrote it, and puts the new span's context in the NATS
// headers. An event without trace context is published untraced.
func (r *Relay) startPublishSpan(ctx context.Context, m store.OutboxMessage, hdr nats.Header) trace.Span {
	if r.Tracer == nil || m.Headers["traceparent"] == "" {
		return nil
	}
	parent := traceContext.Extract(ctx, propagation.MapCarrier(m.Headers))
	ctx, span := r.Tracer.Start(parent, "publish "+m.Subject, trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attribute.String("messaging.system", "nats"), attribute.String("messaging.destination.name", m.Subject),
			attribute.String("messaging.message.id", m.MsgID)))
	// NATS headers are case-sensitive: the W3C names, lower case, are
	// replaced, not joined by canonical-case twins.
	carrier := propagation.MapCarrier{}
	traceContext.Inject(ctx, carrier)
	for k, v := range carrier {
		hdr.Set(k, v)
	}
	return span
}

// traceContext is the W3C trace context propagator.
var traceContext = propagation.TraceContext{}

// awaitAck waits for a publish's ack until ctx ends. An ack that has
// already arrived counts even once ctx has ended, so the acks of a batch
// are not lost to the deadline of a slow one before them.
func awaitAck(ctx context.Context, f jetstream.PubAckFuture) error {
	select {
	case <-f.Ok():
		return nil
	case err := <-f.Err():
		return err
	default:
	}
	select {
	case <-f.Ok():
		return nil
	case err := <-f.Err():
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// failure turns a publish error into the message's outcome, saying for a
// refusal which limit the message broke.
func (r *Relay) failure(m store.OutboxMessage, err error) store.Outcome {
	if !refusedForGood(err) {
		return store.Outcome{Delivery: store.Failed, Err: fmt.Errorf("publish %s %s: %w", m.Subject, m.EventID, err)}
	}
	limit := "the stream's maximum message size"
	if errors.Is(err, nats.ErrMaxPayload) {
		limit = fmt.Sprintf("the NATS server's max_payload of %d bytes", r.JS.Conn().MaxPayload())
	}
	return store.Outcome{Delivery: store.Refused,
		Err: fmt.Errorf("%s event of %d bytes exceeds %s: %w", m.Subject, len(m.Payload), limit, err)}
}

// refusedForGood reports whether a publish error means the message can
// never be accepted as it is, so that retrying it would only stall the
// outbox: it is larger than the server's max_payload (the client refuses
// it before sending) or than the stream's maximum message size (JetStream
// answers API error 10054). Everything else may pass on a later attempt:
// timeouts, no responders (no stream yet, or a leader election), a closed
// or reconnecting connection, a missing ack, a cancelled context.
func refusedForGood(err error) bool {
	if errors.Is(err, nats.ErrMaxPayload) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamMessageExceedsMaximum
}
