package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	openai "github.com/sashabaranov/go-openai"
	"github.com/sony/gobreaker"
)

// verdict is what a call tells the circuit breaker about the endpoint.
type verdict int

const (
	verdictSuccess verdict = iota // the endpoint answered (well or badly)
	verdictFailure                // the endpoint failed: budget spent, transport down
	verdictNeutral                // nothing learned: the caller's context ended
)

// kind classifies one HTTP attempt.
type kind int

const (
	kindOK        kind = iota // a good answer
	kindBadAnswer             // an answer, not to the schema
	kindRetry                 // 429, 5xx, timeout, transport error: retry within the budget
	kindRefused               // 4xx other than 429: retrying will not help
	kindCanceled              // the caller's context ended
)

// usage is the token usage a server reported on one answer.
type usage struct{ in, out int }

// attemptResult is the outcome of one HTTP attempt.
type attemptResult[T any] struct {
	kind       kind
	outcome    string        // the requests_total label
	answer     T             // on kindOK
	usage      usage         // on kindOK and kindBadAnswer
	err        error         // why, when not kindOK
	retryAfter time.Duration // a 429's Retry-After, -1 when it had none
	status     int           // the HTTP status, 0 when none arrived
}

// run makes one call of prompt p with the user message userJSON: through
// the circuit breaker, then attempts within the retry budget. The usage is
// set on success and alongside ErrBadAnswer (a refused answer was paid for
// too), zero otherwise.
func run[T any](ctx context.Context, c *Client, p prompt[T], userJSON string) (T, usage, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, usage{}, fmt.Errorf("llm: %s: %w: %w", p.call, ErrUnavailable, err)
	}
	done, err := c.breaker.Allow()
	if err != nil {
		c.metrics.requests.WithLabelValues(p.call, outcomeBreakerOpen).Inc()
		c.log.Debug("LLM call refused by the open circuit breaker", "call", p.call, "state", c.breaker.State().String())
		return zero, usage{}, fmt.Errorf("llm: %s: %w: circuit breaker %s", p.call, ErrUnavailable, c.breaker.State().String())
	}
	out, u, verdict, err := call(ctx, c, p, userJSON)
	switch verdict {
	case verdictSuccess:
		done(true)
	case verdictFailure:
		done(false)
	case verdictNeutral:
		// Neither success nor failure of the endpoint (the caller gave up).
		// A half-open breaker must hear back from its one trial call, or
		// it would wait forever: report a failure then, and try again
		// after BreakerOpenFor.
		if c.breaker.State() == gobreaker.StateHalfOpen {
			done(false)
		}
	}
	return out, u, err
}

