package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/domain/validation"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// validateLinks checks the linked page against the site's rules, settles
// each link's status and emits links.inserted with the final HTML.
func (p *Pipeline) validateLinks(ctx context.Context, ev events.Event) error {
	return p.onCurrentPlan(ctx, ConsumerValidator, ev, true, func(tx *store.Tx, st planStage) error {
		return p.validate(ctx, tx, ev, st)
	})
}

// validate checks the linked page of the plan st (named by ev) against its
// site's rules, stores each link's final status and the verdict, and
// queues links.inserted (and links.review) as ev's follow-ons.
func (p *Pipeline) validate(ctx context.Context, tx *store.Tx, ev events.Event, st planStage) error {
	page, sc := st.page, st.site
	var uses []store.AnchorUse
	for _, l := range st.links {
		if l.Zone == link.ZoneInBody && l.Anchor != "" {
			uses = append(uses, store.AnchorUse{TargetPageID: l.TargetPageID, Text: l.Anchor})
		}
	}
	live := st.targets
	// One over the limit is enough to tell an overused anchor.
	usage, err := p.anchorUsage(ctx, tx, sc, page.ID, uses, sc.policy.MaxExactAnchorPerTarget+1)
	if err != nil {
		return err
	}
	authors, err := authorTargets(ctx, tx, st)
	if err != nil {
		return err
	}
	report, links, err := validatePage(st, live, usage, authors)
	if err != nil {
		return err
	}
	if err := tx.SaveLinkOutcomes(ctx, ev.SiteID, links); err != nil {
		return err
	}
	touched := []string{page.ID}
	for _, l := range links {
		touched = append(touched, l.TargetPageID)
	}
	if err := tx.QueueLinkCounts(ctx, ev.SiteID, touched); err != nil {
		return err
	}
	// A restored plan is someone's choice: it holds until the page is
	// planned again, and does not itself call for a settle pass.
	if err := p.recordVerdict(tx, ev.SiteID, page.ID, report, !strings.HasPrefix(st.data.Reason, restoredReason)); err != nil {
		return err
	}
	seq := page.InsertedSeq // numbered when the linked HTML was stored
	inserted := insertedData(page, seq, links, report, st.data.Reason)
	digest, err := resultDigest(inserted, links, report)
	if err != nil {
		return err
	}
	if st.data.SendIfChanged && sentAlready(page, seq, digest) {
		// The publisher has this result: the stored sequence stays the one
		// it last received, and the next result sent follows it.
		tx.KeepSentSequence(ev.SiteID, page.ID, page.SentSeq)
		p.skipped(ConsumerValidator, "unchanged", ev)
		return nil
	}
	tx.RecordSent(ev.SiteID, page.ID, seq, digest)
	out, err := p.fitEvent(ev, inserted)
	if err != nil {
		return err
	}
	if err := enqueue(ctx, tx, ev, out, page.ID); err != nil {
		return err
	}
	return p.emitReview(ctx, tx, ev, page, seq, links)
}

// sentAlready reports whether the page's last links.inserted, the one
// before seq, came from the pipeline with the result digest says, and was
// delivered: a result sent otherwise since (an audit's fixes), or one
// the relay could not publish, is sent again.
func sentAlready(page store.PageRecord, seq, digest int64) bool {
	return page.SentSeq > 0 && page.SentSeq == seq-1 && page.SentDigest == digest && page.DeliveryError == ""
}

// resultDigest hashes what a publisher acts on in a page's links.inserted:
// its version, URL, HTML, trail, its links' outcomes and verdict as a
// settle pass compares them (outcomes, verdictDigest: scores,
// explanations and the rules' figures left out) and the planner's notes.
func resultDigest(d events.LinksInsertedData, links []link.Link, report validation.Report) (int64, error) {
	notes := d.Notes
	if len(notes) == 0 {
		// a plan's notes are nil, the stored ones read back empty: a
		// trial's pages settled with no notes were sent again so
		notes = nil
	}
	h := fnv.New64a()
	// The HTML, the bulk of it, is hashed as it is: JSON would escape it
	// first, on every page the pipeline validates.
	h.Write([]byte(d.HTML))
	h.Write([]byte{0})
	err := json.NewEncoder(h).Encode([]any{d.Version, d.URL, d.Breadcrumbs, outcomes(links), verdictDigest(report), notes})
	if err != nil {
		return 0, fmt.Errorf("digest the result of page %s: %w", d.PageID, err)
	}
	return int64(h.Sum64()), nil
}

