package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/outbound"
	"github.com/interlinker/interlinker/outbound/crawl"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

// importSource is the CloudEvents source of what import publishes. It is
// part of each event's identity, so it never changes: a page sent again
// after a crash must carry the same (siteid, source, id).
const importSource = "interlinker-import"

// importSettings are the import verb's flags.
type importSettings struct {
	natsURL, databaseURL, dataDir string
	siteID, sitemap, start        string
	maxPages, maxFrontier         int
	concurrency                   int
	rulesPath, statePath          string
	siteWait                      time.Duration
	logLevel                      string
	http                          outbound.Config // --http-*, shared with link verification
}

func importCommand(ctx context.Context, args []string) error {
	a := importSettings{natsURL: "nats://127.0.0.1:4250", databaseURL: service.DefaultConfig().DatabaseURL,
		dataDir: ".data", maxFrontier: crawl.DefaultMaxFrontier, siteWait: time.Minute, logLevel: "info",
		http: service.DefaultConfig().HTTP}
	s := &settings{fs: flag.NewFlagSet("import", flag.ContinueOnError), takesArgs: true}
	s.String(&a.natsURL, "nats-url", "NATS server the service reads (serve's embedded server listens on 127.0.0.1:4250)")
	s.String(&a.databaseURL, "database-url", "the service's PostgreSQL database, read to learn whether the site is known")
	s.String(&a.dataDir, "data-dir", "local state: the import's state file goes here unless --state names one")
	s.String(&a.siteID, "site", "id of the site to import into (required)")
	s.String(&a.sitemap, "sitemap", "URL of the site's sitemap or sitemap index (XML, gzipped or not, or text); its pages are imported")
	s.String(&a.start, "start", "URL of a page to start from; the internal links of every page are followed")
	s.Int(&a.maxPages, "max-pages", "publish at most this many pages in this run (0: no limit); a later run goes on")
	s.Int(&a.maxFrontier, "max-frontier", "URLs waiting to be fetched at most; URLs found past it are dropped and counted")
	s.Int(&a.concurrency, "concurrency", "pages fetched at once (0: --http-per-host-concurrency, as more would only queue)")
	s.String(&a.rulesPath, "rules", "YAML or JSON file mapping URL patterns to kinds and clusters, and declaring a new site's policy, sectors and clusters")
	s.String(&a.statePath, "state", "state file that makes an interrupted import resume (default DATA_DIR/import-SITE.json)")
	// --http-max-body-bytes is the largest page: a larger one is counted
	// and not published (match it to the site's max_html_bytes).
	outboundFlags(s, &a.http)
	s.Duration(&a.siteWait, "site-wait", "how long to wait for the service to record a new site before its pages are sent")
	s.String(&a.logLevel, "log-level", "debug, info, warn or error")
	s.fs.Usage = func() {
		fmt.Fprintln(s.fs.Output(), "usage: interlinker import --site ID (--sitemap URL | --start URL) [--max-pages N] [--rules FILE] [flags]\n\n"+
			"Crawls a live site through the outbound client (its host only, robots.txt honoured) and publishes each HTML\n"+
			"page as content.published, declaring the site first with site.updated if the service does not know it.\n"+
			"An interrupted import resumes from its state file and sends no page twice.")
		s.fs.PrintDefaults()
	}
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	if len(s.args) > 0 {
		return fmt.Errorf("unexpected arguments %q", s.args)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.logLevel)); err != nil {
		return fmt.Errorf("log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	switch {
	case a.siteID == "":
		s.fs.Usage()
		return errors.New("--site is required")
	case a.sitemap == "" && a.start == "":
		s.fs.Usage()
		return errors.New("give --sitemap, --start or both")
	case a.maxPages < 0:
		return fmt.Errorf("--max-pages %d must not be negative", a.maxPages)
	case a.maxFrontier <= 0:
		return fmt.Errorf("--max-frontier %d must be above 0", a.maxFrontier)
	case a.concurrency < 0:
		return fmt.Errorf("--concurrency %d must not be negative", a.concurrency)
	}
	if a.concurrency == 0 {
		a.concurrency = max(a.http.PerHostConcurrency, 1)
	}

	site, err := importSite(a.sitemap, a.start)
	if err != nil {
		return err
	}
	var rules *crawl.Rules
	if a.rulesPath != "" {
		if rules, err = crawl.LoadRules(a.rulesPath); err != nil {
			return err
		}
	}
	if a.statePath == "" {
		a.statePath = filepath.Join(a.dataDir, "import-"+importFileSafe(a.siteID)+".json")
	}
	pages, sitemaps, err := importClients(a, site, log)
	if err != nil {
		return err
	}

	p, err := newProducer(a.natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	if err := ensureImportSite(ctx, p, a, site, rules, log); err != nil {
		return err
	}

	st, err := store.Open(ctx, a.databaseURL, store.Options{MaxConns: 2, MustExist: true})
	if err != nil {
		return err
	}
	defer st.Close()
	maxPayload := int(p.nc.MaxPayload())
	view := newImportView(os.Stderr, a.siteID, a.maxPages)
	var sitemapURLs, startURLs []string
	if a.sitemap != "" {
		sitemapURLs = []string{a.sitemap}
	}
	if a.start != "" {
		startURLs = []string{a.start}
	}
	sum, runErr := crawl.Run(ctx, crawl.Config{
		Site: site, SiteID: a.siteID, Fetcher: pages, Sitemaps: sitemaps,
		SitemapURLs: sitemapURLs, StartURLs: startURLs, FollowLinks: a.start != "",
		MaxPages: a.maxPages, MaxFrontier: a.maxFrontier, Concurrency: a.concurrency,
		Rules: rules, StatePath: a.statePath, Log: log, Progress: view.update,
		Publish: func(ctx context.Context, pg crawl.Page) (bool, error) {
			return publishImported(ctx, p, a.siteID, pg, maxPayload)
		},
		Gone: func(ctx context.Context, pathQuery string) (bool, error) {
			return deleteGoneImported(ctx, p, st, a.siteID, pathQuery)
		},
	})
	view.finish()
	fmt.Println(importSummary(a.siteID, a.statePath, sum))
	return runErr
}

// importSite is the one host the import stays on: the sitemap's and the
// start page's, which must agree.
func importSite(sitemap, start string) (crawl.Site, error) {
	var site crawl.Site
	for _, raw := range []string{sitemap, start} {
		if raw == "" {
			continue
		}
		s, err := crawl.SiteOf(raw)
		if err != nil {
			return crawl.Site{}, err
		}
		if site.Host != "" && s.Host != site.Host {
			return crawl.Site{}, fmt.Errorf("--sitemap and --start name two hosts, %s and %s: an import stays on one", site.Host, s.Host)
		}
		if site.Host == "" {
			site = s
		}
	}
	return site, nil
}

// importClients builds the outbound clients: one for pages, capped at
// --http-max-body-bytes, and one for sitemaps, which the protocol lets
// reach 50 MB. The site's own port is allowed: the operator named the
// site, and the port rule guards against URLs found in content, not this
// one. Its address rules stand: a loopback or private site needs
// --http-allow-hosts.
func importClients(a importSettings, site crawl.Site, log *slog.Logger) (*outbound.Client, *outbound.Client, error) {
	cfg := a.http
	if _, portStr, err := net.SplitHostPort(site.Host); err == nil {
		if port, err := strconv.Atoi(portStr); err == nil {
			cfg.Ports = append(slices.Clone(cfg.Ports), port)
		}
	}
	pages, err := outbound.New(cfg, nil, log)
	if err != nil {
		return nil, nil, err
	}
	cfg.MaxBodyBytes = max(cfg.MaxBodyBytes, crawl.MaxSitemapBytes)
	sitemaps, err := outbound.New(cfg, nil, log)
	if err != nil {
		return nil, nil, err
	}
	return pages, sitemaps, nil
}

// ensureImportSite makes sure the service knows the site before its pages
// arrive: a page of an unknown site waits in redelivery until the site
// comes, or is dead-lettered. An unknown site is declared from the rules
// (policy, sectors, clusters; silo and none without them), and the import
// waits until the service has recorded it. A known site is left as it is;
// the rules must then name only clusters and sectors it has.
func ensureImportSite(ctx context.Context, p *producer, a importSettings, site crawl.Site, rules *crawl.Rules, log *slog.Logger) error {
	st, err := store.Open(ctx, a.databaseURL, store.Options{MaxConns: 2, MustExist: true})
	if err != nil {
		return err
	}
	defer st.Close()
	rec, known, err := st.LoadSite(ctx, a.siteID)
	if err != nil {
		return err
	}
	if known {
		if host := rec.Structure.Site.Host(); !strings.EqualFold(host, site.Host) {
			log.Warn("the site's base_url names another host than the one imported: links between the pages will look external to the service",
				"site", a.siteID, "base_url", rec.Structure.Site.BaseURL, "imported_host", site.Host)
		}
		for _, c := range rules.ClusterRefs() {
			if _, ok := rec.Structure.Cluster(c); !ok {
				return fmt.Errorf("the rules assign pages to cluster %q, which site %s does not declare: publish a site.updated that declares it first", c, a.siteID)
			}
		}
		for _, sec := range rules.SectorRefs() {
			if _, ok := rec.Structure.Sector(sec); !ok {
				return fmt.Errorf("the rules assign pages to sector %q, which site %s does not declare: publish a site.updated that declares it first", sec, a.siteID)
			}
		}
		for _, ref := range rules.AttributeRefs() {
			id, value, _ := strings.Cut(ref, "=")
			declared := false
			for _, at := range rec.Structure.Attributes {
				declared = declared || at.ID == id && slices.Contains(at.Values, value)
			}
			if !declared {
				return fmt.Errorf("the rules give pages the value %q of attribute %q, which site %s does not declare: publish a site.updated that declares it first", value, id, a.siteID)
			}
		}
		if rules != nil && (rules.Policy != "" || len(rules.Clusters) > 0 || len(rules.Sectors) > 0 || len(rules.Attributes) > 0) {
			log.Info("site is known: the policy, sectors, attributes and clusters of the rules are left unused", "site", a.siteID)
		}
		return nil
	}
	data := newSiteData(a.siteID, site, rules)
	if rules != nil && len(rules.Clusters) == 0 && len(rules.ClusterRefs()) > 0 {
		return fmt.Errorf("site %s is new and the rules assign pages to clusters without declaring them: add them under clusters", a.siteID)
	}
	if rules != nil && len(rules.Sectors) == 0 && len(rules.SectorRefs()) > 0 {
		return fmt.Errorf("site %s is new and the rules assign pages to sectors without declaring them: add them under sectors", a.siteID)
	}
	if rules != nil && len(rules.Attributes) == 0 && len(rules.AttributeRefs()) > 0 {
		return fmt.Errorf("site %s is new and the rules give pages attribute values without declaring them: add them under attributes", a.siteID)
	}
	ev, err := events.New(events.SiteUpdated, a.siteID, "", "", data)
	if err != nil {
		return err
	}
	// The id is the structure's hash: declaring the same site twice (an
	// interrupted first run) is one event.
	sum := sha256.Sum256(ev.Data)
	ev.ID = "import-site-" + hex.EncodeToString(sum[:16])
	ev.Source = importSource
	raw, err := ev.Encode()
	if err != nil {
		return err
	}
	if _, err := events.Decode(raw); err != nil {
		return fmt.Errorf("the site.updated for site %s would be refused: %w", a.siteID, err)
	}
	if _, err := p.publishRaw(ctx, ev.Type, msgID(ev), raw); err != nil {
		return fmt.Errorf("declare site %s: %w", a.siteID, err)
	}
	log.Info("site declared; waiting for the service to record it", "site", a.siteID, "base_url", data.Site.BaseURL, "policy", data.Site.Policy)
	if err := waitUntil(ctx, a.siteWait, func() bool {
		found, err := st.SiteExists(ctx, a.siteID)
		return err == nil && found
	}); err != nil {
		return fmt.Errorf("site %s was declared but the service has not recorded it (is interlinker serve running on %s?): %w", a.siteID, a.natsURL, err)
	}
	return nil
}

// newSiteData is the minimal site.updated of a new site: its id, base URL
// and name, the policy (silo unless the rules say otherwise) and what the
// rules declare.
func newSiteData(siteID string, site crawl.Site, rules *crawl.Rules) events.SiteUpdatedData {
	d := events.SiteUpdatedData{
		Site:       events.SiteInfo{ID: siteID, BaseURL: site.BaseURL(), Name: site.Host, Policy: "silo"},
		Sectors:    []events.SectorInfo{},
		Attributes: []events.AttributeInfo{},
		Clusters:   []events.ClusterInfo{},
	}
	if rules == nil {
		return d
	}
	if rules.Policy != "" {
		d.Site.Policy = rules.Policy
	}
	if rules.SiteName != "" {
		d.Site.Name = rules.SiteName
	}
	for _, s := range rules.Sectors {
		d.Sectors = append(d.Sectors, events.SectorInfo{ID: s.ID, Name: s.Name, URL: s.URL})
	}
	for _, at := range rules.Attributes {
		d.Attributes = append(d.Attributes, events.AttributeInfo{ID: at.ID, Name: at.Name, Values: at.Values})
	}
	for _, c := range rules.Clusters {
		d.Clusters = append(d.Clusters, events.ClusterInfo{ID: c.ID, SectorID: c.SectorID, Name: c.Name,
			PrimaryKeyword: c.PrimaryKeyword, Keywords: c.Keywords, Attributes: c.Attributes})
	}
	return d
}

// publishImported sends one page as content.published. Its id is derived
// from the site, the page's URL and its content, so the same page sent
// again is deduplicated. The version is the fetch time in milliseconds:
// a later import of a changed page supersedes the earlier one.
func publishImported(ctx context.Context, p *producer, siteID string, pg crawl.Page, maxPayload int) (bool, error) {
	// The service refuses HTML over three quarters of the bus's largest
	// message (README, Event contract: Size): sending it would only
	// dead-letter it.
	if maxPayload > 0 && len(pg.HTML) > maxPayload/4*3 {
		return false, fmt.Errorf("%w: %d bytes of HTML, over three quarters of the NATS server's max payload (%d)", crawl.ErrTooLarge, len(pg.HTML), maxPayload)
	}
	published := pg.FetchedAt
	if !pg.LastMod.IsZero() {
		published = pg.LastMod
	}
	info := events.PageInfo{
		ID: pg.ID, URL: pg.PathQuery, Title: pg.Title, Kind: pg.Kind,
		ClusterID: pg.ClusterID, SectorID: pg.SectorID, PrimaryKeyword: pg.PrimaryKeyword,
		Keywords: pg.Keywords, Labels: pg.Labels, Attributes: pg.Attributes,
		PublishedAt: &published, Version: pg.FetchedAt.UnixMilli(), HTML: string(pg.HTML),
	}
	ev, err := events.New(events.ContentPublished, siteID, crawl.EventID(siteID, pg.PathQuery, pageIdentity(pg)), "", events.ContentData{Page: info})
	if err != nil {
		return false, fmt.Errorf("%w: %v", crawl.ErrRejected, err)
	}
	ev.Source = importSource
	raw, err := ev.Encode()
	if err != nil {
		return false, fmt.Errorf("%w: %v", crawl.ErrRejected, err)
	}
	if maxPayload > 0 && len(raw) > maxPayload {
		return false, fmt.Errorf("%w: an event of %d bytes, over the NATS server's max payload (%d)", crawl.ErrTooLarge, len(raw), maxPayload)
	}
	// Checked as the service will check it, so a page it would refuse is
	// counted here rather than dead-lettered there.
	if _, err := events.Decode(raw); err != nil {
		return false, fmt.Errorf("%w: %v", crawl.ErrRejected, err)
	}
	ack, err := p.publishRaw(ctx, ev.Type, msgID(ev), raw)
	if err != nil {
		return false, err
	}
	return ack.Duplicate, nil
}

// deleteGoneImported sends content.deleted for a page the site answers
// 404 or 410 for, when the service holds it and it is not deleted yet: a
// page removed from the site otherwise stayed live, counted an orphan and
// given fixes (trial R). Its version is the deleted version's next; the
// id is derived from the two, so a rerun sends the same event.
func deleteGoneImported(ctx context.Context, p *producer, st *store.Store, siteID, pathQuery string) (bool, error) {
	id := crawl.PageID(pathQuery)
	rec, found, err := st.Page(ctx, siteID, id)
	if err != nil || !found || rec.State == "deleted" {
		return false, err
	}
	version := max(time.Now().UnixMilli(), rec.Version+1)
	ev, err := events.New(events.ContentDeleted, siteID,
		crawl.EventID(siteID, pathQuery, "gone\x00"+strconv.FormatInt(rec.Version, 10)), "",
		events.ContentDeletedData{PageID: id, Version: version})
	if err != nil {
		return false, err
	}
	ev.Source = importSource
	raw, err := ev.Encode()
	if err != nil {
		return false, err
	}
	if _, err := p.publishRaw(ctx, ev.Type, msgID(ev), raw); err != nil {
		return false, err
	}
	return true, nil
}

// pageIdentity is what an imported page's event id hashes besides its
// site and URL: its content and what the rules made of it. A page
// imported again under changed rules (another kind, cluster or keyword)
// is a new event; with the content alone it was a duplicate, dropped by
// the bus and the service's inbox for days (trial P).
func pageIdentity(pg crawl.Page) string {
	parts := []string{pg.Hash, pg.Title, pg.Kind, pg.ClusterID, pg.SectorID, pg.PrimaryKeyword,
		strings.Join(pg.Keywords, "\x01"), strings.Join(pg.Labels, "\x01")}
	// Attributes join only when given, so a page without them keeps the
	// id it had before the rules could give them.
	if len(pg.Attributes) > 0 {
		var attributes []string
		for _, id := range slices.Sorted(maps.Keys(pg.Attributes)) {
			attributes = append(attributes, id+"="+strings.Join(pg.Attributes[id], "\x02"))
		}
		parts = append(parts, strings.Join(attributes, "\x01"))
	}
	return strings.Join(parts, "\x00")
}

// importSummary is the line an import ends with.
func importSummary(siteID, statePath string, s crawl.Summary) string {
	end := "finished"
	if !s.Finished {
		end = fmt.Sprintf("%d URLs left: run again to go on (state in %s)", s.Remaining, statePath)
	}
	return fmt.Sprintf("import of site %s: %d pages published, %d skipped as already done, %d refused by robots.txt, %d errors, %d frontier drops; "+
		"%d not HTML, %d HTTP errors (%d gone, deleted), %d too large, %d refused by the SSRF rules, %d off the site, "+
		"%d led to a page published under another URL (redirects); %d sitemaps read, %d unreadable; %s",
		siteID, s.Published, s.Skipped, s.Robots, s.Errors, s.FrontierDropped,
		s.NotHTML, s.HTTPErrors, s.Deleted, s.TooLarge, s.Refused, s.OffSite, s.Aliases, s.SitemapsRead, s.SitemapErrors, end)
}

// importFileSafe makes a site id usable as part of a file name; an id it had to
// change gets a hash, so two ids never share a state file.
func importFileSafe(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	if !changed && !strings.HasPrefix(id, ".") && b.Len() <= 100 {
		return b.String()
	}
	sum := sha256.Sum256([]byte(id))
	out := b.String()
	if len(out) > 100 {
		out = out[:100]
	}
	return out + "-" + hex.EncodeToString(sum[:4])
}

// importView shows the crawl's progress.
type importView interface {
	update(crawl.Progress)
	finish()
}

// newImportView draws a bar on a terminal and writes a line every
// lineEvery elsewhere, where a redrawn bar would be noise.
func newImportView(w *os.File, siteID string, maxPages int) importView {
	if info, err := w.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
		v := &importBar{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(40)), maxPages: maxPages}
		v.bar = v.p.AddBar(0,
			mpb.PrependDecorators(decor.Name("import "+siteID, decor.WC{C: decor.DindentRight | decor.DextraSpace})),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
				v.mu.Lock()
				defer v.mu.Unlock()
				s := v.last
				return fmt.Sprintf("%d published, %d queued, %d skipped, %d robots, %d errors",
					s.Published, s.Queued, s.Skipped, s.Robots, s.Errors+s.HTTPErrors+s.NotHTML+s.TooLarge+s.Refused)
			})))
		return v
	}
	return &importLines{w: w, siteID: siteID}
}

