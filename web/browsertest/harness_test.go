package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store/storetest"
)

// chromiumPath finds Debian's chromium. The browser tests skip without it
// unless CI is set: CI installs it (.ci/run), so there they must run.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "" {
		t.Skip("chromium is not installed (apt-get install chromium); the browser tests need it, and run whenever CI is set")
	}
	t.Fatal("chromium is not installed, and CI is set: .ci/run installs it")
	return ""
}

// adminToken is the operator's token of every test service.
const adminToken = "ilk_operator-token-for-browser-tests"

// serviceConfig is a service on its own database and embedded NATS, with
// the short delays of service's own tests.
func serviceConfig(t testing.TB) service.Config {
	cfg := service.DefaultConfig()
	cfg.DatabaseURL = storetest.NewDatabase(t)
	cfg.NATSListen = "127.0.0.1:0"
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.AdminToken = adminToken
	cfg.NakDelays = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}
	cfg.MaxDeliver = 4
	cfg.RetryInitial = 50 * time.Millisecond
	cfg.RetryMax = 500 * time.Millisecond
	cfg.OutboxPoll = 50 * time.Millisecond
	cfg.CountInterval = 100 * time.Millisecond
	cfg.DBMaxConns = 16
	cfg.ReplanDelay = 50 * time.Millisecond
	cfg.SettleDelay = 100 * time.Millisecond
	cfg.HTTP.Resolver = noDNS{}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if level := os.Getenv("INTERLINKER_TEST_LOG"); level != "" {
		var l slog.Level
		if l.UnmarshalText([]byte(level)) == nil {
			cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
		}
	}
	return cfg
}

// noDNS refuses every lookup: no test sends a packet to a name's address.
type noDNS struct{}

func (noDNS) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	return nil, &net.DNSError{Err: "tests resolve no names", Name: host, IsNotFound: true}
}

// env is a running service, a producer's connection to its bus and a
// browser.
type env struct {
	t     testing.TB
	svc   *service.Service
	js    jetstream.JetStream
	base  string // http://127.0.0.1:port
	shot  string // where screenshots go
	dbURL string
}

func startService(t testing.TB, cfg service.Config) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := service.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start service: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := svc.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	nc, err := nats.Connect(svc.NATSURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("INTERLINKER_UI_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, svc: svc, js: js, base: "http://" + svc.HTTPAddr(), shot: dir, dbURL: cfg.DatabaseURL}
}

// publish sends an event as a producer would.
func (e *env) publish(typ, siteID, id string, data any) {
	e.t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		e.t.Fatal(err)
	}
	ev := events.Event{SpecVersion: "1.0", ID: id, Source: "browser-test", Type: typ, SiteID: siteID, Data: raw}
	body, err := json.Marshal(ev)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.js.PublishMsg(ctx, &nats.Msg{Subject: typ, Data: body, Header: nats.Header{nats.MsgIdHdr: {ev.MsgID()}}}); err != nil {
		e.t.Fatalf("publish %s: %v", typ, err)
	}
}

// waitIdle waits until the pipeline has nothing left to do, twice in a row.
func (e *env) waitIdle(timeout time.Duration) {
	e.t.Helper()
	calm := 0
	waitFor(e.t, timeout, "the pipeline to be idle", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if idle, err := e.svc.Idle(ctx); err == nil && idle {
			calm++
		} else {
			calm = 0
		}
		return calm >= 2
	})
}

func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// generateSite publishes an example site as generated content, with extra
// pages, without waiting.
func (e *env) generateSite(site examples.Site, extra ...events.PageInfo) {
	siteID := site.Structure.Site.ID
	e.publish(events.SiteUpdated, siteID, "site-"+siteID, site.Structure)
	for _, pg := range append(append([]events.PageInfo(nil), site.Pages...), extra...) {
		e.publish(events.ContentGenerated, siteID, "gen-"+pg.ID, events.ContentData{Page: pg})
	}
}

// publishExisting publishes an existing example site as its publisher
// would: every page live, then its deleted pages deleted.
func (e *env) publishExisting(site examples.Site) {
	siteID := site.Structure.Site.ID
	e.publish(events.SiteUpdated, siteID, "site-"+siteID, site.Structure)
	for _, pg := range site.Pages {
		e.publish(events.ContentPublished, siteID, fmt.Sprintf("pub-%s-v%d", pg.ID, pg.Version), events.ContentData{Page: pg})
	}
	e.waitIdle(2 * time.Minute)
	for _, id := range site.Deleted {
		e.publish(events.ContentDeleted, siteID, "del-"+id, events.ContentDeletedData{PageID: id, Version: 2})
	}
}

// token makes a site's token.
func (e *env) token(siteID string) string {
	e.t.Helper()
	_, secret, err := e.svc.Store().CreateToken(context.Background(), siteID, "browser test")
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// api calls the HTTP API with a token and decodes its JSON answer.
func (e *env) api(method, path, token, body string, out any) int {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.base+"/api/v1/linker"+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			e.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

// browser starts headless chromium, closed with the test. It reaches only
// the servers the tests start: no background networking, no updates, no
// QUIC, a fresh profile.
func browser(t testing.TB) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// tab is a browser tab a test drives. dialogs gets the message of every
// JavaScript dialog its pages open: an alert means a tenant's script ran.
type tab struct {
	t       testing.TB
	ctx     context.Context
	e       *env
	dialogs chan string
}

func (e *env) newTab(t testing.TB, bctx context.Context) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx, e: e, dialogs: make(chan string, 16)}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			select {
			case tb.dialogs <- d.Message:
			default:
			}
			go func() {
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// css selects the elements a CSS selector matches (a plain string would
// also match text and XPath).
func css(sel string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, t *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		res, err := chromedp.Call(ctx, dom.QuerySelectorAll, dom.QuerySelectorAllParams{NodeID: n.NodeID, Selector: sel})
		return res.NodeIDs, err
	})
}

