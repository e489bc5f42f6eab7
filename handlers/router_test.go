package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
)

func TestMetricsLabelAStageByItsConsumerWhateverWorkerHandledIt(t *testing.T) {
	p := &Pipeline{Metrics: NewMetrics(), Logger: slog.New(slog.DiscardHandler)}
	pubSub := gochannel.NewGoChannel(gochannel.Config{OutputChannelBuffer: 16}, watermill.NopLogger{})
	router, err := message.NewRouter(message.RouterConfig{}, watermill.NopLogger{})
	if err != nil {
		t.Fatal(err)
	}
	// gochannel redelivers a nacked message forever: acknowledge every
	// message once the middleware under test has seen its error.
	acknowledge := func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			_, _ = h(msg)
			return nil, nil
		}
	}
	router.AddMiddleware(acknowledge, p.observe, p.countAttemptErrors)

	const workers, messages = 3, 4
	var mu sync.Mutex
	workerNames := map[string]bool{}
	handled := make(chan struct{}, workers*messages)
	for w := 1; w <= workers; w++ {
		name := ConsumerPlanner
		if w > 1 {
			name = fmt.Sprintf("%s-%d", name, w)
		}
		// gochannel gives every subscriber every message, so each worker
		// handles all of them: one failure per worker and message.
		router.AddConsumerHandler(name, events.ContentGenerated, pubSub, func(msg *message.Message) error {
			mu.Lock()
			workerNames[message.HandlerNameFromCtx(msg.Context())] = true
			mu.Unlock()
			handled <- struct{}{}
			return fmt.Errorf("load site: %w", ErrNotYet)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = router.Run(ctx) }()
	<-router.Running()
	for i := range messages {
		msg := message.NewMessage(watermill.NewUUID(), []byte("{}"))
		msg.Metadata.Set(bus.MetaConsumer, ConsumerPlanner)
		msg.Metadata.Set(bus.MetaSubject, events.ContentGenerated)
		if err := pubSub.Publish(events.ContentGenerated, msg); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	for range workers * messages {
		select {
		case <-handled:
		case <-time.After(10 * time.Second):
			t.Fatal("messages not handled")
		}
	}
	if err := router.Close(); err != nil {
		t.Fatal(err)
	}
	if len(workerNames) != workers {
		t.Fatalf("handled by %v, want %d workers", workerNames, workers)
	}

	families, err := p.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"interlinker_events_in_total":      workers * messages,
		"interlinker_handler_seconds":      workers * messages,
		"interlinker_handler_errors_total": workers * messages,
	}
	for _, f := range families {
		total, ok := want[f.GetName()]
		if !ok {
			continue
		}
		delete(want, f.GetName())
		if len(f.GetMetric()) != 1 {
			t.Errorf("%s has %d series, want one for the stage", f.GetName(), len(f.GetMetric()))
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "handler" && l.GetValue() != ConsumerPlanner {
					t.Errorf("%s labelled handler=%q, want the consumer %q", f.GetName(), l.GetValue(), ConsumerPlanner)
				}
			}
			got := m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
			if got != total {
				t.Errorf("%s counted %v, want %v", f.GetName(), got, total)
			}
		}
	}
	for name := range want {
		t.Errorf("%s not recorded", name)
	}
}

func TestEachFailedDeliveryIsLoggedOnceAtTheLevelItsKindDeserves(t *testing.T) {
	lost := &netError{}
	for _, tc := range []struct {
		name string
		err  error
		want slog.Level
	}{
		{"not yet", fmt.Errorf("page boots-hub: %w", ErrNotYet), slog.LevelInfo},
		{"dependency away", fmt.Errorf("load site: %w", syscall.ECONNREFUSED), slog.LevelWarn},
		{"timeout", fmt.Errorf("plan: %w", context.DeadlineExceeded), slog.LevelWarn},
		{"network", fmt.Errorf("publish: %w", lost), slog.LevelWarn},
		{"other failure", errors.New("plan: bad state"), slog.LevelError},
		{"invalid", fmt.Errorf("decode: %w", events.ErrInvalid), slog.LevelError},
		{"permanent", fmt.Errorf("restore: %w", ErrPermanent), slog.LevelError},
		{"not yet, out of deliveries", fmt.Errorf("%w: failed 10 times: %w", ErrExhausted, ErrNotYet), slog.LevelError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			p := &Pipeline{Metrics: NewMetrics(), Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			msg := message.NewMessage("gen-s1-boots-hub-v1", []byte("{}"))
			msg.Metadata.Set(bus.MetaConsumer, ConsumerPlanner)
			_, err := p.report(func(*message.Message) ([]*message.Message, error) { return nil, tc.err })(msg)
			if !errors.Is(err, tc.err) {
				t.Errorf("report returned %v, want the handler's error", err)
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if len(lines) != 1 {
				t.Fatalf("logged %d lines, want one:\n%s", len(lines), logs.String())
			}
			if want := "level=" + tc.want.String(); !strings.Contains(lines[0], want) {
				t.Errorf("logged %s, want %s", lines[0], want)
			}
			for _, field := range []string{"consumer=planner", "message_id=gen-s1-boots-hub-v1", "kind=" + errorKind(tc.err)} {
				if !strings.Contains(lines[0], field) {
					t.Errorf("log line lacks %s: %s", field, lines[0])
				}
			}
		})
	}
}

// netError is a network error that is neither a timeout nor temporary.
type netError struct{}

func (*netError) Error() string   { return "connection reset by peer" }
func (*netError) Timeout() bool   { return false }
func (*netError) Temporary() bool { return false }

func TestAllHandlersStoppingIsAnErrorUnlessTheServiceIsStopping(t *testing.T) {
	for _, stopping := range []bool{false, true} {
		var logs bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		q := quietHandlerErrors{LoggerAdapter: watermill.NewSlogLogger(logger), stopping: func() bool { return stopping }}
		q.With(watermill.LogFields{"router": "test"}).Error(allHandlersStopped, errors.New("all router handlers stopped"), nil)
		q.Error("Handler returned error", errors.New("load site: not yet"), nil)
		q.Error("Cannot close router", errors.New("boom"), nil)
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		want := []string{"level=ERROR", "level=DEBUG", "level=ERROR"}
		if stopping {
			want[0] = "level=INFO"
		}
		if len(lines) != len(want) {
			t.Fatalf("stopping %v: logged %q", stopping, lines)
		}
		for i, line := range lines {
			if !strings.Contains(line, want[i]) {
				t.Errorf("stopping %v: line %d is %q, want %s", stopping, i, line, want[i])
			}
		}
	}
}
