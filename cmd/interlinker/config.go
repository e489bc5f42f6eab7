package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/interlinker/interlinker/outbound"
	"github.com/interlinker/interlinker/service"
)

// settings registers flags that each have an INTERLINKER_* environment
// variable of the same meaning; a flag given on the command line wins.
type settings struct {
	fs    *flag.FlagSet
	errs  []error
	after []func() // run once the flags are parsed
	// withEnv names the flags registered through settings, which read
	// their variable as they are registered; finish gives every other
	// flag of fs its variable too.
	withEnv map[string]bool
	// logLevel is where --log-level is parsed to. finish reads it there:
	// the level its caller passes was copied before the flags were parsed.
	logLevel *string
	// args are the arguments that are not flags, in order: flags may come
	// before, between or after them ("token revoke ID --database-url …").
	args []string
	// takesArgs says the command reads args; finish refuses them for any
	// other, which would otherwise drop them unread (a trial's "inserted
	// SITE" was told only that --site is required).
	takesArgs bool
}

func envName(flagName string) string {
	return "INTERLINKER_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (s *settings) usage(name, help string) string {
	if s.withEnv == nil {
		s.withEnv = map[string]bool{}
	}
	s.withEnv[name] = true
	return fmt.Sprintf("%s (env %s)", help, envName(name))
}

// envForTheRest gives each flag registered on fs directly its
// INTERLINKER_* variable: the variable sets it, and its help names it.
func (s *settings) envForTheRest() {
	s.fs.VisitAll(func(f *flag.Flag) {
		if s.withEnv[f.Name] {
			return
		}
		f.Usage = s.usage(f.Name, f.Usage)
		if v, ok := s.envOr(f.Name); ok {
			if err := f.Value.Set(v); err != nil {
				s.errs = append(s.errs, fmt.Errorf("%s: %w", envName(f.Name), err))
			}
		}
	})
}

func (s *settings) envOr(name string) (string, bool) {
	return os.LookupEnv(envName(name))
}

func (s *settings) String(p *string, name, help string) {
	if v, ok := s.envOr(name); ok {
		*p = v
	}
	s.fs.StringVar(p, name, *p, s.usage(name, help))
}

func (s *settings) Int(p *int, name, help string) {
	if v, ok := s.envOr(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s: %w", envName(name), err))
		} else {
			*p = n
		}
	}
	s.fs.IntVar(p, name, *p, s.usage(name, help))
}

func (s *settings) Int64(p *int64, name, help string) {
	if v, ok := s.envOr(name); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s: %w", envName(name), err))
		} else {
			*p = n
		}
	}
	s.fs.Int64Var(p, name, *p, s.usage(name, help))
}

func (s *settings) Bool(p *bool, name, help string) {
	if v, ok := s.envOr(name); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s: %w", envName(name), err))
		} else {
			*p = b
		}
	}
	s.fs.BoolVar(p, name, *p, s.usage(name, help))
}

func (s *settings) Duration(p *time.Duration, name, help string) {
	if v, ok := s.envOr(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s: %w", envName(name), err))
		} else {
			*p = d
		}
	}
	s.fs.DurationVar(p, name, *p, s.usage(name, help))
}

// Durations registers a comma-separated list of durations, each above zero.
func (s *settings) Durations(p *[]time.Duration, name, help string) {
	if v, ok := s.envOr(name); ok {
		ds, err := parseDurations(v)
		if err != nil {
			s.errs = append(s.errs, fmt.Errorf("%s: %w", envName(name), err))
		} else {
			*p = ds
		}
	}
	s.fs.Var((*durationList)(p), name, s.usage(name, help))
}

