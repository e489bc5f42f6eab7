// Package llm is interlinker's adapter for an OpenAI-compatible chat model
// (OpenAI, Azure, vLLM, Ollama, llama.cpp, ...), reached through
// github.com/sashabaranov/go-openai. It makes two calls: Rewrite rewrites
// one paragraph so that it carries one link (the silo seed's "LLM fallback
// injection"), and Phrases proposes natural anchor phrases for a page's
// targets (the silo seed's D3, the SAG seed's "AI-suggested anchor text").
// Checking the answers against the page is the caller's job (domain/markup
// for a rewrite), not this package's.
//
// Both calls share all the machinery below; what differs is only a small
// internal prompt value (system message, response schema, strict answer
// decoder) and the request's user message.
//
// # What is sent
//
// One chat completion per attempt, at temperature 0, with a response_format
// of type json_schema (strict, additionalProperties false everywhere).
//
// Rewrite: the system message is the fixed instruction in [SystemPrompt];
// the schema is an object with one required string, paragraph_html; the
// user message is exactly one JSON object
// {"paragraph_html","anchor","target_url","page_title","target_title"} built
// from [RewriteRequest].
//
// Phrases: the system message is [PhrasesSystemPrompt]; the schema is
// {"targets":[{"target_url": string, "phrases": [string]}]}; the user
// message is exactly one JSON object {"page_title","text","targets":
// [{"target_url","title","keyword"}]} built from [PhrasesRequest].
//
// Nothing else about the page or the site is sent. Both system messages say
// that the user message is data, never instructions.
//
// # Cost, rate and failure control
//
// A Client holds, for all its callers together:
//   - a concurrency limit (Config.MaxConcurrent requests in flight);
//   - a requests-per-minute limit (golang.org/x/time/rate; every HTTP
//     attempt, retries included, takes a token);
//   - retries within Config.RetryBudget: a 429 waits for its Retry-After
//     (seconds or an HTTP date), 5xx answers, per-attempt timeouts and
//     transport errors back off exponentially (github.com/cenkalti/backoff/v4).
//     A retry starts only if its wait ends inside the budget, so one call
//     takes at most about RetryBudget + Timeout;
//   - a circuit breaker (github.com/sony/gobreaker) around the whole call:
//     after Config.BreakerFailures consecutive failed calls it opens, and for
//     Config.BreakerOpenFor every call fails at once with ErrUnavailable and
//     no request; then one trial call is let through (half-open) and closes
//     it again on success. Only an exhausted budget of 429s, 5xx answers,
//     timeouts or transport errors counts as a failure: a bad answer, a
//     refused request (4xx) or the caller's own cancellation does not.
//
// # Errors
//
// Rewrite and Phrases return nil, an error wrapping ErrBadAnswer (the model answered,
// but not JSON to the schema: a verdict on this input the caller may keep),
// or an error wrapping ErrUnavailable (nothing usable came back this time:
// leave the link planned, ask again later, never keep it). A request the
// server refuses with a 4xx other than 429 (bad key, unknown model, no
// json_schema support) also wraps ErrUnavailable, and a *StatusError with
// the status, since only a fix of the configuration helps. Invalid input
// wraps ErrInvalidRequest and reaches no server. The API key is never in an
// error or a log line.
//
// # Metrics
//
// Registered on the Registerer given to New, prefixed interlinker_llm_:
// requests_total{call,outcome} counts every HTTP attempt by call (rewrite,
// phrases) and outcome (ok, bad_answer, rate_limited, server_error, timeout,
// error), every call the open breaker refused (breaker_open) and every one
// the client's own request rate held back (throttled);
// tokens_total{direction="in"|"out"} adds the usage the server reports on
// every answer, refused ones included, of both calls;
// request_seconds{call} is the duration of each HTTP attempt.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	openai "github.com/sashabaranov/go-openai"
	"github.com/sony/gobreaker"
	"golang.org/x/time/rate"
)

// PromptVersion names Rewrite's prompt; it is part of every cache key, so a new
// prompt never reuses old answers. Change it whenever SystemPrompt,
// the schema or the user message changes.
const PromptVersion = "paragraph-rewrite-1"

