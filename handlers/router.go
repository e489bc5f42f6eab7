package handlers

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
)

// RouterSettings bound how long and how often a message is tried. Keep
// HandlerTimeout < RetryTotal < Watermill ack wait <= consumer AckWait, so a
// message is never redelivered while an attempt on it is still running.
type RouterSettings struct {
	HandlerTimeout time.Duration // one attempt
	RetryInitial   time.Duration // first in-process retry delay
	RetryMax       time.Duration // longest in-process retry delay
	RetryTotal     time.Duration // in-process retries stop after this
	MaxDeliver     int           // JetStream deliveries before a failing event is dead-lettered
	Workers        int           // concurrent handlers per consumer
	CloseTimeout   time.Duration // how long in-flight work may take at shutdown
}

// NewRouter wires every route to a Watermill handler behind the middleware
// chain: metrics, poison queue (dead letters), delivery exhaustion, retry,
// per-attempt timeout and panic recovery.
func NewRouter(p *Pipeline, subscribe func(bus.ConsumerSpec) (message.Subscriber, error), deadLetters message.Publisher,
	set RouterSettings, logger watermill.LoggerAdapter) (*message.Router, error) {
	router, err := message.NewRouter(message.RouterConfig{CloseTimeout: set.CloseTimeout}, logger)
	if err != nil {
		return nil, fmt.Errorf("create router: %w", err)
	}
	poison, err := middleware.PoisonQueueWithFilter(deadLetters, events.DeadLetterPrefix+"refused", isPermanent)
	if err != nil {
		return nil, fmt.Errorf("poison queue: %w", err)
	}
	router.AddMiddleware(
		p.observe,
		poison,
		p.logRefusals,
		exhaustAfter(set.MaxDeliver),
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
			Logger: logger,
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
			router.AddNoPublisherHandler(name, r.Consumer.Subject, sub, asWatermill(r))
		}
	}
	return router, nil
}

// exhaustAfter turns a failure on the last allowed delivery into a permanent
// one, so the poison queue keeps the event instead of JetStream dropping it.
func exhaustAfter(maxDeliver int) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			out, err := h(msg)
			if err != nil && !isPermanent(err) && maxDeliver > 0 && bus.Deliveries(msg) >= maxDeliver {
				return out, fmt.Errorf("%w: gave up after %d deliveries: %w", ErrExhausted, bus.Deliveries(msg), err)
			}
			return out, err
		}
	}
}

// observe records every event in and the handler's time, and logs failures.
func (p *Pipeline) observe(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		handler := message.HandlerNameFromCtx(msg.Context())
		subject := msg.Metadata.Get(bus.MetaSubject)
		p.Metrics.EventsIn.WithLabelValues(subject, handler).Inc()
		start := time.Now()
		out, err := h(msg)
		p.Metrics.HandlerSeconds.WithLabelValues(handler).Observe(time.Since(start).Seconds())
		if err != nil {
			p.Logger.Warn("event not handled; JetStream redelivers it", "handler", handler, "subject", subject,
				"message_id", msg.UUID, "deliveries", bus.Deliveries(msg), "err", err,
				"correlation_id", middleware.MessageCorrelationID(msg))
		}
		return out, err
	}
}

func (p *Pipeline) countAttemptErrors(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err != nil {
			handler := message.HandlerNameFromCtx(msg.Context())
			p.Metrics.Errors.WithLabelValues(handler, errorKind(err)).Inc()
		}
		return out, err
	}
}

// logRefusals logs each event the poison queue is about to dead-letter.
func (p *Pipeline) logRefusals(h message.HandlerFunc) message.HandlerFunc {
	return func(msg *message.Message) ([]*message.Message, error) {
		out, err := h(msg)
		if err != nil && isPermanent(err) {
			p.Logger.Warn("event refused; dead-lettering", "handler", message.HandlerNameFromCtx(msg.Context()),
				"subject", msg.Metadata.Get(bus.MetaSubject), "message_id", msg.UUID, "reason", err)
		}
		return out, err
	}
}
