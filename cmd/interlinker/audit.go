package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

// auditSettings are the audit verb's flags.
type auditSettings struct {
	natsURL, databaseURL string
	siteID, clusterID    string
	auditID, reportID    string
	verify, verifyExt    bool
	wait, allSites       bool
	maxAge               string
	outDir               string
	timeout              time.Duration
	top                  int
}

func auditCommand(ctx context.Context, args []string) error {
	a := auditSettings{natsURL: "nats://127.0.0.1:4250", databaseURL: service.DefaultConfig().DatabaseURL,
		timeout: 30 * time.Minute, top: 15}
	s := &settings{fs: flag.NewFlagSet("audit", flag.ContinueOnError)}
	s.String(&a.natsURL, "nats-url", "NATS server the service reads (serve's embedded server listens on 127.0.0.1:4250)")
	s.String(&a.databaseURL, "database-url", "the service's PostgreSQL database, where the whole report is read from")
	s.fs.StringVar(&a.siteID, "site", "", "id of the site to audit (required, unless --all-sites)")
	s.fs.BoolVar(&a.allSites, "all-sites", false, "request an audit of every site the database knows, one audit.requested a site, and exit (not with --site, --cluster, --report or --wait)")
	s.fs.StringVar(&a.clusterID, "cluster", "", "audit one cluster of the site instead of all of it")
	s.fs.StringVar(&a.auditID, "audit-id", "", "id of the new audit (default: audit-<UTC time>-<random>)")
	s.fs.BoolVar(&a.verify, "verify", false, "check the targets of internal links over HTTP first: broken_links counts those answering 4xx/5xx, and targets that could not be checked make the audit inconclusive")
	s.fs.BoolVar(&a.verifyExt, "verify-external", false, "check the targets of external links too (implies --verify)")
	s.fs.StringVar(&a.maxAge, "max-age", "", "with --verify: "+maxAgeHelp)
	s.fs.BoolVar(&a.wait, "wait", false, "wait for the report, showing progress, then print it and write its files")
	s.fs.StringVar(&a.reportID, "report", "", "print and write the files of this finished audit instead of requesting one")
	s.fs.StringVar(&a.outDir, "out", "", "folder for audit.json and the CSV files (default: audit-<audit id>)")
	s.fs.DurationVar(&a.timeout, "timeout", a.timeout, "how long --wait waits for the report")
	s.fs.IntVar(&a.top, "top", a.top, "rows of recommendations and link scores the tables show (the files have every row)")
	s.fs.Usage = func() {
		fmt.Fprintln(s.fs.Output(), "usage: interlinker audit --site ID [--wait] [--cluster ID] [--audit-id ID] [--verify] [--out DIR]\n"+
			"       interlinker audit --site ID --report AUDIT_ID [--out DIR]\n"+
			"       interlinker audit --all-sites [--audit-id ID] [--verify]\n\n"+
			"Publishes audit.requested for a site. With --wait it shows the audit's progress, prints the report as\n"+
			"tables and writes audit.json, orphans.csv, recommendations.csv, link_map.csv and link_scores.csv.")
		s.fs.PrintDefaults()
	}
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	if err := checkMaxAge(a.maxAge); err != nil {
		return err
	}
	if a.allSites {
		if a.siteID != "" || a.clusterID != "" || a.reportID != "" || a.wait {
			return errors.New("--all-sites requests an audit of every site: --site, --cluster, --report and --wait are for one site")
		}
		return auditAllSites(ctx, a)
	}
	if a.siteID == "" {
		s.fs.Usage()
		return errors.New("--site is required (or --all-sites)")
	}
	if a.reportID != "" && (a.auditID != "" || a.clusterID != "" || a.verify || a.wait) {
		return errors.New("--report reads a finished audit: --audit-id, --cluster, --verify and --wait request a new one")
	}
	if a.top < 0 {
		return fmt.Errorf("--top %d must not be negative", a.top)
	}

	if a.reportID != "" {
		st, err := store.Open(ctx, a.databaseURL, store.Options{MaxConns: 4, MustExist: true})
		if err != nil {
			return err
		}
		defer st.Close()
		rec, found, err := st.Audit(ctx, a.siteID, a.reportID)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("site %s has no audit %s", a.siteID, a.reportID)
		}
		return showAudit(ctx, os.Stdout, st, rec, a.outDirFor(rec.ID), a.top)
	}

	if a.auditID == "" {
		a.auditID = newAuditID()
	}
	p, err := newProducer(a.natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	req := events.AuditRequestedData{AuditID: a.auditID, ClusterID: a.clusterID, Verify: a.verify, VerifyExternal: a.verifyExt, MaxAge: a.maxAge}
	if !a.wait {
		if err := publishAuditRequest(ctx, p, a.siteID, req); err != nil {
			return err
		}
		fmt.Printf("audit %s of site %s requested; its report follows as audit.completed.\n"+
			"Read it with: interlinker audit --site %s --report %s\n", a.auditID, a.siteID, a.siteID, a.auditID)
		return nil
	}

	st, err := store.Open(ctx, a.databaseURL, store.Options{MaxConns: 4, MustExist: true})
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	rec, err := requestAudit(ctx, p, st, a.siteID, req, newProgressView(os.Stderr))
	if err != nil {
		return err
	}
	return showAudit(ctx, os.Stdout, st, rec, a.outDirFor(rec.ID), a.top)
}

