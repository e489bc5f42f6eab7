package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// stubResolver answers from a table; a name with several answer lists gets
// them in turn (the last one repeats), which is how rebinding is simulated.
// Names not in the table fail: no test name ever reaches real DNS.
type stubResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	calls   map[string]int
}

func newStub(answers map[string][][]string) *stubResolver {
	return &stubResolver{answers: answers, calls: map[string]int{}}
}

func (s *stubResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq, ok := s.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host (stub)", Name: host, IsNotFound: true}
	}
	i := s.calls[host]
	s.calls[host]++
	if i >= len(seq) {
		i = len(seq) - 1
	}
	var out []net.IPAddr
	for _, a := range seq[i] {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	return out, nil
}

// connectRecorder is installed as the client's connectHook: it runs inside
// the dialer's Control hook after the guard passed and before connect(2). A
// loopback address goes on to connect (only to servers the test started);
// anything else is recorded and stopped, so no packet ever leaves the machine.
type connectRecorder struct {
	mu       sync.Mutex
	loopback int
	other    []string
}

func (r *connectRecorder) hook(_, address string) error {
	ap, err := netip.ParseAddrPort(address)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil && ap.Addr().Unmap().IsLoopback() {
		r.loopback++
		return nil
	}
	r.other = append(r.other, address)
	return errors.New("test: connect to a non-loopback address intercepted")
}

func (r *connectRecorder) others() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.other...)
}

func (r *connectRecorder) loopbacks() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loopback
}

