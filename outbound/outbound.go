// Package outbound is interlinker's one HTTP client for the outside world: link
// verification and site import both go through it and nothing else dials out.
//
// It is closed to SSRF: only http and https, no credentials in URLs, only ports
// 80 and 443 unless configured, and every address a request would connect to
// (after DNS resolution, on every redirect hop) is checked in the dialer's
// Control hook against loopback, private, link-local, CGNAT, unspecified,
// multicast, broadcast, ULA, reserved ranges and their IPv4-mapped and NAT64
// forms. Config.AllowHosts lifts the address and port rules for named hosts or
// ranges (tests, on-premise sites).
//
// It is polite: per-host and global concurrency limits, a per-host delay,
// Retry-After honoured for 429 and 503 within a budget, HEAD before GET, and a
// User-Agent naming interlinker.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
)

// Defaults for the zero values of Config.
const (
	DefaultUserAgent          = "interlinker/dev"
	DefaultTimeout            = 15 * time.Second
	DefaultMaxRedirects       = 10
	DefaultMaxBodyBytes       = 5 << 20
	DefaultPerHostConcurrency = 2
	DefaultGlobalConcurrency  = 16
	DefaultRetryBudget        = 30 * time.Second
	DefaultCacheTTL           = time.Hour

	// rateLimitWait is the wait for a 429 that names no Retry-After.
	rateLimitWait = time.Second
	// serverErrorWait is the pause before the single retry of a 5xx: one
	// retry tells a passing hiccup from a broken target without hammering it.
	serverErrorWait = 500 * time.Millisecond
	// checkDrainBytes is what Check reads of a GET body before closing it:
	// enough to let the connection be reused for small pages, never a 50 MB
	// download just to learn the status.
	checkDrainBytes = 64 << 10
)

// Outcomes of a Check.
const (
	OutcomeOK         = "ok"         // 2xx without redirects
	OutcomeRedirect   = "redirect"   // 2xx after redirects: update the link to FinalURL
	OutcomeBroken     = "broken"     // 4xx/5xx final answer, a redirect loop, or a redirect without Location
	OutcomeUnverified = "unverified" // rate-limited past the budget, timeout, transport error: not checked
	OutcomeRefused    = "refused"    // SSRF, scheme, port or credentials rule
)

// VersionedUserAgent names interlinker and the version of the running
// binary: its module version when built from a tagged module, else the
// commit it was built from, else "dev".
func VersionedUserAgent() string {
	version := "dev"
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			version = strings.TrimPrefix(v, "v")
		} else {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					version = "0.0.0-" + s.Value[:12]
				}
			}
		}
	}
	return "interlinker/" + version + " (+https://github.com/interlinker/interlinker)"
}

// Resolver resolves host names. net.DefaultResolver satisfies it; tests stub it
// so no name ever reaches real DNS.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Config holds the client's policy values; zero values take the defaults above.
type Config struct {
	UserAgent          string        // must name interlinker and its version, e.g. "interlinker/1.4.0"
	Timeout            time.Duration // per request hop, from when it gets its politeness slot until its body is read
	MaxRedirects       int
	MaxBodyBytes       int64
	PerHostConcurrency int
	GlobalConcurrency  int
	PerHostDelay       time.Duration // between request starts to one host
	RetryBudget        time.Duration // total time spent waiting on 429/503 Retry-After and 5xx retries
	CacheTTL           time.Duration
	AllowHosts         []string // host names or CIDR ranges exempt from the address and port rules
	Ports              []int    // ports allowed besides 80 and 443
	Resolver           Resolver // nil: net.DefaultResolver
}

// Result is what Check learned about one URL.
type Result struct {
	URL       string
	FinalURL  string
	Status    int
	Redirects []string // each URL redirected to, in order
	Outcome   string
	Reason    string
	CheckedAt time.Time
	Elapsed   time.Duration
}

// Page is a fetched document.
type Page struct {
	FinalURL    string
	Status      int
	ContentType string
	Body        []byte
}

// ErrBodyTooLarge is returned by Get with the first MaxBodyBytes of the body
// when the body is longer.
var ErrBodyTooLarge = errors.New("outbound: body exceeds the size cap")