// auditAllSites publishes audit.requested for every site the database
// knows, all with one audit id, and returns without waiting: the service's
// replicas run the audits. A site whose request fails does not stop the
// others; the error names each.
func auditAllSites(ctx context.Context, a auditSettings) error {
	st, err := store.Open(ctx, a.databaseURL, store.Options{MaxConns: 2, MustExist: true})
	if err != nil {
		return err
	}
	sites, err := st.SiteIDs(ctx)
	st.Close()
	if err != nil {
		return err
	}
	if len(sites) == 0 {
		fmt.Println("no site is known yet: no audit requested")
		return nil
	}
	if a.auditID == "" {
		a.auditID = newAuditID()
	}
	p, err := newProducer(a.natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	var errs []error
	for _, siteID := range sites {
		req := events.AuditRequestedData{AuditID: a.auditID, Verify: a.verify, VerifyExternal: a.verifyExt, MaxAge: a.maxAge}
		if err := publishAuditRequest(ctx, p, siteID, req); err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Printf("audit %s of site %s requested\n", a.auditID, siteID)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d audit requests failed: %w", len(errs), len(sites), errors.Join(errs...))
	}
	return nil
}

// newAuditID is a new audit's id when none is given: audit-<UTC time>-<random>.
func newAuditID() string {
	return fmt.Sprintf("audit-%s-%04x", time.Now().UTC().Format("20060102T150405Z"), rand.Uint32()&0xffff)
}

func (a auditSettings) outDirFor(auditID string) string {
	if a.outDir != "" {
		return a.outDir
	}
	return "audit-" + auditID
}

// publishAuditRequest sends audit.requested; its event id is the audit id,
// so asking twice for one audit id asks once.
func publishAuditRequest(ctx context.Context, p *producer, siteID string, req events.AuditRequestedData) error {
	ev, err := events.New(events.AuditRequested, siteID, req.AuditID, "", req)
	if err != nil {
		return err
	}
	ev.Source = "interlinker-cli"
	if err := p.publish(ctx, ev); err != nil {
		return fmt.Errorf("request audit %s of site %s: %w", req.AuditID, siteID, err)
	}
	return nil
}

// requestAudit publishes audit.requested and waits until the audit is
// finished, showing its audit.progress on view. It returns the stored
// audit, whose report has every list whole.
func requestAudit(ctx context.Context, p *producer, st *store.Store, siteID string, req events.AuditRequestedData, view progressView) (store.AuditRecord, error) {
	var rec store.AuditRecord
	err := awaitJob(ctx, p, jobWatch{stream: "AUDIT", progress: events.AuditProgress, completed: events.AuditCompleted,
		siteID: siteID, what: "audit " + req.AuditID, view: view,
		progressOf: func(ev events.Event) (events.AuditProgressData, bool) {
			d, err := events.DecodeData[events.AuditProgressData](ev)
			return d, err == nil && d.AuditID == req.AuditID
		},
		completes: func(ev events.Event) bool {
			d, err := events.DecodeData[events.AuditCompletedData](ev)
			return err == nil && d.AuditID == req.AuditID
		},
		request: func() error { return publishAuditRequest(ctx, p, siteID, req) },
		finished: func() (bool, error) {
			var found bool
			var err error
			rec, found, err = st.Audit(ctx, siteID, req.AuditID)
			return found && rec.Status != store.AuditRunning, err
		}})
	return rec, err
}

// jobWatch is what awaitJob watches: a background job's progress and
// completion events on its stream, and its stored state.
type jobWatch struct {
	stream, progress, completed string
	siteID, what                string
	view                        progressView
	progressOf                  func(events.Event) (events.AuditProgressData, bool) // the job's progress, if the event is of it
	completes                   func(events.Event) bool                             // whether the event says the job is done
	request                     func() error                                        // publishes the request
	finished                    func() (bool, error)                                // reads the stored job: done or not
}

// awaitJob publishes a job's request and waits until its stored state
// says it is done, showing its progress events on the view. It reads the
// database as well as the completion event: a request id asked for before
// is deduplicated by the stream and answered by no new event.
func awaitJob(ctx context.Context, p *producer, w jobWatch) error {
	defer w.view.finish()
	done := make(chan struct{}, 1)
	cons, err := p.js.OrderedConsumer(ctx, w.stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{w.progress, w.completed}, DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		return fmt.Errorf("watch %s: %w", w.what, err)
	}
	watch, err := cons.Consume(func(m jetstream.Msg) {
		ev, err := events.Decode(m.Data())
		if err != nil || ev.SiteID != w.siteID {
			return
		}
		switch ev.Type {
		case w.progress:
			if d, ok := w.progressOf(ev); ok {
				w.view.update(d)
			}
		case w.completed:
			if w.completes(ev) {
				select {
				case done <- struct{}{}:
				default:
				}
			}
		}
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", w.what, err)
	}
	defer watch.Stop()
	if err := w.request(); err != nil {
		return err
	}
	poll := time.NewTicker(2 * time.Second)
	defer poll.Stop()
	for {
		finished, err := w.finished()
		if err != nil || finished {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s of site %s: %w", w.what, w.siteID, ctx.Err())
		case <-done:
		case <-poll.C:
		}
	}
}

// progressView shows audit.progress as it arrives.
type progressView interface {
	update(events.AuditProgressData)
	finish()
}

// newProgressView draws bars on a terminal and writes a line an update
// anywhere else, where redrawn bars would be noise.
func newProgressView(w *os.File) progressView {
	if info, err := w.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
		return &barView{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(60)), bars: map[string]*mpb.Bar{}}
	}
	return &lineView{w: w}
}

