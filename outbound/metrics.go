package outbound

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	requests       *prometheus.CounterVec
	requestSeconds prometheus.Histogram
	cacheHits      prometheus.Counter
	refused        *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_outbound_requests_total",
			Help: "Checks and fetches by outcome (ok, redirect, broken, unverified, refused); cache hits not included.",
		}, []string{"outcome"}),
		requestSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "interlinker_outbound_request_seconds",
			Help:    "Time to response headers of each outbound HTTP request (every hop and retry).",
			Buckets: prometheus.DefBuckets,
		}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "interlinker_outbound_cache_hits_total",
			Help: "Checks answered from the result cache or shared with a concurrent check of the same URL.",
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "interlinker_outbound_refused_total",
			Help: "URLs refused before any connection, by reason (scheme, credentials, port, address, invalid_url).",
		}, []string{"reason"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.requests, m.requestSeconds, m.cacheHits, m.refused} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("outbound: register metrics: %w", err)
		}
	}
	return m, nil
}
