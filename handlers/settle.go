package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/interlinker/interlinker/domain/anchors"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/validation"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// A site settles once it has been quiet for the settle delay: one pass
// plans, links and validates every planned page of the site again, in an
// order that depends on the pages alone (store.SettleOrder), each page
// seeing the whole site and the anchors of the pages before it. Handlers
// running at the same time see each other's work in whatever order their
// transactions commit, so two runs of the same events can differ before a
// site settles; after it, the links and HTML are a function of the site's
// pages and structure, whatever the order the events came in and however
// many workers handled them. A page whose result differs from what it
// has gets the new plan and a links.inserted with reason "settled"; the
// others are left as they are.

// SettledReason is the reason of the links.inserted a settle pass emits.
const SettledReason = "settled"

// settleSource is the source of the events a settle pass emits.
const settleSource = "interlinker/settle"

// SettleQuietSites settles up to limit sites that the pipeline changed and
// that have been quiet for quiet. It returns how many it settled. A site
// whose pass fails is logged and left for a while (settleBackoff), so one
// site's trouble neither stops the others settling nor costs a pass on
// every look.
func (p *Pipeline) SettleQuietSites(ctx context.Context, quiet time.Duration, limit int) (int, error) {
	ids, err := p.Store.UnsettledSites(ctx, quiet, limit)
	if err != nil {
		return 0, err
	}
	settled := 0
	for _, id := range ids {
		if !p.settleFailures.due(id, time.Now()) {
			continue
		}
		err := p.SettleSite(ctx, id)
		switch {
		case err == nil:
			p.settleFailures.clear(id)
			settled++
		case ctx.Err() != nil:
			return settled, ctx.Err()
		case errors.Is(err, store.ErrConcurrentChange):
			// The site is busy again; it settles once it is quiet.
			p.Logger.DebugContext(ctx, "settle pass gave way to a change", "site_id", id, "err", err)
		case errors.Is(err, errModelUnavailable):
			// Its pages stay marked: the pass runs again, backing off.
			wait := p.settleFailures.failed(id, time.Now())
			p.Logger.WarnContext(ctx, "settle pass waits for the model", "site_id", id, "err", err, "retry_in", wait)
		default:
			wait := p.settleFailures.failed(id, time.Now())
			p.Logger.ErrorContext(ctx, "settle pass failed", "site_id", id, "err", err, "retry_in", wait)
		}
	}
	return settled, nil
}

// settleBackoff spaces out the passes of a site whose pass failed: the
// wait doubles from a second to a minute, and a pass that succeeds resets
// it.
type settleBackoff struct {
	mu    sync.Mutex
	sites map[string]settleRetry
}

type settleRetry struct {
	failures int
	next     time.Time
}

func (b *settleBackoff) due(siteID string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !now.Before(b.sites[siteID].next)
}

func (b *settleBackoff) failed(siteID string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sites == nil {
		b.sites = map[string]settleRetry{}
	}
	r := b.sites[siteID]
	r.failures++
	wait := min(time.Second<<min(r.failures-1, 6), time.Minute)
	r.next = now.Add(wait)
	b.sites[siteID] = r
	return wait
}

func (b *settleBackoff) clear(siteID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sites, siteID)
}

// settledPage is one page's result in a settle pass.
type settledPage struct {
	stage   planStage
	before  store.SettlePage
	horizon planning.Horizon
}