// Client is safe for concurrent use.
type Client struct {
	cfg       Config
	guard     *guard
	resolver  Resolver
	transport *politeTransport
	log       *slog.Logger
	metrics   *metrics

	flight    singleflight.Group
	cacheMu   sync.Mutex
	cache     map[string]cacheEntry
	robotsMu  sync.Mutex
	robots    map[string]robotsEntry
	bodyBytes atomic.Int64

	// connectHook, when set (tests only), runs in the dialer's Control hook
	// after the address passed the guard and before connect(2); an error
	// stops the connect. Tests use it to prove nothing but loopback is dialed.
	connectHook func(network, address string) error
}

type cacheEntry struct {
	res     Result
	expires time.Time
}

// New builds a Client. reg may be nil (no metrics registered); log may be nil.
func New(cfg Config, reg prometheus.Registerer, log *slog.Logger) (*Client, error) {
	if cfg.UserAgent == "" {
		cfg.UserAgent = VersionedUserAgent()
	}
	if !strings.Contains(strings.ToLower(cfg.UserAgent), "interlinker") {
		return nil, fmt.Errorf("outbound: user agent %q must name interlinker", cfg.UserAgent)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRedirects <= 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.PerHostConcurrency <= 0 {
		cfg.PerHostConcurrency = DefaultPerHostConcurrency
	}
	if cfg.GlobalConcurrency <= 0 {
		cfg.GlobalConcurrency = DefaultGlobalConcurrency
	}
	if cfg.RetryBudget < 0 {
		cfg.RetryBudget = 0
	} else if cfg.RetryBudget == 0 {
		cfg.RetryBudget = DefaultRetryBudget
	}
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.PerHostDelay < 0 {
		cfg.PerHostDelay = 0
	}
	g, err := newGuard(cfg.AllowHosts, cfg.Ports)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		cfg:      cfg,
		guard:    g,
		resolver: cfg.Resolver,
		log:      log.With("component", "outbound"),
		metrics:  m,
		cache:    map[string]cacheEntry{},
		robots:   map[string]robotsEntry{},
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	base := &http.Transport{
		// Never a proxy from the environment: the guard must see the
		// address actually connected to, not a proxy's.
		Proxy:                  nil,
		DialContext:            c.dialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           cfg.GlobalConcurrency,
		MaxIdleConnsPerHost:    cfg.PerHostConcurrency,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
	c.transport = &politeTransport{
		next:      base,
		global:    make(chan struct{}, cfg.GlobalConcurrency),
		perHost:   cfg.PerHostConcurrency,
		delay:     cfg.PerHostDelay,
		timeout:   cfg.Timeout,
		userAgent: cfg.UserAgent,
		metrics:   m,
		bodyBytes: &c.bodyBytes,
		hosts:     map[string]*hostState{},
	}
	return c, nil
}

// dialContext resolves through cfg.Resolver, refuses the name if any of its
// addresses is forbidden (before any socket exists), then dials the checked
// addresses themselves, so no second resolution can swap in another one. The
// Control hook checks again at connect time as the last line: whatever path
// reaches the socket, a forbidden address is never connected.
func (c *Client) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("outbound: dial %s: %w", addr, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("outbound: dial %s: bad port: %w", addr, err)
	}
	nameAllowed := c.guard.nameAllowed(host)
	var ips []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{a}
	} else {
		answers, err := c.resolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("outbound: resolve %s: %w", host, err)
		}
		for _, ia := range answers {
			a, ok := netip.AddrFromSlice(ia.IP)
			if !ok {
				continue
			}
			ips = append(ips, a.WithZone(ia.Zone))
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("outbound: resolve %s: no addresses", host)
		}
	}
	for _, ip := range ips {
		if err := c.guard.checkAddrPort(netip.AddrPortFrom(ip, uint16(port)), nameAllowed); err != nil {
			return nil, fmt.Errorf("outbound: dial %s (%s): %w", host, ip, err)
		}
	}
	d := c.dialer(nameAllowed)
	var errs []error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if errors.Is(err, ErrRefused) || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("outbound: dial %s: %w", host, errors.Join(errs...))
}

