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

// attemptResult is the outcome of one HTTP attempt.
type attemptResult struct {
	kind       kind
	outcome    string        // the requests_total label
	rewrite    Rewrite       // on kindOK; tokens also on kindBadAnswer
	err        error         // why, when not kindOK
	retryAfter time.Duration // a 429's Retry-After, -1 when it had none
	status     int           // the HTTP status, 0 when none arrived
}

// call runs the attempts of one Rewrite call within the retry budget.
func (c *Client) call(ctx context.Context, userJSON string) (Rewrite, verdict, error) {
	start := time.Now()
	bo := backoff.NewExponentialBackOff()
	bo.MaxElapsedTime = 0 // the budget is checked here, against the actual waits
	bo.MaxInterval = max(c.cfg.RetryBudget/2, bo.InitialInterval)
	bo.Reset()

	for attempt := 1; ; attempt++ {
		res := c.attempt(ctx, userJSON, attempt)
		switch res.kind {
		case kindOK:
			return res.rewrite, verdictSuccess, nil
		case kindBadAnswer:
			return res.rewrite, verdictSuccess, res.err
		case kindRefused:
			return Rewrite{}, verdictSuccess, fmt.Errorf("llm: rewrite: %w: server refused the request: %w", ErrUnavailable, res.err)
		case kindCanceled:
			return Rewrite{}, verdictNeutral, fmt.Errorf("llm: rewrite: %w: %w", ErrUnavailable, res.err)
		}

		wait := bo.NextBackOff()
		if res.retryAfter > 0 {
			wait = res.retryAfter
		}
		elapsed := time.Since(start)
		if elapsed+wait > c.cfg.RetryBudget {
			c.log.Warn("LLM call failed, retry budget spent", "attempts", attempt, "outcome", res.outcome,
				"status", res.status, "elapsed", elapsed.Round(time.Millisecond), "next_wait", wait, "budget", c.cfg.RetryBudget)
			return Rewrite{}, verdictFailure, fmt.Errorf("llm: rewrite: %w: retry budget of %s spent after %d attempts: %w",
				ErrUnavailable, c.cfg.RetryBudget, attempt, res.err)
		}
		if c.breaker.State() == gobreaker.StateOpen {
			// Other calls have found the endpoint failing meanwhile.
			return Rewrite{}, verdictFailure, fmt.Errorf("llm: rewrite: %w: circuit breaker opened after %d attempts: %w",
				ErrUnavailable, attempt, res.err)
		}
		c.log.Info("LLM call failed, retrying", "attempt", attempt, "outcome", res.outcome, "status", res.status,
			"wait", wait, "err", res.err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return Rewrite{}, verdictNeutral, fmt.Errorf("llm: rewrite: %w: %w", ErrUnavailable, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt makes one HTTP request, within the concurrency and rate limits.
func (c *Client) attempt(ctx context.Context, userJSON string, n int) attemptResult {
	if err := c.limiter.Wait(ctx); err != nil {
		return c.canceled(ctx, err)
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return c.canceled(ctx, ctx.Err())
	}
	defer func() { <-c.sem }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	info := &responseInfo{}
	actx = context.WithValue(actx, responseInfoKey{}, info)

	began := time.Now()
	resp, err := c.api.CreateChatCompletion(actx, chatRequest(c.cfg.Model, userJSON))
	took := time.Since(began)
	c.metrics.seconds.Observe(took.Seconds())

	res := c.classify(ctx, actx, resp, err, info)
	c.metrics.requests.WithLabelValues(res.outcome).Inc()
	if res.kind == kindOK || res.kind == kindBadAnswer {
		c.metrics.tokensIn.Add(float64(res.rewrite.TokensIn))
		c.metrics.tokensOut.Add(float64(res.rewrite.TokensOut))
	}
	level := c.log.Debug
	if res.kind == kindBadAnswer || res.kind == kindRefused {
		level = c.log.Warn
	}
	level("LLM request", "attempt", n, "outcome", res.outcome, "status", res.status,
		"seconds", took.Seconds(), "tokens_in", res.rewrite.TokensIn, "tokens_out", res.rewrite.TokensOut, "err", res.err)
	return res
}

func (c *Client) canceled(ctx context.Context, err error) attemptResult {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return attemptResult{kind: kindCanceled, outcome: outcomeError, err: err, retryAfter: -1}
}

// classify turns go-openai's result into an attemptResult.
func (c *Client) classify(ctx, actx context.Context, resp openai.ChatCompletionResponse, err error, info *responseInfo) attemptResult {
	res := attemptResult{retryAfter: -1, status: info.status}
	if err == nil {
		res.rewrite.TokensIn = resp.Usage.PromptTokens
		res.rewrite.TokensOut = resp.Usage.CompletionTokens
		html, derr := decodeAnswer(resp)
		if derr != nil {
			res.kind, res.outcome = kindBadAnswer, outcomeBadAnswer
			res.err = fmt.Errorf("llm: rewrite: %w: %s", ErrBadAnswer, c.redact(derr.Error()))
			return res
		}
		res.rewrite.ParagraphHTML = html
		res.kind, res.outcome = kindOK, outcomeOK
		return res
	}
	if ctx.Err() != nil {
		return c.canceled(ctx, err)
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