// Defaults of Config's zero values.
const (
	DefaultTimeout           = 30 * time.Second
	DefaultMaxConcurrent     = 4
	DefaultRequestsPerMinute = 60
	DefaultRetryBudget       = time.Minute
	DefaultBreakerFailures   = 5
	DefaultBreakerOpenFor    = 30 * time.Second
)

// MaxParagraphBytes is the largest ParagraphHTML Rewrite sends: a paragraph
// longer than this is not a paragraph, and would only cost tokens.
const MaxParagraphBytes = 32 << 10

// maxResponseBytes bounds what is read of one answer.
const maxResponseBytes = 4 << 20

// Config configures a Client. Zero (or negative) numbers mean the defaults.
type Config struct {
	// BaseURL is the server's OpenAI API root, including the version path
	// as OpenAI clients expect: "https://api.openai.com/v1",
	// "http://127.0.0.1:11434/v1" (Ollama), "http://127.0.0.1:8000/v1"
	// (vLLM, llama.cpp). The request goes to BaseURL + "/chat/completions".
	// "" means the LLM is off: New returns ErrOff.
	BaseURL string
	// Model is the model name sent with every request; required.
	Model string
	// APIKey is sent as "Authorization: Bearer <key>"; "" sends none.
	// It is never logged nor put in an error.
	APIKey string
	// Timeout bounds one HTTP attempt (default 30s).
	Timeout time.Duration
	// MaxConcurrent bounds the requests in flight at once (default 4).
	MaxConcurrent int
	// RequestsPerMinute bounds the request rate, retries included
	// (default 60). Bursts of up to MaxConcurrent requests are allowed.
	RequestsPerMinute int
	// RetryBudget is the total time one call may spend waiting to retry
	// after 429 (Retry-After), 5xx answers, timeouts and transport errors
	// (default 1m).
	RetryBudget time.Duration
	// BreakerFailures is how many consecutive failed calls open the
	// circuit breaker (default 5).
	BreakerFailures int
	// BreakerOpenFor is how long the breaker stays open before it lets a
	// trial call through (default 30s).
	BreakerOpenFor time.Duration
}

// ErrOff is returned by New when no base URL is configured.
var ErrOff = errors.New("LLM fallback not configured")

// ErrUnavailable means the model gave no usable answer this time: the
// breaker is open, the retry budget was spent on 429s, 5xx answers or
// timeouts, the transport failed, the server refused the request, or the
// caller's context ended. The caller leaves its links planned and asks again
// later; it never caches this.
var ErrUnavailable = errors.New("LLM unavailable")

// ErrBadAnswer means the model answered, but not with JSON to the schema
// (for Rewrite {"paragraph_html": string} and nothing else; for Phrases
// also a target_url the request did not name). It is a rejection of this
// input with this prompt and model, which the caller may cache.
var ErrBadAnswer = errors.New("LLM answer is not JSON to the schema")

// ErrInvalidRequest means the RewriteRequest or PhrasesRequest itself is
// unusable (a required field empty, the paragraph or text too long, no or
// too many targets); nothing was sent.
var ErrInvalidRequest = errors.New("invalid LLM request")

// StatusError is the HTTP status of a request the server refused with a
// 4xx other than 429. It comes wrapped together with ErrUnavailable.
type StatusError struct {
	StatusCode int
	Message    string // the server's message, trimmed, without the API key
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("status %d", e.StatusCode)
	}
	return fmt.Sprintf("status %d: %s", e.StatusCode, e.Message)
}

// RewriteRequest is what the model is given, and all it is given.
type RewriteRequest struct {
	ParagraphHTML string // the paragraph to rewrite, as HTML (required)
	Anchor        string // the anchor text the link should carry (required)
	TargetURL     string // the link's href (required)
	PageTitle     string // the title of the page the paragraph is on
	TargetTitle   string // the title of the target page
}

// Rewrite is the model's answer.
type Rewrite struct {
	ParagraphHTML string // the rewritten paragraph, unchecked
	// TokensIn and TokensOut are the usage the server reported. They are
	// also set alongside ErrBadAnswer: a refused answer was paid for too.
	TokensIn, TokensOut int
}

// Client calls an OpenAI-compatible server. It is
// safe for concurrent use; its limits hold across all its callers.
type Client struct {
	cfg     Config
	api     *openai.Client
	sem     chan struct{}
	limiter *rate.Limiter
	breaker *gobreaker.TwoStepCircuitBreaker
	metrics *metrics
	log     *slog.Logger
	redact  func(string) string
}

