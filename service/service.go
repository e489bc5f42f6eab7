package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
	"github.com/interlinker/interlinker/store"
)

// Service is a running interlinker.
type Service struct {
	cfg      Config
	log      *slog.Logger
	store    *store.Store
	embedded *server.Server
	natsURL  string
	nc       *nats.Conn
	js       jetstream.JetStream
	relay    *drainer
	counter  *drainer
	router   *message.Router
	subs     []*bus.Subscriber
	http     *http.Server
	httpAddr string
	metrics  *handlers.Metrics

	consumers   []bus.ConsumerSpec
	routerDone  chan error
	shutdownMu  sync.Mutex
	shutdownErr error
	isShutdown  bool
}

// Start brings the service up and returns once every consumer is bound and
// HTTP is listening. On error everything started so far is stopped again.
func Start(ctx context.Context, cfg Config) (svc *Service, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Service{cfg: cfg, log: cfg.Logger, metrics: handlers.NewMetrics()}
	defer func() {
		if err != nil {
			s.teardown(context.Background())
		}
	}()

	if err := retryStart(ctx, "open database", func() error {
		st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{MaxConns: cfg.DBMaxConns})
		s.store = st
		return err
	}); err != nil {
		return nil, err
	}

	s.natsURL = cfg.NATSURL
	if s.natsURL == "" {
		s.embedded, err = bus.StartEmbedded(bus.EmbeddedOptions{Listen: cfg.NATSListen, StoreDir: filepath.Join(cfg.DataDir, "nats")})
		if err != nil {
			return nil, err
		}
		s.natsURL = s.embedded.ClientURL()
		s.log.Info("embedded NATS JetStream listening", "url", s.natsURL, "store", filepath.Join(cfg.DataDir, "nats"))
	}
	if s.nc, err = bus.Connect(s.natsURL, "interlinker"); err != nil {
		return nil, err
	}
	if s.js, err = jetstream.New(s.nc); err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}

	pipeline := &handlers.Pipeline{Store: s.store, Metrics: s.metrics, Logger: s.log}
	routes := pipeline.Routes()
	s.consumers = handlers.Consumers(routes)
	if err := retryStart(ctx, "provision streams and consumers", func() error {
		return bus.Provision(ctx, s.js,
			bus.StreamSettings{DuplicateWindow: cfg.DuplicateWindow, MaxAge: cfg.StreamMaxAge},
			bus.ConsumerSettings{AckWait: cfg.AckWait, MaxDeliver: cfg.MaxDeliver, MaxAckPending: cfg.MaxAckPending},
			s.consumers)
	}); err != nil {
		return nil, err
	}

	relay := &bus.Relay{Store: s.store, JS: s.js, BatchSize: cfg.OutboxBatch, AckWait: 10 * time.Second,
		OnPublish: func(subject string) { s.metrics.EventsOut.WithLabelValues(subject).Inc() }}
	s.relay = newDrainer("outbox", cfg.OutboxBatch, cfg.OutboxPoll, s.log, relay.RelayOnce)
	// The count refresher is not woken per commit: recounting a hot target
	// costs its whole inbound set, so recounts are batched per interval.
	s.counter = newDrainer("link counts", cfg.CountBatch, cfg.CountInterval, s.log, func(ctx context.Context) (int, error) {
		return s.store.RefreshQueuedLinkCounts(ctx, cfg.CountBatch)
	})
	pipeline.Notify = s.relay.Notify
	s.relay.Start(context.WithoutCancel(ctx))
	s.counter.Start(context.WithoutCancel(ctx))
	s.registerOutboxGauges()

	wmLogger := watermill.NewSlogLoggerWithLevelMapping(s.log, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
	subSettings := bus.SubscriberSettings{
		WatermillAckWait: cfg.AckWait - time.Second,
		PullBuffer:       cfg.PullBuffer,
		NakDelays:        cfg.NakDelays,
	}
	dead := &bus.DeadLetterPublisher{JS: s.js, Timeout: 10 * time.Second,
		OnDead: func(subject, handler string) { s.metrics.DeadLettered.WithLabelValues(subject, handler).Inc() }}
	s.router, err = handlers.NewRouter(pipeline, func(spec bus.ConsumerSpec) (message.Subscriber, error) {
		sub, err := bus.NewSubscriber(s.natsURL, spec, subSettings, wmLogger)
		if err == nil {
			s.subs = append(s.subs, sub)
		}
		return sub, err
	}, dead, handlers.RouterSettings{
		HandlerTimeout: cfg.HandlerTimeout, RetryInitial: cfg.RetryInitial, RetryMax: cfg.RetryMax,
		RetryTotal: cfg.RetryTotal, MaxDeliver: cfg.MaxDeliver, Workers: cfg.Workers, CloseTimeout: cfg.ShutdownTimeout,
	}, wmLogger)
	if err != nil {
		return nil, err
	}
	s.routerDone = make(chan error, 1)
	go func() { s.routerDone <- s.router.Run(context.WithoutCancel(ctx)) }()
	select {
	case <-s.router.Running():
	case err := <-s.routerDone:
		return nil, fmt.Errorf("router stopped at start: %w", err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}

	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("listen for http on %s: %w", cfg.HTTPAddr, err)
	}
	s.httpAddr = ln.Addr().String()
	s.http = &http.Server{Handler: handlers.NewHTTPHandler(s.metrics, s.Ready), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server stopped", "err", err)
		}
	}()
	s.log.Info("interlinker running", "http", s.httpAddr, "nats", s.natsURL, "workers", cfg.Workers)
	return s, nil
}