// validatePage checks a linked page (st.page.LinkedHTML) against its
// site's rules; live are its targets still on the site, usage the other
// pages' in-body anchors per target and writer where the writer's own
// links lead. It returns the report and the links with their final status.
func validatePage(st planStage, live map[string]planning.Target, usage map[string]map[string]int, writer writerTargets) (validation.Report, []link.Link, error) {
	page, sc := st.page, st.site
	targets := make(map[string]site.Page, len(live))
	for id, t := range live {
		targets[id] = t.Page
	}
	return validation.Validate(validation.Input{
		Structure: sc.structure, Policy: sc.policy, Page: page.Page, Hub: st.hub,
		HTML: []byte(page.LinkedHTML), SiteHost: sc.structure.Site.Host(), Links: st.links,
		Targets: targets, AnchorUsage: usage, WordCount: page.WordCount,
		AuthorTargets: writer.live, DeletedAuthorTargets: writer.deleted,
	})
}

// writerTargets are where a page's own content links lead, by path: live
// pages (validation.Input.AuthorTargets), whose links silo's rules judge
// and whose absence lets the first link rule pass over a link (a byline's
// link to an author's archive) where external links do not count either;
// and deleted pages (validation.Input.DeletedAuthorTargets), which the
// page would link broken.
type writerTargets struct {
	live    map[string]site.Page
	deleted map[string]string
}

// authorTargets reads the writerTargets of a page. Deleted pages are read
// only for paths no live page answers, which a sound page has none of.
func authorTargets(ctx context.Context, tx *store.Tx, st planStage) (writerTargets, error) {
	sc := st.site
	if !strings.Contains(st.page.HTML, "href") && !strings.Contains(st.page.HTML, "HREF") {
		return writerTargets{}, nil // the writer linked nothing: no need to read the page's links
	}
	paths, err := validation.AuthorLinkPaths([]byte(st.page.LinkedHTML), sc.structure.Site.BaseURL, st.page.URL, sc.structure.Site.Host())
	if err != nil || len(paths) == 0 {
		return writerTargets{}, err
	}
	byPath, err := tx.PagesByPath(ctx, st.page.SiteID, paths)
	if err != nil {
		return writerTargets{}, err
	}
	live, err := tx.LiveTargets(ctx, st.page.SiteID, slices.Collect(maps.Values(byPath)))
	if err != nil {
		return writerTargets{}, err
	}
	out := writerTargets{live: make(map[string]site.Page, len(byPath))}
	var unanswered []string
	for _, path := range paths {
		if t, ok := live[byPath[path]]; ok {
			out.live[path] = t.Page
		} else {
			unanswered = append(unanswered, path)
		}
	}
	if len(unanswered) > 0 {
		if out.deleted, err = tx.DeletedPagesByPath(ctx, st.page.SiteID, unanswered); err != nil {
			return writerTargets{}, err
		}
	}
	return out, nil
}

// insertedData is the links.inserted of a validated page.
func insertedData(page store.PageRecord, seq int64, links []link.Link, report validation.Report, reason string) events.LinksInsertedData {
	return events.LinksInsertedData{
		PageID: page.ID, Version: page.Version, Sequence: seq, URL: page.URL, HTML: page.LinkedHTML,
		Links:       linkResults(links),
		Breadcrumbs: breadcrumbs(page.Breadcrumbs),
		Validation:  validationReport(report),
		Reason:      reason,
		Notes:       page.PlanNotes,
	}
}

