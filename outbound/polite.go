package outbound

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// politeTransport wraps the real transport so every hop (redirects and retries
// included) waits for a global slot, a per-host slot and the per-host delay.
// A slot is held until the response body is closed, so "in flight" means what
// the remote server sees.
type politeTransport struct {
	next      http.RoundTripper
	global    chan struct{}
	perHost   int
	delay     time.Duration
	timeout   time.Duration // per hop, counted from the moment the hop has its slots
	userAgent string
	metrics   *metrics
	bodyBytes *atomic.Int64 // bytes of response bodies read, for tests

	mu    sync.Mutex
	hosts map[string]*hostState
}

type hostState struct {
	sem  chan struct{}
	mu   sync.Mutex
	next time.Time // earliest start of the next request to this host
}

func (t *politeTransport) host(h string) *hostState {
	t.mu.Lock()
	defer t.mu.Unlock()
	hs, ok := t.hosts[h]
	if !ok {
		hs = &hostState{sem: make(chan struct{}, t.perHost)}
		t.hosts[h] = hs
	}
	return hs
}

func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	hs := t.host(strings.ToLower(req.URL.Host))
	// Host slot first: waiting on a busy host must not hold a global slot
	// other hosts could use.
	select {
	case hs.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case t.global <- struct{}{}:
	case <-ctx.Done():
		<-hs.sem
		return nil, ctx.Err()
	}
	release := func() { <-t.global; <-hs.sem }

	if t.delay > 0 {
		hs.mu.Lock()
		start := time.Now()
		if hs.next.After(start) {
			start = hs.next
		}
		hs.next = start.Add(t.delay)
		hs.mu.Unlock()
		if err := sleepCtx(ctx, time.Until(start)); err != nil {
			release()
			return nil, err
		}
	}

	// The timeout starts only now: time spent queueing behind the host's
	// other requests is politeness, not the server being slow.
	hopCtx, cancel := context.WithTimeout(ctx, t.timeout)
	done := func() { cancel(); release() }
	req = req.Clone(hopCtx)
	req.Header.Set("User-Agent", t.userAgent)
	began := time.Now()
	resp, err := t.next.RoundTrip(req)
	t.metrics.requestSeconds.Observe(time.Since(began).Seconds())
	if err != nil {
		done()
		return nil, err
	}
	resp.Body = &releasingBody{rc: resp.Body, release: done, n: t.bodyBytes}
	return resp, nil
}

// releasingBody frees the politeness slots exactly once when the body is
// closed, and counts the bytes read so tests can prove the caps hold.
type releasingBody struct {
	rc      io.ReadCloser
	release func()
	once    sync.Once
	n       *atomic.Int64
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func (b *releasingBody) Close() error {
	err := b.rc.Close()
	b.once.Do(b.release)
	return err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
