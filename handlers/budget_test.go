package handlers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/interlinker/interlinker/bus"
)

// deliveredMessage is a message as bus.Subscriber hands it on: its place
// in its stream names the event.
func deliveredMessage(seq int) *message.Message {
	msg := message.NewMessage(fmt.Sprintf("msg-%d", seq), []byte("{}"))
	msg.Metadata.Set(bus.MetaStream, "CONTENT")
	msg.Metadata.Set(bus.MetaStreamSeq, fmt.Sprint(seq))
	return msg
}

func TestAnEventWhoseAttemptsRunOutOfTimeIsGivenLongerUpToEightTimesTheTimeout(t *testing.T) {
	const base = 5 * time.Millisecond
	limits := &attemptLimits{base: base}
	var deadlines []time.Time
	timesOut := limits.middleware(func(msg *message.Message) ([]*message.Message, error) {
		d, ok := msg.Context().Deadline()
		if !ok {
			t.Fatal("the attempt has no deadline")
		}
		deadlines = append(deadlines, d)
		<-msg.Context().Done()
		return nil, fmt.Errorf("plan: %w", msg.Context().Err())
	})
	succeeds := limits.middleware(func(*message.Message) ([]*message.Message, error) { return nil, nil })
	fails := limits.middleware(func(*message.Message) ([]*message.Message, error) { return nil, errors.New("plan: bad state") })

	msg, other := deliveredMessage(7), deliveredMessage(8)
	for attempt, want := range []time.Duration{base, 2 * base, 4 * base, 8 * base, 8 * base} {
		// Each attempt starts from the delivery's context, as the retry
		// middleware's ResetContextOnRetry gives it.
		msg.SetContext(context.Background())
		before := time.Now()
		if _, err := timesOut(msg); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("attempt %d returned %v, want its deadline", attempt+1, err)
		}
		after := time.Now()
		// The limit starts between the two readings of the clock.
		if d := deadlines[attempt]; d.Before(before.Add(want)) || d.After(after.Add(want)) {
			t.Errorf("attempt %d was given %s or less, want %s", attempt+1, d.Sub(before), want)
		}
	}
	if got := limits.limit(eventKey(other)); got != base {
		t.Errorf("another event's attempt is given %s, want the timeout %s", got, base)
	}
	if _, err := fails(msg); err == nil {
		t.Fatal("the failing handler's error was lost")
	}
	if got := limits.limit(eventKey(msg)); got != 8*base {
		t.Errorf("after a failure that is not a timeout the limit is %s, want it kept at %s", got, 8*base)
	}
	if _, err := succeeds(msg); err != nil {
		t.Fatal(err)
	}
	if got := limits.limit(eventKey(msg)); got != base {
		t.Errorf("after the event succeeded its limit is %s, want the timeout %s again", got, base)
	}
}

func TestAnAttemptCutByShutdownDoesNotLengthenTheNextOne(t *testing.T) {
	const base = time.Minute
	limits := &attemptLimits{base: base}
	ctx, stop := context.WithCancel(context.Background())
	msg := deliveredMessage(9)
	msg.SetContext(ctx)
	stop()
	_, err := limits.middleware(func(msg *message.Message) ([]*message.Message, error) {
		<-msg.Context().Done()
		return nil, msg.Context().Err()
	})(msg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the attempt returned %v, want it cancelled", err)
	}
	if got := limits.limit(eventKey(msg)); got != base {
		t.Errorf("after a cancelled attempt the limit is %s, want %s", got, base)
	}
}

func TestAnEventThatKeepsFailingIsExhaustedAfterItsBudgetAndTransientFailuresDoNotCount(t *testing.T) {
	budget := newFailureBudget(3)
	msg := deliveredMessage(11)
	transient := budget.middleware(func(*message.Message) ([]*message.Message, error) {
		return nil, fmt.Errorf("plan: %w", context.DeadlineExceeded)
	})
	failing := budget.middleware(func(*message.Message) ([]*message.Message, error) { return nil, errors.New("plan: bad state") })
	for range 5 {
		if _, err := transient(msg); errors.Is(err, ErrExhausted) {
			t.Fatal("a transient failure used up the budget")
		}
	}
	for i := 1; i <= 3; i++ {
		_, err := failing(msg)
		if exhausted := errors.Is(err, ErrExhausted); exhausted != (i == 3) {
			t.Fatalf("failure %d: exhausted %v, want %v (%v)", i, exhausted, i == 3, err)
		}
	}
	if _, err := failing(msg); errors.Is(err, ErrExhausted) {
		t.Error("the budget was not started afresh after the event was exhausted")
	}
}

// A model call in an attempt lengthened after an earlier one ran out of
// time ends when the first attempt's would have: the time added is for
// the work after it (with the model down, its retries filled every
// attempt however long, and the page never got planned without it).
func TestAModelCallTakesNoMoreOfALongerAttemptThanOfTheFirst(t *testing.T) {
	const base = 3 * time.Second
	limits := &attemptLimits{base: base}
	msg := deliveredMessage(12)
	limits.timedOut.add(eventKey(msg)) // one attempt ran out of time
	var attemptEnds, callEnds time.Time
	before := time.Now()
	_, err := limits.middleware(func(msg *message.Message) ([]*message.Message, error) {
		attemptEnds, _ = msg.Context().Deadline()
		call, cancel, ok := modelCall(msg.Context())
		defer cancel()
		if !ok {
			return nil, errors.New("no time left for the model call")
		}
		callEnds, _ = call.Deadline()
		return nil, nil
	})(msg)
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if attemptEnds.Before(before.Add(2 * base)) {
		t.Errorf("the attempt was given %s, want %s", attemptEnds.Sub(before), 2*base)
	}
	if want := base - llmCallMargin; callEnds.Before(before.Add(want)) || callEnds.After(after.Add(want)) {
		t.Errorf("the model call was given %s, want %s", callEnds.Sub(before), want)
	}
}
