// Package crawl imports a live site: it walks the site's sitemaps and, when
// asked, the links of its pages, on the site's host only, honouring
// robots.txt, and hands each HTML page to a publish function. The frontier
// is bounded, and the state (frontier, URLs seen, pages published) is kept
// in a file written atomically, so an interrupted import resumes and sends
// no page twice.
//
// It fetches through a Fetcher, which outbound.Client satisfies: the crawl
// itself never dials anything, so every request keeps the client's SSRF
// rules and politeness, and tests drive it against an httptest server
// through the real client.
package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/outbound"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxFrontier  = 100_000
	DefaultConcurrency  = 2 // outbound's default per-host limit: more would only queue
	DefaultSaveInterval = 5 * time.Second

	// maxTitle and maxURL are the event contract's caps (events/schemas/page.json).
	maxTitle = 2048
	maxURL   = 2048
)

// Getter fetches a document; outbound.Client satisfies it.
type Getter interface {
	Get(ctx context.Context, rawURL string) (outbound.Page, error)
}

// Fetcher fetches pages and answers robots.txt; outbound.Client satisfies it.
type Fetcher interface {
	Getter
	RobotsAllowed(ctx context.Context, rawURL string) (bool, error)
}

// A Publish function returns an error wrapping ErrRejected when the page
// cannot be sent (it is counted and the crawl goes on), or ErrTooLarge
// when it is too large to send; any other error stops the crawl, leaving
// the page in the frontier for the next run.
var (
	ErrRejected = errors.New("crawl: page rejected")
	ErrTooLarge = errors.New("crawl: page too large")
)

// Page is an HTML page ready to publish.
type Page struct {
	URL       string // final absolute URL, after redirects
	PathQuery string // path and query: the page's url field
	ID        string // PageID(PathQuery)
	Title     string // <title>, else PathQuery
	HTML      []byte // as fetched (converted to UTF-8 if it was not)
	Hash      string // ContentHash(HTML)
	FetchedAt time.Time
	LastMod   time.Time // the sitemap's lastmod, zero when none
	Assignment
}

// PublishFunc sends a page; duplicate reports that the bus already had it.
type PublishFunc func(ctx context.Context, p Page) (duplicate bool, err error)

// Config is one import.
type Config struct {
	Site        Site
	Fetcher     Fetcher
	Sitemaps    Getter // fetches sitemaps (they may be larger than pages); nil: Fetcher
	SitemapURLs []string
	StartURLs   []string
	FollowLinks bool // queue the internal links of every page published
	MaxPages    int  // pages published in this run at most; 0: no limit
	MaxFrontier int  // URLs waiting at most; more are dropped and counted
	Concurrency int  // fetches at once
	Rules       *Rules
	SiteID      string
	StatePath   string // "" keeps no state
	// SaveInterval is the least time between two state writes; a state
	// that takes long to write is written less often (at most a tenth of
	// the time goes to it).
	SaveInterval time.Duration
	Publish      PublishFunc
	// Gone, when set, is called for a page URL that answers 404 or 410
	// without a redirect: a page the site no longer has, which Gone
	// retires if the service holds it (deleted reports that it did).
	Gone     func(ctx context.Context, pathQuery string) (deleted bool, err error)
	Progress func(Progress) // called after each URL; nil: none
	Log      *slog.Logger
	Now      func() time.Time
}

// Summary counts what a run did. A URL counts once, under the first reason
// it was not published.
type Summary struct {
	Published int // pages sent
	Skipped   int // met again, already published (by an earlier run, or already on the bus)
	// Aliases are URLs that led to a page already published under another
	// URL (a redirect, another form of its URL): no page of their own, and
	// not "already done" work (a Spanish trial's fresh import counted its
	// one redirect as skipped).
	Aliases         int
	Robots          int // disallowed by robots.txt, never fetched
	NotHTML         int // answered with something other than HTML
	HTTPErrors      int // answered other than 200 (4xx, 5xx, a redirect without Location)
	Deleted         int // of those, answered 404 or 410 and retired (Config.Gone)
	TooLarge        int // body over the size cap, or too large for the bus
	Refused         int // refused by the outbound client's SSRF rules
	OffSite         int // on another host, or redirected there
	Errors          int // transport failures, unusable pages, publish refusals
	FrontierDropped int // URLs dropped because the frontier was full
	SitemapsRead    int
	SitemapErrors   int
	Remaining       int  // URLs left in the frontier
	Finished        bool // the frontier is empty: the pass is complete
}