// barView is a progress bar a stage, drawn by mpb.
type barView struct {
	mu    sync.Mutex
	p     *mpb.Progress
	bars  map[string]*mpb.Bar
	order []string
}

func (v *barView) update(d events.AuditProgressData) {
	v.mu.Lock()
	defer v.mu.Unlock()
	bar, ok := v.bars[d.Stage]
	if !ok {
		bar = v.p.AddBar(int64(d.Total),
			mpb.PrependDecorators(decor.Name(d.Stage, decor.WC{C: decor.DindentRight | decor.DextraSpace, W: 16})),
			mpb.AppendDecorators(decor.CountersNoUnit("%d / %d", decor.WCSyncWidth)))
		v.bars[d.Stage] = bar
		v.order = append(v.order, d.Stage)
	}
	bar.SetTotal(int64(d.Total), false)
	bar.SetCurrent(int64(d.Done))
	if d.Done >= d.Total {
		bar.SetTotal(int64(d.Total), true)
	}
}

func (v *barView) finish() {
	v.mu.Lock()
	for _, stage := range v.order {
		if b := v.bars[stage]; !b.AbortedOrCompleted() {
			b.Abort(false)
		}
	}
	v.mu.Unlock()
	v.p.Wait()
}

// lineView writes a line when a stage ends, and in between at most every
// lineEvery: a log, not an animation.
type lineView struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time
}

const lineEvery = 5 * time.Second

func (v *lineView) update(d events.AuditProgressData) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if d.Done < d.Total && time.Since(v.last) < lineEvery {
		return
	}
	v.last = time.Now()
	fmt.Fprintf(v.w, "%s: %s %d/%d\n", d.AuditID, d.Stage, d.Done, d.Total)
}

func (v *lineView) finish() {}

// auditReport decodes a stored audit's report.
func auditReport(rec store.AuditRecord) (events.AuditCompletedData, error) {
	var d events.AuditCompletedData
	if len(rec.Report) == 0 {
		return d, fmt.Errorf("audit %s of site %s is still %s: it has no report yet", rec.ID, rec.SiteID, rec.Status)
	}
	if err := json.Unmarshal(rec.Report, &d); err != nil {
		return d, fmt.Errorf("read the report of audit %s: %w", rec.ID, err)
	}
	return d, nil
}
