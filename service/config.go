// Package service assembles the running interlinker from its parts: the
// store, the bus (embedded or external NATS), the outbox relay, the Watermill
// router with every pipeline handler, and the HTTP endpoints. serve, demo and
// the end-to-end tests all start it through Start.
package service

import (
	"log/slog"
	"os"
	"runtime"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/interlinker/interlinker/llm"
	"github.com/interlinker/interlinker/outbound"
)

// Config is everything Start needs. DefaultConfig gives working values; the
// command line maps each field to a flag and an INTERLINKER_* variable.
type Config struct {
	DatabaseURL string
	DBMaxConns  int32
	// DBConcurrency is how many event handlers' transactions are open at
	// once (handlers.TxSlots); 0: DBConcurrencyPerCPU for each CPU
	// (Config.TxSlots).
	DBConcurrency int
	NATSURL       string // empty: embed a JetStream server
	NATSListen    string // where the embedded server listens
	HTTPAddr      string
	DataDir       string // the embedded server's store lives in DataDir/nats
	// AdminToken is the operator's HTTP API token, which may act on any
	// site; empty: none.
	AdminToken string

	Workers        int // concurrent handlers per consumer
	HandlerTimeout time.Duration
	RetryInitial   time.Duration
	RetryMax       time.Duration
	RetryTotal     time.Duration
	AckWait        time.Duration // consumer AckWait: how long a replica that died holding a message delays it
	// MaxDeliver is how many deliveries of an event may fail for a reason
	// other than Postgres or NATS being away before it is dead-lettered.
	MaxDeliver int
	// DeliveryCeiling is JetStream's max_deliver, counting every delivery;
	// a message that reaches it is dead-lettered by the delivery watch.
	DeliveryCeiling int
	NakDelays       []time.Duration
	PullBuffer      int // messages fetched ahead per handler
	PullBytes       int // bytes fetched ahead per handler (at least the server's max payload)
	MaxAckPending   int

	DuplicateWindow time.Duration
	StreamMaxAge    time.Duration
	StreamMaxBytes  int64
	// StreamReplicas is how many servers of the NATS cluster keep each
	// stream and durable consumer; 1 for a single server.
	StreamReplicas int

	OutboxBatch int
	OutboxPoll  time.Duration

	// InboxRetention is how long a consumer remembers the events it
	// applied: at least StreamMaxAge, past which JetStream redelivers
	// nothing.
	InboxRetention time.Duration
	PruneInterval  time.Duration // how often the inbox is pruned

	CountBatch    int           // pages recounted per batch
	CountInterval time.Duration // how often queued link counts are recounted

	// FanoutPage is how many dependants of a change one transaction asks
	// to re-plan (0: the pipeline's default).
	FanoutPage int
	// ReplanDelay is how long a re-plan request waits in the outbox before
	// it is published, so that one re-plan answers the changes of a burst.
	ReplanDelay time.Duration
	// SettleDelay is how long a site must be quiet before a settle pass
	// re-plans it in an order of its pages alone, so its final links do
	// not depend on the order events came in or on Workers; 0 turns
	// settling off.
	SettleDelay time.Duration

	// LLM is the model the fallback asks to rewrite a paragraph for a link
	// no text carries (LLM.BaseURL "": off). LLMCallsPerPage caps the calls
	// one delivery of a page makes; LLMRetryAfter is how long a page whose
	// fallback could not reach the model waits to be planned again.
	LLM             llm.Config
	LLMCallsPerPage int
	LLMRetryAfter   time.Duration

	// HTTP is the outbound client's policy for link verification: the
	// hosts exempt from its SSRF address rules, its limits and timeouts
	// (zero values take outbound's defaults). VerifyWorkers is how many
	// checks a verification has in flight (0: HTTP's global limit).
	HTTP          outbound.Config
	VerifyWorkers int

	// OTLPEndpoint is where spans are exported over OTLP/HTTP
	// ("http://collector:4318"); empty: the standard
	// OTEL_EXPORTER_OTLP_ENDPOINT if set, else spans are not exported.
	// TracerProvider, when set, replaces all that (tests).
	OTLPEndpoint   string
	TracerProvider trace.TracerProvider

	// GCPercent is the Go garbage collector's target (GOGC) Start sets
	// for the process; 0 leaves the runtime's own (GOGC, else 100).
	GCPercent int

	ShutdownTimeout time.Duration
	Logger          *slog.Logger
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		DatabaseURL:     "postgres://postgres@127.0.0.1:5432/interlinker?sslmode=disable",
		DBMaxConns:      0, // sized to the transaction slots: see PoolSize
		NATSListen:      "127.0.0.1:4250",
		HTTPAddr:        "127.0.0.1:8090",
		DataDir:         ".data",
		Workers:         8,
		HandlerTimeout:  5 * time.Second,
		RetryInitial:    100 * time.Millisecond,
		RetryMax:        2 * time.Second,
		RetryTotal:      12 * time.Second,
		AckWait:         30 * time.Second,
		MaxDeliver:      10,
		DeliveryCeiling: 1000,
		NakDelays:       []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute},
		PullBuffer:      1,
		PullBytes:       8 << 20,
		MaxAckPending:   1024,
		DuplicateWindow: 10 * time.Minute,
		StreamMaxAge:    7 * 24 * time.Hour,
		StreamMaxBytes:  1 << 30,
		StreamReplicas:  1,
		OutboxBatch:     256,
		OutboxPoll:      250 * time.Millisecond,
		InboxRetention:  8 * 24 * time.Hour,
		PruneInterval:   10 * time.Minute,
		CountBatch:      1000,
		CountInterval:   time.Second,
		GCPercent:       defaultGCPercent(),
		ReplanDelay:     time.Second,
		SettleDelay:     2 * time.Second,
		LLM: llm.Config{Timeout: llm.DefaultTimeout, MaxConcurrent: llm.DefaultMaxConcurrent,
			RequestsPerMinute: llm.DefaultRequestsPerMinute, RetryBudget: llm.DefaultRetryBudget,
			BreakerFailures: llm.DefaultBreakerFailures, BreakerOpenFor: llm.DefaultBreakerOpenFor},
		HTTP: outbound.Config{Timeout: outbound.DefaultTimeout, PerHostConcurrency: outbound.DefaultPerHostConcurrency,
			GlobalConcurrency: outbound.DefaultGlobalConcurrency, RetryBudget: outbound.DefaultRetryBudget,
			CacheTTL: outbound.DefaultCacheTTL, MaxBodyBytes: outbound.DefaultMaxBodyBytes},
		LLMCallsPerPage: 4,
		LLMRetryAfter:   time.Minute,
		ShutdownTimeout: 25 * time.Second,
		Logger:          slog.Default(),
	}
}