// do runs browser actions, failing the test on an error.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates JavaScript in the page and decodes its value.
func eval[T any](tb *tab, js string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		tb.t.Fatalf("evaluate %.120s: %v", js, err)
	}
	return v
}

// text is the visible text of the first element a selector matches.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`(document.querySelector(%q) || {innerText: ''}).innerText`, sel))
}

// click clicks the first element a selector matches, as a person would.
func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.do("click "+sel, chromedp.Click("", css(sel)))
}

// clickText clicks the button or link whose text is text.
func (tb *tab) clickText(text string) {
	tb.t.Helper()
	xpath := fmt.Sprintf(`//*[self::button or self::a][normalize-space()=%q]`, text)
	tb.do("click "+text, chromedp.Click(xpath))
}

// open navigates to a UI path, or any URL, and returns the answer's status.
func (tb *tab) open(path string) int64 {
	tb.t.Helper()
	if strings.HasPrefix(path, "/") {
		path = tb.e.base + path
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(path))
	if err != nil {
		tb.t.Fatalf("open %s: %v", path, err)
	}
	if resp == nil {
		return 0
	}
	return resp.Status
}

// location is the tab's URL.
func (tb *tab) location() string {
	tb.t.Helper()
	return eval[string](tb, `location.href`)
}

// signIn signs in with a token from the keyboard alone: focus the field
// labelled "Site token", type, press Enter.
func (tb *tab) signIn(token string) {
	tb.t.Helper()
	tb.open("/ui/login")
	if label := tb.text(`label[for="token"]`); label != "Site token" {
		tb.t.Fatalf("the token field is labelled %q", label)
	}
	if button := tb.text(`form button[type="submit"]`); button != "Sign in" {
		tb.t.Fatalf("the sign-in button reads %q", button)
	}
	tb.do("sign in",
		chromedp.Focus("", css("#token")),
		chromedp.SendKeys("", token+"\r", css("#token")),
		chromedp.WaitVisible("", css("main h1")),
	)
	tb.waitJS("signed in", `!location.pathname.startsWith('/ui/login') && document.readyState === 'complete'`, 20*time.Second)
}

// signOut presses "Sign out".
func (tb *tab) signOut() {
	tb.t.Helper()
	tb.clickText("Sign out")
	tb.waitJS("signed out", `location.pathname === '/ui/login' && !!document.getElementById('token')`, 20*time.Second)
}

// waitJS waits until a JavaScript expression is true.
func (tb *tab) waitJS(what, js string, timeout time.Duration) {
	tb.t.Helper()
	waitFor(tb.t, timeout, what, func() bool {
		ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
		defer cancel()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		return err == nil && ok
	})
}

// waitJobsDone waits until every job the screen follows is finished, as
// its progress bars show it, and the screen has been drawn again since
// (data-final: the server drew it finished), so it shows what they did.
func (tb *tab) waitJobsDone(timeout time.Duration) {
	tb.t.Helper()
	tb.waitJS("the jobs' progress bars to reach done", `(() => {
		const jobs = [...document.querySelectorAll('[data-job]')];
		return jobs.length > 0 && document.readyState === 'complete' && jobs.every(j => j.dataset.final === 'true' &&
			['done', 'complete', 'inconclusive', 'failed'].includes(j.dataset.status) &&
			j.querySelector('progress').value === j.querySelector('progress').max);
	})()`, timeout)
}

// screenshot saves what a screen shows at a width, as NAME-WIDTH.png (the
// window, 900 px high) and NAME-WIDTH-full.png (the whole page).
func (tb *tab) screenshot(name string, width int64) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Sleep(250*time.Millisecond)); err != nil {
		tb.t.Fatal(err)
	}
	view, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	full, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		tb.t.Fatal(err)
	}
	for suffix, buf := range map[string][]byte{"": view, "-full": full} {
		file := filepath.Join(tb.e.shot, fmt.Sprintf("%s-%d%s.png", name, width, suffix))
		if err := os.WriteFile(file, buf, 0o644); err != nil {
			tb.t.Fatal(err)
		}
	}
}

// submit does what sends a form (a click) and waits until the answer's
// screen is drawn: the screen it left is gone.
func (tb *tab) submit(what string, act func()) {
	tb.t.Helper()
	eval[bool](tb, `window.interlinkerStale = true`)
	act()
	tb.waitJS(what+": the next screen", `!window.interlinkerStale && document.readyState === 'complete'`, 30*time.Second)
}

// cookies reads the browser's cookies for the UI, HttpOnly ones too.
func (tb *tab) cookies() []*network.Cookie {
	tb.t.Helper()
	res, err := chromedp.Call(tb.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{tb.e.base + "/ui/"}})
	if err != nil {
		tb.t.Fatal(err)
	}
	return res.Cookies
}

// uiClient is a plain HTTP client with the browser's session cookie,
// which follows no redirect.
func (tb *tab) uiClient() (*http.Client, *http.Cookie) {
	tb.t.Helper()
	for _, c := range tb.cookies() {
		if c.Name == "interlinker_session" {
			return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
				&http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	tb.t.Fatal("the browser holds no session cookie")
	return nil, nil
}

// post sends a form to the UI as a client other than the browser would.
func post(t testing.TB, c *http.Client, cookie *http.Cookie, target string, form url.Values, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}
