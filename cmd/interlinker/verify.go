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
	"time"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

// verifySettings are the verify verb's flags.
type verifySettings struct {
	natsURL, databaseURL string
	siteID, id           string
	allSites, wait       bool
	scope, maxAge        string
	timeout              time.Duration
	top                  int
}

func verifyCommand(ctx context.Context, args []string) error {
	v := verifySettings{natsURL: "nats://127.0.0.1:4250", databaseURL: service.DefaultConfig().DatabaseURL,
		scope: events.VerifyScopeInternal, timeout: 30 * time.Minute, top: 20}
	s := &settings{fs: flag.NewFlagSet("verify", flag.ContinueOnError)}
	s.String(&v.natsURL, "nats-url", "NATS server the service reads (serve's embedded server listens on 127.0.0.1:4250)")
	s.String(&v.databaseURL, "database-url", "the service's PostgreSQL database, where --wait reads the report and --all-sites the sites")
	s.fs.StringVar(&v.siteID, "site", "", "id of the site whose link targets to check (required, unless --all-sites)")
	s.fs.BoolVar(&v.allSites, "all-sites", false, "request a verification of every site the database knows, one verify.requested a site")
	s.fs.StringVar(&v.id, "verification-id", "", "id of the new verification (default: verify-<UTC time>-<random>)")
	s.fs.StringVar(&v.scope, "scope", v.scope, "internal: the targets of internal links; all: of external links too")
	s.fs.StringVar(&v.maxAge, "max-age", "", maxAgeHelp)
	s.fs.BoolVar(&v.wait, "wait", false, "wait for each report, showing progress, then print it")
	s.fs.DurationVar(&v.timeout, "timeout", v.timeout, "how long --wait waits for the reports")
	s.fs.IntVar(&v.top, "top", v.top, "broken, redirecting and unverified targets the report lists")
	s.fs.Usage = func() {
		fmt.Fprintln(s.fs.Output(), "usage: interlinker verify --site ID | --all-sites [--scope internal|all] [--max-age DURATION] [--wait]\n\n"+
			"Publishes verify.requested: the service checks the site's link targets over HTTP, marks link-map rows\n"+
			"active or broken (with the redirect's final URL) and placed links verified or broken, and reports on\n"+
			"verify.completed. With --wait it shows progress and prints the report.")
		s.fs.PrintDefaults()
	}
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	switch {
	case v.allSites && v.siteID != "":
		return errors.New("--all-sites and --site: give one")
	case !v.allSites && v.siteID == "":
		s.fs.Usage()
		return errors.New("--site is required (or --all-sites)")
	case v.scope != events.VerifyScopeInternal && v.scope != events.VerifyScopeAll:
		return fmt.Errorf("--scope %q: want internal or all", v.scope)
	case v.top < 0:
		return fmt.Errorf("--top %d must not be negative", v.top)
	}
	if err := checkMaxAge(v.maxAge); err != nil {
		return err
	}
	if v.id == "" {
		v.id = fmt.Sprintf("verify-%s-%04x", time.Now().UTC().Format("20060102T150405Z"), rand.Uint32()&0xffff)
	}

	var st *store.Store
	if v.allSites || v.wait {
		var err error
		st, err = store.Open(ctx, v.databaseURL, store.Options{MaxConns: 2})
		if err != nil {
			return err
		}
		defer st.Close()
	}
	sites := []string{v.siteID}
	if v.allSites {
		var err error
		if sites, err = st.SiteIDs(ctx); err != nil {
			return err
		}
		if len(sites) == 0 {
			fmt.Println("no site is known yet: no verification requested")
			return nil
		}
	}
	p, err := newProducer(v.natsURL)
	if err != nil {
		return err
	}
	defer p.close()
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	var errs []error
	for _, siteID := range sites {
		req := events.VerifyRequestedData{SiteID: siteID, VerificationID: v.id, Scope: v.scope, MaxAge: v.maxAge}
		if !v.wait {
			if err := publishVerifyRequest(ctx, p, req); err != nil {
				errs = append(errs, err)
				continue
			}
			fmt.Printf("verification %s of site %s requested; its report follows as verify.completed\n", v.id, siteID)
			continue
		}
		report, err := requestVerification(ctx, p, st, req, newProgressView(os.Stderr))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		printVerification(os.Stdout, siteID, report, v.top)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d verifications failed: %w", len(errs), len(sites), errors.Join(errs...))
	}
	return nil
}

