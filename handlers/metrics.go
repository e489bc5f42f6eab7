package handlers

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the service's Prometheus collectors.
type Metrics struct {
	Registry       *prometheus.Registry
	EventsIn       *prometheus.CounterVec
	EventsOut      *prometheus.CounterVec
	Skipped        *prometheus.CounterVec
	HandlerSeconds *prometheus.HistogramVec
	TxSlotWait     *prometheus.HistogramVec
	Errors         *prometheus.CounterVec
	DeadLettered   *prometheus.CounterVec
	Replans        prometheus.Counter
	OutboxParked   *prometheus.CounterVec
	Redelivered    *prometheus.CounterVec
	APIRequests    *prometheus.CounterVec
	LLMRejections  *prometheus.CounterVec
	APILatency     *prometheus.HistogramVec
	NATSErrors     *prometheus.CounterVec
}

// NewMetrics registers every collector on a fresh registry, with the Go and
// process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		EventsIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_events_in_total", Help: "Events received, by subject and handler (its durable consumer).",
		}, []string{"subject", "handler"}),
		EventsOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_events_out_total", Help: "Events published from the outbox, by subject.",
		}, []string{"subject"}),
		Skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_events_skipped_total", Help: "Events that changed nothing (duplicate ids, stale versions, re-plans answered already), or whose result was sent already.",
		}, []string{"handler", "reason"}),
		HandlerSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "interlinker_handler_seconds", Help: "Time to handle one event, retries included, by handler (its durable consumer).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"handler"}),
		TxSlotWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "interlinker_tx_slot_wait_seconds", Help: "Time a handler's attempt waited for one of the --db-concurrency transaction slots, by handler (its durable consumer).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"handler"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_handler_errors_total", Help: "Failed handler attempts, by handler (its durable consumer) and kind (invalid, not_yet, transient, failed, exhausted, permanent).",
		}, []string{"handler", "kind"}),
		DeadLettered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_dead_lettered_total", Help: "Events moved to the dead-letter subject.",
		}, []string{"subject", "handler"}),
		Redelivered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_redelivered_total", Help: "Events a consumer received again (a failed attempt, or a replica that died holding it).",
		}, []string{"consumer"}),
		Replans: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "interlinker_replans_requested_total", Help: "Pages asked to plan again because a page they depend on changed.",
		}),
		OutboxParked: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_outbox_parked_total", Help: "Outbox events NATS refused for good and the relay parked, by subject.",
		}, []string{"subject"}),
		LLMRejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_llm_rejections_total", Help: "Answers of the LLM fallback refused, by reason (markup.RewriteRefusal's, or bad_answer for one that was no JSON to the schema).",
		}, []string{"reason"}),
		APIRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_api_requests_total", Help: "HTTP API requests, by route (its OpenAPI path) and status.",
		}, []string{"route", "status"}),
		APILatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "interlinker_api_request_seconds", Help: "Time to answer an HTTP API request, by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"route"}),
		NATSErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_nats_async_errors_total",
			Help: "Errors the NATS client reports outside any call (a slow consumer dropping messages, a permission refused), by error.",
		}, []string{"error"}),
	}
	m.Registry.MustRegister(m.NATSErrors, m.EventsIn, m.EventsOut, m.Skipped, m.HandlerSeconds, m.TxSlotWait, m.Errors, m.DeadLettered, m.Replans, m.OutboxParked, m.Redelivered,
		m.APIRequests, m.APILatency, m.LLMRejections,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
