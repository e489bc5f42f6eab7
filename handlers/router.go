package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
)

// RouterSettings bound how long and how often a message is tried. Keep
// HandlerTimeout < RetryTotal < consumer AckWait, so one delivery's
// attempts end well before JetStream would redeliver it unasked.
type RouterSettings struct {
	HandlerTimeout time.Duration // one attempt
	RetryInitial   time.Duration // first in-process retry delay
	RetryMax       time.Duration // longest in-process retry delay
	RetryTotal     time.Duration // in-process retries stop after this
	// MaxFailures is how many deliveries of an event may fail for reasons
	// other than a dependency being away (isTransient) before the event is
	// dead-lettered.
	MaxFailures  int
	Workers      int           // concurrent handlers per consumer
	CloseTimeout time.Duration // how long in-flight work may take at shutdown
}

// NewRouter wires every route to a Watermill handler behind the middleware
// chain: metrics, poison queue (dead letters), one log line per failed
// delivery, the failure budget, retry, per-attempt timeout and panic
// recovery.
func NewRouter(p *Pipeline, subscribe func(bus.ConsumerSpec) (message.Subscriber, error), deadLetters message.Publisher,
	set RouterSettings, logger *slog.Logger) (*message.Router, error) {
	wmLogger := quietHandlerErrors{watermill.NewSlogLoggerWithLevelMapping(logger,
		map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})}
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: set.CloseTimeout}, wmLogger)
	if err != nil {
		return nil, fmt.Errorf("create router: %w", err)
	}
	poison, err := middleware.PoisonQueueWithFilter(deadLetters, events.DeadLetterPrefix+"refused", isPermanent)
	if err != nil {
		return nil, fmt.Errorf("poison queue: %w", err)
	}
	budget := newFailureBudget(set.MaxFailures)
	router.AddMiddleware(
		p.observe,
		poison,
		p.report,
		budget.middleware,
		middleware.Retry{
			MaxRetries:          1 << 20, // RetryTotal bounds the retries, not a count
			InitialInterval:     set.RetryInitial,
			MaxInterval:         set.RetryMax,
			Multiplier:          2,
			MaxElapsedTime:      set.RetryTotal,
			RandomizationFactor: 0.2,
			ResetContextOnRetry: true,
			ShouldRetry: func(params middleware.RetryParams) bool {
				return !isPermanent(params.Err) && !errors.Is(params.Err, ErrNotYet)
			},
			// No Logger: report logs each failed delivery once.
		}.Middleware,
		p.countAttemptErrors,
		middleware.Timeout(set.HandlerTimeout),
		middleware.Recoverer,
	)
	workers := max(set.Workers, 1)
	for _, r := range p.Routes() {
		sub, err := subscribe(r.Consumer)
		if err != nil {
			return nil, err
		}
		for w := 1; w <= workers; w++ {
			name := r.Consumer.Durable
			if w > 1 {
				name += "-" + strconv.Itoa(w)
			}
			router.AddConsumerHandler(name, r.Consumer.Subject, sub, asWatermill(r))
		}
	}
	return router, nil
}

// quietHandlerErrors sends Watermill's "Handler returned error" to debug:
// report has already logged the failure once, with its kind and fields.
type quietHandlerErrors struct{ watermill.LoggerAdapter }

func (q quietHandlerErrors) Error(msg string, err error, fields watermill.LogFields) {
	if msg == "Handler returned error" {
		q.LoggerAdapter.Debug(msg, fields.Add(watermill.LogFields{"err": err}))
		return
	}
	q.LoggerAdapter.Error(msg, err, fields)
}

func (q quietHandlerErrors) With(fields watermill.LogFields) watermill.LoggerAdapter {
	return quietHandlerErrors{q.LoggerAdapter.With(fields)}
}

// observe records every event in, redeliveries and the handler's time.
func (p *Pipeline) observe(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		handler := message.HandlerNameFromCtx(msg.Context())
		consumer := msg.Metadata.Get(bus.MetaConsumer)
		p.Metrics.EventsIn.WithLabelValues(msg.Metadata.Get(bus.MetaSubject), handler).Inc()
		if bus.Deliveries(msg) > 1 {
			p.Metrics.Redelivered.WithLabelValues(consumer).Inc()
		}
		start := time.Now()
		out, err := h(msg)
		p.Metrics.HandlerSeconds.WithLabelValues(handler).Observe(time.Since(start).Seconds())
		return out, err
	}
}

// report logs each failed delivery once: a refusal about to be
// dead-lettered, or a failure JetStream will redeliver. A dependency being
// away is expected and retried, so it is a warning, never an error.
func (p *Pipeline) report(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err == nil {
			return out, nil
		}
		attrs := []any{"consumer", msg.Metadata.Get(bus.MetaConsumer), "subject", msg.Metadata.Get(bus.MetaSubject),
			"message_id", msg.UUID, "deliveries", bus.Deliveries(msg), "kind", errorKind(err), "err", err,
			"correlation_id", middleware.MessageCorrelationID(msg)}
		if isPermanent(err) {
			p.Logger.Warn("event refused; dead-lettering", attrs...)
		} else {
			p.Logger.Warn("event not handled; JetStream redelivers it", attrs...)
		}
		return out, err
	}
}

func (p *Pipeline) countAttemptErrors(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err != nil && !errors.Is(err, context.Canceled) {
			handler := message.HandlerNameFromCtx(msg.Context())
			p.Metrics.Errors.WithLabelValues(handler, errorKind(err)).Inc()
		}
		return out, err
	}
}
