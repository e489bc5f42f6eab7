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

	"github.com/interlinker/interlinker/service"
)

// settings registers flags that each have an INTERLINKER_* environment
// variable of the same meaning; a flag given on the command line wins.
type settings struct {
	fs    *flag.FlagSet
	errs  []error
	after []func() // run once the flags are parsed
	// logLevel is where --log-level is parsed to. finish reads it there:
	// the level its caller passes was copied before the flags were parsed.
	logLevel *string
}

func envName(flagName string) string {
	return "INTERLINKER_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (s *settings) usage(name, help string) string {
	return fmt.Sprintf("%s (env %s)", help, envName(name))
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
	s.Int(&dbConns, "db-max-conns", "largest number of open Postgres connections; 0 sizes the pool to the handlers (workers × stages + 9)")
	s.String(&cfg.NATSURL, "nats-url", "NATS server to use (NATS 2.10+ with JetStream)")
	s.String(&cfg.NATSListen, "nats-listen", "where the embedded NATS server listens (host:port)")
	s.String(&cfg.HTTPAddr, "http-addr", "address of /healthz, /readyz, /metrics and the HTTP API (/api/v1)")
	s.String(&cfg.AdminToken, "admin-token", "the operator's HTTP API token, which may act on any site (prefer the environment variable: a flag shows in ps)")
	s.String(&cfg.DataDir, "data-dir", "local state: the embedded NATS server stores its streams in DATA_DIR/nats")
	s.Int(&cfg.Workers, "workers", "concurrent handlers per pipeline stage")
	s.Duration(&cfg.HandlerTimeout, "handler-timeout", "time limit of one attempt at one event")
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
	s.Int(&cfg.LLMCallsPerPage, "llm-max-calls-per-page", "model calls one delivery of a page may make")
	s.Duration(&cfg.LLMRetryAfter, "llm-retry-after", "how long a page whose fallback could not reach the model waits to be planned again")
	s.Duration(&cfg.ShutdownTimeout, "shutdown-timeout", "how long in-flight work may take at shutdown")
	s.String(logLevel, "log-level", "debug, info, warn or error")
	s.logLevel = logLevel
	s.after = append(s.after, func() { cfg.DBMaxConns = int32(dbConns) })
}

// finish parses args and applies what needs parsing afterwards.
func (s *settings) finish(args []string, cfg *service.Config, logLevel string) error {
	if err := s.fs.Parse(args); err != nil {
		return err
	}
	if len(s.errs) > 0 {
		return s.errs[0]
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
		if cfg.ReplanDelay < 0 {
			return fmt.Errorf("replan-delay %s must not be negative", cfg.ReplanDelay)
		}
		if cfg.SettleDelay < 0 {
			return fmt.Errorf("settle-delay %s must not be negative", cfg.SettleDelay)
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