func newTestClient(t *testing.T, cfg Config) (*Client, *connectRecorder) {
	t.Helper()
	if cfg.UserAgent == "" {
		cfg.UserAgent = "interlinker/test"
	}
	c, err := New(cfg, nil, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	rec := &connectRecorder{}
	c.connectHook = rec.hook
	return c, rec
}

var ssrfNames = map[string][][]string{
	"internal.test":   {{"10.0.0.1"}},
	"mapped.test":     {{"::ffff:192.168.0.1"}},
	"metadata.test":   {{"169.254.169.254"}},
	"ula.test":        {{"fd12:3456::1"}},
	"nat64.test":      {{"64:ff9b::c0a8:1"}},
	"cgnat.test":      {{"100.64.1.1"}},
	"mixed.test":      {{"93.184.216.34", "10.0.0.1"}},
	"localhost":       {{"127.0.0.1", "::1"}},
	"linklocal6.test": {{"fe80::1"}},
	"example.test":    {{"93.184.216.34"}},
}

// TestSSRFRefusedBeforeConnect: every URL is refused, and no connect is ever
// attempted — the recorder would see it.
func TestSSRFRefusedBeforeConnect(t *testing.T) {
	cases := []struct {
		url, reason string
	}{
		{"http://2130706433/", ReasonAddress},          // decimal 127.0.0.1
		{"http://0177.0.0.1/", ReasonAddress},          // octal
		{"http://0x7f.0.0.1/", ReasonAddress},          // hex
		{"http://0x7f000001/", ReasonAddress},          // one hex number
		{"http://127.1/", ReasonAddress},               // short form
		{"http://012.0.0.1/", ReasonAddress},           // octal 10.0.0.1
		{"http://167772161/", ReasonAddress},           // decimal 10.0.0.1
		{"http://0xc0.0xa8.0.1/", ReasonAddress},       // hex 192.168.0.1
		{"http://3232235521/", ReasonAddress},          // decimal 192.168.0.1
		{"http://0251.0376.0251.0376/", ReasonAddress}, // octal 169.254.169.254
		{"http://[::ffff:127.0.0.1]/", ReasonAddress},  // IPv4-mapped loopback
		{"http://[::ffff:10.0.0.1]/", ReasonAddress},   // IPv4-mapped private
		{"http://0.0.0.0/", ReasonAddress},             // unspecified
		{"http://0/", ReasonAddress},                   // unspecified, one number
		{"http://[::]/", ReasonAddress},                // IPv6 unspecified
		{"http://169.254.169.254/latest/meta-data/", ReasonAddress},
		{"http://[fd00::1]/", ReasonAddress},         // ULA
		{"http://[fe80::1]/", ReasonAddress},         // IPv6 link-local
		{"http://[fe80::1%25eth0]/", ReasonAddress},  // with zone
		{"http://100.64.0.1/", ReasonAddress},        // CGNAT
		{"http://224.0.0.1/", ReasonAddress},         // multicast
		{"http://[ff02::1]/", ReasonAddress},         // IPv6 multicast
		{"http://255.255.255.255/", ReasonAddress},   // broadcast
		{"http://[64:ff9b::a00:1]/", ReasonAddress},  // NAT64 of 10.0.0.1
		{"http://[64:ff9b::7f00:1]/", ReasonAddress}, // NAT64 of 127.0.0.1
		{"http://127.0.0.1/", ReasonAddress},
		{"http://[::1]/", ReasonAddress},
		{"http://172.16.0.1/", ReasonAddress},
		{"http://192.168.1.1/", ReasonAddress},
		{"http://192.0.2.1/", ReasonAddress},     // TEST-NET-1 (documentation)
		{"http://198.18.0.1/", ReasonAddress},    // benchmarking
		{"http://240.0.0.1/", ReasonAddress},     // reserved
		{"http://[2001:db8::1]/", ReasonAddress}, // IPv6 documentation
		{"http://user:pass@example.test/", ReasonCredentials},
		{"http://user@example.test/", ReasonCredentials},
		{"ftp://example.test/", ReasonScheme},
		{"file:///etc/passwd", ReasonScheme},
		{"gopher://example.test/", ReasonScheme},
		{"http://example.test:8080/", ReasonPort},
		{"https://example.test:22/", ReasonPort},
		{"http://1.2.3.999/", ReasonInvalidURL},
		{"http://internal.test/", ReasonAddress},    // resolves to 10.0.0.1
		{"http://mapped.test/", ReasonAddress},      // resolves to ::ffff:192.168.0.1
		{"http://metadata.test/", ReasonAddress},    // resolves to 169.254.169.254
		{"http://ula.test/", ReasonAddress},         // resolves to fd12:3456::1
		{"http://nat64.test/", ReasonAddress},       // resolves to 64:ff9b::c0a8:1
		{"http://cgnat.test/", ReasonAddress},       // resolves to 100.64.1.1
		{"http://mixed.test/", ReasonAddress},       // one public, one private answer
		{"http://localhost/", ReasonAddress},        // loopback when not allowed
		{"https://linklocal6.test/", ReasonAddress}, // resolves to fe80::1
	}
	if len(cases) < 30 {
		t.Fatalf("table has %d cases, want at least 30", len(cases))
	}
	c, rec := newTestClient(t, Config{Resolver: newStub(ssrfNames)})
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			r := c.Check(context.Background(), tc.url)
			if r.Outcome != OutcomeRefused {
				t.Fatalf("outcome %q (%s), want refused", r.Outcome, r.Reason)
			}
			if !strings.HasPrefix(r.Reason, "refused ("+tc.reason+")") {
				t.Errorf("reason %q, want a %s refusal", r.Reason, tc.reason)
			}
			_, err := c.Get(context.Background(), tc.url)
			if !errors.Is(err, ErrRefused) {
				t.Errorf("Get error %v, want a refusal", err)
			}
		})
	}
	if got := rec.others(); len(got) != 0 || rec.loopbacks() != 0 {
		t.Fatalf("connect attempted: non-loopback %v, loopback %d", got, rec.loopbacks())
	}
}

