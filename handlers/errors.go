// Package handlers holds interlinker's Watermill handlers, one per pipeline
// stage, and its HTTP API. Handlers are thin: decode the event, load state,
// call the domain, save the result and enqueue the follow-on event in one
// transaction.
package handlers

import (
	"errors"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/interlinker/interlinker/events"
)

// ErrPermanent marks a failure that will not go away by retrying: the event
// is dead-lettered at once. events.ErrInvalid is permanent too.
var ErrPermanent = errors.New("permanent failure")

// ErrNotYet marks an event that depends on state not yet projected (a page
// for a site whose site.updated has not arrived). It is redelivered later
// and dead-lettered only once its deliveries are used up.
var ErrNotYet = errors.New("depends on state not yet known")

// ErrExhausted marks an event that kept failing until its last delivery.
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

// errorKind labels an error for metrics and logs.
func errorKind(err error) string {
	switch {
	case errors.Is(err, events.ErrInvalid):
		return "invalid"
	case errors.Is(err, ErrNotYet):
		return "not_yet"
	case errors.Is(err, ErrExhausted):
		return "exhausted"
	case isPermanent(err):
		return "permanent"
	default:
		return "transient"
	}
}