// retryStart retries a start step while its dependency comes up, for at
// most a minute.
func retryStart(ctx context.Context, what string, step func() error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 200 * time.Millisecond
	b.MaxElapsedTime = time.Minute
	err := backoff.RetryNotify(step, backoff.WithContext(b, ctx), func(err error, wait time.Duration) {
		slog.Warn("start step failed; retrying", "step", what, "err", err, "retry_in", wait)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (s *Service) registerOutboxGauges() {
	lag := func() (int, time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, age, err := s.store.OutboxLag(ctx)
		if err != nil {
			return -1, -1
		}
		return n, age
	}
	s.metrics.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "interlinker_outbox_waiting", Help: "Events in the outbox not yet published (-1: unknown)."},
			func() float64 { n, _ := lag(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "interlinker_outbox_oldest_seconds", Help: "Age of the oldest unpublished event (-1: unknown)."},
			func() float64 { _, age := lag(); return age.Seconds() }),
	)
}

// Ready reports nil when Postgres and NATS answer and every consumer is bound.
func (s *Service) Ready(ctx context.Context) error {
	if err := s.store.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if !s.nc.IsConnected() {
		return fmt.Errorf("nats: %s", s.nc.Status())
	}
	if err := bus.ConsumersBound(ctx, s.js, s.consumers); err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	select {
	case <-s.router.Running():
	default:
		return errors.New("router not running")
	}
	return nil
}

// Idle reports whether the pipeline has nothing left to do: every durable
// consumer has acknowledged all it was sent, the outbox is empty and no
// link recount waits. Re-plans caused by one page's arrival travel through
// the outbox and the consumers, so an idle pipeline has settled them too.
func (s *Service) Idle(ctx context.Context) (bool, error) {
	for _, c := range s.consumers {
		stream, ok := events.StreamFor(c.Subject)
		if !ok {
			return false, fmt.Errorf("no stream holds subject %s", c.Subject)
		}
		cons, err := s.js.Consumer(ctx, stream, c.Durable)
		if err != nil {
			return false, fmt.Errorf("consumer %s: %w", c.Durable, err)
		}
		info, err := cons.Info(ctx)
		if err != nil {
			return false, fmt.Errorf("consumer %s: %w", c.Durable, err)
		}
		if info.NumPending > 0 || info.NumAckPending > 0 {
			return false, nil
		}
	}
	if n, _, err := s.store.OutboxLag(ctx); err != nil || n > 0 {
		return false, err
	}
	n, err := s.store.LinkCountBacklog(ctx)
	return err == nil && n == 0, err
}

// NATSURL is where producers publish and consumers subscribe.
func (s *Service) NATSURL() string { return s.natsURL }

// HTTPAddr is the address the HTTP endpoints listen on.
func (s *Service) HTTPAddr() string { return s.httpAddr }

// Store gives tests and the demo read access to the state.
func (s *Service) Store() *store.Store { return s.store }

// Done is closed when the router stops on its own (a fatal error).
func (s *Service) Done() <-chan error { return s.routerDone }

// Shutdown stops taking messages, lets in-flight handlers finish (or leaves
// their messages to redelivery), flushes the outbox and closes connections.
func (s *Service) Shutdown(ctx context.Context) error {
	s.shutdownMu.Lock()
	defer s.shutdownMu.Unlock()
	if s.isShutdown {
		return s.shutdownErr
	}
	s.isShutdown = true
	s.shutdownErr = s.teardown(ctx)
	return s.shutdownErr
}

func (s *Service) teardown(ctx context.Context) error {
	var errs []error
	stopCtx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	for _, sub := range s.subs {
		if err := sub.StopConsuming(stopCtx); err != nil {
			errs = append(errs, err)
		}
	}
	cancel()
	if s.router != nil {
		if err := s.router.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close router: %w", err))
		}
	}
	for _, d := range []*drainer{s.relay, s.counter} {
		if d == nil {
			continue
		}
		flushCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := d.Stop(flushCtx); err != nil {
			errs = append(errs, fmt.Errorf("flush %s: %w", d.name, err))
		}
		cancel()
	}
	if s.http != nil {
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop http: %w", err))
		}
	}
	if s.nc != nil {
		if err := s.nc.Drain(); err != nil {
			s.nc.Close()
		}
	}
	if s.embedded != nil {
		s.embedded.Shutdown()
		s.embedded.WaitForShutdown()
	}
	if s.store != nil {
		s.store.Close()
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.log.Info("interlinker stopped")
	return nil
}