func linkResults(links []link.Link) []events.LinkResult {
	out := make([]events.LinkResult, len(links))
	for i, l := range links {
		factors := l.Factors
		if factors == nil {
			factors = map[string]float64{}
		}
		out[i] = events.LinkResult{
			ID: l.ID, TargetPageID: l.TargetPageID, TargetURL: l.TargetURL, Type: string(l.Type),
			Anchor: l.Anchor, AnchorType: string(l.AnchorType), Zone: string(l.Zone), Paragraph: l.Paragraph,
			Score: l.Score, Factors: factors, Mandatory: l.Mandatory, Placement: l.Placement,
			Status: string(l.Status), Reason: l.Reason, FailedRules: l.FailedRules, Explanation: l.Explanation,
		}
	}
	return out
}

func breadcrumbs(trail []planning.Crumb) []events.Breadcrumb {
	if trail == nil {
		return []events.Breadcrumb{}
	}
	out := make([]events.Breadcrumb, len(trail))
	for i, c := range trail {
		out[i] = events.Breadcrumb{Name: c.Name, URL: c.URL}
	}
	return out
}

func validationReport(r validation.Report) events.ValidationReport {
	out := events.ValidationReport{Passed: r.Passed, Rules: make([]events.RuleResult, len(r.Rules))}
	for i, rule := range r.Rules {
		out.Rules[i] = events.RuleResult{Name: rule.Name, Passed: rule.Passed, Severity: rule.Severity, Detail: rule.Detail}
	}
	return out
}

// emitReview publishes the page's links scored for review (between
// review_score and auto_link_score) on links.review. A page linked again
// (seq above 1) is sent even with none left: its last links.review then
// always lists the suggestions it has now, not ones a new plan dropped.
func (p *Pipeline) emitReview(ctx context.Context, tx *store.Tx, ev events.Event, page store.PageRecord, seq int64, links []link.Link) error {
	review := []link.Link{}
	for _, l := range links {
		if l.Status == link.StatusReview {
			review = append(review, l)
		}
	}
	if len(review) == 0 && seq <= 1 {
		return nil
	}
	data := events.LinksReviewData{PageID: page.ID, Version: page.Version, Sequence: seq, URL: page.URL, Suggestions: linkResults(review)}
	return emit(ctx, tx, ev, events.LinksReview, events.DerivedID(ev, events.LinksReview), page.ID, data)
}

// envelopeRoom is what a CloudEvent envelope and NATS headers add to its
// data, with a wide margin.
const envelopeRoom = 8 << 10

// HTMLPath is the API path that serves a page's linked HTML when it is too
// large to travel in links.inserted.
func HTMLPath(siteID, pageID string) string {
	return "/api/v1/linker/content/" + url.PathEscape(pageID) + "/html/?site_id=" + url.QueryEscape(siteID)
}

// fitEvent builds links.inserted and keeps it within one NATS message:
// when the linked HTML would take it over the server's max payload, the
// event carries the path to fetch the HTML from instead. An event too
// large even so is left to the outbox relay, which parks it with the
// reason.
func (p *Pipeline) fitEvent(cause events.Event, d events.LinksInsertedData) (events.Event, error) {
	return p.fitEventID(cause, events.DerivedID(cause, events.LinksInserted), d)
}

// fitEventID is fitEvent for an event of the given id: one cause (an
// audit.apply) may send links.inserted for many pages.
func (p *Pipeline) fitEventID(cause events.Event, id string, d events.LinksInsertedData) (events.Event, error) {
	out, err := followOn(cause, events.LinksInserted, id, d)
	if err != nil || p.MaxEventBytes <= 0 || len(out.Data)+envelopeRoom <= p.MaxEventBytes {
		return out, err
	}
	p.Logger.Warn("linked HTML too large for one message; links.inserted carries its path instead",
		"site_id", cause.SiteID, "page_id", d.PageID, "data_bytes", len(out.Data), "max_event_bytes", p.MaxEventBytes)
	d.HTML, d.HTMLURL = "", HTMLPath(cause.SiteID, d.PageID)
	return followOn(cause, events.LinksInserted, id, d)
}
