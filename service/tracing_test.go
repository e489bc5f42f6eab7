package service

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/interlinker/interlinker/events"
)

// spansByTrace groups the finished spans by trace.
func spansByTrace(exp *tracetest.InMemoryExporter) map[trace.TraceID][]tracetest.SpanStub {
	out := map[trace.TraceID][]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		out[s.SpanContext.TraceID()] = append(out[s.SpanContext.TraceID()], s)
	}
	return out
}

func spanNames(spans []tracetest.SpanStub) map[string]int {
	names := map[string]int{}
	for _, s := range spans {
		names[s.Name]++
	}
	return names
}

// replicaOf is the replica a span was made on, from its
// interlinker.replica attribute.
func replicaOf(s tracetest.SpanStub) string {
	for _, a := range s.Attributes {
		if a.Key == "interlinker.replica" {
			return a.Value.AsString()
		}
	}
	return ""
}

// capturedLogs keeps the log records of a service, for the trace ids
// they carry.
type capturedLogs struct {
	mu      sync.Mutex
	records []map[string]string
}

func (c *capturedLogs) Enabled(context.Context, slog.Level) bool { return true }
func (c *capturedLogs) Handle(_ context.Context, r slog.Record) error {
	rec := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool { rec[a.Key] = a.Value.String(); return true })
	c.mu.Lock()
	c.records = append(c.records, rec)
	c.mu.Unlock()
	return nil
}
func (c *capturedLogs) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *capturedLogs) WithGroup(string) slog.Handler      { return c }

