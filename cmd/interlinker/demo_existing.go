package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/examples"
	"github.com/interlinker/interlinker/handlers"
	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

// existingSummary is what an existing site's summary.json holds: the
// reports before and after the fixes, and what applying them did.
type existingSummary struct {
	Site          string                    `json:"site"`
	Before        events.AuditCompletedData `json:"before"`
	Applied       events.AuditAppliedData   `json:"applied"`
	PagesChanged  []string                  `json:"pages_changed"`
	After         events.AuditCompletedData `json:"after"`
	ElapsedSecond float64                   `json:"elapsed_seconds"`
}

// demoExisting is existing-content mode: it publishes a site's pages as
// they are, with their hand-made links (content.published, then
// content.deleted for its deleted pages), audits the site, applies every
// fix, publishes the pages that came back as a publisher would, audits
// again and prints both reports side by side.
func demoExisting(ctx context.Context, svc *service.Service, p *producer, site examples.Site, outDir string) error {
	started := time.Now()
	siteID := site.Structure.Site.ID
	fmt.Printf("\n== Existing content: %s (%s), %d live pages with hand-made links, audited, fixed and audited again ==\n",
		site.Structure.Site.Name, siteID, len(site.Pages)-len(site.Deleted))
	if err := publishExisting(ctx, svc, p, site); err != nil {
		return err
	}

	before, err := demoAudit(ctx, svc, p, siteID, "demo-before", filepath.Join(outDir, "before"))
	if err != nil {
		return err
	}
	reason := handlers.AuditReason(before.AuditID)
	fixes, err := watchInserted(ctx, p.js, siteID, func(d events.LinksInsertedData) bool { return d.Reason == reason })
	if err != nil {
		return err
	}
	applied, err := requestApply(ctx, p, siteID, "demo-apply-"+before.AuditID, events.AuditApplyData{AuditID: before.AuditID, All: true})
	if err != nil {
		return err
	}
	// Every page with an applied recommendation comes back as links.inserted.
	recs, err := svc.Store().Recommendations(ctx, siteID, before.AuditID, nil)
	if err != nil {
		return err
	}
	changedPages := map[string]bool{}
	for _, r := range recs {
		if r.AppliedBy != "" {
			changedPages[r.PageID] = true
		}
	}
	if err := waitUntil(ctx, time.Minute, func() bool { return fixes.count() >= len(changedPages) }); err != nil {
		return fmt.Errorf("waiting for the fixed pages (%d of %d): %w", fixes.count(), len(changedPages), err)
	}

	// The publisher puts each fixed page live: its next version.
	fixed := fixes.all()
	if err := os.MkdirAll(filepath.Join(outDir, "fixed"), 0o755); err != nil {
		return err
	}
	var changed []string
	for _, pg := range site.Pages {
		f, ok := fixed[pg.ID]
		if !ok {
			continue
		}
		changed = append(changed, pg.ID)
		if err := os.WriteFile(filepath.Join(outDir, "fixed", pg.ID+".html"), []byte(f.HTML), 0o644); err != nil {
			return err
		}
		pg.Version, pg.HTML = f.Version+1, f.HTML
		if err := publishPage(ctx, p, siteID, pg); err != nil {
			return err
		}
	}
	if err := waitCalm(ctx, svc); err != nil {
		return fmt.Errorf("waiting for the fixed pages to be read: %w", err)
	}
	after, err := demoAudit(ctx, svc, p, siteID, "demo-after", filepath.Join(outDir, "after"))
	if err != nil {
		return err
	}

	sum := existingSummary{Site: site.Structure.Site.Name, Before: before, Applied: applied, PagesChanged: changed, After: after,
		ElapsedSecond: time.Since(started).Seconds()}
	raw, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "summary.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}

	fmt.Printf("\nAudit before and after applying %d fixes to %d pages (%d not applied):\n\n",
		applied.Applied, len(changed), len(applied.Failed))
	printFigures(os.Stdout, []string{"before", "after"}, before, after)
	fmt.Println()
	printClusterScores(os.Stdout, []string{"before", "after"}, before, after)
	if len(applied.Failed) > 0 {
		fmt.Printf("\nNot applied (%d):\n", len(applied.Failed))
		for _, f := range sortedFailures(applied.Failed) {
			fmt.Printf("  %s — %s\n", f.ID, f.Reason)
		}
	}
	abs, _ := filepath.Abs(outDir)
	fmt.Printf("\nBoth audits' files (before/, after/), the fixed HTML (fixed/) and summary.json written to %s\n", abs)
	return nil
}

