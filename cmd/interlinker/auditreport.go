package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/interlinker/interlinker/domain/audit"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// The files an audit's export writes, the ones SEO people open in a
// spreadsheet, beside the whole report as JSON.
const (
	auditJSONFile       = "audit.json"
	orphansCSVFile      = "orphans.csv"
	recommendationsFile = "recommendations.csv"
	linkMapCSVFile      = "link_map.csv"
	linkScoresCSVFile   = "link_scores.csv"
)

// showAudit prints a finished audit as tables and writes its files to dir.
func showAudit(ctx context.Context, w io.Writer, st *store.Store, rec store.AuditRecord, dir string, top int) error {
	rep, err := auditReport(rec)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Audit %s of site %s: %s\n", rec.ID, rec.SiteID, rep.Status)
	for _, r := range rep.Reasons {
		fmt.Fprintf(w, "  %s\n", r)
	}
	if rep.Status == store.AuditFailed {
		return fmt.Errorf("audit %s of site %s failed: %s", rec.ID, rec.SiteID, strings.Join(rep.Reasons, "; "))
	}
	fmt.Fprintln(w)
	printFigures(w, []string{"value"}, rep)
	fmt.Fprintln(w)
	printClusterScores(w, []string{"score"}, rep)
	recs, err := st.Recommendations(ctx, rec.SiteID, rec.ID, nil)
	if err != nil {
		return err
	}
	scores, err := st.LinkScores(ctx, rec.SiteID, rec.ID)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	printRecommendations(w, recs, top)
	fmt.Fprintln(w)
	printLinkScores(w, scores, top)
	if err := writeAuditFiles(ctx, st, rec, rep, recs, scores, dir); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	fmt.Fprintf(w, "\n%s, %s, %s, %s and %s written to %s\n", auditJSONFile, orphansCSVFile, recommendationsFile,
		linkMapCSVFile, linkScoresCSVFile, abs)
	return nil
}

// figure is one row of the figures table: the seed's name and its value.
type figure struct {
	name  string
	value func(events.AuditCompletedData) string
}

func count(f func(events.AuditCompletedData) int) func(events.AuditCompletedData) string {
	return func(d events.AuditCompletedData) string { return strconv.Itoa(f(d)) }
}

var figures = []figure{
	{"pages", count(func(d events.AuditCompletedData) int { return d.Pages })},
	{"total_links", count(func(d events.AuditCompletedData) int { return d.TotalLinks })},
	{"orphan_pages", count(func(d events.AuditCompletedData) int { return d.OrphanPages })},
	{"navigation_only_pages", count(func(d events.AuditCompletedData) int { return d.NavigationOnlyPages })},
	{"missing_mandatory", count(func(d events.AuditCompletedData) int { return d.MissingMandatory })},
	{"uplinks_outside_first_paragraphs", count(func(d events.AuditCompletedData) int { return d.UplinksOutsideOpening })},
	{"broken_links", count(func(d events.AuditCompletedData) int { return d.BrokenLinks })},
	{"unverified_links", count(func(d events.AuditCompletedData) int { return d.UnverifiedLinks })},
	{"redirect_links", count(func(d events.AuditCompletedData) int { return d.RedirectLinks })},
	{"over_linked_pages", count(func(d events.AuditCompletedData) int { return d.OverLinkedPages })},
	{"under_linked_pages", count(func(d events.AuditCompletedData) int { return d.UnderLinkedPages })},
	{"dominant_anchors", count(func(d events.AuditCompletedData) int { return d.DominantAnchors })},
	{"silo_crossing_links", count(func(d events.AuditCompletedData) int { return d.SiloCrossingLinks })},
	{"recommendations_total", count(func(d events.AuditCompletedData) int { return d.RecommendationsTotal })},
	{"overall_health_score", func(d events.AuditCompletedData) string { return strconv.FormatFloat(d.OverallHealthScore, 'f', 1, 64) }},
}

// printFigures prints the report's figures, a column a report: one audit,
// or several side by side under their headers.
func printFigures(w io.Writer, headers []string, reps ...events.AuditCompletedData) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "figure\t%s\t\n", strings.Join(headers, "\t"))
	for _, f := range figures {
		vals := make([]string, len(reps))
		for i, r := range reps {
			vals[i] = f.value(r)
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", f.name, strings.Join(vals, "\t"))
	}
	tw.Flush()
}