// TestControlDecision calls the dialer's Control hook directly with the
// addresses a resolver could hand it.
func TestControlDecision(t *testing.T) {
	c, rec := newTestClient(t, Config{})
	d := c.dialer(false)
	refused := []string{
		"127.0.0.1:80", "10.0.0.1:80", "172.31.255.255:443", "192.168.0.1:80",
		"169.254.169.254:80", "100.64.0.1:80", "0.0.0.0:80", "224.0.0.1:80",
		"255.255.255.255:80", "[::1]:80", "[::]:80", "[fd00::1]:80", "[fe80::1]:443",
		"[::ffff:127.0.0.1]:80", "[::ffff:10.0.0.1]:80", "[64:ff9b::a00:1]:80",
		"[64:ff9b::a9fe:a9fe]:80", "[2001:db8::1]:80", "192.0.2.1:80",
		"93.184.216.34:8080", // public, but not an allowed port
	}
	for _, a := range refused {
		if err := d.Control("tcp", a, nil); !errors.Is(err, ErrRefused) {
			t.Errorf("Control(%s) = %v, want refused", a, err)
		}
	}
	// Public addresses pass the guard (the recorder then stops the connect).
	for _, a := range []string{"93.184.216.34:80", "[2606:2800:220:1:248:1893:25c8:1946]:443", "[::ffff:93.184.216.34]:80", "[64:ff9b::5db8:d822]:443"} {
		err := d.Control("tcp", a, nil)
		if errors.Is(err, ErrRefused) {
			t.Errorf("Control(%s) = %v, want it to pass the guard", a, err)
		}
	}
	if n := len(rec.others()); n != 4 {
		t.Errorf("recorder saw %d public addresses, want 4", n)
	}
}

// TestRebinding: the first answer is public, the next private. The public
// address passes the guard but the test stops its connect; the private answer
// is refused at the dial decision, and the name is never connected.
func TestRebinding(t *testing.T) {
	stub := newStub(map[string][][]string{"rebind.test": {{"93.184.216.34"}, {"10.0.0.1"}}})
	c, rec := newTestClient(t, Config{Resolver: stub})

	first := c.Check(context.Background(), "http://rebind.test/a")
	if first.Outcome != OutcomeUnverified {
		t.Fatalf("first check: %q (%s), want unverified (connect intercepted)", first.Outcome, first.Reason)
	}
	if got := rec.others(); len(got) != 1 || got[0] != "93.184.216.34:80" {
		t.Fatalf("intercepted connects %v, want just the public answer", got)
	}
	second := c.Check(context.Background(), "http://rebind.test/b")
	if second.Outcome != OutcomeRefused || !strings.Contains(second.Reason, "10.0.0.1") {
		t.Fatalf("second check: %q (%s), want refused naming 10.0.0.1", second.Outcome, second.Reason)
	}
	if got := rec.others(); len(got) != 1 {
		t.Fatalf("the private answer reached connect: %v", got)
	}
	// And at the dialer itself: the address a rebinding resolver would slip in.
	if err := c.dialer(false).Control("tcp4", "10.0.0.1:80", nil); !errors.Is(err, ErrRefused) {
		t.Fatalf("Control(10.0.0.1) = %v, want refused", err)
	}
}

// TestLoopbackRefusedUnlessAllowed: a real loopback server is refused before
// any connect by a client without AllowHosts, and reached by one with it.
func TestLoopbackRefusedUnlessAllowed(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := mustPort(t, srv.URL)

	c, rec := newTestClient(t, Config{Ports: []int{port}, Resolver: newStub(ssrfNames)})
	for _, u := range []string{srv.URL + "/", fmt.Sprintf("http://localhost:%d/", port), fmt.Sprintf("http://2130706433:%d/", port)} {
		if r := c.Check(context.Background(), u); r.Outcome != OutcomeRefused {
			t.Errorf("%s: %q (%s), want refused", u, r.Outcome, r.Reason)
		}
	}
	if hits.Load() != 0 || rec.loopbacks() != 0 || len(rec.others()) != 0 {
		t.Fatalf("connect happened: server hits %d, loopback connects %d, others %v", hits.Load(), rec.loopbacks(), rec.others())
	}

	allowed, _ := newTestClient(t, Config{AllowHosts: []string{"localhost"}, Resolver: newStub(ssrfNames)})
	if r := allowed.Check(context.Background(), fmt.Sprintf("http://localhost:%d/", port)); r.Outcome != OutcomeOK {
		t.Fatalf("allowed by name: %q (%s), want ok", r.Outcome, r.Reason)
	}
}

