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
	// HandlerTimeout is the time limit of one attempt; an event whose
	// attempts ran out of time gets up to 8 times it (attemptLimits).
	HandlerTimeout time.Duration
	RetryInitial   time.Duration // first in-process retry delay
	RetryMax       time.Duration // longest in-process retry delay
	RetryTotal     time.Duration // in-process retries stop after this
	// MaxFailures is how many deliveries of an event may fail for reasons
	// other than a dependency being away (isTransient) before the event is
	// dead-lettered.
	MaxFailures  int
	Workers      int           // concurrent handlers per consumer
	CloseTimeout time.Duration // how long in-flight work may take at shutdown
	// Stopping reports whether the service is shutting down: the handlers
	// then stop because their subscriptions were drained, as asked.
	Stopping func() bool
}

// NewRouter wires every route to a Watermill handler behind the middleware
// chain: metrics, poison queue (dead letters), one log line per failed
// delivery, the failure budget, retry, per-attempt timeout and panic
// recovery.
func NewRouter(p *Pipeline, subscribe func(bus.ConsumerSpec) (message.Subscriber, error), deadLetters message.Publisher,
	set RouterSettings, logger *slog.Logger) (*message.Router, error) {
	wmLogger := quietHandlerErrors{LoggerAdapter: watermill.NewSlogLoggerWithLevelMapping(logger,
		map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug}), stopping: set.Stopping}
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
		p.traceDeliveries,
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
		(&attemptLimits{base: set.HandlerTimeout}).middleware,
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
// Watermill's "All handlers stopped" is an error unless the service is
// stopping, when the drained subscriptions stopped the handlers on purpose.
type quietHandlerErrors struct {
	watermill.LoggerAdapter
	stopping func() bool
}

// allHandlersStopped is what Watermill logs when every handler has returned.
const allHandlersStopped = "All handlers stopped, closing router"

func (q quietHandlerErrors) Error(msg string, err error, fields watermill.LogFields) {
	switch {
	case msg == "Handler returned error":
		q.LoggerAdapter.Debug(msg, fields.Add(watermill.LogFields{"err": err}))
	case msg == allHandlersStopped && q.stopping != nil && q.stopping():
		q.LoggerAdapter.Info(msg, fields)
	default:
		q.LoggerAdapter.Error(msg, err, fields)
	}
}

func (q quietHandlerErrors) With(fields watermill.LogFields) watermill.LoggerAdapter {
	return quietHandlerErrors{LoggerAdapter: q.LoggerAdapter.With(fields), stopping: q.stopping}
}

// observe records every event in, redeliveries and the handler's time.
func (p *Pipeline) observe(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		handler := handlerLabel(msg)
		p.Metrics.EventsIn.WithLabelValues(msg.Metadata.Get(bus.MetaSubject), handler).Inc()
		if bus.Deliveries(msg) > 1 {
			p.Metrics.Redelivered.WithLabelValues(handler).Inc()
		}
		start := time.Now()
		out, err := h(msg)
		p.Metrics.HandlerSeconds.WithLabelValues(handler).Observe(time.Since(start).Seconds())
		return out, err
	}
}

// handlerLabel names the handler in metrics by its durable consumer, as
// README and the other metrics do. Watermill's handler name would do
// too, but it is one per worker ("planner-2", ...), which would split a
// stage into --workers series nobody asked for. A message that did not
// come through bus.Subscriber has no consumer; the handler name is the
// best that is known of it.
func handlerLabel(msg *message.Message) string {
	if consumer := msg.Metadata.Get(bus.MetaConsumer); consumer != "" {
		return consumer
	}
	return message.HandlerNameFromCtx(msg.Context())
}

// report logs each failed delivery once, at a level saying whether
// someone should look: an event waiting for state not yet known (a page
// before its site) is the pipeline working as designed, so INFO; a
// dependency away is retried for as long as the outage lasts, so WARN;
// any other failure counts toward dead-lettering the event and a refusal
// dead-letters it now, so both are ERROR. A not-yet event that runs out
// of deliveries arrives here as ErrExhausted, a refusal: hence the order.
func (p *Pipeline) report(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err == nil {
			return out, nil
		}
		if errors.Is(err, ErrExhausted) {
			// Made outside the retries that count each attempt's kind
			// (countAttemptErrors), by the failure budget: counted here,
			// once for the event whose deliveries ran out.
			p.Metrics.Errors.WithLabelValues(handlerLabel(msg), errorKind(err)).Inc()
		}
		level, text := failureLevel(err)
		p.Logger.Log(msg.Context(), level, text,
			"consumer", msg.Metadata.Get(bus.MetaConsumer), "subject", msg.Metadata.Get(bus.MetaSubject),
			"message_id", msg.UUID, "deliveries", bus.Deliveries(msg), "kind", errorKind(err), "err", err,
			"correlation_id", middleware.MessageCorrelationID(msg))
		return out, err
	}
}

// failureLevel is the level and message report logs a failed delivery with.
func failureLevel(err error) (slog.Level, string) {
	switch {
	case isPermanent(err):
		return slog.LevelError, "event refused; dead-lettering"
	case errors.Is(err, ErrNotYet):
		return slog.LevelInfo, "event waits for state not yet known; JetStream redelivers it"
	case isTransient(err):
		return slog.LevelWarn, "event not handled: a dependency is away or busy; JetStream redelivers it"
	default:
		return slog.LevelError, "event not handled; JetStream redelivers it"
	}
}

func (p *Pipeline) countAttemptErrors(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err != nil && !errors.Is(err, context.Canceled) {
			p.Metrics.Errors.WithLabelValues(handlerLabel(msg), errorKind(err)).Inc()
		}
		return out, err
	}
}
