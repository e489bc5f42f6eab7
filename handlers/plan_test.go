package handlers

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/events"
)

// An attempt that carried its plan on and was cut by its deadline has no
// time to run again apart; the event's next attempt runs apart from the
// start, and once one succeeds the event carries on again.
func TestAnAttemptCutAfterCarryingOnRunsTheEventsNextAttemptApart(t *testing.T) {
	var logs bytes.Buffer
	p := &Pipeline{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	ev := events.Event{SiteID: "s1", Source: "cms", ID: "e1", Type: events.ContentGenerated}
	var apart []bool
	// A delivery whose three stages outlast its deadline when carried on,
	// and whose plan alone fits.
	deliver := func(ctx context.Context) error {
		c := ctx.Value(carryKey{}).(*carrying)
		apart = append(apart, c.apart)
		if c.apart {
			return nil
		}
		c.tried = true
		return context.DeadlineExceeded
	}

	cut, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.apartOnFailure(cut, ev, deliver); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the cut attempt returned %v, want its deadline's error", err)
	}
	if !slices.Equal(apart, []bool{false}) {
		t.Fatalf("the cut attempt ran %v (apart or not), want one run carrying on", apart)
	}
	if !strings.Contains(logs.String(), "cut by its deadline; its next attempts run the stages apart") || !strings.Contains(logs.String(), "event_id=e1") {
		t.Errorf("the cut attempt logged %q, want a line saying the event's next attempts run apart", logs.String())
	}
	if err := p.apartOnFailure(context.Background(), ev, deliver); err != nil {
		t.Fatalf("the next attempt: %v", err)
	}
	if !slices.Equal(apart, []bool{false, true}) {
		t.Fatalf("runs %v (apart or not), want the next attempt apart from the start", apart)
	}

	// Succeeded apart, the event is forgotten: a later delivery of it
	// carries on, fails with time left, and runs again apart at once.
	if err := p.apartOnFailure(context.Background(), ev, deliver); err != nil {
		t.Fatalf("a later delivery: %v", err)
	}
	if !slices.Equal(apart, []bool{false, true, false, true}) {
		t.Fatalf("runs %v (apart or not), want a later delivery to carry on, then run apart", apart)
	}
}
