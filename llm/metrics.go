package llm

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of requests_total.
const (
	outcomeOK          = "ok"           // an answer to the schema
	outcomeBadAnswer   = "bad_answer"   // an answer, not to the schema
	outcomeRateLimited = "rate_limited" // 429
	outcomeServerError = "server_error" // 5xx
	outcomeTimeout     = "timeout"      // no answer within Config.Timeout
	outcomeBreakerOpen = "breaker_open" // a call the open breaker refused; no request made
	outcomeThrottled   = "throttled"    // no slot of requests_per_minute before the caller's deadline; no request made
	outcomeError       = "error"        // transport errors, other 4xx, the caller's cancellation
)

var outcomes = []string{outcomeOK, outcomeBadAnswer, outcomeRateLimited, outcomeServerError, outcomeTimeout, outcomeBreakerOpen, outcomeThrottled, outcomeError}

type metrics struct {
	requests  *prometheus.CounterVec
	tokensIn  prometheus.Counter
	tokensOut prometheus.Counter
	seconds   *prometheus.HistogramVec
}

// newMetrics builds the collectors and registers them on reg (if not nil).
// A second Client on the same registry shares the first one's collectors.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "interlinker_llm_requests_total",
		Help: "LLM HTTP attempts by call (rewrite, phrases) and outcome (ok, bad_answer, rate_limited, server_error, timeout, error), and calls refused by the open circuit breaker (breaker_open).",
	}, []string{"call", "outcome"})
	tokens := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "interlinker_llm_tokens_total",
		Help: "Tokens the LLM server reported using, by direction (in: prompt, out: completion).",
	}, []string{"direction"})
	seconds := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "interlinker_llm_request_seconds",
		Help:    "Duration of one LLM HTTP attempt, by call (rewrite, phrases).",
		Buckets: prometheus.ExponentialBuckets(0.05, 2, 12), // 50ms .. ~100s
	}, []string{"call"})
	if reg != nil {
		var err error
		if requests, err = register(reg, requests); err != nil {
			return nil, err
		}
		if tokens, err = register(reg, tokens); err != nil {
			return nil, err
		}
		if seconds, err = register(reg, seconds); err != nil {
			return nil, err
		}
	}
	for _, call := range calls {
		for _, o := range outcomes {
			requests.WithLabelValues(call, o)
		}
		seconds.WithLabelValues(call)
	}
	return &metrics{
		requests:  requests,
		tokensIn:  tokens.WithLabelValues("in"),
		tokensOut: tokens.WithLabelValues("out"),
		seconds:   seconds,
	}, nil
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("llm: registering metrics: %w", err)
	}
	return c, nil
}