// poolReserve is the connections kept for what is not a handler: the
// outbox relay, the link recounter, the pruner, the settle pass,
// readiness checks, and the audit runner's three (its job lock, its
// snapshot, its progress).
const poolReserve = 9

// DBConcurrencyPerCPU is the event handlers' transactions open at once
// for each CPU the service may use, by default: the rule of thumb for a
// Postgres connection pool (twice the database's cores), taken from the
// service's cores, which are Postgres' own when the two share a machine.
const DBConcurrencyPerCPU = 2

// TxSlots is the number of event handlers' transactions open at once:
// DBConcurrency when set, else DBConcurrencyPerCPU for each CPU the
// process may use (GOMAXPROCS, which follows a container's CPU limit).
func (c Config) TxSlots() int {
	if c.DBConcurrency > 0 {
		return c.DBConcurrency
	}
	return DBConcurrencyPerCPU * runtime.GOMAXPROCS(0)
}

// PoolSize is the connection pool size: DBMaxConns when set, else one
// connection per transaction slot (TxSlots) plus a reserve, so no handler
// holding a slot waits for a connection. It was one per handler (workers ×
// stages + 9 = 105 by default) when nothing bounded the handlers'
// transactions.
func (c Config) PoolSize() int32 {
	if c.DBMaxConns > 0 {
		return c.DBMaxConns
	}
	return int32(c.TxSlots() + poolReserve)
}

// gcPercent is the service's default GCPercent. Planning allocates about
// 1.4 MB a page, almost all of it garbage by the page's commit, and at
// Go's default of 100 collecting it took a tenth of the process's CPU in
// a burst; at 400 the burst benchmark ran about 10% faster, for a heap
// that peaks about 2.2 times as high (README, Sizing).
const gcPercent = 400

// defaultGCPercent is gcPercent, unless the environment sets GOGC: an
// operator's GOGC is kept.
func defaultGCPercent() int {
	if os.Getenv("GOGC") != "" {
		return 0
	}
	return gcPercent
}