// dialer returns the net.Dialer used for every connection. Its Control hook
// is where the address rules are finally enforced.
func (c *Client) dialer(nameAllowed bool) *net.Dialer {
	return &net.Dialer{
		Timeout:   c.cfg.Timeout,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			return c.control(network, address, nameAllowed)
		},
	}
}

// control is the net.Dialer Control decision: it runs after the socket is
// created and before connect(2), with the literal address about to be dialed.
func (c *Client) control(network, address string, nameAllowed bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse(ReasonAddress, "unparsable dial address %q", address)
	}
	if err := c.guard.checkAddrPort(ap, nameAllowed); err != nil {
		return err
	}
	if c.connectHook != nil {
		return c.connectHook(network, address)
	}
	return nil
}

// httpClient builds a per-call client whose redirect hook checks every hop
// against the URL rules and records the chain.
func (c *Client) httpClient(chain *[]string) *http.Client {
	return &http.Client{
		Transport: c.transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > c.cfg.MaxRedirects {
				return fmt.Errorf("%w after %d hops", errTooManyRedirects, c.cfg.MaxRedirects)
			}
			if err := c.guard.checkParsedURL(req.URL); err != nil {
				return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
			}
			*chain = append(*chain, req.URL.String())
			return nil
		},
	}
}

var errTooManyRedirects = errors.New("too many redirects")

// attempt is one request (one method, redirects followed).
type attempt struct {
	status     int
	finalURL   string
	retryAfter string
	chain      []string
	body       []byte
	ctype      string
	truncated  bool
}

func (c *Client) do(ctx context.Context, method string, u string, bodyCap int64) (attempt, error) {
	var a attempt
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return a, refuse(ReasonInvalidURL, "%v", err)
	}
	resp, err := c.httpClient(&a.chain).Do(req)
	if err != nil {
		return a, err
	}
	defer resp.Body.Close()
	a.status = resp.StatusCode
	a.finalURL = resp.Request.URL.String()
	a.retryAfter = resp.Header.Get("Retry-After")
	a.ctype = resp.Header.Get("Content-Type")
	if bodyCap > 0 && method != http.MethodHead {
		// Read one byte past the cap to learn whether there is more,
		// then stop: the rest is never read.
		body, err := io.ReadAll(io.LimitReader(resp.Body, bodyCap+1))
		if int64(len(body)) > bodyCap {
			body, a.truncated = body[:bodyCap], true
		}
		a.body = body
		if err != nil {
			return a, fmt.Errorf("read body: %w", err)
		}
	}
	return a, nil
}

// headFallback lists HEAD answers that often mean "this server mishandles
// HEAD", so the check asks again with GET before believing them.
func headFallback(status int) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented, http.StatusBadRequest, http.StatusForbidden:
		return true
	}
	return false
}

// fetch runs one logical request with the retry policy:
//   - 429, and 503 with Retry-After: wait Retry-After (429 without it: 1s) and
//     retry while the wait fits the remaining RetryBudget; past it the answer is
//     "rate-limited", which Check reports as unverified, never broken;
//   - other 5xx (and 503 without Retry-After): retry once after 500ms if the
//     budget allows; a second 5xx is the answer (broken).
//
// head selects HEAD first with the GET fallback; otherwise GET with bodyCap.
func (c *Client) fetch(ctx context.Context, u string, head bool, bodyCap int64) (attempt, bool, error) {
	budgetEnd := time.Now().Add(c.cfg.RetryBudget)
	retried5xx := false
	for {
		var a attempt
		var err error
		if head {
			a, err = c.do(ctx, http.MethodHead, u, 0)
			if err == nil && headFallback(a.status) {
				a, err = c.do(ctx, http.MethodGet, u, bodyCap)
			}
		} else {
			a, err = c.do(ctx, http.MethodGet, u, bodyCap)
		}
		if err != nil {
			return a, false, err
		}
		rateLimited := a.status == http.StatusTooManyRequests ||
			(a.status == http.StatusServiceUnavailable && a.retryAfter != "")
		switch {
		case rateLimited:
			wait, ok := ParseRetryAfter(a.retryAfter, time.Now())
			if !ok {
				wait = rateLimitWait
			}
			if time.Now().Add(wait).After(budgetEnd) {
				return a, true, nil
			}
			c.log.Debug("rate limited; waiting", "url", u, "status", a.status, "wait", wait)
			if err := sleepCtx(ctx, wait); err != nil {
				return a, false, err
			}
		case a.status >= 500 && !retried5xx && !time.Now().Add(serverErrorWait).After(budgetEnd):
			retried5xx = true
			c.log.Debug("server error; retrying once", "url", u, "status", a.status)
			if err := sleepCtx(ctx, serverErrorWait); err != nil {
				return a, false, err
			}
		default:
			return a, false, nil
		}
	}
}

