package outbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

const bigBody = 50 << 20

// site is the loopback test site. It counts requests per "METHOD path", the
// most requests in flight at once, and the bytes it managed to write.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	hits     map[string]int
	inFlight int
	maxIn    int
	uas      map[string]bool
	arrivals []time.Time
	written  atomic.Int64
}

func newSite(t *testing.T) *site {
	s := &site{hits: map[string]int{}, uas: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *site) count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[method+" "+path]
}

func (s *site) total(path string) int { return s.count("HEAD", path) + s.count("GET", path) }

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key := r.Method + " " + r.URL.Path
	s.hits[key]++
	n := s.hits[key]
	s.uas[r.UserAgent()] = true
	s.inFlight++
	if s.inFlight > s.maxIn {
		s.maxIn = s.inFlight
	}
	if strings.HasPrefix(r.URL.Path, "/delay") {
		s.arrivals = append(s.arrivals, time.Now())
	}
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()

	switch p := r.URL.Path; {
	case p == "/ok" || p == "/delay1" || p == "/delay2" || p == "/delay3":
	case p == "/moved":
		http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
	case p == "/chain1":
		http.Redirect(w, r, "/chain2", http.StatusFound)
	case p == "/chain2":
		http.Redirect(w, r, "/chain3", http.StatusFound)
	case p == "/chain3":
		http.Redirect(w, r, "/ok", http.StatusFound)
	case p == "/loop":
		http.Redirect(w, r, "/loop", http.StatusFound)
	case p == "/missing":
		http.NotFound(w, r)
	case p == "/gone":
		w.WriteHeader(http.StatusGone)
	case p == "/ratelimited":
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	case p == "/always429":
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	case p == "/busy503":
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	case p == "/flaky":
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	case p == "/always500":
		w.WriteHeader(http.StatusInternalServerError)
	case p == "/nohead":
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	case p == "/slow":
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	case p == "/slowish":
		time.Sleep(100 * time.Millisecond)
	case p == "/big" || p == "/bignohead":
		if p == "/bignohead" && r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(bigBody))
		if r.Method == http.MethodHead {
			return
		}
		chunk := make([]byte, 32<<10)
		for sent := 0; sent < bigBody; sent += len(chunk) {
			k, err := w.Write(chunk)
			s.written.Add(int64(k))
			if err != nil {
				return
			}
		}
	case p == "/robots.txt":
		io.WriteString(w, "User-agent: *\nDisallow: /private\n\nUser-agent: interlinker\nDisallow: /nolinker\nAllow: /nolinker/ok\n")
	default:
		http.NotFound(w, r)
	}
}

