// Package handlers holds interlinker's Watermill handlers, one per pipeline
// stage, and its HTTP API. Handlers are thin: decode the event, load state,
// call the domain, save the result and enqueue the follow-on event in one
// transaction.
package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nats-io/nats.go"

	"github.com/interlinker/interlinker/events"
)

// ErrPermanent marks a failure that will not go away by retrying: the event
// is dead-lettered at once. events.ErrInvalid is permanent too.
var ErrPermanent = errors.New("permanent failure")

// ErrNotYet marks an event that depends on state not yet projected (a page
// for a site whose site.updated has not arrived). It is redelivered later
// and dead-lettered once it has failed --max-deliver times.
var ErrNotYet = errors.New("depends on state not yet known")

// ErrExhausted marks an event that kept failing until its budget ran out.
var ErrExhausted = errors.New("deliveries exhausted")

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", events.ErrInvalid, fmt.Sprintf(format, args...))
}

// isPermanent reports whether retrying err is pointless.
func isPermanent(err error) bool {
	var panicked middleware.RecoveredPanicError
	return errors.Is(err, events.ErrInvalid) || errors.Is(err, ErrPermanent) ||
		errors.Is(err, ErrExhausted) || errors.As(err, &panicked)
}

// isUnstorableText reports whether Postgres refused text it cannot store:
// holding U+0000 or bytes that are not UTF-8 (22021,
// character_not_in_repertoire; 22P05, untranslatable_character).
func isUnstorableText(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "22021" || pgErr.Code == "22P05")
}

// isTransient reports whether err says a dependency is away or busy rather
// than that the event cannot be handled: Postgres or NATS unreachable,
// a connection lost, the server shutting down or out of resources, a
// serialization failure or deadlock, or an attempt that ran out of time.
// Such failures are retried for as long as it takes and never count
// against an event's --max-deliver budget, so an outage of any length
// dead-letters nothing.
func isTransient(err error) bool {
	if err == nil || isPermanent(err) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", // connection exception
			"40", // transaction rollback: serialization failure, deadlock
			"53", // insufficient resources
			"57": // operator intervention: shutdown, cannot connect now, query canceled
			return true
		}
		return pgErr.Code == "55P03" // lock not available
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders)
}

// errorKind labels an error for metrics and logs.
func errorKind(err error) string {
	switch {
	case errors.Is(err, events.ErrInvalid):
		return "invalid"
	case errors.Is(err, ErrExhausted):
		return "exhausted"
	case isPermanent(err):
		return "permanent"
	case errors.Is(err, ErrNotYet):
		return "not_yet"
	case isTransient(err):
		return "transient"
	default:
		return "failed"
	}
}