// New builds a Client. It returns ErrOff when cfg.BaseURL is empty, and an
// error for a base URL that is not http(s) or a missing model. reg may be nil
// (no metrics registered); log may be nil (nothing logged).
func New(cfg Config, reg prometheus.Registerer, log *slog.Logger) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, ErrOff
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL must be an absolute http(s) URL such as https://api.openai.com/v1, got %q", redactURL(cfg.BaseURL))
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: a model name is required with a base URL")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.RequestsPerMinute <= 0 {
		cfg.RequestsPerMinute = DefaultRequestsPerMinute
	}
	if cfg.RetryBudget <= 0 {
		cfg.RetryBudget = DefaultRetryBudget
	}
	if cfg.BreakerFailures <= 0 {
		cfg.BreakerFailures = DefaultBreakerFailures
	}
	if cfg.BreakerOpenFor <= 0 {
		cfg.BreakerOpenFor = DefaultBreakerOpenFor
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "llm", "base_url", redactURL(cfg.BaseURL), "model", cfg.Model)

	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}

	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = cfg.MaxConcurrent
	oc.HTTPClient = &doer{inner: &http.Client{Transport: transport}}

	burst := min(cfg.MaxConcurrent, cfg.RequestsPerMinute)
	c := &Client{
		cfg:     cfg,
		api:     openai.NewClientWithConfig(oc),
		sem:     make(chan struct{}, cfg.MaxConcurrent),
		limiter: rate.NewLimiter(rate.Limit(float64(cfg.RequestsPerMinute)/60), burst),
		metrics: m,
		log:     log,
		redact:  redactor(cfg.APIKey),
	}
	failures := uint32(cfg.BreakerFailures)
	c.breaker = gobreaker.NewTwoStepCircuitBreaker(gobreaker.Settings{
		Name:        "llm",
		MaxRequests: 1,
		Timeout:     cfg.BreakerOpenFor,
		ReadyToTrip: func(counts gobreaker.Counts) bool { return counts.ConsecutiveFailures >= failures },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			log.Warn("LLM circuit breaker changed state", "from", from.String(), "to", to.String())
		},
	})
	return c, nil
}

// Model is the model name every request carries (part of the cache key).
func (c *Client) Model() string { return c.cfg.Model }

// Rewrite asks the model to rewrite req.ParagraphHTML so that it carries one
// link to req.TargetURL with req.Anchor. See the package documentation for
// the errors and the limits it honours. The answer is not checked beyond its
// JSON shape.
func (c *Client) Rewrite(ctx context.Context, req RewriteRequest) (Rewrite, error) {
	if err := validate(req); err != nil {
		return Rewrite{}, err
	}
	body, err := userMessage(req)
	if err != nil {
		return Rewrite{}, fmt.Errorf("llm: rewrite: %w: %w", ErrInvalidRequest, err)
	}
	html, u, err := run(ctx, c, rewritePrompt, body)
	return Rewrite{ParagraphHTML: html, TokensIn: u.in, TokensOut: u.out}, err
}

func validate(req RewriteRequest) error {
	var missing []string
	if strings.TrimSpace(req.ParagraphHTML) == "" {
		missing = append(missing, "paragraph_html")
	}
	if strings.TrimSpace(req.Anchor) == "" {
		missing = append(missing, "anchor")
	}
	if strings.TrimSpace(req.TargetURL) == "" {
		missing = append(missing, "target_url")
	}
	if len(missing) > 0 {
		return fmt.Errorf("llm: rewrite: %w: %s empty", ErrInvalidRequest, strings.Join(missing, ", "))
	}
	if len(req.ParagraphHTML) > MaxParagraphBytes {
		return fmt.Errorf("llm: rewrite: %w: paragraph_html is %d bytes, more than %d", ErrInvalidRequest, len(req.ParagraphHTML), MaxParagraphBytes)
	}
	return nil
}

// redactURL hides the password of a base URL that carries one.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// redactor replaces the API key wherever a server's message might echo it.
func redactor(key string) func(string) string {
	if len(key) < 4 {
		return func(s string) string { return s }
	}
	return func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") }
}