func TestOnePagesJourneyIsOneTraceAcrossItsStagesAndTwoReplicas(t *testing.T) {
	t.Parallel()
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	logs := &capturedLogs{}
	cfg := testConfig(t)
	cfg.TracerProvider = tp
	cfg.Logger = slog.New(logs)
	h := startHarness(t, cfg)
	second := cfg
	second.NATSURL = h.svc.NATSURL()
	second.HTTPAddr = "127.0.0.1:0"
	second.DataDir = t.TempDir()
	replica, err := Start(t.Context(), second)
	if err != nil {
		t.Fatalf("start the second replica: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = replica.Shutdown(ctx)
	})

	const siteID = "traced"
	h.siteWithLinkedHub(siteID)
	// A producer that sends its own trace context has the page's journey
	// continue its trace.
	producerTrace := "4bf92f3577b34da6a3ce929d0e0e4736"
	ev := pageEvent(siteID, "tip-0", "supporting", 1, supportingHTML(0))
	ev.TraceParent = "00-" + producerTrace + "-00f067aa0ba902b7-01"
	h.publish(ev)
	pages := 1
	// The plan's delivery carries on with the inject and validate stages
	// in its transaction (handlers.carryOn), each a span of its own.
	stages := []string{"process content.generated", "inject", "validate", "publish links.inserted"}
	crossed := 0
	// Pages are published until some journey has crossed replicas (the
	// two share every consumer, so nearly every batch of pages does), at
	// most 40.
	for crossed == 0 && pages < 40 {
		for i := 0; i < 8; i++ {
			pages++
			h.publish(pageEvent(siteID, fmt.Sprintf("tip-%d", pages), "supporting", 1, supportingHTML(pages)))
		}
		waitFor(t, waitLong, "every page linked", func() bool { return h.inserted.pageCount(siteID) == pages+1 })
		h.waitIdle(waitLong)
		crossed = 0
		journeys := 0
		for id, spans := range spansByTrace(exporter) {
			// A delivery of an event sent without trace context that
			// fails (a page before its site) is a trace of its own; the
			// delivery that links the page starts the journey.
			names := spanNames(spans)
			if names["process content.generated"] == 0 || names["inject"] == 0 {
				continue
			}
			journeys++
			for _, stage := range stages {
				if names[stage] == 0 {
					t.Fatalf("trace %s lacks %q: %v", id, stage, names)
				}
			}
			replicas := map[string]bool{}
			for _, s := range spans {
				if strings.HasPrefix(s.Name, "process ") {
					replicas[replicaOf(s)] = true
				}
			}
			if replicas[""] {
				t.Fatalf("a delivery span names no replica")
			}
			if len(replicas) > 1 {
				crossed++
			}
		}
		// The hub's own content.generated is a journey too.
		if journeys != pages+1 {
			t.Fatalf("%d journeys traced for %d pages", journeys, pages+1)
		}
	}
	if crossed == 0 {
		t.Fatalf("no page's journey crossed the two replicas in %d pages", pages)
	}
	t.Logf("%d pages, %d journeys crossed replicas, every one whole", pages, crossed)

	// Each delivery's span is a child of the span that published its
	// event, and the stages carried on in a delivery are children of its
	// span.
	var producerSpans []tracetest.SpanStub
	for id, spans := range spansByTrace(exporter) {
		if id.String() == producerTrace {
			producerSpans = spans
		}
	}
	if len(producerSpans) == 0 {
		t.Fatalf("the producer's trace %s has no spans", producerTrace)
	}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range producerSpans {
		byID[s.SpanContext.SpanID()] = s
	}
	stagesSeen := 0
	for _, s := range producerSpans {
		parent := byID[s.Parent.SpanID()]
		switch {
		case strings.HasPrefix(s.Name, "process ") && s.Name != "process content.generated":
			if want := "publish " + strings.TrimPrefix(s.Name, "process "); parent.Name != want {
				t.Errorf("span %q's parent is %q, want %q", s.Name, parent.Name, want)
			}
		case s.Name == "inject" || s.Name == "validate":
			stagesSeen++
			if !strings.HasPrefix(parent.Name, "process ") {
				t.Errorf("stage span %q's parent is %q, want the delivery's span", s.Name, parent.Name)
			}
		}
	}
	if stagesSeen < 2 {
		t.Errorf("the producer's trace has %d inject and validate spans, want both", stagesSeen)
	}

	// The links.inserted of a page carries its trace, and log lines made
	// within a span name it.
	for _, r := range h.inserted.all() {
		if r.Inserted != nil && r.Inserted.PageID == "tip-0" {
			if !strings.Contains(r.Event.TraceParent, producerTrace) || !strings.Contains(r.Header.Get("traceparent"), producerTrace) {
				t.Errorf("links.inserted of tip-0 carries traceparent %q (header %q), want trace %s",
					r.Event.TraceParent, r.Header.Get("traceparent"), producerTrace)
			}
		}
	}
	// An HTTP request starts a trace (or continues the client's), and the
	// command event it writes, and the audit that event asks for, are in
	// it.
	requested := collect(t, h.js, "AUDIT", events.AuditRequested)
	_, token, err := h.svc.Store().CreateToken(t.Context(), siteID, "tracing")
	if err != nil {
		t.Fatal(err)
	}
	clientTrace := "0af7651916cd43dd8448eb211c80319c"
	api := newAPIClient(t, h)
	status, _, raw := api.do(http.MethodPost, "/linker/audit/run/", token, "trace-1", `{"site_id":"`+siteID+`"}`,
		http.Header{"Traceparent": {"00-" + clientTrace + "-b7ad6b7169203331-01"}})
	if status != http.StatusAccepted {
		t.Fatalf("audit/run: %d %s", status, raw)
	}
	waitFor(t, waitLong, "audit.requested published", func() bool { return len(requested.all()) == 1 })
	if got := requested.all()[0]; !strings.Contains(got.Event.TraceParent, clientTrace) {
		t.Errorf("the API's audit.requested carries traceparent %q, want the request's trace %s", got.Event.TraceParent, clientTrace)
	}
	waitFor(t, waitLong, "the audit's run traced", func() bool {
		for id, spans := range spansByTrace(exporter) {
			if id.String() == clientTrace && spanNames(spans)["run audit"] == 1 && spanNames(spans)["HTTP POST"] == 1 {
				return true
			}
		}
		return false
	})

	logs.mu.Lock()
	defer logs.mu.Unlock()
	withTrace := 0
	for _, rec := range logs.records {
		if rec["trace_id"] != "" && rec["span_id"] != "" {
			withTrace++
		}
	}
	if withTrace == 0 {
		t.Errorf("no log line carries trace_id and span_id (%d lines)", len(logs.records))
	}
}