// Progress is reported after each URL.
type Progress struct {
	Summary
	Queued   int
	InFlight int
}

// outcome is what a worker made of one URL.
type outcome int

const (
	outPage outcome = iota
	outSitemap
	outRobots
	outNotHTML
	outHTTPError
	outTooLarge
	outRefused
	outOffSite
	outError
	outCanceled
)

type result struct {
	item    Item
	out     outcome
	page    Page
	final   string   // normalized final URL of a page
	links   []string // normalized internal links of a page
	sitemap Sitemap
	reason  string
	status  int // the HTTP status of a page that answered other than 200
}

type crawler struct {
	cfg   Config
	log   *slog.Logger
	st    *State
	seen  map[string]bool
	byURL map[string]string // published URL → page id
	// skipCounted keeps Skipped to one per URL within a run.
	skipCounted map[string]bool
	queue       []Item
	head        int
	// sitemaps counts the sitemaps queued and in flight: no page is
	// fetched while one is, so a page the sitemaps list (a start URL too)
	// is published with its <lastmod>.
	sitemaps int
	// lastMod is a sitemap's <lastmod> for a URL queued before a sitemap
	// listed it.
	lastMod  map[string]time.Time
	sum      Summary
	nextSave time.Time
}

// Run crawls until the frontier is empty, MaxPages pages are published,
// ctx ends or publishing fails. It writes the state on the way (every
// SaveInterval) and before it returns, whatever the reason.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Fetcher == nil || cfg.Publish == nil {
		return Summary{}, errors.New("crawl: a fetcher and a publish function are required")
	}
	if cfg.Site.Host == "" {
		return Summary{}, errors.New("crawl: no site")
	}
	if cfg.Sitemaps == nil {
		cfg.Sitemaps = cfg.Fetcher
	}
	if cfg.MaxFrontier <= 0 {
		cfg.MaxFrontier = DefaultMaxFrontier
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.SaveInterval <= 0 {
		cfg.SaveInterval = DefaultSaveInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	c := &crawler{cfg: cfg, log: cfg.Log, seen: map[string]bool{}, byURL: map[string]string{}, skipCounted: map[string]bool{},
		lastMod: map[string]time.Time{}}
	st := NewState(cfg.SiteID)
	if cfg.StatePath != "" {
		var err error
		if st, err = LoadState(cfg.StatePath, cfg.SiteID); err != nil {
			return Summary{}, err
		}
	}
	if err := c.prepare(st); err != nil {
		return Summary{}, err
	}
	return c.run(ctx)
}

// prepare takes up the state: a pass in progress goes on where it stopped;
// after a finished pass (or none) a new pass starts from the seeds, with
// only the published pages remembered, so it imports what is new and
// retries what failed.
func (c *crawler) prepare(st *State) error {
	c.st = st
	for id, p := range st.Published {
		c.byURL[p.URL] = id
	}
	if st.Finished {
		st.Finished = false
		st.Queue, st.Seen = nil, nil
		for u := range c.byURL {
			c.seen[u] = true
		}
		c.log.Info("the last import finished: a new pass imports only pages not published yet", "state", c.cfg.StatePath, "published_before", len(st.Published))
	} else {
		for _, u := range st.Seen {
			c.seen[u] = true
		}
		for _, it := range st.Queue {
			c.seen[it.URL] = true
		}
		c.queue = append(c.queue, st.Queue...)
		for _, it := range st.Queue {
			if it.Sitemap {
				c.sitemaps++
			}
		}
		if len(st.Queue) > 0 || len(st.Published) > 0 {
			c.log.Info("resuming import", "state", c.cfg.StatePath, "queued", len(st.Queue), "published_before", len(st.Published))
		}
	}
	for _, raw := range c.cfg.SitemapURLs {
		u, ok := c.cfg.Site.Normalize(nil, raw)
		if !ok {
			return fmt.Errorf("crawl: sitemap %q is not an http(s) URL on %s", raw, c.cfg.Site.Host)
		}
		c.offer(Item{URL: u, Sitemap: true}, false)
	}
	for _, raw := range c.cfg.StartURLs {
		u, ok := c.cfg.Site.Normalize(nil, raw)
		if !ok {
			return fmt.Errorf("crawl: start URL %q is not an http(s) URL on %s", raw, c.cfg.Site.Host)
		}
		c.offer(Item{URL: u}, true)
	}
	return nil
}

func (c *crawler) queued() int { return len(c.queue) - c.head }

// offer queues a URL not seen yet. listed says the URL was named as a page
// to import (a seed or a sitemap entry): one an earlier run published counts
// as skipped. A URL dropped because the frontier is full is not marked
// seen, so a link met again once there is room is taken then.
func (c *crawler) offer(it Item, listed bool) {
	if c.seen[it.URL] {
		if _, known := c.lastMod[it.URL]; !known && !it.LastMod.IsZero() {
			c.lastMod[it.URL] = it.LastMod
		}
		if _, done := c.byURL[it.URL]; done && listed && !c.skipCounted[it.URL] {
			c.skipCounted[it.URL] = true
			c.sum.Skipped++
		}
		return
	}
	if c.queued() >= c.cfg.MaxFrontier {
		c.sum.FrontierDropped++
		if c.sum.FrontierDropped == 1 {
			c.log.Warn("frontier full: dropping URLs", "max_frontier", c.cfg.MaxFrontier, "url", it.URL)
		}
		return
	}
	c.seen[it.URL] = true
	// Compact now and then so a long crawl's slice does not keep every
	// URL it ever queued.
	if c.head > 1024 && c.head > len(c.queue)/2 {
		c.queue = append(c.queue[:0], c.queue[c.head:]...)
		c.head = 0
	}
	c.queue = append(c.queue, it)
	if it.Sitemap {
		c.sitemaps++
	}
}

// next takes the item to fetch next, a sitemap while one is queued; ok is
// false when a page is next while a sitemap is still in flight.
func (c *crawler) next() (it Item, ok bool) {
	if c.queue[c.head].Sitemap || c.sitemaps == 0 {
		return c.queue[c.head], true
	}
	for j := c.head + 1; j < len(c.queue); j++ {
		if c.queue[j].Sitemap {
			it = c.queue[j]
			// The pages before it keep their order.
			copy(c.queue[c.head+1:j+1], c.queue[c.head:j])
			c.queue[c.head] = it
			return it, true
		}
	}
	return Item{}, false
}

// requeue puts work that did not finish back at the front.
func (c *crawler) requeue(it Item) {
	if it.Sitemap {
		c.sitemaps++
	}
	if c.head > 0 {
		c.head--
		c.queue[c.head] = it
		return
	}
	c.queue = append([]Item{it}, c.queue...)
}

func (c *crawler) run(ctx context.Context) (Summary, error) {
	workCtx, cancelWork := context.WithCancel(ctx)
	defer cancelWork()
	results := make(chan result)
	inflight := map[string]Item{}
	var order []string // in-flight URLs in dispatch order, for the state
	pagesInFlight := 0
	stopped := false // MaxPages reached or a fatal error
	var fatal error
	c.nextSave = c.cfg.Now().Add(c.cfg.SaveInterval)

	for {
		for !stopped && ctx.Err() == nil && len(inflight) < c.cfg.Concurrency && c.queued() > 0 {
			it, ok := c.next()
			if !ok {
				break // the sitemaps in flight may list the pages queued
			}
			if !it.Sitemap && c.cfg.MaxPages > 0 && c.sum.Published+pagesInFlight >= c.cfg.MaxPages {
				break // wait: a page in flight may yet fail and free its place
			}
			c.head++
			inflight[it.URL] = it
			order = append(order, it.URL)
			if !it.Sitemap {
				pagesInFlight++
			}
			go func() { results <- c.fetch(workCtx, it) }()
		}
		if len(inflight) == 0 {
			break
		}
		r := <-results
		delete(inflight, r.item.URL)
		order = removeString(order, r.item.URL)
		if r.item.Sitemap {
			c.sitemaps--
		} else {
			pagesInFlight--
		}
		if stopped || ctx.Err() != nil || r.out == outCanceled {
			c.requeue(r.item)
			continue
		}
		if err := c.handle(ctx, r); err != nil {
			if ctx.Err() == nil {
				fatal = err
			}
			c.requeue(r.item)
			stopped = true
			cancelWork()
			continue
		}
		if c.cfg.MaxPages > 0 && c.sum.Published >= c.cfg.MaxPages && !stopped {
			// No page is in flight now (dispatch keeps them within the
			// limit); a sitemap still being read goes back to the frontier.
			stopped = true
			cancelWork()
			c.log.Info("page limit reached", "max_pages", c.cfg.MaxPages)
		}
		if c.cfg.Progress != nil {
			c.cfg.Progress(Progress{Summary: c.summary(), Queued: c.queued(), InFlight: len(inflight)})
		}
		if now := c.cfg.Now(); c.cfg.StatePath != "" && !now.Before(c.nextSave) {
			if err := c.save(order, inflight); err != nil {
				fatal = err
				stopped = true
				cancelWork()
			}
		}
	}

	c.st.Finished = fatal == nil && ctx.Err() == nil && c.queued() == 0
	sum := c.summary()
	if c.cfg.StatePath != "" {
		if err := c.save(nil, nil); err != nil && fatal == nil {
			fatal = err
		}
	}
	if c.cfg.Progress != nil {
		c.cfg.Progress(Progress{Summary: sum, Queued: c.queued()})
	}
	switch {
	case fatal != nil:
		return sum, fatal
	case ctx.Err() != nil:
		where := ""
		if c.cfg.StatePath != "" {
			where = "; the state is in " + c.cfg.StatePath + ": run again to resume"
		}
		return sum, fmt.Errorf("crawl: interrupted after %d pages%s: %w", sum.Published, where, ctx.Err())
	}
	return sum, nil
}

func removeString(list []string, s string) []string {
	for i, v := range list {
		if v == s {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

func (c *crawler) summary() Summary {
	s := c.sum
	s.Remaining = c.queued()
	s.Finished = c.st.Finished
	return s
}

// save writes the state, the work in flight first in the frontier: a
// crash now fetches it again on the next run.
func (c *crawler) save(order []string, inflight map[string]Item) error {
	began := c.cfg.Now()
	c.st.Queue = c.st.Queue[:0]
	for _, u := range order {
		c.st.Queue = append(c.st.Queue, inflight[u])
	}
	c.st.Queue = append(c.st.Queue, c.queue[c.head:]...)
	c.st.Seen = c.st.Seen[:0]
	for u := range c.seen {
		c.st.Seen = append(c.st.Seen, u)
	}
	c.st.Updated = began.UTC()
	if err := c.st.Save(c.cfg.StatePath); err != nil {
		return err
	}
	took := c.cfg.Now().Sub(began)
	c.nextSave = c.cfg.Now().Add(max(c.cfg.SaveInterval, 9*took))
	return nil
}

// handle records a worker's result; an error stops the crawl.
func (c *crawler) handle(ctx context.Context, r result) error {
	it := r.item
	switch r.out {
	case outSitemap:
		c.sum.SitemapsRead++
		if r.reason != "" {
			c.sum.SitemapErrors++
			c.log.Warn("sitemap partly unreadable", "url", it.URL, "reason", r.reason, "entries", len(r.sitemap.Entries))
		}
		if r.sitemap.Dropped > 0 {
			c.log.Warn("sitemap lists more entries than the protocol allows; the rest are ignored",
				"url", it.URL, "max", MaxSitemapEntries, "ignored", r.sitemap.Dropped)
		}
		base, _ := url.Parse(it.URL)
		for _, e := range r.sitemap.Entries {
			u, ok := c.cfg.Site.Normalize(base, e.Loc)
			if !ok {
				c.sum.OffSite++
				continue
			}
			c.offer(Item{URL: u, Sitemap: r.sitemap.Index, LastMod: e.LastMod}, !r.sitemap.Index)
		}
		return nil
	case outPage:
		return c.publish(ctx, r)
	}
	if it.Sitemap {
		// A sitemap is no page: its failures are counted apart.
		c.sum.SitemapErrors++
		c.log.Warn("sitemap not read", "url", it.URL, "reason", r.reason)
		return nil
	}
	level := slog.LevelInfo
	switch r.out {
	case outRobots:
		c.sum.Robots++
		level = slog.LevelDebug
	case outNotHTML:
		c.sum.NotHTML++
	case outHTTPError:
		c.sum.HTTPErrors++
		if err := c.retireGone(ctx, r); err != nil {
			return err
		}
	case outTooLarge:
		c.sum.TooLarge++
	case outRefused:
		c.sum.Refused++
		level = slog.LevelWarn
	case outOffSite:
		c.sum.OffSite++
	default:
		c.sum.Errors++
		level = slog.LevelWarn
	}
	c.log.Log(ctx, level, "not published", "url", it.URL, "reason", r.reason)
	return nil
}

// retireGone hands a page URL that answers 404 or 410 to Config.Gone: a
// page the site deleted stays live in the service otherwise, an orphan
// with fixes recommended for it (trial R).
func (c *crawler) retireGone(ctx context.Context, r result) error {
	if c.cfg.Gone == nil || r.status != http.StatusNotFound && r.status != http.StatusGone {
		return nil
	}
	u, err := url.Parse(r.item.URL)
	if err != nil {
		return nil
	}
	deleted, err := c.cfg.Gone(ctx, PathQuery(u))
	if err != nil {
		return fmt.Errorf("retire %s, which answers %d: %w", r.item.URL, r.status, err)
	}
	if deleted {
		c.sum.Deleted++
		c.log.Info("deleted: the site no longer has the page", "url", r.item.URL, "status", r.status)
	}
	return nil
}

func (c *crawler) publish(ctx context.Context, r result) error {
	p := r.page
	p.LastMod = r.item.LastMod
	if p.LastMod.IsZero() {
		p.LastMod = c.lastMod[r.item.URL]
	}
	c.seen[r.final] = true
	if _, done := c.st.Published[p.ID]; done {
		// Another URL of the same page (a redirect, a trailing slash)
		// was published already.
		c.sum.Aliases++
		c.byURL[r.item.URL] = p.ID
		return nil
	}
	dup, err := c.cfg.Publish(ctx, p)
	switch {
	case errors.Is(err, ErrTooLarge):
		c.sum.TooLarge++
		c.log.Info("not published", "url", p.URL, "reason", err.Error())
		return nil
	case errors.Is(err, ErrRejected):
		c.sum.Errors++
		c.log.Warn("not published", "url", p.URL, "reason", err.Error())
		return nil
	case err != nil:
		return fmt.Errorf("crawl: publish %s: %w", p.URL, err)
	}
	c.st.Published[p.ID] = PublishedPage{URL: p.URL, Hash: p.Hash}
	c.byURL[p.URL] = p.ID
	c.byURL[r.item.URL] = p.ID
	if dup {
		c.sum.Skipped++
	} else {
		c.sum.Published++
	}
	for _, l := range r.links {
		if skippedByExtension(l) {
			// Never fetched: counted once, as the file it names is no page.
			if !c.seen[l] {
				c.seen[l] = true
				c.sum.NotHTML++
			}
			continue
		}
		c.offer(Item{URL: l}, false)
	}
	return nil
}

// fetch is one worker's job: robots.txt, the request and what can be
// read of the answer without the crawl's state.
func (c *crawler) fetch(ctx context.Context, it Item) result {
	r := result{item: it}
	allowed, err := c.cfg.Fetcher.RobotsAllowed(ctx, it.URL)
	if err != nil {
		return c.failed(ctx, r, fmt.Errorf("robots.txt: %w", err))
	}
	if !allowed {
		r.out, r.reason = outRobots, "disallowed by robots.txt"
		return r
	}
	if it.Sitemap {
		return c.fetchSitemap(ctx, r)
	}
	got, err := c.cfg.Fetcher.Get(ctx, it.URL)
	// A body over the cap still comes with its status and type, which
	// say whether it would have been a page at all.
	if err != nil && !errors.Is(err, outbound.ErrBodyTooLarge) {
		return c.failed(ctx, r, err)
	}
	tooLarge := err != nil
	final := got.FinalURL
	if final == "" {
		final = it.URL
	}
	finalURL, ok := c.cfg.Site.Normalize(nil, final)
	if !ok {
		r.out, r.reason = outOffSite, "redirected off the site to "+final
		return r
	}
	if finalURL != it.URL {
		// The client followed the redirect without asking robots.txt;
		// what it landed on is published only if allowed.
		allowed, err := c.cfg.Fetcher.RobotsAllowed(ctx, finalURL)
		if err != nil {
			return c.failed(ctx, r, fmt.Errorf("robots.txt: %w", err))
		}
		if !allowed {
			r.out, r.reason = outRobots, "redirected to "+finalURL+", disallowed by robots.txt"
			return r
		}
	}
	switch {
	case got.Status != http.StatusOK:
		r.out, r.reason, r.status = outHTTPError, fmt.Sprintf("status %d", got.Status), got.Status
		if finalURL != it.URL {
			r.status = 0 // what answered is another URL's page
		}
		return r
	case !isHTML(got.ContentType, got.Body):
		r.out, r.reason = outNotHTML, fmt.Sprintf("content type %q", got.ContentType)
		return r
	case tooLarge:
		r.out, r.reason = outTooLarge, err.Error()
		return r
	}
	u, err := url.Parse(finalURL)
	if err != nil { // Normalize produced it: cannot happen, but never panic
		r.out, r.reason = outError, err.Error()
		return r
	}
	pq := PathQuery(u)
	if len(pq) > maxURL {
		r.out, r.reason = outError, fmt.Sprintf("path and query of %d bytes, over the contract's %d", len(pq), maxURL)
		return r
	}
	body := toUTF8(got.Body, got.ContentType)
	title := strings.Join(strings.Fields(markup.Title(body)), " ")
	if title == "" {
		title = pq
	}
	r.out, r.final = outPage, finalURL
	r.page = Page{
		URL: finalURL, PathQuery: pq, ID: PageID(pq), Title: truncateRunes(title, maxTitle),
		HTML: body, Hash: ContentHash(body), FetchedAt: c.cfg.Now().UTC(),
		Assignment: c.cfg.Rules.Match(u.Path),
	}
	if c.cfg.FollowLinks {
		links, err := markup.Links(body, finalURL, c.cfg.Site.Host)
		if err != nil {
			c.log.Warn("links unreadable; the page is published without following them", "url", finalURL, "err", err)
		}
		for _, l := range links {
			if !l.Internal || l.URL == "" {
				continue
			}
			if n, ok := c.cfg.Site.Normalize(nil, l.URL); ok {
				r.links = append(r.links, n)
			}
		}
	}
	return r
}

func (c *crawler) fetchSitemap(ctx context.Context, r result) result {
	got, err := c.cfg.Sitemaps.Get(ctx, r.item.URL)
	if err != nil {
		return c.failed(ctx, r, err)
	}
	if got.Status != http.StatusOK {
		r.out, r.reason = outHTTPError, fmt.Sprintf("sitemap: status %d", got.Status)
		return r
	}
	sm, err := ParseSitemap(got.Body)
	r.out, r.sitemap = outSitemap, sm
	if err != nil {
		r.reason = err.Error()
	}
	return r
}

// failed classifies a request that did not get an answer.
func (c *crawler) failed(ctx context.Context, r result, err error) result {
	r.reason = err.Error()
	switch {
	case ctx.Err() != nil:
		r.out = outCanceled
	case errors.Is(err, outbound.ErrRefused):
		r.out = outRefused
	case errors.Is(err, outbound.ErrBodyTooLarge):
		r.out = outTooLarge
	default:
		r.out = outError
	}
	return r
}

// isHTML reads the Content-Type, or sniffs the body when there is none.
func isHTML(contentType string, body []byte) bool {
	if strings.TrimSpace(contentType) == "" {
		contentType = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// toUTF8 returns the body as UTF-8: as is when it already is (nearly every
// page), else converted from the charset its Content-Type or <meta> names,
// since events are JSON, which is UTF-8. Bytes that still are not UTF-8
// become U+FFFD, as JSON encoding would make them anyway.
func toUTF8(body []byte, contentType string) []byte {
	if utf8.Valid(body) {
		return body
	}
	if rd, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil {
		if converted, err := io.ReadAll(rd); err == nil && utf8.Valid(converted) {
			return converted
		}
	}
	return bytes.ToValidUTF8(body, []byte("\uFFFD"))
}

// skipExtensions are files a link may point at that are never HTML pages:
// fetching a video to learn it is not a page would waste the site's
// bandwidth and ours. Sitemap entries are fetched whatever their name (the
// site says they are pages).
var skipExtensions = map[string]bool{
	".pdf": true, ".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".webp": true, ".avif": true,
	".svg": true, ".ico": true, ".bmp": true, ".tif": true, ".tiff": true,
	".css": true, ".js": true, ".mjs": true, ".json": true, ".xml": true, ".txt": true, ".csv": true,
	".zip": true, ".gz": true, ".tgz": true, ".bz2": true, ".xz": true, ".7z": true, ".rar": true, ".tar": true,
	".mp3": true, ".mp4": true, ".m4a": true, ".m4v": true, ".mov": true, ".avi": true, ".webm": true, ".ogg": true, ".wav": true,
	".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".eot": true,
	".doc": true, ".docx": true, ".xls": true, ".xlsx": true, ".ppt": true, ".pptx": true, ".odt": true,
	".exe": true, ".dmg": true, ".apk": true, ".iso": true, ".bin": true,
}

func skippedByExtension(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return skipExtensions[strings.ToLower(path.Ext(u.Path))]
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