// printClusterScores prints each cluster's health, a column a report,
// and the issues of the last report.
func printClusterScores(w io.Writer, headers []string, reps ...events.AuditCompletedData) {
	ids := map[string]bool{}
	for _, r := range reps {
		for id := range r.ClusterScores {
			ids[id] = true
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cluster\t%s\tmissing\tissues\n", strings.Join(headers, "\t"))
	for _, id := range sortedKeys(ids) {
		vals := make([]string, len(reps))
		for i, r := range reps {
			vals[i] = "-"
			if c, ok := r.ClusterScores[id]; ok {
				vals[i] = strconv.FormatFloat(c.Score, 'f', 0, 64)
			}
		}
		last := reps[len(reps)-1].ClusterScores[id]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", id, strings.Join(vals, "\t"), last.Missing, strings.Join(last.Issues, "; "))
	}
	tw.Flush()
}

func printRecommendations(w io.Writer, recs []store.StoredRecommendation, top int) {
	shown := min(top, len(recs))
	fmt.Fprintf(w, "Recommendations: %d of %d, highest priority first (all in %s)\n", shown, len(recs), recommendationsFile)
	if shown == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "priority\taction\tlink_type\tpage\ttarget\tanchor_suggestion\tapplied")
	for _, r := range recs[:shown] {
		target := r.TargetID
		if target == "" {
			target = r.LinkPath
		}
		fmt.Fprintf(tw, "%.1f\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Priority, r.Action, r.LinkType, r.PageID, target,
			clip(r.Anchor, 40), r.AppliedBy)
	}
	tw.Flush()
}

func printLinkScores(w io.Writer, scores []audit.PageScore, top int) {
	shown := min(top, len(scores))
	fmt.Fprintf(w, "Link scores: the %d best of %d pages (all in %s)\n", shown, len(scores), linkScoresCSVFile)
	if shown == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "page\tscore\trank")
	for _, s := range scores[:shown] {
		fmt.Fprintf(tw, "%s\t%.1f\t%.6f\n", s.PageID, s.Score, s.Rank)
	}
	tw.Flush()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeAuditFiles writes the whole report as audit.json and its lists as
// CSV. The link map is the site's as the files are written, streamed a
// page at a time from one snapshot.
func writeAuditFiles(ctx context.Context, st *store.Store, rec store.AuditRecord, rep events.AuditCompletedData,
	recs []store.StoredRecommendation, scores []audit.PageScore, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("audit files: %w", err)
	}
	raw, err := json.MarshalIndent(json.RawMessage(rec.Report), "", "  ")
	if err != nil {
		return fmt.Errorf("audit files: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, auditJSONFile), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("audit files: %w", err)
	}
	return st.InSnapshotTx(ctx, func(tx *store.Tx) error {
		byID := map[string]store.AuditPage{}
		byPath := map[string]store.AuditPage{}
		err := tx.EachAuditPage(ctx, rec.SiteID, func(p store.AuditPage) error {
			byID[p.ID] = p
			byPath[markup.PagePath(p.URL)] = p
			return nil
		})
		if err != nil {
			return err
		}
		scoreOf := make(map[string]float64, len(scores))
		for _, s := range scores {
			scoreOf[s.PageID] = s.Score
		}

		err = writeCSV(filepath.Join(dir, orphansCSVFile), []string{"page_id", "url", "kind", "cluster_id", "finding", "link_score"},
			func(row func(...string) error) error {
				if rep.Findings == nil {
					return nil
				}
				for _, list := range []struct {
					finding string
					ids     []string
				}{{"orphan", rep.Findings.Orphans}, {"navigation_only", rep.Findings.NavigationOnly}} {
					for _, id := range list.ids {
						p := byID[id]
						if err := row(id, p.URL, string(p.Kind), p.ClusterID, list.finding, formatScore(scoreOf[id])); err != nil {
							return err
						}
					}
				}
				return nil
			})
		if err != nil {
			return err
		}

		err = writeCSV(filepath.Join(dir, recommendationsFile), []string{"id", "content_id", "action", "link_type", "target_id",
			"target_url", "anchor_suggestion", "anchor_found", "anchor_suggested_by", "existing_link", "existing_anchor", "priority", "reason", "applied_by"},
			func(row func(...string) error) error {
				for _, r := range recs {
					if err := row(r.ID, r.PageID, string(r.Action), string(r.LinkType), r.TargetID, r.TargetURL, r.Anchor,
						strconv.FormatBool(r.Found), r.SuggestedBy, r.LinkPath, r.LinkText, strconv.FormatFloat(r.Priority, 'f', 2, 64), r.Reason, r.AppliedBy); err != nil {
						return err
					}
				}
				return nil
			})
		if err != nil {
			return err
		}

		err = writeCSV(filepath.Join(dir, linkScoresCSVFile), []string{"page_id", "url", "score", "rank"},
			func(row func(...string) error) error {
				for _, s := range scores {
					if err := row(s.PageID, byID[s.PageID].URL, formatScore(s.Score), strconv.FormatFloat(s.Rank, 'g', 9, 64)); err != nil {
						return err
					}
				}
				return nil
			})
		if err != nil {
			return err
		}

		return writeCSV(filepath.Join(dir, linkMapCSVFile), []string{"source_page_id", "source_url", "target_url", "target_page_id",
			"target_state", "anchor", "position", "in_block", "content_paragraph", "follow"},
			func(row func(...string) error) error {
				return tx.EachLinkMap(ctx, rec.SiteID, func(pageID string, links []audit.Link) error {
					for _, l := range links {
						target, state := linkTarget(l, byPath)
						para := ""
						if l.Paragraph > 0 {
							para = strconv.Itoa(l.Paragraph)
						}
						if err := row(pageID, byID[pageID].URL, l.URL, target, state, l.Text, l.Position, l.InBlock, para,
							strconv.FormatBool(l.Follow)); err != nil {
							return err
						}
					}
					return nil
				})
			})
	})
}

// linkTarget names the page a link points to and what state it is in:
// live, deleted, unknown (a path on the site that is no page) or external.
func linkTarget(l audit.Link, byPath map[string]store.AuditPage) (pageID, state string) {
	if !l.Internal || l.URL == "" {
		return "", "external"
	}
	p, ok := byPath[markup.PagePath(l.URL)]
	switch {
	case !ok:
		return "", "unknown"
	case !p.Live:
		return p.ID, "deleted"
	}
	return p.ID, "live"
}

func formatScore(s float64) string { return strconv.FormatFloat(s, 'f', 2, 64) }

// writeCSV writes a CSV file with a header, its rows from fill.
func writeCSV(path string, header []string, fill func(row func(...string) error) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("audit files: %w", err)
	}
	w := csv.NewWriter(f)
	row := func(fields ...string) error { return w.Write(fields) }
	err = row(header...)
	if err == nil {
		err = fill(row)
	}
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// sortedFailures orders an apply's refusals by recommendation id.
func sortedFailures(f []events.ApplyFailure) []events.ApplyFailure {
	out := append([]events.ApplyFailure(nil), f...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