// call runs the attempts of one call within the retry budget.
func call[T any](ctx context.Context, c *Client, p prompt[T], userJSON string) (T, usage, verdict, error) {
	var zero T
	start := time.Now()
	bo := backoff.NewExponentialBackOff()
	bo.MaxElapsedTime = 0 // the budget is checked here, against the actual waits
	bo.MaxInterval = max(c.cfg.RetryBudget/2, bo.InitialInterval)
	bo.Reset()

	// A call whose attempts the endpoint failed (5xx, a timeout, the
	// transport; not a 429, which is the server pacing us) tells the
	// breaker so even when the caller's deadline, not the retry budget,
	// ends it: a pet-care trial's model answered 500 to everything, each
	// rewrite call ran into its handler's deadline, and the breaker stayed
	// closed for minutes and some 200 requests.
	gaveUp := verdictNeutral
	for n := 1; ; n++ {
		res := attempt(ctx, c, p, userJSON, n)
		switch res.kind {
		case kindOK:
			return res.answer, res.usage, verdictSuccess, nil
		case kindBadAnswer:
			return zero, res.usage, verdictSuccess, res.err
		case kindRefused:
			return zero, usage{}, verdictSuccess, fmt.Errorf("llm: %s: %w: server refused the request: %w", p.call, ErrUnavailable, res.err)
		case kindCanceled:
			return zero, usage{}, gaveUp, fmt.Errorf("llm: %s: %w: %w", p.call, ErrUnavailable, res.err)
		}
		if res.status != http.StatusTooManyRequests {
			gaveUp = verdictFailure
		}

		wait := bo.NextBackOff()
		if res.retryAfter > 0 {
			wait = res.retryAfter
		}
		elapsed := time.Since(start)
		if elapsed+wait > c.cfg.RetryBudget {
			c.log.Warn("LLM call failed, retry budget spent", "call", p.call, "attempts", n, "outcome", res.outcome,
				"status", res.status, "elapsed", elapsed.Round(time.Millisecond), "next_wait", wait, "budget", c.cfg.RetryBudget)
			return zero, usage{}, verdictFailure, fmt.Errorf("llm: %s: %w: retry budget of %s spent after %d attempts: %w",
				p.call, ErrUnavailable, c.cfg.RetryBudget, n, res.err)
		}
		if c.breaker.State() == gobreaker.StateOpen {
			// Other calls have found the endpoint failing meanwhile.
			return zero, usage{}, verdictFailure, fmt.Errorf("llm: %s: %w: circuit breaker opened after %d attempts: %w",
				p.call, ErrUnavailable, n, res.err)
		}
		c.log.Info("LLM call failed, retrying", "call", p.call, "attempt", n, "outcome", res.outcome, "status", res.status,
			"wait", wait, "err", res.err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, usage{}, gaveUp, fmt.Errorf("llm: %s: %w: %w", p.call, ErrUnavailable, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt makes one HTTP request, within the concurrency and rate limits.
func attempt[T any](ctx context.Context, c *Client, p prompt[T], userJSON string, n int) attemptResult[T] {
	if err := c.limiter.Wait(ctx); err != nil {
		if ctx.Err() == nil {
			// The limiter saw no slot before the caller's deadline and
			// made no wait: that is the client's own request rate, not the
			// model failing (a docs trial read "the model is unavailable").
			c.metrics.requests.WithLabelValues(p.call, outcomeThrottled).Inc()
			err = fmt.Errorf("the client's own rate of %d requests a minute (llm-requests-per-minute) has no slot before this attempt's deadline", c.cfg.RequestsPerMinute)
		}
		return canceled[T](ctx, err)
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return canceled[T](ctx, ctx.Err())
	}
	defer func() { <-c.sem }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	info := &responseInfo{}
	actx = context.WithValue(actx, responseInfoKey{}, info)

	began := time.Now()
	resp, err := c.api.CreateChatCompletion(actx, chatRequest(c.cfg.Model, p.system, p.schemaName, p.schema, userJSON))
	took := time.Since(began)
	c.metrics.seconds.WithLabelValues(p.call).Observe(took.Seconds())

	res := classify(ctx, actx, c, p, resp, err, info)
	c.metrics.requests.WithLabelValues(p.call, res.outcome).Inc()
	if res.kind == kindOK || res.kind == kindBadAnswer {
		c.metrics.tokensIn.Add(float64(res.usage.in))
		c.metrics.tokensOut.Add(float64(res.usage.out))
	}
	level := c.log.Debug
	if res.kind == kindBadAnswer || res.kind == kindRefused {
		level = c.log.Warn
	}
	level("LLM request", "call", p.call, "attempt", n, "outcome", res.outcome, "status", res.status,
		"seconds", took.Seconds(), "tokens_in", res.usage.in, "tokens_out", res.usage.out, "err", res.err)
	return res
}

func canceled[T any](ctx context.Context, err error) attemptResult[T] {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return attemptResult[T]{kind: kindCanceled, outcome: outcomeError, err: err, retryAfter: -1}
}

// classify turns go-openai's result into an attemptResult, decoding an
// answer with p.decode.
func classify[T any](ctx, actx context.Context, c *Client, p prompt[T], resp openai.ChatCompletionResponse, err error, info *responseInfo) attemptResult[T] {
	res := attemptResult[T]{retryAfter: -1, status: info.status}
	if err == nil {
		res.usage = usage{in: resp.Usage.PromptTokens, out: resp.Usage.CompletionTokens}
		answer, derr := decodeAnswer(resp, p.decode)
		if derr != nil {
			res.kind, res.outcome = kindBadAnswer, outcomeBadAnswer
			res.err = fmt.Errorf("llm: %s: %w: %s", p.call, ErrBadAnswer, c.redact(derr.Error()))
			return res
		}
		res.answer = answer
		res.kind, res.outcome = kindOK, outcomeOK
		return res
	}
	if ctx.Err() != nil {
		return canceled[T](ctx, err)
	}

	status := info.status
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	msg := ""
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status, msg = reqErr.HTTPStatusCode, string(reqErr.Body)
	}
	msg = trimMessage(c.redact(msg))
	switch {
	case status == http.StatusTooManyRequests:
		res.kind, res.outcome = kindRetry, outcomeRateLimited
		res.err = fmt.Errorf("rate limited (status 429): %s", msg)
		res.retryAfter = info.retryAfter
		res.status = status
	case status >= 500:
		res.kind, res.outcome = kindRetry, outcomeServerError
		res.err = fmt.Errorf("server error (status %d): %s", status, msg)
		res.status = status
	case status >= 400:
		res.kind, res.outcome = kindRefused, outcomeError
		res.err = &StatusError{StatusCode: status, Message: msg}
		res.status = status
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		res.kind, res.outcome = kindRetry, outcomeTimeout
		res.err = fmt.Errorf("no answer within the timeout of %s", c.cfg.Timeout)
	default:
		// Transport errors, and a 2xx/3xx body that is no chat completion.
		res.kind, res.outcome = kindRetry, outcomeError
		res.err = fmt.Errorf("request failed: %s", trimMessage(c.redact(err.Error())))
	}
	return res
}

// decodeAnswer reads an answer: the content of its first choice, decoded
// by decode.
func decodeAnswer[T any](resp openai.ChatCompletionResponse, decode func(string) (T, error)) (T, error) {
	content, err := answerContent(resp)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(content)
}

// trimMessage keeps a server's message to one short line.
func trimMessage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 300
	if len(s) > limit {
		cut := limit
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