func siteClient(t *testing.T, cfg Config) (*Client, *connectRecorder) {
	cfg.AllowHosts = append(cfg.AllowHosts, "127.0.0.1/32")
	if cfg.Timeout == 0 {
		cfg.Timeout = 500 * time.Millisecond
	}
	if cfg.RetryBudget == 0 {
		cfg.RetryBudget = 3 * time.Second
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	c, rec := newTestClient(t, cfg)
	t.Cleanup(func() {
		if got := rec.others(); len(got) != 0 {
			t.Errorf("non-loopback connects attempted: %v", got)
		}
	})
	return c, rec
}

// TestClassification is the classification table: each case's outcome,
// final status and the requests the site saw.
func TestClassification(t *testing.T) {
	s := newSite(t)
	c, _ := siteClient(t, Config{UserAgent: "interlinker/test-1.2.3"})
	cases := []struct {
		path      string
		outcome   string
		status    int
		redirects int
		final     string
		requests  map[string]int // "METHOD path" -> count
	}{
		{"/ok", OutcomeOK, 200, 0, "/ok", map[string]int{"HEAD /ok": 1}},
		{"/moved", OutcomeRedirect, 200, 1, "/ok", map[string]int{"HEAD /moved": 1}},
		{"/chain1", OutcomeRedirect, 200, 3, "/ok", map[string]int{"HEAD /chain1": 1, "HEAD /chain2": 1, "HEAD /chain3": 1}},
		{"/loop", OutcomeBroken, 0, DefaultMaxRedirects, "", map[string]int{"HEAD /loop": DefaultMaxRedirects + 1}},
		{"/missing", OutcomeBroken, 404, 0, "/missing", map[string]int{"HEAD /missing": 1}},
		{"/gone", OutcomeBroken, 410, 0, "/gone", map[string]int{"HEAD /gone": 1}},
		{"/ratelimited", OutcomeOK, 200, 0, "/ratelimited", map[string]int{"HEAD /ratelimited": 2}},
		{"/busy503", OutcomeOK, 200, 0, "/busy503", map[string]int{"HEAD /busy503": 2}},
		{"/always429", OutcomeUnverified, 429, 0, "/always429", map[string]int{"HEAD /always429": 1}},
		{"/flaky", OutcomeOK, 200, 0, "/flaky", map[string]int{"HEAD /flaky": 2}},
		{"/always500", OutcomeBroken, 500, 0, "/always500", map[string]int{"HEAD /always500": 2}},
		{"/nohead", OutcomeOK, 200, 0, "/nohead", map[string]int{"HEAD /nohead": 1, "GET /nohead": 1}},
		{"/slow", OutcomeUnverified, 0, 0, "", map[string]int{"HEAD /slow": 1}},
		{"/big", OutcomeOK, 200, 0, "/big", map[string]int{"HEAD /big": 1, "GET /big": 0}},
		{"/bignohead", OutcomeOK, 200, 0, "/bignohead", map[string]int{"HEAD /bignohead": 1, "GET /bignohead": 1}},
	}
	for _, tc := range cases {
		t.Run(strings.TrimPrefix(tc.path, "/"), func(t *testing.T) {
			before := c.bodyBytes.Load()
			r := c.Check(context.Background(), s.URL+tc.path)
			t.Logf("%-12s → outcome=%-10s status=%d redirects=%d reason=%q elapsed=%s",
				tc.path, r.Outcome, r.Status, len(r.Redirects), r.Reason, r.Elapsed.Round(time.Millisecond))
			if r.Outcome != tc.outcome || r.Status != tc.status || len(r.Redirects) != tc.redirects {
				t.Fatalf("got outcome=%q status=%d redirects=%d (%s), want %q %d %d",
					r.Outcome, r.Status, len(r.Redirects), r.Reason, tc.outcome, tc.status, tc.redirects)
			}
			if tc.final != "" && r.FinalURL != s.URL+tc.final {
				t.Errorf("final URL %q, want %q", r.FinalURL, s.URL+tc.final)
			}
			for k, want := range tc.requests {
				method, path, _ := strings.Cut(k, " ")
				if got := s.count(method, path); got != want {
					t.Errorf("%s: %d requests, want %d", k, got, want)
				}
			}
			if read := c.bodyBytes.Load() - before; read > checkDrainBytes+1 {
				t.Errorf("Check read %d body bytes, cap is %d", read, checkDrainBytes)
			}
			// The cache: the same URL again costs no request, unless it
			// could not be checked: that says nothing worth keeping.
			if r.Outcome == OutcomeUnverified {
				if _, cached := c.cached(s.URL+tc.path, time.Time{}); cached {
					t.Errorf("an unverified answer was cached")
				}
				return
			}
			seen := s.total(tc.path)
			again := c.Check(context.Background(), s.URL+tc.path)
			if again.Outcome != r.Outcome || s.total(tc.path) != seen {
				t.Errorf("second check: outcome %q, requests %d→%d; want the cached answer", again.Outcome, seen, s.total(tc.path))
			}
			// Asked for a check made after the cached one, it asks again.
			fresh := c.CheckSince(context.Background(), s.URL+tc.path, r.CheckedAt.Add(time.Nanosecond))
			if fresh.Outcome != r.Outcome || s.total(tc.path) == seen {
				t.Errorf("check since after the cached one: outcome %q, requests %d→%d; want a new request", fresh.Outcome, seen, s.total(tc.path))
			}
		})
	}
	if s.written.Load() >= bigBody {
		t.Errorf("the site wrote the whole 50 MB body (%d bytes)", s.written.Load())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.uas["interlinker/test-1.2.3"] || len(s.uas) != 1 {
		t.Errorf("user agents seen %v, want only interlinker/test-1.2.3", s.uas)
	}
}

func TestGetCapsBody(t *testing.T) {
	s := newSite(t)
	c, _ := siteClient(t, Config{})
	before := c.bodyBytes.Load()
	p, err := c.Get(context.Background(), s.URL+"/big")
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("Get /big: err %v, want ErrBodyTooLarge", err)
	}
	if len(p.Body) != 1<<20 || p.Status != 200 {
		t.Fatalf("Get /big: %d bytes, status %d; want the first 1 MiB and 200", len(p.Body), p.Status)
	}
	if read := c.bodyBytes.Load() - before; read > 1<<20+1 {
		t.Fatalf("read %d body bytes, cap 1 MiB", read)
	}
	if s.written.Load() >= bigBody {
		t.Errorf("the site wrote the whole body (%d bytes)", s.written.Load())
	}

	p, err = c.Get(context.Background(), s.URL+"/moved")
	if err != nil || p.Status != 200 || p.FinalURL != s.URL+"/ok" {
		t.Fatalf("Get /moved: %+v %v", p, err)
	}
	p, err = c.Get(context.Background(), s.URL+"/missing")
	if err != nil || p.Status != 404 {
		t.Fatalf("Get /missing: status %d err %v, want 404 and no error", p.Status, err)
	}
}

func TestSharedAndPerHostLimit(t *testing.T) {
	s := newSite(t)
	c, _ := siteClient(t, Config{PerHostConcurrency: 2})

	// 20 concurrent checks of one URL share one request.
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := c.Check(context.Background(), s.URL+"/slowish"); r.Outcome != OutcomeOK {
				t.Errorf("shared check: %q (%s)", r.Outcome, r.Reason)
			}
		}()
	}
	wg.Wait()
	if n := s.total("/slowish"); n != 1 {
		t.Fatalf("20 concurrent checks of one URL made %d requests, want 1", n)
	}

	// 12 distinct URLs at once: the site never sees more than 2 in flight.
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Check(context.Background(), fmt.Sprintf("%s/slowish?i=%d", s.URL, i))
		}()
	}
	wg.Wait()
	s.mu.Lock()
	maxIn := s.maxIn
	s.mu.Unlock()
	if n := s.total("/slowish"); n != 13 {
		t.Fatalf("%d requests, want 13", n)
	}
	if maxIn > 2 || maxIn < 2 {
		t.Fatalf("max in flight %d, want exactly the per-host limit 2", maxIn)
	}
}