// publishExisting publishes an existing site as its publisher would: its
// structure, every page as content.published, then content.deleted for its
// deleted pages. It returns once the service has read them all.
func publishExisting(ctx context.Context, svc *service.Service, p *producer, site examples.Site) error {
	siteID := site.Structure.Site.ID
	if err := demoSite(ctx, svc, p, site); err != nil {
		return err
	}
	for _, pg := range site.Pages {
		if err := publishPage(ctx, p, siteID, pg); err != nil {
			return err
		}
	}
	if err := waitCalm(ctx, svc); err != nil {
		return fmt.Errorf("waiting for the pages to be read: %w", err)
	}
	for _, id := range site.Deleted {
		ev, err := demoEvent(events.ContentDeleted, siteID, "demo-delete-"+id, events.ContentDeletedData{PageID: id, Version: 2})
		if err != nil {
			return err
		}
		if err := p.publish(ctx, ev); err != nil {
			return err
		}
	}
	if err := waitCalm(ctx, svc); err != nil {
		return fmt.Errorf("waiting for the deletions: %w", err)
	}
	return nil
}

// publishPage publishes a page as it is live, as an existing site's
// publisher does.
func publishPage(ctx context.Context, p *producer, siteID string, pg events.PageInfo) error {
	ev, err := demoEvent(events.ContentPublished, siteID, fmt.Sprintf("demo-%s-v%d", pg.ID, pg.Version), events.ContentData{Page: pg})
	if err != nil {
		return err
	}
	return p.publish(ctx, ev)
}

// demoAudit audits the site, shows its progress, writes its files to dir
// and returns its whole report.
func demoAudit(ctx context.Context, svc *service.Service, p *producer, siteID, auditID, dir string) (events.AuditCompletedData, error) {
	st := svc.Store()
	rec, err := requestAudit(ctx, p, st, siteID, events.AuditRequestedData{AuditID: auditID}, newProgressView(os.Stderr))
	if err != nil {
		return events.AuditCompletedData{}, err
	}
	rep, err := auditReport(rec)
	if err != nil {
		return rep, err
	}
	if rep.Status == store.AuditFailed {
		return rep, fmt.Errorf("audit %s failed: %v", auditID, rep.Reasons)
	}
	recs, err := st.Recommendations(ctx, siteID, auditID, nil)
	if err != nil {
		return rep, err
	}
	scores, err := st.LinkScores(ctx, siteID, auditID)
	if err != nil {
		return rep, err
	}
	return rep, writeAuditFiles(ctx, st, rec, rep, recs, scores, dir)
}

// requestApply publishes audit.apply and waits for its audit.applied.
func requestApply(ctx context.Context, p *producer, siteID, eventID string, data events.AuditApplyData) (events.AuditAppliedData, error) {
	ev, err := demoEvent(events.AuditApply, siteID, eventID, data)
	if err != nil {
		return events.AuditAppliedData{}, err
	}
	want := events.DerivedID(ev, events.AuditApplied)
	got := make(chan events.AuditAppliedData, 1)
	cons, err := p.js.OrderedConsumer(ctx, "AUDIT", jetstream.OrderedConsumerConfig{FilterSubjects: []string{events.AuditApplied}})
	if err != nil {
		return events.AuditAppliedData{}, fmt.Errorf("watch audit.applied: %w", err)
	}
	watch, err := cons.Consume(func(m jetstream.Msg) {
		out, err := events.Decode(m.Data())
		if err != nil || out.SiteID != siteID || out.ID != want {
			return
		}
		if d, err := events.DecodeData[events.AuditAppliedData](out); err == nil {
			select {
			case got <- d:
			default:
			}
		}
	})
	if err != nil {
		return events.AuditAppliedData{}, fmt.Errorf("watch audit.applied: %w", err)
	}
	defer watch.Stop()
	if err := p.publish(ctx, ev); err != nil {
		return events.AuditAppliedData{}, err
	}
	select {
	case d := <-got:
		return d, nil
	case <-time.After(5 * time.Minute):
		return events.AuditAppliedData{}, fmt.Errorf("no audit.applied for %s after 5m", eventID)
	case <-ctx.Done():
		return events.AuditAppliedData{}, ctx.Err()
	}
}