// outboundFlags registers the outbound HTTP client's settings, which
// link verification (serve) and site import share.
func outboundFlags(s *settings, c *outbound.Config) {
	s.Strings(&c.AllowHosts, "http-allow-hosts", "comma-separated host names or CIDR ranges (127.0.0.1/32, 10.0.0.0/8, intranet.example) the outbound client may reach although they resolve to loopback, private or link-local addresses, on any port; for tests and on-premise sites")
	s.String(&c.UserAgent, "http-user-agent", "User-Agent of outbound requests; must name interlinker (default: interlinker/VERSION (+https://github.com/interlinker/interlinker))")
	s.Duration(&c.Timeout, "http-timeout", "time limit of one outbound request hop, body included")
	s.Int(&c.PerHostConcurrency, "http-per-host-concurrency", "outbound requests in flight to one host")
	s.Int(&c.GlobalConcurrency, "http-global-concurrency", "outbound requests in flight in all")
	s.Duration(&c.PerHostDelay, "http-per-host-delay", "least time between the starts of two requests to one host")
	s.Duration(&c.RetryBudget, "http-retry-budget", "how long one URL may wait on 429/503 Retry-After and a 5xx retry before it is left unverified")
	s.Duration(&c.CacheTTL, "http-cache-ttl", "how long a URL's check answers for it, however many links point at it")
	s.Int64(&c.MaxBodyBytes, "http-max-body-bytes", "largest body read of one response")
}

// Strings registers a comma-separated list of strings.
func (s *settings) Strings(p *[]string, name, help string) {
	if v, ok := s.envOr(name); ok {
		*p = splitList(v)
	}
	s.fs.Var((*stringList)(p), name, s.usage(name, help))
}

// stringList is a flag.Value holding a comma-separated list.
type stringList []string

