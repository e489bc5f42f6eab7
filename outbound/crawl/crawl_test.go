package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interlinker/interlinker/outbound"
)

// answer is what the test site serves at a path.
type answer struct {
	status   int
	ctype    string
	body     string
	location string
}

// testSite is a loopback site that counts the requests for each path.
type testSite struct {
	*httptest.Server
	mu      sync.Mutex
	answers map[string]answer
	hits    map[string]int
}

func newTestSite(t *testing.T, answers map[string]answer) *testSite {
	t.Helper()
	s := &testSite{answers: answers, hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.RequestURI()
		s.mu.Lock()
		s.hits[key]++
		a, ok := s.answers[key]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if a.location != "" {
			http.Redirect(w, r, a.location, a.status)
			return
		}
		if a.ctype == "" {
			a.ctype = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", a.ctype)
		if a.status != 0 {
			w.WriteHeader(a.status)
		}
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *testSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *testSite) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.hits {
		n += v
	}
	return n
}

// client is the real outbound client, allowed to reach loopback only.
func client(t *testing.T) *outbound.Client {
	t.Helper()
	c, err := outbound.New(outbound.Config{AllowHosts: []string{"127.0.0.1"}, RetryBudget: -1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func page(title string, links ...string) answer {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><p>%s.", title, title)
	for _, l := range links {
		fmt.Fprintf(&b, ` <a href="%s">%s</a>`, l, l)
	}
	b.WriteString("</p></body></html>")
	return answer{body: b.String()}
}

// recorder is a publish function that keeps what it was given.
type recorder struct {
	mu    sync.Mutex
	pages []Page
	fail  func(Page) error
}

func (r *recorder) publish(_ context.Context, p Page) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(p); err != nil {
			return false, err
		}
	}
	r.pages = append(r.pages, p)
	return false, nil
}

func (r *recorder) paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.pages {
		out = append(out, p.PathQuery)
	}
	slices.Sort(out)
	return out
}

func siteOf(t *testing.T, raw string) Site {
	t.Helper()
	s, err := SiteOf(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCrawlFollowsLinksOnTheSiteHostOnly(t *testing.T) {
	other := newTestSite(t, map[string]answer{"/": page("elsewhere")})
	s := newTestSite(t, map[string]answer{
		"/robots.txt": {ctype: "text/plain", body: "User-agent: *\nDisallow: /private/\n"},
	})
	s.answers["/"] = page("Home", "/a", "b", "/a#section", other.URL+"/", "mailto:x@example.com", "/private/p", "/file.pdf", "/moved")
	s.answers["/a"] = page("A", "/", "/b?x=1", "/c/")
	s.answers["/b"] = page("B")
	s.answers["/b?x=1"] = page("B with a query")
	s.answers["/c/"] = page("C", "/missing", "/data")
	s.answers["/data"] = answer{ctype: "application/json", body: `{}`}
	s.answers["/moved"] = answer{status: http.StatusMovedPermanently, location: "/a"}
	s.answers["/private/p"] = page("Private")

	rec := &recorder{}
	sum, err := Run(t.Context(), Config{
		Site: siteOf(t, s.URL), SiteID: "s", Fetcher: client(t), StartURLs: []string{s.URL + "/"},
		FollowLinks: true, Publish: rec.publish,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/", "/a", "/b", "/b?x=1", "/c/"}; !slices.Equal(rec.paths(), want) {
		t.Errorf("published %v, want %v", rec.paths(), want)
	}
	if other.total() != 0 {
		t.Errorf("the other host got %d requests", other.total())
	}
	if n := s.count("/private/p"); n != 0 {
		t.Errorf("/private/p, disallowed, was requested %d times", n)
	}
	if n := s.count("/file.pdf"); n != 0 {
		t.Errorf("/file.pdf was requested %d times", n)
	}
	// /a is also where /moved lands, so it may be requested twice.
	for _, p := range []string{"/", "/b", "/b?x=1", "/c/", "/missing"} {
		if n := s.count(p); n != 1 {
			t.Errorf("%s requested %d times, want once", p, n)
		}
	}
	// /moved leads to /a: no page of its own, and no work done before.
	want := Summary{Published: 5, Aliases: 1, Robots: 1, NotHTML: 2, HTTPErrors: 1, Finished: true}
	if sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	for _, p := range rec.pages {
		if p.PathQuery == "/" && (p.Kind != "home" || p.ID != "home" || p.Title != "Home") {
			t.Errorf("home page published as %+v", p)
		}
		if p.PathQuery == "/a" && (p.Kind != "page" || p.ID != "a" || p.URL != s.URL+"/a") {
			t.Errorf("/a published as id %q kind %q url %q", p.ID, p.Kind, p.URL)
		}
		if p.Hash != ContentHash(p.HTML) || p.FetchedAt.IsZero() {
			t.Errorf("%s: hash %q fetched %v", p.PathQuery, p.Hash, p.FetchedAt)
		}
	}
}

func TestCrawlReadsSitemapIndexesAndGzipSitemaps(t *testing.T) {
	s := newTestSite(t, map[string]answer{})
	base := s.URL
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	fmt.Fprintf(zw, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/g1</loc></url><url><loc>%s/g2</loc></url></urlset>`, base, base)
	zw.Close()
	s.answers["/sitemap.xml"] = answer{ctype: "application/xml", body: fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>%[1]s/pages.xml</loc></sitemap>
  <sitemap><loc>%[1]s/more.xml.gz</loc></sitemap>
  <sitemap><loc>%[1]s/gone.xml</loc></sitemap>
</sitemapindex>`, base)}
	s.answers["/pages.xml"] = answer{ctype: "application/xml", body: fmt.Sprintf(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>%[1]s/</loc><lastmod>2024-03-01</lastmod></url>
  <url><loc>%[1]s/p1</loc></url>
  <url><loc>https://elsewhere.example/p</loc></url>
  <url><loc>%[1]s/p1</loc></url>
</urlset>`, base)}
	s.answers["/more.xml.gz"] = answer{ctype: "application/octet-stream", body: gz.String()}
	for _, p := range []string{"/", "/p1", "/g1", "/g2"} {
		s.answers[p] = page("Page "+p, "/not-followed")
	}
	rec := &recorder{}
	sum, err := Run(t.Context(), Config{Site: siteOf(t, base), SiteID: "s", Fetcher: client(t),
		SitemapURLs: []string{base + "/sitemap.xml"}, Publish: rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/", "/g1", "/g2", "/p1"}; !slices.Equal(rec.paths(), want) {
		t.Errorf("published %v, want %v", rec.paths(), want)
	}
	if s.count("/not-followed") != 0 {
		t.Error("a sitemap import followed a link")
	}
	if sum.SitemapsRead != 3 || sum.SitemapErrors != 1 || sum.OffSite != 1 || sum.Published != 4 {
		t.Errorf("summary %+v", sum)
	}
	for _, p := range rec.pages {
		if p.PathQuery == "/" && !p.LastMod.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("lastmod of / is %v", p.LastMod)
		}
	}
}

// A start URL a sitemap lists is published with the sitemap's <lastmod>,
// once, and counts as no page skipped: the sitemaps are read before any
// page is fetched (a Spanish trial's home page, given with --start and
// --sitemap, was published with the time of the fetch and counted
// "skipped as already done").
func TestAStartURLTheSitemapListsTakesItsLastmod(t *testing.T) {
	s := newTestSite(t, map[string]answer{})
	base := s.URL
	s.answers["/sitemap_index.xml"] = answer{ctype: "application/xml", body: fmt.Sprintf(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>%[1]s/page-sitemap.xml</loc></sitemap>
</sitemapindex>`, base)}
	s.answers["/page-sitemap.xml"] = answer{ctype: "application/xml", body: fmt.Sprintf(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>%[1]s/</loc><lastmod>2024-06-01</lastmod></url>
  <url><loc>%[1]s/a</loc><lastmod>2024-06-02</lastmod></url>
</urlset>`, base)}
	s.answers["/"] = page("Home", "/a", "/b")
	s.answers["/a"] = page("A")
	s.answers["/b"] = page("B")
	rec := &recorder{}
	sum, err := Run(t.Context(), Config{Site: siteOf(t, base), SiteID: "s", Fetcher: client(t), Concurrency: 4, FollowLinks: true,
		SitemapURLs: []string{base + "/sitemap_index.xml"}, StartURLs: []string{base + "/"}, Publish: rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/", "/a", "/b"}; !slices.Equal(rec.paths(), want) {
		t.Errorf("published %v, want %v", rec.paths(), want)
	}
	if sum.Skipped != 0 || sum.Published != 3 {
		t.Errorf("summary %+v, want 3 published and none skipped", sum)
	}
	want := map[string]time.Time{"/": time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), "/a": time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)}
	for _, p := range rec.pages {
		if !p.LastMod.Equal(want[p.PathQuery]) {
			t.Errorf("lastmod of %s is %v, want %v", p.PathQuery, p.LastMod, want[p.PathQuery])
		}
	}
}

func TestFrontierIsBounded(t *testing.T) {
	s := newTestSite(t, map[string]answer{})
	var locs strings.Builder
	for i := range 10 {
		fmt.Fprintf(&locs, "<url><loc>%s/p%d</loc></url>", s.URL, i)
		s.answers[fmt.Sprintf("/p%d", i)] = page(fmt.Sprint("P", i))
	}
	s.answers["/sitemap.xml"] = answer{ctype: "text/xml", body: "<urlset>" + locs.String() + "</urlset>"}
	rec := &recorder{}
	sum, err := Run(t.Context(), Config{Site: siteOf(t, s.URL), SiteID: "s", Fetcher: client(t),
		SitemapURLs: []string{s.URL + "/sitemap.xml"}, MaxFrontier: 3, Publish: rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	// The sitemap's ten entries arrive at once into an empty frontier of 3.
	if sum.Published != 3 || sum.FrontierDropped != 7 || !sum.Finished {
		t.Errorf("summary %+v, want 3 published and 7 dropped", sum)
	}
	if want := []string{"/p0", "/p1", "/p2"}; !slices.Equal(rec.paths(), want) {
		t.Errorf("published %v, want the first three", rec.paths())
	}
}

func TestCrawlMaxPagesAndResumeSendNoPageTwice(t *testing.T) {
	s := newTestSite(t, map[string]answer{})
	var locs strings.Builder
	for i := range 12 {
		fmt.Fprintf(&locs, "<url><loc>%s/p%02d</loc></url>", s.URL, i)
		s.answers[fmt.Sprintf("/p%02d", i)] = page(fmt.Sprint("P", i))
	}
	s.answers["/sitemap.xml"] = answer{ctype: "text/xml", body: "<urlset>" + locs.String() + "</urlset>"}
	state := filepath.Join(t.TempDir(), "state.json")
	rec := &recorder{}
	cfg := Config{Site: siteOf(t, s.URL), SiteID: "s", Fetcher: client(t), StatePath: state,
		SitemapURLs: []string{s.URL + "/sitemap.xml"}, Publish: rec.publish}

	// A run capped at 4 pages publishes exactly 4 and leaves the rest queued.
	capped := cfg
	capped.MaxPages = 4
	sum, err := Run(t.Context(), capped)
	if err != nil || sum.Published != 4 || sum.Finished || sum.Remaining != 8 {
		t.Fatalf("capped run: %+v, %v", sum, err)
	}

	// A run interrupted after its third page keeps what it did.
	ctx, cancel := context.WithCancel(t.Context())
	interrupted := cfg
	n := 0
	interrupted.Publish = func(ctx context.Context, p Page) (bool, error) {
		dup, err := rec.publish(ctx, p)
		if n++; n == 3 {
			cancel()
		}
		return dup, err
	}
	sum, err = Run(ctx, interrupted)
	if !errors.Is(err, context.Canceled) || sum.Published != 3 || sum.Finished {
		t.Fatalf("interrupted run: %+v, %v", sum, err)
	}

	// The rerun sends the other five, and none of the first seven again.
	sum, err = Run(t.Context(), cfg)
	if err != nil || sum.Published != 5 || !sum.Finished || sum.Remaining != 0 {
		t.Fatalf("rerun: %+v, %v", sum, err)
	}
	got := rec.paths()
	if len(got) != 12 || len(slices.Compact(got)) != 12 {
		t.Errorf("published %v: want each of the 12 pages once", got)
	}
	// A page in flight when the run was interrupted is fetched again (it
	// was not published); no other page is.
	again := 0
	for i := range 12 {
		switch n := s.count(fmt.Sprintf("/p%02d", i)); {
		case n == 2:
			again++
		case n != 1:
			t.Errorf("/p%02d fetched %d times", i, n)
		}
	}
	if again > DefaultConcurrency {
		t.Errorf("%d pages fetched twice", again)
	}

	// A run after a finished one reads the sitemap again and publishes
	// only what is new.
	s.mu.Lock()
	s.answers["/sitemap.xml"] = answer{ctype: "text/xml", body: "<urlset>" + locs.String() + "<url><loc>" + s.URL + "/new</loc></url></urlset>"}
	s.answers["/new"] = page("New")
	s.mu.Unlock()
	sum, err = Run(t.Context(), cfg)
	if err != nil || sum.Published != 1 || sum.Skipped != 12 || !sum.Finished {
		t.Fatalf("run after a finished one: %+v, %v", sum, err)
	}
	if s.count("/p00") != 1 {
		t.Error("a page published before was fetched again")
	}
}

func TestCrawlPublishErrors(t *testing.T) {
	s := newTestSite(t, map[string]answer{"/": page("Home", "/big", "/bad", "/fatal"), "/big": page("Big"), "/bad": page("Bad"), "/fatal": page("Fatal")})
	state := filepath.Join(t.TempDir(), "state.json")
	down := errors.New("bus down")
	rec := &recorder{fail: func(p Page) error {
		switch p.PathQuery {
		case "/big":
			return fmt.Errorf("%w: over the bus's limit", ErrTooLarge)
		case "/bad":
			return fmt.Errorf("%w: fails the schema", ErrRejected)
		case "/fatal":
			return down
		}
		return nil
	}}
	cfg := Config{Site: siteOf(t, s.URL), SiteID: "s", Fetcher: client(t), StartURLs: []string{s.URL}, FollowLinks: true,
		Concurrency: 1, StatePath: state, Publish: rec.publish}
	sum, err := Run(t.Context(), cfg)
	if !errors.Is(err, down) {
		t.Fatalf("a failing bus: %v", err)
	}
	if sum.Published != 1 || sum.TooLarge != 1 || sum.Errors != 1 || sum.Finished {
		t.Errorf("summary %+v", sum)
	}
	// The page the bus refused is still to do.
	st, err := LoadState(state, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Queue) != 1 || st.Queue[0].URL != s.URL+"/fatal" {
		t.Errorf("queue after the failure: %+v", st.Queue)
	}
	rec.fail = nil
	if sum, err := Run(t.Context(), cfg); err != nil || sum.Published != 1 || !sum.Finished {
		t.Errorf("rerun: %+v, %v", sum, err)
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "import-s.json")
	st, err := LoadState(path, "s")
	if err != nil || len(st.Queue) != 0 || st.Finished {
		t.Fatalf("missing file: %+v, %v", st, err)
	}
	st.Queue = []Item{{URL: "http://h/a", LastMod: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}, {URL: "http://h/s.xml", Sitemap: true}}
	st.Seen = []string{"http://h/b", "http://h/a", "http://h/s.xml"}
	st.Published["b"] = PublishedPage{URL: "http://h/b", Hash: "abc"}
	if err := st.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadState(path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(back.Queue, st.Queue, func(a, b Item) bool {
		return a.URL == b.URL && a.Sitemap == b.Sitemap && a.LastMod.Equal(b.LastMod)
	}) || !slices.Equal(back.Seen, []string{"http://h/a", "http://h/b", "http://h/s.xml"}) || back.Published["b"] != st.Published["b"] {
		t.Errorf("read back %+v, wrote %+v", back, st)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the state folder holds %d files, want the state alone (no temporary file left)", len(entries))
	}
	if _, err := LoadState(path, "other"); err == nil || !strings.Contains(err.Error(), `belongs to site "s"`) {
		t.Errorf("another site's state: %v", err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(path, "s"); err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("a damaged state: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"format":99,"site":"s"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(path, "s"); err == nil || !strings.Contains(err.Error(), "format 99") {
		t.Errorf("a state of another format: %v", err)
	}
}

func TestCrawlClassifiesAnswers(t *testing.T) {
	other := newTestSite(t, map[string]answer{"/": page("elsewhere")})
	s := newTestSite(t, map[string]answer{
		"/latin1":   {ctype: "text/html; charset=iso-8859-1", body: "<title>Caf\xe9</title><p>cr\xe8me</p>"},
		"/untitled": {body: "<p>no title here</p>"},
		"/sniffed":  {ctype: " ", body: "<!DOCTYPE html><html><title>Sniffed</title></html>"},
		"/big":      {body: "<title>Big</title>" + strings.Repeat("x", 4096)},
		"/away":     {status: http.StatusFound, location: other.URL + "/"},
		"/teapot":   {status: http.StatusTeapot, body: "<title>no</title>"},
		"/xhtml":    {ctype: "application/xhtml+xml", body: "<html><title>X</title></html>"},
	})
	var locs strings.Builder
	for _, p := range []string{"/latin1", "/untitled", "/sniffed", "/big", "/away", "/teapot", "/xhtml"} {
		fmt.Fprintf(&locs, "%s%s\n", s.URL, p)
	}
	s.answers["/sitemap.txt"] = answer{ctype: "text/plain", body: locs.String()}
	small, err := outbound.New(outbound.Config{AllowHosts: []string{"127.0.0.1"}, RetryBudget: -1, MaxBodyBytes: 1024}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	sum, err := Run(t.Context(), Config{Site: siteOf(t, s.URL), SiteID: "s", Fetcher: small, Sitemaps: client(t),
		SitemapURLs: []string{s.URL + "/sitemap.txt"}, Publish: rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Summary{Published: 4, TooLarge: 1, OffSite: 1, HTTPErrors: 1, SitemapsRead: 1, Finished: true}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	titles := map[string]string{}
	for _, p := range rec.pages {
		titles[p.PathQuery] = p.Title
		if p.PathQuery == "/latin1" && !strings.Contains(string(p.HTML), "crème") {
			t.Errorf("latin-1 page published as %q", p.HTML)
		}
	}
	if want := map[string]string{"/latin1": "Café", "/untitled": "/untitled", "/sniffed": "Sniffed", "/xhtml": "X"}; !maps.Equal(titles, want) {
		t.Errorf("titles %v, want %v", titles, want)
	}
}