func TestPerHostDelay(t *testing.T) {
	s := newSite(t)
	const delay = 150 * time.Millisecond
	c, _ := siteClient(t, Config{PerHostDelay: delay, PerHostConcurrency: 4})
	var wg sync.WaitGroup
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); c.Check(context.Background(), fmt.Sprintf("%s/delay%d", s.URL, i)) }()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.arrivals) != 3 {
		t.Fatalf("%d arrivals, want 3", len(s.arrivals))
	}
	// Three requests spaced by the delay span at least twice the delay.
	first, last := s.arrivals[0], s.arrivals[0]
	for _, a := range s.arrivals {
		if a.Before(first) {
			first = a
		}
		if a.After(last) {
			last = a
		}
	}
	if span := last.Sub(first); span < 2*delay-20*time.Millisecond {
		t.Fatalf("3 requests arrived within %s, want them spaced by %s", span, delay)
	}
}

func TestRobots(t *testing.T) {
	s := newSite(t)
	c, _ := siteClient(t, Config{})
	for path, want := range map[string]bool{
		"/public": true, "/nolinker/page": false, "/nolinker/ok": true,
		"/private": true, // the interlinker group replaces the * group
	} {
		got, err := c.RobotsAllowed(context.Background(), s.URL+path)
		if err != nil || got != want {
			t.Errorf("RobotsAllowed(%s) = %v, %v; want %v", path, got, err, want)
		}
	}
	if n := s.count("GET", "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1 (cached)", n)
	}
	if _, err := c.RobotsAllowed(context.Background(), "http://10.0.0.1/x"); !errors.Is(err, ErrRefused) {
		t.Errorf("robots for a private host: %v, want refused", err)
	}
}

func TestMetricsAndConfig(t *testing.T) {
	s := newSite(t)
	reg := prometheus.NewRegistry()
	c, err := New(Config{AllowHosts: []string{"127.0.0.1/32"}}, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Check(context.Background(), s.URL+"/ok")
	c.Check(context.Background(), s.URL+"/ok")
	c.Check(context.Background(), s.URL+"/missing")
	c.Check(context.Background(), "http://10.0.0.1/")
	c.Check(context.Background(), "ftp://example.test/")
	for name, want := range map[string]float64{
		"ok": 1, "broken": 1, "refused": 2,
	} {
		if got := testutil.ToFloat64(c.metrics.requests.WithLabelValues(name)); got != want {
			t.Errorf("requests_total{outcome=%s} = %v, want %v", name, got, want)
		}
	}
	if got := testutil.ToFloat64(c.metrics.cacheHits); got != 1 {
		t.Errorf("cache_hits_total = %v, want 1", got)
	}
	if got := testutil.ToFloat64(c.metrics.refused.WithLabelValues(ReasonAddress)); got != 1 {
		t.Errorf("refused_total{reason=address} = %v, want 1", got)
	}
	if got := testutil.ToFloat64(c.metrics.refused.WithLabelValues(ReasonScheme)); got != 1 {
		t.Errorf("refused_total{reason=scheme} = %v, want 1", got)
	}
	if n, err := testutil.GatherAndCount(reg, "interlinker_outbound_request_seconds"); err != nil || n != 1 {
		t.Errorf("request_seconds: %d series, %v", n, err)
	}
	if _, err := New(Config{}, reg, nil); err == nil {
		t.Error("registering the metrics twice should fail")
	}
	for _, bad := range []Config{
		{UserAgent: "curl/8"},
		{AllowHosts: []string{"10.0.0.0/33"}},
		{Ports: []int{70000}},
	} {
		if _, err := New(bad, nil, nil); err == nil {
			t.Errorf("New(%+v) accepted a bad config", bad)
		}
	}
}

func TestCanceledCaller(t *testing.T) {
	s := newSite(t)
	c, _ := siteClient(t, Config{Timeout: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r := c.Check(ctx, s.URL+"/slow")
	if r.Outcome != OutcomeUnverified {
		t.Fatalf("canceled caller: %q (%s), want unverified", r.Outcome, r.Reason)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"1": time.Second, "0": 0, "120": 2 * time.Minute,
		now.Add(5 * time.Second).Format(http.TimeFormat): 5 * time.Second,
	} {
		got, ok := ParseRetryAfter(in, now)
		if !ok || got != want {
			t.Errorf("ParseRetryAfter(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "soon"} {
		if _, ok := ParseRetryAfter(in, now); ok {
			t.Errorf("ParseRetryAfter(%q) accepted", in)
		}
	}
}