// publishVerifyRequest sends verify.requested; its event id is the
// verification id, so asking twice for one id asks once.
func publishVerifyRequest(ctx context.Context, p *producer, req events.VerifyRequestedData) error {
	ev, err := events.New(events.VerifyRequested, req.SiteID, req.VerificationID, "", req)
	if err != nil {
		return err
	}
	ev.Source = "interlinker-cli"
	if err := p.publish(ctx, ev); err != nil {
		return fmt.Errorf("request verification %s of site %s: %w", req.VerificationID, req.SiteID, err)
	}
	return nil
}

// requestVerification publishes verify.requested and waits until the
// verification is finished, showing its verify.progress on view, and
// returns its stored report.
func requestVerification(ctx context.Context, p *producer, st *store.Store, req events.VerifyRequestedData, view progressView) (events.VerifyCompletedData, error) {
	var report events.VerifyCompletedData
	err := awaitJob(ctx, p, jobWatch{stream: "VERIFY", progress: events.VerifyProgress, completed: events.VerifyCompleted,
		siteID: req.SiteID, what: "verification " + req.VerificationID, view: view,
		progressOf: func(ev events.Event) (events.AuditProgressData, bool) {
			d, err := events.DecodeData[events.VerifyProgressData](ev)
			return events.AuditProgressData{AuditID: d.VerificationID, Stage: d.Stage, Done: d.Done, Total: d.Total},
				err == nil && d.VerificationID == req.VerificationID
		},
		completes: func(ev events.Event) bool {
			d, err := events.DecodeData[events.VerifyCompletedData](ev)
			return err == nil && d.VerificationID == req.VerificationID
		},
		request: func() error { return publishVerifyRequest(ctx, p, req) },
		finished: func() (bool, error) {
			rec, found, err := st.Verification(ctx, req.SiteID, req.VerificationID)
			if err != nil || !found || rec.Status == store.AuditRunning {
				return false, err
			}
			if err := json.Unmarshal(rec.Report, &report); err != nil {
				return false, fmt.Errorf("read the report of verification %s: %w", req.VerificationID, err)
			}
			return true, nil
		}})
	return report, err
}

// printVerification prints a verification's report: its figures, why it
// is inconclusive if it is, and the first top targets of each list.
func printVerification(w io.Writer, siteID string, r events.VerifyCompletedData, top int) {
	fmt.Fprintf(w, "verification %s of site %s: %s (scope %s)\n", r.VerificationID, siteID, r.Status, r.Scope)
	fmt.Fprintf(w, "  targets %d: checked %d, reused %d; ok %d, redirects %d, broken %d, unverified %d, refused %d\n",
		r.Targets, r.Checked, r.Reused, r.OK, r.Redirects, r.Broken, r.Unverified, r.Refused)
	for _, reason := range r.Reasons {
		fmt.Fprintf(w, "  inconclusive: %s\n", reason)
	}
	list := func(title string, targets []events.TargetCheck, line func(events.TargetCheck) string) {
		if len(targets) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s (%d):\n", title, len(targets))
		for i, t := range targets {
			if i == top {
				fmt.Fprintf(w, "    … %d more in the stored report\n", len(targets)-top)
				break
			}
			fmt.Fprintf(w, "    %s\n", line(t))
		}
	}
	list("broken", r.BrokenTargets, func(t events.TargetCheck) string { return fmt.Sprintf("%s  %s", t.URL, t.Reason) })
	list("points at a redirect; update it to the final URL", r.RedirectTargets,
		func(t events.TargetCheck) string { return fmt.Sprintf("%s → %s", t.URL, t.FinalURL) })
	list("not checked", r.UnverifiedTargets, func(t events.TargetCheck) string { return fmt.Sprintf("%s  %s", t.URL, t.Reason) })
}

// maxAgeHelp says what --max-age of verify and audit does.
const maxAgeHelp = "reuse stored checks no older than this (a duration such as 1h, or 1s to ask every host now); " +
	"the checker's cache answers only within it too; default: reuse no stored check, and the cache answers within --http-cache-ttl " +
	"(the report counts its answers as reused)"

// checkMaxAge refuses a --max-age that is no duration, before anything is
// requested.
func checkMaxAge(maxAge string) error {
	if maxAge == "" {
		return nil
	}
	if d, err := time.ParseDuration(maxAge); err != nil || d < 0 {
		return fmt.Errorf("--max-age %q: want a duration such as 24h", maxAge)
	}
	return nil
}
