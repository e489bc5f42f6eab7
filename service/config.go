// Package service assembles the running interlinker from its parts: the
// store, the bus (embedded or external NATS), the outbox relay, the Watermill
// router with every pipeline handler, and the HTTP endpoints. serve, demo and
// the end-to-end tests all start it through Start.
package service

import (
	"log/slog"
	"time"
)

// Config is everything Start needs. DefaultConfig gives working values; the
// command line maps each field to a flag and an INTERLINKER_* variable.
type Config struct {
	DatabaseURL string
	DBMaxConns  int32
	NATSURL     string // empty: embed a JetStream server
	NATSListen  string // where the embedded server listens
	HTTPAddr    string
	DataDir     string // the embedded server's store lives in DataDir/nats

	Workers        int // concurrent handlers per consumer
	HandlerTimeout time.Duration
	RetryInitial   time.Duration
	RetryMax       time.Duration
	RetryTotal     time.Duration
	AckWait        time.Duration // consumer AckWait; Watermill's ack wait is set just below it
	MaxDeliver     int
	NakDelays      []time.Duration
	PullBuffer     int
	MaxAckPending  int

	DuplicateWindow time.Duration
	StreamMaxAge    time.Duration

	OutboxBatch int
	OutboxPoll  time.Duration

	CountBatch    int           // pages recounted per batch
	CountInterval time.Duration // how often queued link counts are recounted

	ShutdownTimeout time.Duration
	Logger          *slog.Logger
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		DatabaseURL:     "postgres://postgres@127.0.0.1:5432/interlinker?sslmode=disable",
		DBMaxConns:      32,
		NATSListen:      "127.0.0.1:4250",
		HTTPAddr:        "127.0.0.1:8090",
		DataDir:         ".data",
		Workers:         16,
		HandlerTimeout:  5 * time.Second,
		RetryInitial:    100 * time.Millisecond,
		RetryMax:        2 * time.Second,
		RetryTotal:      12 * time.Second,
		AckWait:         30 * time.Second,
		MaxDeliver:      10,
		NakDelays:       []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute},
		PullBuffer:      16,
		MaxAckPending:   1024,
		DuplicateWindow: 10 * time.Minute,
		StreamMaxAge:    7 * 24 * time.Hour,
		OutboxBatch:     256,
		OutboxPoll:      250 * time.Millisecond,
		CountBatch:      1000,
		CountInterval:   time.Second,
		ShutdownTimeout: 20 * time.Second,
		Logger:          slog.Default(),
	}
}