// SettleSite runs one settle pass over the site in one snapshot
// transaction. A page the pipeline changes meanwhile makes the pass fail
// with store.ErrConcurrentChange, or stays marked if the pass did not
// touch it, and the site settles again.
func (p *Pipeline) SettleSite(ctx context.Context, siteID string) error {
	release, err := p.Store.HoldSettling(ctx)
	if err != nil {
		return err
	}
	defer release()
	start := time.Now()
	var pages, changed int
	var missing passAsks // answers of the model the pass lacked
	var settledGraph map[string]int
	err = p.Store.InSnapshotTx(ctx, func(tx *store.Tx) error {
		snapshot, err := tx.SettleSnapshot(ctx)
		if err != nil {
			return err
		}
		defer tx.ClearSettled(siteID, snapshot)
		sc, found, err := currentSite(ctx, tx, siteID)
		if err != nil || !found {
			return err
		}
		order, err := tx.SettleOrder(ctx, siteID, sc.policy.Name == policy.Silo)
		if err != nil {
			return err
		}
		// Each page is planned, linked, validated and written before the
		// next is read, so a pass holds one page at a time whatever the
		// site's size. A page is validated against the anchors of the pages
		// before it: placement kept every anchor under the cap given those,
		// and the pages after it keep it there, so the whole site's counts
		// give the same verdict.
		graph, err := p.plannedGraph(ctx, tx, sc, order)
		if err != nil {
			return err
		}
		tally := newAnchorTally()
		cause := events.Event{SiteID: siteID, Source: settleSource, Type: "site.settle", ID: snapshot}
		for _, id := range order {
			r, ok, err := p.settlePlan(ctx, tx, sc, id, tally, graph, &missing)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			pages++
			wrote, err := p.settleWrite(ctx, tx, cause, r, tally.counts)
			if err != nil {
				return err
			}
			if wrote {
				changed++
			}
			tally.add(r.stage.links)
		}
		settledGraph = graph
		// Pages whose answers of the model the pass lacked stay marked (a
		// mark of this transaction survives ClearSettled), so the site is
		// not idle and settles again once askMissing has them.
		for _, id := range missing.pages() {
			p.markChanged(tx, siteID, id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Pages planned as they arrive score with the pass's graph until the
	// next pass (planning.AsPlannedGraph). It is kept after the pass, in a
	// transaction of its own: written in the pass, its rows lost to every
	// count the link-count refresher wrote meanwhile, and a pass over a
	// large site gave way until the refresher was done.
	if settledGraph != nil { // nil: the site is gone, and no pass ran
		if err := p.Store.InTx(ctx, func(tx *store.Tx) error {
			tx.RecordSettledGraph(siteID, settledGraph)
			return nil
		}); err != nil {
			// Arrivals score with the committed plans meanwhile.
			p.Logger.WarnContext(ctx, "settle pass could not keep its graph", "site_id", siteID, "err", err)
		}
	}
	p.Logger.InfoContext(ctx, "site settled", "site_id", siteID, "pages", pages, "changed", changed, "took", time.Since(start).Round(time.Millisecond))
	// The pass asked no model: it asks now, outside its transaction, for
	// what it lacked, and the site settles again with the answers.
	if p.LLM != nil && (len(missing.rewrites) > 0 || len(missing.phrases) > 0) {
		return p.askMissing(ctx, siteID, missing)
	}
	return nil
}

// passAsks are the model's answers a settle pass lacked.
type passAsks struct {
	rewrites []*fallbackAsk
	phrases  []*phrasesAsk
}

// pages are the pages the answers are for, each once, in pass order.
func (a passAsks) pages() []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, ask := range a.phrases {
		add(ask.pageID)
	}
	for _, ask := range a.rewrites {
		add(ask.pageID)
	}
	return out
}

// plannedGraph is the site's planned link graph a settle pass scores
// with: each target's inbound links (every zone but breadcrumbs, review
// suggestions aside) in the plans of a first pass that plans every page
// and writes nothing. Counting only the pages before it, as the pass
// proper once did, left the first pages of the order to score against an
// almost empty graph: on a trial site the earliest article scored every
// page of another cluster sharing one value below 40, target authority 0
// of 25, and got no Related Reading, while later articles of its cluster
// listed three of them. With the first pass's whole graph, every page of
// the pass proper scores against the same graph, one that depends on the
// pages alone.
//
// The first pass scores every page against the live links alone, not
// against the plans of the pages before it: authority drawn from the
// first pass's own choices fed itself. In a trial's cluster of 60
// articles the first articles' picks gained inbound links, so the next
// articles picked them too, and three articles ended with over 100
// inbound links each, in the Related Reading of 57 to 59 of the 60 and
// in every sibling slot, while the siblings the articles' text named
// scored under 60. Planned against the live links, each page's picks
// follow its topic, and the graph counts how many pages pick a target on
// their merits. Nor does it count the in-body links a page's text cannot
// carry (Plan.Uncarried): planned for the LLM fallback, they are no link
// of the site, and they went to the best-scored siblings, the ones the
// graph then made score best. The first pass plans only: it places no
// link, so the anchor cap, which needs placements, is left to the pass
// proper.
func (p *Pipeline) plannedGraph(ctx context.Context, tx *store.Tx, sc siteContext, order []string) (map[string]int, error) {
	graph := map[string]int{}
	for _, id := range order {
		r, ok, err := p.settleInput(ctx, tx, sc, id, nil)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		plan, _, err := planDeferring(ctx, tx, sc, r.in, r.asPlanned, nil)
		if err != nil {
			return nil, err
		}
		for _, l := range plan.Links {
			if l.Zone != link.ZoneBreadcrumb && l.Status != link.StatusReview && !plan.Uncarried[l.ID] {
				graph[l.TargetPageID]++
			}
		}
	}
	return graph, nil
}

// settleRead is what a settle pass plans one page from.
type settleRead struct {
	before  store.SettlePage
	in      planning.Input
	horizon planning.Horizon
	// asPlanned gives targets their inbound links in the pass's graph.
	asPlanned func([]planning.Target)
	// unplannable is why a page found cannot be planned: the pass proper
	// logs it, the first pass passes over it, so it is logged once a pass.
	unplannable error
}

// settleInput reads one page and its targets as the pass sees the site,
// its targets' inbound links as graph counts them. ok is false for a page
// gone or one that cannot be planned, which keeps what it has.
func (p *Pipeline) settleInput(ctx context.Context, tx *store.Tx, sc siteContext, pageID string, graph map[string]int) (settleRead, bool, error) {
	before, found, err := tx.ReadSettlePage(ctx, sc.structure.Site.ID, pageID)
	if err != nil || !found {
		return settleRead{}, false, err
	}
	page := before.Page
	lookup, _ := planning.LookupFor(sc.structure, sc.policy, page.Page).Deferred()
	reads, err := tx.ReadForPlan(ctx, page.SiteID, page.ID, lookup, planning.Locks{}, nil)
	if err != nil {
		return settleRead{}, false, err
	}
	// A target's inbound links are the live ones from pages we do not plan
	// and those of the planned graph (plannedGraph), counted in an order
	// that does not depend on timing. A planned page that went live counts
	// once, by its plan.
	asPlanned := func(targets []planning.Target) {
		for i := range targets {
			targets[i].Inbound = targets[i].UnplannedInbound + graph[targets[i].ID]
		}
	}
	asPlanned(reads.Targets)
	in, err := planning.NewInput(sc.structure, sc.policy, page.Page, reads.Targets)
	if err != nil {
		return settleRead{before: before, unplannable: err}, false, nil
	}
	in.Decisions = reads.Decisions
	return settleRead{before: before, in: in, horizon: reads.Horizon, asPlanned: asPlanned}, true, nil
}

// settlePlan plans and links one page as the pass sees the site: its
// targets' inbound links as graph counts them, and the anchors the pages
// before it in the pass placed (tally). ok is false for a page gone or
// one that cannot be planned, which keeps what it has.
func (p *Pipeline) settlePlan(ctx context.Context, tx *store.Tx, sc siteContext, pageID string, tally anchorTally, graph map[string]int, missing *passAsks) (settledPage, bool, error) {
	r, ok, err := p.settleInput(ctx, tx, sc, pageID, graph)
	if r.unplannable != nil {
		page := r.before.Page
		p.Logger.WarnContext(ctx, "settle pass left a page as it is", "site_id", page.SiteID, "page_id", page.ID, "err", r.unplannable)
	}
	if err != nil || !ok {
		return settledPage{}, false, err
	}
	before, in, horizon := r.before, r.in, r.horizon
	page := before.Page
	plan, targets, err := planDeferring(ctx, tx, sc, in, r.asPlanned, tally.anchorCounts)
	if err != nil {
		return settledPage{}, false, err
	}
	ask, err := p.addNaturalPhrases(page.SiteID, page.ID, page.Title, page.HTML, in.Policy.Language, page.Version, plan.Links, targets,
		func(key []byte) (store.Answer, bool, error) { return tx.CachedAnswer(ctx, key) })
	if err != nil {
		return settledPage{}, false, err
	}
	if ask != nil {
		missing.phrases = append(missing.phrases, ask)
	}
	page.Breadcrumbs, page.PlanNotes = plan.Breadcrumbs, plan.Notes
	st := planStage{page: page, site: sc, links: plan.Links, hub: hubFor(page.Page, before.Hub)}
	if p.modelName() != "" {
		// The fallback's kept answers are found by the target titles the
		// pipeline told the model, which it read with the links' targets.
		if st.targets, err = tx.LiveTargets(ctx, page.SiteID, linkTargetIDs(st.links)); err != nil {
			return settledPage{}, false, err
		}
	}
	// A settle pass builds the page from the fallback's kept answers only:
	// it asks no model, inside its transaction or out.
	rw := &rewrites{model: p.modelName(), lookup: func(key []byte) (store.Answer, bool, error) { return tx.CachedAnswer(ctx, key) }}
	capOf, err := anchorCap(ctx, tx, st, st.links, tally.counts)
	if err != nil {
		return settledPage{}, false, err
	}
	html, _, err := linkHTML(st, st.links, tally.counts, capOf, rw)
	missing.rewrites = append(missing.rewrites, rw.missing...)
	if err != nil {
		p.Logger.WarnContext(ctx, "settle pass left a page as it is", "site_id", page.SiteID, "page_id", page.ID, "err", err)
		return settledPage{}, false, nil
	}
	st.page.LinkedHTML = string(html)
	return settledPage{stage: st, before: before, horizon: horizon}, true, nil
}

// linkTargetIDs are the pages the links point to.
func linkTargetIDs(links []link.Link) []string {
	ids := make([]string, 0, len(links))
	for _, l := range links {
		ids = append(ids, l.TargetPageID)
	}
	return ids
}

// settleWrite validates a page of the pass against others, the anchors the
// pages before it placed, and, when its plan, HTML or verdicts differ from what it has,
// stores the new ones and emits links.inserted. It reports whether it
// wrote.
func (p *Pipeline) settleWrite(ctx context.Context, tx *store.Tx, cause events.Event, r settledPage, others map[string]map[string]int) (bool, error) {
	st := r.stage
	page := st.page
	live := st.targets
	if live == nil {
		var err error
		if live, err = tx.LiveTargets(ctx, page.SiteID, linkTargetIDs(st.links)); err != nil {
			return false, err
		}
	}
	authors, err := authorTargets(ctx, tx, st)
	if err != nil {
		return false, err
	}
	report, links, err := validatePage(st, live, others, authors)
	if err != nil {
		return false, err
	}
	// A page whose verdict or plan notes alone changed (an anchor's count
	// on other pages settled) is sent again, so its last links.inserted
	// carries the settled ones.
	digest := verdictDigest(report)
	sameReport := digest == r.before.VerdictDigest && slices.Equal(r.before.Page.PlanNotes, page.PlanNotes)
	same, err := sameResult(r.before, links, page.LinkedHTML, page.Breadcrumbs, linkResults)
	if err != nil || same && sameReport {
		return false, err
	}
	// A page whose HTML, trail, link outcomes and verdict stay as they
	// are, and whose scores alone moved (the site's inbound links grew),
	// keeps its plan and emits nothing: its link records take the new
	// scores, so they are the same whatever path led here, and the
	// publisher is not sent a page that did not change.
	material, err := sameResult(r.before, links, page.LinkedHTML, page.Breadcrumbs, outcomes)
	if err != nil {
		return false, err
	}
	if material && sameReport {
		if err := tx.ReplaceLinks(ctx, page.SiteID, page.ID, page.Version, links); err != nil {
			return false, err
		}
		return false, tx.SaveLinkOutcomes(ctx, page.SiteID, links)
	}
	cause.ID += "/" + page.ID
	planID := events.DerivedID(cause, events.LinksPlanned)
	if _, err := tx.ReplacePlan(ctx, page.SiteID, page.ID, planID, SettledReason); err != nil {
		return false, err
	}
	// A plan's links are stored as planned, then their outcomes, as the
	// stages do.
	if err := tx.ReplaceLinks(ctx, page.SiteID, page.ID, page.Version, links); err != nil {
		return false, err
	}
	if err := tx.SaveLinkOutcomes(ctx, page.SiteID, links); err != nil {
		return false, err
	}
	if err := tx.RecordPlan(ctx, page.SiteID, page.ID, r.horizon, page.Breadcrumbs, page.PlanNotes); err != nil {
		return false, err
	}
	if err := tx.PruneSnapshots(ctx, page.SiteID, page.ID, st.site.policy.SnapshotsKept); err != nil {
		return false, err
	}
	if err := tx.SetLinkedHTML(ctx, page.SiteID, page.ID, page.LinkedHTML); err != nil {
		return false, err
	}
	if err := p.recordVerdict(tx, page.SiteID, page.ID, report, false); err != nil {
		return false, err
	}
	touched := []string{page.ID}
	for _, l := range links {
		touched = append(touched, l.TargetPageID)
	}
	if err := tx.QueueLinkCounts(ctx, page.SiteID, touched); err != nil {
		return false, err
	}
	seq := r.before.Page.InsertedSeq + 1 // SetLinkedHTML numbers the new HTML
	inserted := insertedData(page, seq, links, report, SettledReason)
	sent, err := resultDigest(inserted, links, report)
	if err != nil {
		return false, err
	}
	// What the pass sends is what a later re-plan is compared with.
	tx.RecordSent(page.SiteID, page.ID, seq, sent)
	out, err := p.fitEvent(cause, inserted)
	if err != nil {
		return false, err
	}
	if err := enqueue(ctx, tx, cause, out, page.ID); err != nil {
		return false, err
	}
	return true, p.emitReview(ctx, tx, cause, page, seq, links)
}

// sameResult reports whether a page already has the HTML and trail a
// settle pass gave it, and links equal as view shows them.
func sameResult[V any](before store.SettlePage, links []link.Link, html string, trail []planning.Crumb, view func([]link.Link) V) (bool, error) {
	if before.Page.LinkedHTML != html || len(before.Links) != len(links) {
		return false, nil
	}
	for _, pair := range [][2]any{
		{view(before.Links), view(links)},
		{breadcrumbs(before.Page.Breadcrumbs), breadcrumbs(trail)},
	} {
		a, err := json.Marshal(pair[0])
		if err != nil {
			return false, fmt.Errorf("compare settled page %s: %w", before.Page.ID, err)
		}
		b, err := json.Marshal(pair[1])
		if err != nil {
			return false, fmt.Errorf("compare settled page %s: %w", before.Page.ID, err)
		}
		if string(a) != string(b) {
			return false, nil
		}
	}
	return true, nil
}

// linkOutcome is what a link does to its page and what a reader or
// publisher sees of it, its score and explanation left out. Outcomes are
// compared in the order of their ids: a plan lists its links by score, so
// scores that moved can reorder links whose outcomes did not.
type linkOutcome struct {
	ID, Target, Type, Zone, Status, Anchor, AnchorType, Placement, Reason string
	Paragraph                                                             int
	FailedRules                                                           []string
}

func outcomes(links []link.Link) []linkOutcome {
	out := make([]linkOutcome, len(links))
	for i, l := range links {
		out[i] = linkOutcome{l.ID, l.TargetPageID, string(l.Type), string(l.Zone), string(l.Status), l.Anchor,
			string(l.AnchorType), l.Placement, l.Reason, l.Paragraph, l.FailedRules}
		if len(l.FailedRules) == 0 {
			// read back from the store as [], from validation as nil
			out[i].FailedRules = nil
		}
	}
	slices.SortFunc(out, func(a, b linkOutcome) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// anchorTally counts the in-body anchors the pages of a settle pass
// placed so far, by target and folded text, as store.Tx.AnchorUsage
// counts them in the database.
type anchorTally struct {
	counts map[string]map[string]int
}

func newAnchorTally() anchorTally {
	return anchorTally{counts: map[string]map[string]int{}}
}

func (a anchorTally) add(links []link.Link) {
	for _, l := range links {
		if l.Zone != link.ZoneInBody || !l.Placed() {
			continue
		}
		if a.counts[l.TargetPageID] == nil {
			a.counts[l.TargetPageID] = map[string]int{}
		}
		a.counts[l.TargetPageID][anchors.Normalize(l.Anchor)]++
	}
}

// anchorCounts counts the asked anchors (folded) as the pages before in
// the pass placed them for each target: what the page is linked against.
func (a anchorTally) anchorCounts(asked map[string][]string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	for target, texts := range asked {
		for _, f := range texts {
			if n := a.counts[target][f]; n > 0 {
				if out[target] == nil {
					out[target] = map[string]int{}
				}
				out[target][f] = n
			}
		}
	}
	return out, nil
}

// markChanged marks the page for its site's next settle pass, when the
// pipeline settles sites.
func (p *Pipeline) markChanged(tx *store.Tx, siteID, pageID string) {
	if p.SettleDelay > 0 {
		tx.MarkChanged(siteID, pageID)
	}
}

// recordVerdict keeps the verdict the page's links.inserted carries (the
// report, which the API serves, and its hash), and with changed marks the
// page for its site's next settle pass, when the pipeline settles sites:
// the pass sends a page again when its verdict alone changed.
func (p *Pipeline) recordVerdict(tx *store.Tx, siteID, pageID string, report validation.Report, changed bool) error {
	raw, err := json.Marshal(validationReport(report))
	if err != nil {
		return fmt.Errorf("encode the validation of page %s: %w", pageID, err)
	}
	tx.RecordVerdict(siteID, pageID, verdictDigest(report), raw, changed && p.SettleDelay > 0)
	return nil
}

// verdictDigest hashes a validation report's verdict: which rules pass
// and which fail, at which severity. The details are left out: they carry
// figures that change without the verdict, such as the word count a
// content.published brings, and a page is not sent again for those.
func verdictDigest(report validation.Report) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%t", report.Passed)
	for _, r := range report.Rules {
		fmt.Fprintf(h, "\x00%s\x00%t\x00%s", r.Name, r.Passed, r.Severity)
	}
	return int64(h.Sum64())
}
