package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
	"github.com/interlinker/interlinker/llm"
	"github.com/interlinker/interlinker/outbound"
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
	pruner   *drainer
	stats    *drainer
	settler  *drainer // nil when settling is off
	jobs     *drainer // audits and applies
	watch    *bus.DeliveryWatch
	router   *message.Router
	subs     []*bus.Subscriber
	http     *http.Server
	// shutdownTracing flushes the spans not exported yet.
	shutdownTracing func(context.Context) error
	httpAddr        string
	metrics         *handlers.Metrics

	consumers   []bus.ConsumerSpec
	routerDone  chan error
	shutdownMu  sync.Mutex
	shutdownErr error
	isShutdown  bool
	stopping    atomic.Bool // set as teardown begins
}

// Start brings the service up and returns once every consumer is bound and
// HTTP is listening. On error everything started so far is stopped again.
func Start(ctx context.Context, cfg Config) (svc *Service, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Logger = slog.New(traceLogHandler{cfg.Logger.Handler()})
	s := &Service{cfg: cfg, log: cfg.Logger, metrics: handlers.NewMetrics()}
	if cfg.GCPercent > 0 {
		// The process is the service's, so its collector target is a
		// setting of the service (Config.GCPercent).
		debug.SetGCPercent(cfg.GCPercent)
	}
	defer func() {
		if err != nil {
			s.teardown(context.Background())
		}
	}()
	tp, shutdownTracing, err := newTracerProvider(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.shutdownTracing = shutdownTracing
	tracer := tp.Tracer(handlers.TracerName)

	pipeline := &handlers.Pipeline{Metrics: s.metrics, Logger: s.log, FanoutPage: cfg.FanoutPage, ReplanDelay: cfg.ReplanDelay,
		SettleDelay: cfg.SettleDelay, LLMCallsPerPage: cfg.LLMCallsPerPage, LLMRetryAfter: cfg.LLMRetryAfter}
	if cfg.LLM.BaseURL != "" {
		client, err := llm.New(cfg.LLM, s.metrics.Registry, s.log)
		if err != nil {
			return nil, fmt.Errorf("LLM fallback: %w", err)
		}
		pipeline.LLM = client
		if cfg.HandlerTimeout < cfg.LLM.Timeout {
			// Information, not a warning: the defaults (5s, 30s) are so, and
			// a trial read the warning as something to fix.
			s.log.Info("a model call is cut to fit the inject stage's attempt; raise --handler-timeout (and --ack-wait) for a slow model",
				"handler_timeout", cfg.HandlerTimeout, "llm_timeout", cfg.LLM.Timeout)
		}
		s.log.Info("LLM fallback on", "model", cfg.LLM.Model, "base_url", cfg.LLM.BaseURL)
	}
	checker, err := outbound.New(cfg.HTTP, s.metrics.Registry, s.log)
	if err != nil {
		return nil, fmt.Errorf("outbound HTTP client: %w", err)
	}
	pipeline.Checker, pipeline.VerifyWorkers = checker, cfg.VerifyWorkers
	pipeline.Tracer, pipeline.Replica = tracer, replicaName()
	routes := pipeline.Routes()
	s.consumers = handlers.Consumers(routes)
	poolSize := cfg.PoolSize()
	if err := retryStart(ctx, s.log, "open database", func() error {
		// A pool sized to the transaction slots is a default: it is cut to what
		// the server allows. One set by hand is kept, and warned of.
		st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{MaxConns: poolSize, FitToServer: cfg.DBMaxConns == 0, Logger: s.log})
		s.store = st
		return err
	}); err != nil {
		return nil, err
	}
	switch limit := s.store.ServerConnections(); {
	case limit <= 0 || int(poolSize) <= limit:
	case cfg.DBMaxConns == 0:
		s.log.Info("connection pool cut to the connections Postgres allows (max_connections - superuser_reserved_connections)",
			"sized_to_slots", poolSize, "pool", s.store.MaxConns())
	default:
		s.log.Warn("the connection pool is larger than the connections Postgres allows (max_connections - superuser_reserved_connections)",
			"db_max_conns", poolSize, "server_connections", limit,
			"remedy", "set --db-max-conns within what the server allows, less what other clients hold, or raise max_connections")
	}
	if slots := int32(cfg.TxSlots()); s.store.MaxConns() < slots {
		s.log.Warn("fewer database connections than transaction slots (--db-concurrency): handlers will queue for connections",
			"db_max_conns", s.store.MaxConns(), "db_concurrency", slots)
	}
	pipeline.Store = s.store
	pipeline.TxSlots = handlers.NewTxSlots(cfg.TxSlots())

	s.natsURL = cfg.NATSURL
	if s.natsURL == "" {
		s.embedded, err = bus.StartEmbedded(bus.EmbeddedOptions{Listen: cfg.NATSListen, StoreDir: filepath.Join(cfg.DataDir, "nats")})
		if err != nil {
			return nil, err
		}
		s.natsURL = s.embedded.ClientURL()
		s.log.Info("embedded NATS JetStream listening", "url", s.natsURL, "store", filepath.Join(cfg.DataDir, "nats"))
	}
	if s.nc, err = bus.Connect(s.natsURL, "interlinker", s.log, s.countNATSError); err != nil {
		return nil, err
	}
	// An async publish whose ack never comes is given up after the relay's
	// wait, so it does not hold a slot of the client's pending limit.
	if s.js, err = jetstream.New(s.nc, jetstream.WithPublishAsyncTimeout(relayAckWait)); err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}

	if err := retryStart(ctx, s.log, "provision streams and consumers", func() error {
		return bus.Provision(ctx, s.js,
			bus.StreamSettings{DuplicateWindow: cfg.DuplicateWindow, MaxAge: cfg.StreamMaxAge, MaxBytes: cfg.StreamMaxBytes, Replicas: cfg.StreamReplicas},
			bus.ConsumerSettings{AckWait: cfg.AckWait, DeliveryCeiling: cfg.DeliveryCeiling, MaxAckPending: cfg.MaxAckPending},
			s.consumers)
	}); err != nil {
		return nil, err
	}
	// Provisioning needed the server, so the connection knows its limit.
	pipeline.MaxEventBytes = int(s.nc.MaxPayload())

	relay := &bus.Relay{Store: s.store, JS: s.js, BatchSize: cfg.OutboxBatch, AckWait: relayAckWait, Logger: s.log, Tracer: tracer,
		OnPublish: func(subject string) { s.metrics.EventsOut.WithLabelValues(subject).Inc() },
		OnPark:    func(subject, _ string) { s.metrics.OutboxParked.WithLabelValues(subject).Inc() }}
	s.relay = newDrainer("outbox", cfg.OutboxBatch, cfg.OutboxPoll, s.log, relay.RelayOnce)
	// The count refresher is not woken per commit: recounting a hot target
	// costs its whole inbound set, so recounts are batched per interval.
	s.counter = newDrainer("link counts", cfg.CountBatch, cfg.CountInterval, s.log, func(ctx context.Context) (int, error) {
		return s.store.RefreshQueuedLinkCounts(ctx, cfg.CountBatch)
	})
	s.pruner = newDrainer("inbox", pruneBatch, cfg.PruneInterval, s.log, func(ctx context.Context) (int, error) {
		return s.store.PruneInbox(ctx, cfg.InboxRetention, pruneBatch)
	})
	// Tables that grow fast are analyzed as they do, so that statements
	// are planned for what they hold (store.KeepStatistics).
	s.stats = newDrainer("statistics", math.MaxInt, statsInterval, s.log, func(ctx context.Context) (int, error) {
		tables, err := s.store.KeepStatistics(ctx)
		if len(tables) > 0 {
			s.log.Debug("analyzed grown tables", "tables", tables)
		}
		return 0, err
	})
	if cfg.SettleDelay > 0 {
		// A pass runs once a site has been quiet for SettleDelay, so the
		// loop looks a few times per delay.
		s.settler = newDrainer("settle", settleBatch, max(cfg.SettleDelay/4, 50*time.Millisecond), s.log, func(ctx context.Context) (int, error) {
			return pipeline.SettleQuietSites(ctx, cfg.SettleDelay, settleBatch)
		})
	}
	// Audits and applies run in the background, one at a time per
	// process: an audit of a large site outlasts any handler's time.
	s.jobs = newDrainer("audit jobs", 1, jobsPoll, s.log, func(ctx context.Context) (int, error) {
		return pipeline.RunJobs(ctx, 1)
	})
	pipeline.WakeJobs = s.jobs.Notify
	pipeline.Notify = s.relay.Notify
	s.relay.Start(context.WithoutCancel(ctx))
	s.counter.Start(context.WithoutCancel(ctx))
	s.pruner.Start(context.WithoutCancel(ctx))
	s.stats.Start(context.WithoutCancel(ctx))
	if s.settler != nil {
		s.settler.Start(context.WithoutCancel(ctx))
	}
	s.jobs.Start(context.WithoutCancel(ctx))
	s.registerOutboxGauges()

	subSettings := bus.SubscriberSettings{
		PullBuffer:   cfg.PullBuffer,
		PullBytes:    cfg.PullBytes,
		NakDelays:    cfg.NakDelays,
		Logger:       s.log,
		OnAsyncError: s.countNATSError,
	}
	onDead := func(subject, consumer string) { s.metrics.DeadLettered.WithLabelValues(subject, consumer).Inc() }
	dead := &bus.DeadLetterPublisher{JS: s.js, Timeout: 10 * time.Second, OnDead: onDead}
	s.watch = &bus.DeliveryWatch{JS: s.js, Logger: s.log, OnDead: onDead}
	if err := s.watch.Start(ctx); err != nil {
		return nil, err
	}
	s.router, err = handlers.NewRouter(pipeline, func(spec bus.ConsumerSpec) (message.Subscriber, error) {
		sub, err := bus.NewSubscriber(s.natsURL, spec, subSettings)
		if err == nil {
			s.subs = append(s.subs, sub)
		}
		return sub, err
	}, dead, handlers.RouterSettings{
		HandlerTimeout: cfg.HandlerTimeout, RetryInitial: cfg.RetryInitial, RetryMax: cfg.RetryMax,
		RetryTotal: cfg.RetryTotal, MaxFailures: cfg.MaxDeliver, Workers: cfg.Workers, CloseTimeout: cfg.ShutdownTimeout,
		Stopping: s.stopping.Load,
	}, s.log)
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
	api := &handlers.API{Store: s.store, Logger: s.log, Metrics: s.metrics, Notify: s.relay.Notify}
	if cfg.AdminToken != "" {
		api.AdminTokenHash = store.HashToken(cfg.AdminToken)
	}
	s.http = &http.Server{Handler: handlers.TraceHTTP(tracer, handlers.NewUI(api).Mount(handlers.NewHTTPHandler(s.metrics, s.Ready, api))), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server stopped", "err", err)
		}
	}()
	s.log.Info("interlinker running", "http", s.httpAddr, "nats", s.natsURL, "workers", cfg.Workers,
		"db_concurrency", pipeline.TxSlots.Size(), "db_max_conns", s.store.MaxConns())
	return s, nil
}

