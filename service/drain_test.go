package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestHaltingADrainerWhoseStepIgnoresCancellationReturnsWhenTheBudgetEnds
// proves that a stopping queue loop cannot hold the shutdown past its
// budget: a step that never looks at its context is left behind, and the
// drainer is named in the error.
func TestHaltingADrainerWhoseStepIgnoresCancellationReturnsWhenTheBudgetEnds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	d := newDrainer("stuck queue", 1, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)), func(context.Context) (int, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-release
		return 0, nil
	})
	d.Start(context.Background())
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := d.Halt(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "stuck queue") {
		t.Fatalf("Halt of a step that ignores cancellation = %v, want the deadline, naming the queue", err)
	}
	if err := d.Stop(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stop of the same drainer past the budget = %v, want the deadline", err)
	}
}

// TestHaltingADrainerWaitsForTheStepUnderWay proves that Halt, within its
// budget, returns only once the step running has seen its cancellation.
func TestHaltingADrainerWaitsForTheStepUnderWay(t *testing.T) {
	started := make(chan struct{}, 1)
	finished := make(chan struct{})
	d := newDrainer("queue", 1, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)), func(ctx context.Context) (int, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		close(finished)
		return 0, ctx.Err()
	})
	d.Start(context.Background())
	<-started
	if err := d.Halt(context.Background()); err != nil {
		t.Fatalf("Halt = %v, want nil", err)
	}
	select {
	case <-finished:
	default:
		t.Error("Halt returned before the step under way had finished")
	}
}

// TestAShutdownStepThatTakesTwoSecondsIsLoggedByName proves that a slow
// stop names the step that held it, with the error the step returned.
func TestAShutdownStepThatTakesTwoSecondsIsLoggedByName(t *testing.T) {
	var logged strings.Builder
	s := &Service{log: slog.New(slog.NewTextHandler(&logged, nil))}
	stepErr := errors.New("flush failed")
	if err := s.timed("flush outbox", func() error { time.Sleep(slowShutdownStep); return stepErr }); err != stepErr {
		t.Errorf("timed returned %v, want the step's error", err)
	}
	if err := s.timed("close database", func() error { return nil }); err != nil {
		t.Errorf("timed returned %v for a step that succeeded", err)
	}
	out := logged.String()
	if !strings.Contains(out, `msg="shutdown step slow" step="flush outbox"`) || !strings.Contains(out, `err="flush failed"`) {
		t.Errorf("the slow step is not logged by name with its error:\n%s", out)
	}
	if strings.Contains(out, "close database") {
		t.Errorf("a quick step was logged as slow:\n%s", out)
	}
}
