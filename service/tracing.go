package service

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// newTracerProvider is the service's tracer provider: cfg.TracerProvider
// when one is given (tests give one with an in-memory exporter); else the
// OpenTelemetry SDK, exporting over OTLP/HTTP when --otlp-endpoint or the
// standard OTEL_EXPORTER_OTLP_ENDPOINT (or its _TRACES_ form) is set, and
// exporting nothing otherwise. Spans exist either way: their context is
// what events and log lines carry, so traces stay whole across replicas
// that export and replicas that do not. shutdown flushes what is left.
func newTracerProvider(ctx context.Context, cfg Config) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	if cfg.TracerProvider != nil {
		return cfg.TracerProvider, func(context.Context) error { return nil }, nil
	}
	host, _ := os.Hostname()
	res := resource.NewSchemaless(attribute.String("service.name", "interlinker"),
		attribute.String("service.instance.id", fmt.Sprintf("%s/%d", host, os.Getpid())))
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if endpoint := cfg.OTLPEndpoint; endpoint != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" ||
		os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		var exporterOpts []otlptracehttp.Option
		if endpoint != "" {
			exporterOpts = append(exporterOpts, otlptracehttp.WithEndpointURL(endpoint))
		}
		exporter, err := otlptracehttp.New(ctx, exporterOpts...)
		if err != nil {
			return nil, nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exporter))
	}
	sdk := sdktrace.NewTracerProvider(opts...)
	return sdk, sdk.Shutdown, nil
}

// replicaName names this process among the replicas in its spans: its
// host, its process id, and a random part, for replicas in one process
// (tests).
func replicaName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%04x", host, os.Getpid(), rand.Uint32()&0xffff)
}

// traceLogHandler adds the trace_id and span_id of the span in a log
// call's context to its line, so a log line can be found from its trace
// and the other way round.
type traceLogHandler struct{ slog.Handler }

func (h traceLogHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceLogHandler{h.Handler.WithAttrs(attrs)}
}

func (h traceLogHandler) WithGroup(name string) slog.Handler {
	return traceLogHandler{h.Handler.WithGroup(name)}
}