// relayAckWait is how long the outbox relay waits for JetStream to
// acknowledge a batch.
const relayAckWait = 10 * time.Second

// statsInterval is how often table growth is checked for KeepStatistics.
const statsInterval = time.Second

// jobsPoll is how often the audit runner looks for audits and applies
// it was not woken for (taken by another replica, or left by a stopped
// process).
const jobsPoll = time.Second

// settleBatch is how many quiet sites one step of the settle loop settles.
const settleBatch = 4

// pruneBatch is how many inbox rows one prune statement deletes.
const pruneBatch = 10_000

// retryStart retries a start step while its dependency comes up, for at
// most a minute.
func retryStart(ctx context.Context, logger *slog.Logger, what string, step func() error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 200 * time.Millisecond
	b.MaxElapsedTime = time.Minute
	err := backoff.RetryNotify(step, backoff.WithContext(b, ctx), func(err error, wait time.Duration) {
		logger.Warn("start step failed; retrying", "step", what, "err", err, "retry_in", wait)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// registerOutboxGauges reports the outbox from one store query per scrape,
// however many gauges that query fills, and the pages waiting to settle.
func (s *Service) registerOutboxGauges() {
	var outbox prometheus.Collector = handlers.NewOutboxCollector(s.store.OutboxStatus)
	s.metrics.Registry.MustRegister(outbox, handlers.NewUnsettledGauge(s.store.Unsettled), handlers.NewIdleGauge(s.Idle))
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

// Idle reports whether the pipeline has nothing left to do: it is Quiet,
// no site waits for its settle pass and none is under way in any
// replica (store.Settling). The pass is
// asked after the marks: a pass that starts later found a page marked.
func (s *Service) Idle(ctx context.Context) (bool, error) {
	quiet, err := s.Quiet(ctx)
	if err != nil || !quiet || s.settler == nil {
		return quiet, err
	}
	n, err := s.store.Unsettled(ctx)
	if err != nil || n > 0 {
		return false, err
	}
	settling, err := s.store.Settling(ctx)
	return err == nil && !settling, err
}

// Quiet reports whether every durable consumer has acknowledged all it was
// sent, the outbox is empty and no link recount or job waits. Re-plans
// caused by one page's arrival travel through the outbox and the
// consumers, so a quiet pipeline has handled them too; a site may still
// wait for its settle pass.
func (s *Service) Quiet(ctx context.Context) (bool, error) {
	for _, c := range s.consumers {
		stream, ok := events.StreamFor(c.Subject)
		if !ok {
			return false, fmt.Errorf("no stream holds subject %s", c.Subject)
		}
		// Looking the consumer up asks JetStream for its info: asking
		// again (Info) doubled the requests of every test's wait.
		cons, err := s.js.Consumer(ctx, stream, c.Durable)
		if err != nil {
			return false, fmt.Errorf("consumer %s: %w", c.Durable, err)
		}
		if info := cons.CachedInfo(); info.NumPending > 0 || info.NumAckPending > 0 {
			return false, nil
		}
	}
	if st, err := s.store.OutboxStatus(ctx); err != nil || st.Waiting > 0 {
		return false, err
	}
	n, err := s.store.LinkCountBacklog(ctx)
	if err != nil || n > 0 {
		return false, err
	}
	if n, err = s.store.PendingJobs(ctx); err != nil || n > 0 {
		return false, err
	}
	return true, nil
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

// teardown stops the service within one budget, the shutdown timeout (or
// ctx's deadline if sooner), shared by every step in turn, so the whole
// stays inside an orchestrator's grace period: stop pulling, let handlers
// answer what they hold, close the router, stop the delivery watch, flush
// the outbox and the link recounts, stop HTTP, close connections. A step
// that runs out of budget is left behind, never forced: a message a
// handler still holds is redelivered after its AckWait.
func (s *Service) teardown(ctx context.Context) error {
	var errs []error
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	defer cancel()
	s.stopping.Store(true)
	for _, sub := range s.subs {
		sub.StopPulling()
	}
	for _, sub := range s.subs {
		if err := s.timed("wait for "+sub.Durable()+"'s handlers", func() error { return sub.Wait(ctx) }); err != nil {
			errs = append(errs, err)
		}
	}
	if s.router != nil {
		if err := s.timed("close router", func() error { return within(ctx, "close router", s.router.Close) }); err != nil {
			errs = append(errs, err)
		}
	}
	if s.watch != nil {
		if err := s.timed("stop delivery watch", func() error {
			return within(ctx, "stop delivery watch", func() error { s.watch.Stop(); return nil })
		}); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range []*drainer{s.pruner, s.stats, s.settler, s.jobs} {
		if d == nil {
			continue
		}
		if err := s.timed("stop "+d.name, func() error { return d.Halt(ctx) }); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range []*drainer{s.relay, s.counter} {
		if d == nil {
			continue
		}
		err := s.timed("flush "+d.name, func() error { return d.Stop(ctx) })
		switch {
		case err == nil:
		case d == s.relay && ctx.Err() == nil:
			// Events left in the outbox are safe in Postgres: another
			// replica or the next start relays them. A cluster still
			// settling a publish (409 "duplicate message id is in
			// process") is no reason to fail the shutdown.
			s.log.Warn("outbox not flushed at shutdown; its events wait in Postgres for the next relay", "err", err)
		default:
			errs = append(errs, fmt.Errorf("flush %s: %w", d.name, err))
		}
	}
	if s.http != nil {
		if err := s.timed("stop http", func() error { return s.http.Shutdown(ctx) }); err != nil {
			errs = append(errs, fmt.Errorf("stop http: %w", err))
		}
	}
	if s.nc != nil {
		if err := s.nc.Drain(); err != nil {
			s.nc.Close()
		}
	}
	if s.embedded != nil {
		if err := s.timed("stop embedded nats", func() error {
			return within(ctx, "stop embedded nats", func() error { s.embedded.Shutdown(); s.embedded.WaitForShutdown(); return nil })
		}); err != nil {
			errs = append(errs, err)
		}
	}
	if s.store != nil {
		// Closing the pool waits for every connection a handler still holds.
		if err := s.timed("close database", func() error {
			return within(ctx, "close database", func() error { s.store.Close(); return nil })
		}); err != nil {
			errs = append(errs, err)
		}
	}
	if s.shutdownTracing != nil {
		if err := s.timed("flush traces", func() error { return s.shutdownTracing(ctx) }); err != nil {
			errs = append(errs, fmt.Errorf("flush traces: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.log.Info("interlinker stopped")
	return nil
}

// slowShutdownStep is how long a step of the shutdown may take before it
// is logged: a stop that nears its budget says which step held it.
const slowShutdownStep = 2 * time.Second

// timed runs one step of the shutdown and logs it when it is slow.
func (s *Service) timed(what string, step func() error) error {
	began := time.Now()
	err := step()
	if took := time.Since(began); took >= slowShutdownStep {
		s.log.Warn("shutdown step slow", "step", what, "took", took.Round(time.Millisecond), "err", err)
	}
	return err
}

// within runs step and waits for it until ctx ends; a step still running
// then is left to finish on its own.
func within(ctx context.Context, what string, step func() error) error {
	done := make(chan error, 1)
	go func() { done <- step() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
}

// countNATSError counts an error a NATS connection met outside any call,
// by the error's text: the client's errors are a small fixed set.
func (s *Service) countNATSError(err error) {
	s.metrics.NATSErrors.WithLabelValues(err.Error()).Inc()
}