// ParseRetryAfter reads a Retry-After value (RFC 9110): delay seconds,
// capped at a day, or an HTTP date, 0 once passed. ok is false for a value
// it cannot read. The LLM adapter reads its 429s with it too.
func ParseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 86400 {
			n = 86400
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// Check verifies one URL, answering from the cache when it can. Concurrent
// checks of one URL share one request. It never returns an error: every
// failure is an Outcome with a Reason.
func (c *Client) Check(ctx context.Context, rawURL string) Result {
	return c.CheckSince(ctx, rawURL, time.Time{})
}

// CheckSince is Check answering from the cache only with a check made at
// since or later: a verification asked for checks no older than an hour
// ago, or than its own start, must not be given one from the cache's
// whole TTL (trial P's "checked 105" were answers an hour old).
func (c *Client) CheckSince(ctx context.Context, rawURL string, since time.Time) Result {
	cu, err := c.guard.checkURL(rawURL)
	if err != nil {
		return c.finish(Result{URL: rawURL, CheckedAt: time.Now()}, err, time.Now())
	}
	key := cu.u.String()
	if r, ok := c.cached(key, since); ok {
		c.metrics.cacheHits.Inc()
		r.URL = rawURL
		return r
	}
	// The shared work must not die with the first caller's context, so it
	// runs detached (bounded by Timeout and RetryBudget) and each caller
	// waits on its own context.
	ch := c.flight.DoChan(key, func() (any, error) {
		if r, ok := c.cached(key, since); ok {
			return r, nil
		}
		r := c.check(context.WithoutCancel(ctx), rawURL, key)
		// A URL that could not be checked is asked again next time: a
		// host past its rate limit or a timeout says nothing of the link.
		if r.Outcome != OutcomeUnverified {
			c.store(key, r)
		}
		return r, nil
	})
	select {
	case v := <-ch:
		r := v.Val.(Result)
		if v.Shared {
			c.metrics.cacheHits.Inc()
		}
		r.URL = rawURL
		return r
	case <-ctx.Done():
		return Result{URL: rawURL, Outcome: OutcomeUnverified, Reason: "canceled: " + ctx.Err().Error(), CheckedAt: time.Now()}
	}
}

func (c *Client) check(ctx context.Context, rawURL, u string) Result {
	start := time.Now()
	res := Result{URL: rawURL, CheckedAt: start}
	a, limited, err := c.fetch(ctx, u, true, checkDrainBytes)
	res.Status, res.Redirects, res.FinalURL = a.status, a.chain, a.finalURL
	if err != nil {
		return c.finish(res, err, start)
	}
	switch {
	case limited:
		res.Outcome = OutcomeUnverified
		res.Reason = fmt.Sprintf("rate-limited: %d past the retry budget of %s", a.status, c.cfg.RetryBudget)
	case a.status >= 200 && a.status < 300 && len(a.chain) == 0:
		res.Outcome = OutcomeOK
	case a.status >= 200 && a.status < 300:
		res.Outcome = OutcomeRedirect
		res.Reason = "points at a redirect; update it to the final URL"
	case a.status >= 300 && a.status < 400:
		res.Outcome = OutcomeBroken
		res.Reason = fmt.Sprintf("redirect status %d without a usable Location", a.status)
	default:
		res.Outcome = OutcomeBroken
		res.Reason = fmt.Sprintf("status %d", a.status)
	}
	return c.finish(res, nil, start)
}

// finish classifies an error (if any), stamps the timing, logs and counts.
func (c *Client) finish(res Result, err error, start time.Time) Result {
	if err != nil {
		res.Outcome, res.Reason = classifyErr(err)
		var re *RefusedError
		if errors.As(err, &re) {
			c.metrics.refused.WithLabelValues(re.Reason).Inc()
			c.log.Info("outbound request refused", "url", redact(res.URL), "reason", re.Reason, "detail", re.Detail)
		}
	}
	res.Elapsed = time.Since(start)
	c.metrics.requests.WithLabelValues(res.Outcome).Inc()
	c.log.Debug("checked", "url", redact(res.URL), "outcome", res.Outcome, "status", res.Status,
		"final_url", res.FinalURL, "redirects", len(res.Redirects), "reason", res.Reason, "elapsed", res.Elapsed)
	return res
}

// classifyErr maps a failed request to an outcome. A redirect loop is broken:
// the target will not answer for anyone, which is the link's fault.
func classifyErr(err error) (string, string) {
	var re *RefusedError
	var ne net.Error
	switch {
	case errors.As(err, &re):
		return OutcomeRefused, re.Error()
	case errors.Is(err, errTooManyRedirects):
		return OutcomeBroken, "redirect loop or chain longer than the limit"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return OutcomeUnverified, "timeout"
	case errors.Is(err, context.Canceled):
		return OutcomeUnverified, "canceled"
	default:
		return OutcomeUnverified, "transport error: " + err.Error()
	}
}

func redact(raw string) string {
	if i := strings.Index(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			return raw[:j+3] + "REDACTED" + raw[i:]
		}
	}
	return raw
}

