package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/ThreeDotsLabs/watermill/message"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
)

// Tracing. The W3C trace context travels with every event twice: as the
// CloudEvents distributed-tracing extension in the event itself, and as
// traceparent/tracestate NATS headers. Each delivery a handler takes is a
// span, a child of the span that published its event; each event the
// handler causes carries the handler's span onward through the outbox,
// where the relay's publish span takes over. One page's journey from
// content.generated to links.inserted is so one trace, whichever replica
// handles each stage. An HTTP request starts a trace, and the command
// event it writes carries it.

// TracerName names interlinker's tracer.
const TracerName = "github.com/interlinker/interlinker"

// TraceContext is the propagator of the W3C trace context.
var TraceContext = propagation.TraceContext{}

func (p *Pipeline) tracer() trace.Tracer {
	if p.Tracer == nil {
		return noop.NewTracerProvider().Tracer(TracerName)
	}
	return p.Tracer
}

// eventCarrier reads and writes an event's trace attributes for the
// propagator.
type eventCarrier struct{ ev *events.Event }

func (c eventCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.ev.TraceParent
	case "tracestate":
		return c.ev.TraceState
	}
	return ""
}

func (c eventCarrier) Set(key, value string) {
	switch key {
	case "traceparent":
		c.ev.TraceParent = value
	case "tracestate":
		c.ev.TraceState = value
	}
}

func (c eventCarrier) Keys() []string { return []string{"traceparent", "tracestate"} }

// withTrace stamps an event with the trace context of ctx's span, and
// returns the headers the outbox keeps for it, trace context included.
func withTrace(ctx context.Context, ev *events.Event, headers map[string]string) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return headers
	}
	TraceContext.Inject(ctx, eventCarrier{ev})
	if headers == nil {
		headers = map[string]string{}
	}
	TraceContext.Inject(ctx, propagation.MapCarrier(headers))
	return headers
}

// traceDeliveries makes each delivery a handler takes a span, a child of
// the span that published the event: from the NATS headers, or, for a
// producer that sent no headers, from the event's own traceparent.
func (p *Pipeline) traceDeliveries(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		subject := msg.Metadata.Get(bus.MetaSubject)
		parent := TraceContext.Extract(msg.Context(), propagation.MapCarrier(msg.Metadata))
		if !trace.SpanContextFromContext(parent).IsValid() {
			parent = extractFromPayload(msg.Context(), msg.Payload)
		}
		ctx, span := p.tracer().Start(parent, "process "+subject, trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(
				attribute.String("messaging.system", "nats"),
				attribute.String("messaging.destination.name", subject),
				attribute.String("messaging.consumer.group.name", msg.Metadata.Get(bus.MetaConsumer)),
				attribute.String("messaging.message.id", msg.UUID),
				attribute.Int("messaging.message.delivery_count", bus.Deliveries(msg)),
				attribute.String("interlinker.replica", p.Replica),
			))
		defer span.End()
		msg.SetContext(ctx)
		out, err := h(msg)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, errorKind(err))
		}
		return out, err
	}
}

// extractFromPayload reads the trace context of an event sent without
// trace headers. It decodes only when the payload names a traceparent:
// an event without one is not decoded twice.
func extractFromPayload(ctx context.Context, payload []byte) context.Context {
	if !bytes.Contains(payload, []byte(`"traceparent"`)) {
		return ctx
	}
	var ev events.Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return ctx
	}
	return TraceContext.Extract(ctx, eventCarrier{&ev})
}

// startJobSpan starts the span of a background job (an audit, an apply, a
// verification) as a child of the span that asked for it.
func (p *Pipeline) startJobSpan(ctx context.Context, kind string, req events.Event) (context.Context, trace.Span) {
	parent := TraceContext.Extract(ctx, eventCarrier{&req})
	return p.tracer().Start(parent, "run "+kind, trace.WithAttributes(attribute.String("interlinker.site_id", req.SiteID),
		attribute.String("cloudevents.event_id", req.ID), attribute.String("interlinker.replica", p.Replica)))
}

// TraceHTTP makes each HTTP request a span: a trace starts with it, or
// continues one the client sent in a traceparent header.
func TraceHTTP(tracer trace.Tracer, next http.Handler) http.Handler {
	if tracer == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := TraceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, "HTTP "+r.Method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
		defer span.End()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