func (l *stringList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *stringList) Set(v string) error {
	*l = splitList(v)
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// durationList is a flag.Value holding a comma-separated list of durations.
type durationList []time.Duration

func (d *durationList) String() string {
	if d == nil {
		return ""
	}
	parts := make([]string, len(*d))
	for i, v := range *d {
		parts[i] = v.String()
	}
	return strings.Join(parts, ",")
}

func (d *durationList) Set(v string) error {
	ds, err := parseDurations(v)
	if err != nil {
		return err
	}
	*d = ds
	return nil
}

// parseDurations reads "1s, 2s,1m" as Go durations. A zero or negative
// delay is refused: a nak without a delay is redelivered at once, so an
// event waiting for its site would burn its deliveries in milliseconds.
func parseDurations(v string) ([]time.Duration, error) {
	if strings.TrimSpace(v) == "" {
		return nil, errors.New("no durations given: list at least one, e.g. 1s,5s,1m")
	}
	var ds []time.Duration
	for part := range strings.SplitSeq(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if d <= 0 {
			return nil, fmt.Errorf("duration %s is not above zero", d)
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// serviceFlags registers every service setting on fs.
func serviceFlags(s *settings, cfg *service.Config, logLevel *string) {
	s.String(&cfg.DatabaseURL, "database-url", "PostgreSQL URL; the database is created if missing and migrated at start")
	dbConns := int(cfg.DBMaxConns)
	s.Int(&dbConns, "db-max-conns", "largest number of open Postgres connections; 0 sizes the pool to the transaction slots (db-concurrency + 9)")
	s.Int(&cfg.DBConcurrency, "db-concurrency", "event handlers' Postgres transactions open at once, the rest waiting their turn; 0 is twice the CPUs the service may use (GOMAXPROCS)")
	s.String(&cfg.NATSURL, "nats-url", "NATS server to use (NATS 2.10+ with JetStream)")
	s.String(&cfg.NATSListen, "nats-listen", "where the embedded NATS server listens (host:port)")
	s.String(&cfg.HTTPAddr, "http-addr", "address of /healthz, /readyz, /metrics and the HTTP API (/api/v1)")
	s.String(&cfg.AdminToken, "admin-token", "the operator's HTTP API token, which may act on any site (prefer the environment variable: a flag shows in ps)")
	s.String(&cfg.DataDir, "data-dir", "local state: the embedded NATS server stores its streams in DATA_DIR/nats")
	s.Int(&cfg.Workers, "workers", "concurrent handlers per pipeline stage")
	s.Duration(&cfg.HandlerTimeout, "handler-timeout", "time limit of one attempt at one event; an event whose attempts ran out of it gets twice as long each time, up to 8 times it")
	s.Duration(&cfg.RetryTotal, "retry-total", "how long a failing event is retried in process before JetStream redelivers it")
	s.Duration(&cfg.AckWait, "ack-wait", "JetStream AckWait of every consumer; must exceed handler-timeout + retry-total by over 1s")
	s.Int(&cfg.MaxDeliver, "max-deliver", "failed deliveries of an event before it is dead-lettered; failures because Postgres or NATS is away do not count")
	s.Durations(&cfg.NakDelays, "redelivery-delays", "comma-separated `delays` before JetStream redelivers an event after its 1st, 2nd, ... failed delivery; the last repeats")
	s.Int(&cfg.DeliveryCeiling, "delivery-ceiling", "JetStream max_deliver, counting every delivery; an event reaching it is dead-lettered")
	s.Int(&cfg.PullBuffer, "pull-buffer", "messages each handler fetches ahead (their AckWait runs while they wait)")
	s.Int(&cfg.PullBytes, "pull-bytes", "bytes each handler fetches ahead; raised to the server's max payload")
	s.Duration(&cfg.DuplicateWindow, "duplicate-window", "how long JetStream remembers event ids (Nats-Msg-Id) to drop duplicates")
	s.Duration(&cfg.StreamMaxAge, "stream-max-age", "how long streams keep events")
	s.Int64(&cfg.StreamMaxBytes, "stream-max-bytes", "storage limit of each stream; a full stream refuses new events until old ones age out")
	s.Int(&cfg.StreamReplicas, "stream-replicas", "servers of the NATS cluster that keep each stream and durable consumer (1-5; 1 with an embedded server); a change is applied to existing streams at start")
	s.Duration(&cfg.InboxRetention, "inbox-retention", "how long consumers remember applied event ids; at least stream-max-age")
	s.Int(&cfg.OutboxBatch, "outbox-batch", "events relayed from the outbox per batch")
	s.Duration(&cfg.CountInterval, "count-interval", "how often cached inbound/outbound link counts are recounted")
	s.Duration(&cfg.ReplanDelay, "replan-delay", "how long a request to re-plan a page waits before it is published, so one re-plan answers a burst of changes")
	s.Duration(&cfg.SettleDelay, "settle-delay", "how long a site must be quiet before a settle pass makes its links independent of event order and workers (0: off)")
	s.String(&cfg.LLM.BaseURL, "llm-base-url", "OpenAI-compatible API of the model the LLM fallback asks, with its /v1 (OpenAI, Azure, vLLM, Ollama, llama.cpp); empty: the fallback is off")
	s.String(&cfg.LLM.Model, "llm-model", "model the LLM fallback asks")
	s.String(&cfg.LLM.APIKey, "llm-api-key", "API key of the LLM (never logged; prefer the environment variable: a flag shows in ps)")
	s.Duration(&cfg.LLM.Timeout, "llm-timeout", "time limit of one model call (also cut to fit the inject stage's handler-timeout)")
	s.Int(&cfg.LLM.MaxConcurrent, "llm-max-concurrent", "model calls in flight at once")
	s.Int(&cfg.LLM.RequestsPerMinute, "llm-requests-per-minute", "model calls started per minute")
	s.Int(&cfg.LLMCallsPerPage, "llm-max-calls-per-page", "model calls one delivery of a page may make, and a settle pass for each page whose answers it lacked")
	s.Duration(&cfg.LLMRetryAfter, "llm-retry-after", "how long a page whose fallback could not reach the model waits to be planned again")
	outboundFlags(s, &cfg.HTTP)
	s.Int(&cfg.VerifyWorkers, "verify-workers", "link targets a verification checks at once (0: http-global-concurrency)")
	s.String(&cfg.OTLPEndpoint, "otlp-endpoint", "OTLP/HTTP endpoint spans are exported to (http://collector:4318); empty: OTEL_EXPORTER_OTLP_ENDPOINT if set, else spans are not exported")
	s.Int(&cfg.GCPercent, "gc-percent", "the Go garbage collector's target (GOGC) for the process; 0 leaves the runtime's (GOGC, else 100); default 400, or 0 when GOGC is set")
	s.Duration(&cfg.ShutdownTimeout, "shutdown-timeout", "how long in-flight work may take at shutdown")
	s.String(logLevel, "log-level", "debug, info, warn or error")
	s.logLevel = logLevel
	s.after = append(s.after, func() { cfg.DBMaxConns = int32(dbConns) })
}

// parseInterspersed parses flags wherever they stand among the other
// arguments, which it keeps in s.args: the standard flag package stops at
// the first argument that is no flag, and an operator revoking a leaked
// token with "token revoke ID --database-url …" would see it refused. A
// "--" ends the flags; what follows it is arguments, as written.
func (s *settings) parseInterspersed(args []string) error {
	for {
		if err := s.fs.Parse(args); err != nil {
			return err
		}
		rest := s.fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			s.args = append(s.args, rest...)
			return nil
		}
		if len(rest) == 0 {
			return nil
		}
		s.args = append(s.args, rest[0])
		args = rest[1:]
	}
}

// finish parses args and applies what needs parsing afterwards.
func (s *settings) finish(args []string, cfg *service.Config, logLevel string) error {
	s.envForTheRest()
	if err := s.parseInterspersed(args); err != nil {
		return err
	}
	if len(s.errs) > 0 {
		return s.errs[0]
	}
	if !s.takesArgs && len(s.args) > 0 {
		hint := ""
		if s.fs.Lookup("site") != nil {
			hint = fmt.Sprintf("; a site is given as --site %s", s.args[0])
		}
		return fmt.Errorf("%s: unexpected argument %q: it takes flags only (-h lists them)%s", s.fs.Name(), s.args[0], hint)
	}
	for _, f := range s.after {
		f()
	}
	if cfg != nil {
		if s.logLevel != nil {
			logLevel = *s.logLevel
		}
		// Watermill gives up on a message one second before JetStream redelivers it.
		if cfg.AckWait-time.Second <= cfg.HandlerTimeout+cfg.RetryTotal {
			return fmt.Errorf("ack-wait %s must exceed handler-timeout %s + retry-total %s by more than 1s", cfg.AckWait, cfg.HandlerTimeout, cfg.RetryTotal)
		}
		if cfg.DBConcurrency < 0 {
			return fmt.Errorf("db-concurrency %d must not be negative (0 is twice the CPUs)", cfg.DBConcurrency)
		}
		if cfg.ReplanDelay < 0 {
			return fmt.Errorf("replan-delay %s must not be negative", cfg.ReplanDelay)
		}
		if cfg.SettleDelay < 0 {
			return fmt.Errorf("settle-delay %s must not be negative", cfg.SettleDelay)
		}
		if cfg.StreamReplicas < 1 || cfg.StreamReplicas > 5 {
			return fmt.Errorf("stream-replicas %d must be 1 to 5", cfg.StreamReplicas)
		}
		if cfg.NATSURL == "" && cfg.StreamReplicas > 1 {
			return fmt.Errorf("stream-replicas %d needs a NATS cluster (--nats-url): an embedded server is a single node", cfg.StreamReplicas)
		}
		if cfg.InboxRetention < cfg.StreamMaxAge {
			return fmt.Errorf("inbox-retention %s must be at least stream-max-age %s: a redelivered event older than the inbox would apply twice", cfg.InboxRetention, cfg.StreamMaxAge)
		}
		var level slog.Level
		if err := level.UnmarshalText([]byte(logLevel)); err != nil {
			return fmt.Errorf("log-level: %w", err)
		}
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
		slog.SetDefault(cfg.Logger)
	}
	return nil
}