// cached is the cache's answer for key, if it has one not expired and
// checked at since or later.
func (c *Client) cached(key string, since time.Time) (Result, bool) {
	c.cacheMu.Lock()
	defer c.cacheMu.Unlock()
	e, ok := c.cache[key]
	if !ok || time.Now().After(e.expires) || e.res.CheckedAt.Before(since) {
		return Result{}, false
	}
	return e.res, true
}

func (c *Client) store(key string, r Result) {
	c.cacheMu.Lock()
	defer c.cacheMu.Unlock()
	now := time.Now()
	// Sweep expired entries now and then so a long run's cache stays the
	// size of its live URLs.
	if len(c.cache)%1024 == 1023 {
		for k, e := range c.cache {
			if now.After(e.expires) {
				delete(c.cache, k)
			}
		}
	}
	c.cache[key] = cacheEntry{res: r, expires: now.Add(c.cfg.CacheTTL)}
}

// Get fetches a document under the same rules, retrying 429/503 like Check.
// A non-2xx status is not an error: the Page carries it. A body longer than
// MaxBodyBytes returns its first MaxBodyBytes with ErrBodyTooLarge.
func (c *Client) Get(ctx context.Context, rawURL string) (Page, error) {
	start := time.Now()
	res := Result{URL: rawURL, CheckedAt: start}
	cu, err := c.guard.checkURL(rawURL)
	if err != nil {
		c.finish(res, err, start)
		return Page{}, fmt.Errorf("outbound: get %s: %w", redact(rawURL), err)
	}
	a, limited, err := c.fetch(ctx, cu.u.String(), false, c.cfg.MaxBodyBytes)
	page := Page{FinalURL: a.finalURL, Status: a.status, ContentType: a.ctype, Body: a.body}
	if err != nil {
		c.finish(res, err, start)
		return page, fmt.Errorf("outbound: get %s: %w", redact(rawURL), err)
	}
	res.Status = a.status
	switch {
	case limited:
		res.Outcome = OutcomeUnverified
	case a.status >= 200 && a.status < 300 && len(a.chain) == 0:
		res.Outcome = OutcomeOK
	case a.status >= 200 && a.status < 300:
		res.Outcome = OutcomeRedirect
	default:
		res.Outcome = OutcomeBroken
	}
	c.finish(res, nil, start)
	if a.truncated {
		return page, fmt.Errorf("outbound: get %s: %w (%d bytes)", redact(rawURL), ErrBodyTooLarge, c.cfg.MaxBodyBytes)
	}
	return page, nil
}