// TestRedirectToPrivateRefusedBeforeDial: an allowed loopback site redirects
// to private targets; each hop is refused and nothing but loopback is dialed.
func TestRedirectToPrivateRefusedBeforeDial(t *testing.T) {
	targets := map[string]string{
		"/to-name":     "http://internal.test/admin",
		"/to-mapped":   "http://mapped.test/",
		"/to-metadata": "http://169.254.169.254/latest/meta-data/",
		"/to-decimal":  "http://2886729729/", // 172.16.0.1
		"/to-v6":       "http://[::ffff:10.0.0.1]/",
		"/to-creds":    "http://user:pass@example.test/",
		"/to-ftp":      "ftp://example.test/",
		"/to-port":     "http://example.test:8080/",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, targets[r.URL.Path], http.StatusFound)
	}))
	defer srv.Close()
	stub := newStub(ssrfNames)
	c, rec := newTestClient(t, Config{AllowHosts: []string{"127.0.0.1/32"}, Resolver: stub})
	for path := range targets {
		r := c.Check(context.Background(), srv.URL+path)
		if r.Outcome != OutcomeRefused {
			t.Errorf("%s: %q (%s), want refused", path, r.Outcome, r.Reason)
		}
	}
	if got := rec.others(); len(got) != 0 {
		t.Fatalf("non-loopback connects attempted: %v", got)
	}
	if rec.loopbacks() == 0 {
		t.Fatal("the loopback site was never reached; the test proves nothing")
	}
}

func mustPort(t *testing.T, raw string) int {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseHostAddr(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0x7f.0.0.1": "127.0.0.1",
		"127.1": "127.0.0.1", "10.1.2": "10.1.0.2", "0": "0.0.0.0", "8.8.8.8.": "8.8.8.8",
	} {
		a, lit, err := parseHostAddr(in)
		if err != nil || !lit || a.String() != want {
			t.Errorf("parseHostAddr(%q) = %v %v %v, want %s", in, a, lit, err, want)
		}
	}
	for _, in := range []string{"example.com", "a1.example", "xn--bcher-kva.example"} {
		if _, lit, err := parseHostAddr(in); lit || err != nil {
			t.Errorf("parseHostAddr(%q): literal=%v err=%v, want a name", in, lit, err)
		}
	}
	for _, in := range []string{"1.2.3.4.5", "256.1.1.1", "4294967296", "08.0.0.1", "example.123"} {
		if _, _, err := parseHostAddr(in); !errors.Is(err, ErrRefused) {
			t.Errorf("parseHostAddr(%q) err=%v, want refused", in, err)
		}
	}
}

// TestBadInputRefused: malformed input is a refusal, never a panic or a dial.
func TestBadInputRefused(t *testing.T) {
	c, rec := newTestClient(t, Config{Resolver: newStub(nil)})
	for _, in := range []string{"", " ", "http://", "http://[::1", "http://%zz/", "//example.test/", "example.test", "http://:80/", "http://example.test:0/", "http://example.test:99999/", "javascript:alert(1)", "http://[fe80::1%25/"} {
		r := c.Check(context.Background(), in)
		if r.Outcome != OutcomeRefused {
			t.Errorf("Check(%q) = %q (%s), want refused", in, r.Outcome, r.Reason)
		}
	}
	if len(rec.others()) != 0 || rec.loopbacks() != 0 {
		t.Fatal("a malformed URL reached connect")
	}
}