// importBar is an mpb bar: pages published out of --max-pages, or out of
// the URLs handled and waiting when there is no limit.
type importBar struct {
	mu       sync.Mutex
	p        *mpb.Progress
	bar      *mpb.Bar
	maxPages int
	last     crawl.Progress
}

func (v *importBar) update(pr crawl.Progress) {
	v.mu.Lock()
	v.last = pr
	v.mu.Unlock()
	if v.maxPages > 0 {
		v.bar.SetTotal(int64(v.maxPages), false)
		v.bar.SetCurrent(int64(pr.Published))
		return
	}
	done := importHandled(pr.Summary)
	v.bar.SetTotal(int64(done+pr.Queued+pr.InFlight), false)
	v.bar.SetCurrent(int64(done))
}

func (v *importBar) finish() {
	v.bar.SetTotal(-1, true) // complete at the current count
	v.p.Wait()
}

// importHandled counts the URLs a run has dealt with.
func importHandled(s crawl.Summary) int {
	return s.Published + s.Skipped + s.Robots + s.NotHTML + s.HTTPErrors + s.TooLarge + s.Refused + s.OffSite + s.Errors + s.SitemapsRead + s.SitemapErrors
}

// importLines writes a progress line at most every lineEvery.
type importLines struct {
	mu     sync.Mutex
	w      io.Writer
	siteID string
	last   time.Time
}

func (v *importLines) update(pr crawl.Progress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if time.Since(v.last) < lineEvery {
		return
	}
	v.last = time.Now()
	fmt.Fprintf(v.w, "import %s: %d published, %d skipped, %d queued, %d handled\n",
		v.siteID, pr.Published, pr.Skipped, pr.Queued, importHandled(pr.Summary))
}

func (v *importLines) finish() {}
