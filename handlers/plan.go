package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// withoutOurLinks is the page with what we inserted in its HTML (links
// and generated blocks) taken out: what it was before we linked it. A
// page without our marker is returned as it is, unscanned.
func withoutOurLinks(page site.Page) (site.Page, error) {
	if !strings.Contains(page.HTML, markup.MarkerAttr) {
		return page, nil
	}
	base, err := markup.StripInserted([]byte(page.HTML))
	if err != nil {
		return page, badInput("page %s: strip inserted links: %v", page.ID, err)
	}
	page.HTML = string(base)
	return page, nil
}

// planPage stores a generated page version and plans its links; the plan
// starts the inject stage through links.planned. The pages whose required
// links depend on this one are then asked to plan again.
func (p *Pipeline) planPage(ctx context.Context, ev events.Event) error {
	return p.apartOnFailure(ctx, ev, func(ctx context.Context) error {
		return p.withPhrases(ctx, func(ph *phrasing) error { return p.planArrived(ctx, ev, ph) })
	})
}

// withPhrases runs a stage that plans a page until the model's natural
// phrases it needs are kept: a stage that needs some rolls back
// (errNeedsAnswer), they are asked outside any transaction, and the stage
// runs again.
func (p *Pipeline) withPhrases(ctx context.Context, stage func(*phrasing) error) error {
	ph := &phrasing{ask: true}
	for {
		err := stage(ph)
		if !errors.Is(err, errNeedsAnswer) || ph.pending == nil {
			return err
		}
		ask := ph.pending
		ph.pending = nil
		ph.calls++
		answered, err := p.askNaturalPhrases(ctx, ask)
		if err != nil {
			return err
		}
		ph.unavailable = !answered
	}
}

func (p *Pipeline) planArrived(ctx context.Context, ev events.Event, ph *phrasing) error {
	return p.onPageVersion(ctx, ConsumerPlanner, ev, func(tx *store.Tx, sc siteContext, page site.Page) error {
		// A producer may send back what we sent it, our links and blocks
		// in it: the page is planned from what it was before we linked it,
		// as a published page is (replanPublished), not read as an author
		// who already links every target and has a Related Reading.
		page, err := withoutOurLinks(page)
		if err != nil {
			return err
		}
		planID := events.DerivedID(ev, events.LinksPlanned)
		// The page is saved in the round trip that reads what it is
		// planned from, and its dependants with them.
		var applied bool
		if err := tx.QueueSavePageVersion(page, store.StateGenerated, planID,
			markup.WordCount([]byte(page.HTML)), markup.NoIndex([]byte(page.HTML)), planning.IndexTerms(sc.structure, page), &applied); err != nil {
			return err
		}
		dependants := planning.DependantsOf(sc.structure, page, false)
		if p.SettleDelay <= 0 {
			dependants = dependants.WithTrailsThrough(page)
		}
		reads, err := p.readForPlan(ctx, tx, sc, page, planning.Arriving, &store.DependantsAsk{Of: dependants, Limit: p.fanoutPage()})
		if err != nil {
			return err
		}
		if !applied {
			return p.stale(ctx, tx, ConsumerPlanner, ev, page)
		}
		planned, err := p.plan(ctx, tx, sc, page, reads, planID, ev, "", false, ph)
		if err != nil {
			return err
		}
		if err := p.carryOn(ctx, tx, ev, planned); err != nil {
			return err
		}
		// A later version of a page that was here is a change of it, not an
		// arrival (an electronics trial's re-plans said a hub "arrived"
		// when its version 2 came).
		change := "arrived"
		if page.Version > 1 {
			change = fmt.Sprintf("changed (version %d)", page.Version)
		}
		return p.rippleTo(ctx, tx, page, ev, change, dependants, reads.Dependants, reads.Change)
	})
}

// replanPage plans a page again because a page it depends on changed. The
// plan it replaces is kept as a snapshot.
func (p *Pipeline) replanPage(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.ReplanData](ev)
	if err != nil {
		return err
	}
	// Most re-plans of a hub in a burst are answered before their turn:
	// dropping them on a plain read spares each a wait and a commit. A
	// dropped re-plan has no effect, so it needs no inbox row either.
	if data.CauseChange != 0 {
		horizon, err := p.Store.PlanHorizon(ctx, ev.SiteID, data.PageID)
		if err != nil {
			return err
		}
		if planning.ReplanAnswered(data.CauseChange, horizon) {
			p.skipped(ConsumerReplanner, "coalesced", ev)
			return nil
		}
	}
	unlock, err := p.replanning.lock(ctx, ev.SiteID+"\x00"+data.PageID)
	if err != nil {
		return fmt.Errorf("wait to re-plan page %s: %w", data.PageID, err)
	}
	defer unlock()
	return p.apartOnFailure(ctx, ev, func(ctx context.Context) error {
		return p.withPhrases(ctx, func(ph *phrasing) error { return p.replanLocked(ctx, ev, data, ph) })
	})
}

func (p *Pipeline) replanLocked(ctx context.Context, ev events.Event, data events.ReplanData, ph *phrasing) error {
	return p.apply(ctx, ConsumerReplanner, ev, func(tx *store.Tx) (bool, error) {
		snap, err := tx.ClaimAndLockPage(ctx, ConsumerReplanner, ev.Identity(), data.PageID)
		if err != nil || !snap.Claimed {
			return snap.Claimed, err
		}
		if !snap.Found || snap.Page.State == store.StateDeleted || snap.Page.PlanID == "" {
			p.skipped(ConsumerReplanner, "stale", ev)
			return true, nil
		}
		if planning.ReplanAnswered(data.CauseChange, snap.Page.PlanHorizon) {
			p.skipped(ConsumerReplanner, "coalesced", ev)
			return true, nil
		}
		sc, err := loadSite(ctx, tx, ev.SiteID, snap.SiteVersion, snap.SiteFound)
		if err != nil {
			return true, err
		}
		planID := events.DerivedID(ev, events.LinksPlanned)
		var replaced bool
		tx.QueueReplacePlan(ev.SiteID, data.PageID, planID, "re-planned: "+data.Reason, &replaced)
		reads, err := p.readForPlan(ctx, tx, sc, snap.Page.Page, planning.Replanning, nil)
		if err != nil || !replaced {
			return true, err
		}
		// A re-plan another page or the site caused is sent only if it
		// changed the page's result; one asked for (over the API, by an
		// audit's fixes, the LLM fallback's retry) names the page itself.
		planned, err := p.plan(ctx, tx, sc, snap.Page.Page, reads, planID, ev, data.Reason, data.CausePageID != data.PageID, ph)
		if err != nil {
			return true, err
		}
		return true, p.carryOn(ctx, tx, ev, planned)
	})
}

// readForPlan reads, with whatever the transaction queued ahead, what the
// page is planned from: its targets under the planning locks of change,
// its decisions and, when asked, its dependants.
// The related clusters' pages are left for plan to read if it needs them
// (planning.PlanDeferring).
func (p *Pipeline) readForPlan(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, change planning.Change, dependants *store.DependantsAsk) (store.PlanReads, error) {
	now, _ := planning.LookupFor(sc.structure, sc.policy, page).Deferred()
	return tx.ReadForPlan(ctx, page.SiteID, page.ID, now, planning.LocksFor(sc.structure, page, change), dependants)
}

// planDeferring plans the page from in, whose targets were read with the
// first half of its lookup (planning.Lookup.Deferred), and reads the
// related clusters' pages in tx only if the plan needs them; prepare, when
// given, adjusts them as the caller adjusted the targets it read first.
// With count, it plans again while the anchors of the links it chose turn
// out to be at the cap on other pages (planning.PlanUnderCap). It returns
// the targets it planned from too.
func planDeferring(ctx context.Context, tx *store.Tx, sc siteContext, in planning.Input, prepare func([]planning.Target), count planning.AnchorCounts) (planning.Plan, plannedTargets, error) {
	_, later := planning.LookupFor(sc.structure, sc.policy, in.Page).Deferred()
	var related []planning.Target
	read := false
	readRelated := func() ([]planning.Target, error) {
		if read {
			return related, nil
		}
		var err error
		if related, err = tx.ReadTargets(ctx, in.Page.SiteID, in.Page.ID, later); err != nil {
			return nil, err
		}
		if prepare != nil {
			prepare(related)
		}
		read = true
		return related, nil
	}
	plan := func(in planning.Input) (planning.Plan, error) {
		if len(later.RelatedClusters) == 0 {
			return planning.PlanPage(ctx, in)
		}
		return planning.PlanDeferring(ctx, in, readRelated)
	}
	var planned planning.Plan
	var err error
	if count == nil {
		planned, err = plan(in)
	} else {
		planned, err = planning.PlanUnderCap(ctx, in, plan, count)
	}
	if err != nil {
		return planning.Plan{}, plannedTargets{}, err
	}
	return planned, plannedTargets{in.Targets, related}, nil
}

// plannedTargets are the pages a plan read as targets: those read first
// and the related clusters' pages read after, if any. Their titles are
// what a model is told a link's target is called: a link's candidates may
// leave its target's title out (at the exact-anchor cap, or past the
// anchor length), as a trial's model told "monthly budget" of the hub
// "Budgeting: Build a Monthly Budget That Lasts" found.
type plannedTargets [2][]planning.Target

// titleOf is the title of l's target: its page's, else what l's candidates
// tell of it (a target the plan did not read). It is asked only for the
// few links a model is asked about, so it looks the target up in place
// rather than have every plan build a map.
func (pt plannedTargets) titleOf(l link.Link) string {
	for _, group := range pt {
		for _, t := range group {
			if t.ID == l.TargetPageID && t.Title != "" {
				return t.Title
			}
		}
	}
	return targetTitle(l)
}

// storedAnchorCounts counts the anchors other pages' placed in-body links
// use for each target, as the inject stage will (Pipeline.anchorUsage).
func (p *Pipeline) storedAnchorCounts(ctx context.Context, tx *store.Tx, sc siteContext, pageID string) planning.AnchorCounts {
	return func(asked map[string][]string) (map[string]map[string]int, error) {
		var uses []store.AnchorUse
		for target, texts := range asked {
			for _, text := range texts {
				uses = append(uses, store.AnchorUse{TargetPageID: target, Text: text})
			}
		}
		return p.anchorUsage(ctx, tx, sc, pageID, uses, sc.policy.MaxExactAnchorPerTarget)
	}
}

// anchorUsage counts the anchors other pages' in-body links use for the
// uses' targets, which a page is planned, linked and validated against:
// on a site that settles, the pages before it in the settle order, as its
// pass counts them (store.Tx.AnchorUsageBefore), so a page planned again
// on a settled site keeps the anchors the pass gave it whatever is
// planned beside it; on one that never settles, every other page.
func (p *Pipeline) anchorUsage(ctx context.Context, tx *store.Tx, sc siteContext, pageID string, uses []store.AnchorUse, atMost int) (map[string]map[string]int, error) {
	if p.SettleDelay > 0 {
		return tx.AnchorUsageBefore(ctx, sc.structure.Site.ID, pageID, sc.policy.Name == policy.Silo, uses, atMost)
	}
	return tx.AnchorUsage(ctx, sc.structure.Site.ID, pageID, uses, atMost)
}

// plan plans the page's links under its site's policy from the targets
// the index found (reads), stores them with what the plan saw of the
// site, and returns the links.planned that starts its inject stage, for
// the caller to queue or carry on with (carryOn). With ph, links the page's text holds
// too few anchors for get the model's natural phrases; one it has not
// kept yet is left in ph.pending, with errNeedsAnswer, for the stage to
// ask.
//
// sendIfChanged says another page or the site caused the plan, so its
// links.inserted goes out only if its result changed (StageData).
func (p *Pipeline) plan(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, reads store.PlanReads, planID string, ev events.Event, reason string, sendIfChanged bool, ph *phrasing) (planned events.Event, err error) {
	horizon := reads.Horizon
	// On a site that settles, a page scores against the plans committed so
	// far, as its settle pass will against the whole planned graph; one that
	// never settles scores against the live site alone, which gives pages
	// arriving one at a time the same links every run.
	var asPlannedGraph func([]planning.Target)
	if p.SettleDelay > 0 {
		asPlannedGraph = planning.AsPlannedGraph
		asPlannedGraph(reads.Targets)
	}
	in, err := planning.NewInput(sc.structure, sc.policy, page, reads.Targets)
	if err != nil {
		return events.Event{}, badInput("%v", err)
	}
	in.Decisions = reads.Decisions
	plan, targets, err := planDeferring(ctx, tx, sc, in, asPlannedGraph, p.storedAnchorCounts(ctx, tx, sc, page.ID))
	if err != nil {
		return events.Event{}, err
	}
	if ph != nil {
		ask, err := p.addNaturalPhrases(page.SiteID, page.ID, page.Title, page.HTML, in.Policy.Language, page.Version, plan.Links, targets,
			func(key []byte) (store.Answer, bool, error) { return tx.CachedAnswer(ctx, key) })
		if err != nil {
			return events.Event{}, err
		}
		if ask != nil && ph.ask && !ph.unavailable && ph.calls < p.llmCallsPerPage() {
			ph.pending = ask
			return events.Event{}, errNeedsAnswer
		}
	}
	for _, note := range plan.Notes {
		p.Logger.InfoContext(ctx, "planning note", "site_id", page.SiteID, "page_id", page.ID, "note", note)
	}
	if err := tx.ReplaceLinks(ctx, page.SiteID, page.ID, page.Version, plan.Links); err != nil {
		return events.Event{}, err
	}
	if err := tx.RecordPlan(ctx, page.SiteID, page.ID, horizon, plan.Breadcrumbs, plan.Notes); err != nil {
		return events.Event{}, err
	}
	p.markChanged(tx, page.SiteID, page.ID)
	// Whatever replaced the previous plan kept it as a snapshot; only the
	// newest snapshots_kept stay.
	if err := tx.PruneSnapshots(ctx, page.SiteID, page.ID, sc.policy.SnapshotsKept); err != nil {
		return events.Event{}, err
	}
	return followOn(ev, events.LinksPlanned, planID, events.StageData{PageID: page.ID, Version: page.Version, PlanID: planID, Reason: reason,
		SendIfChanged: sendIfChanged})
}

// carryOn runs a new plan's inject and validate stages in the transaction
// that made it, as the injector and validator would on its links.planned
// and the links.injected that follows: the same reads, decisions and
// links.inserted, with the page's three commits, two events, their inbox
// rows and one read of the page spared (a burst's pages spent a third of
// their time on them). The validate stage takes the page as the inject
// stage left it and stores the links' outcomes once, final.
// A plan whose links need the model's answer first goes to the injector
// by links.planned, since no transaction waits on a model; so does every
// plan of a delivery whose carrying on failed once, and of one that does
// not run under apartOnFailure.
func (p *Pipeline) carryOn(ctx context.Context, tx *store.Tx, cause, planned events.Event) error {
	data, err := events.DecodeData[events.StageData](planned)
	if err != nil {
		return err
	}
	carry, _ := ctx.Value(carryKey{}).(*carrying)
	if carry == nil || carry.apart {
		return enqueue(ctx, tx, cause, planned, data.PageID)
	}
	carry.tried = true
	tx.SeeWrites()
	snap, err := tx.ReadPlanPage(ctx, planned.SiteID, data.PageID, data.PlanID, true)
	if err != nil {
		return err
	}
	st, current, err := planStageOf(ctx, tx, planned, data, snap)
	if err == nil && !current {
		err = fmt.Errorf("page %s's plan %s is not current in the transaction that made it", data.PageID, data.PlanID)
	}
	if err != nil {
		return err
	}
	injectCtx, span := p.stageSpan(ctx, "inject", data.PageID)
	html, ask, err := p.placeLinks(injectCtx, tx, planned, st, p.newRewrites())
	if err == nil && ask == nil {
		err = p.storeLinkedHTML(injectCtx, tx, st, html)
	}
	span.End()
	if err != nil {
		return err
	}
	if ask != nil {
		return enqueue(ctx, tx, cause, planned, data.PageID)
	}
	injected, err := followOn(planned, events.LinksInjected, events.DerivedID(planned, events.LinksInjected), data)
	if err != nil {
		return err
	}
	st.page.LinkedHTML = string(html)
	st.page.InsertedSeq++ // as storing the linked HTML numbered it
	ctx, span = p.stageSpan(ctx, "validate", data.PageID)
	defer span.End()
	return p.validate(ctx, tx, injected, st)
}

// stageSpan starts the span of a stage carried on in the delivery of ctx,
// a child of the delivery's span.
func (p *Pipeline) stageSpan(ctx context.Context, stage, pageID string) (context.Context, trace.Span) {
	return p.tracer().Start(ctx, stage, trace.WithAttributes(
		attribute.String("interlinker.page_id", pageID), attribute.String("interlinker.replica", p.Replica)))
}

type carryKey struct{}

// carrying is what a delivery that plans a page knows of carrying its
// plans on (carryOn): whether it tried, and whether it must not.
type carrying struct{ tried, apart bool }

// apartOnFailure runs a delivery that plans a page, letting it carry its
// plans on. When it fails after it tried (in the stages or at the commit
// that sends their writes), everything it did was rolled back, and it
// runs again with its stages apart: the plan commits, and the injector
// or validator meets the failure on its own event, retried and
// dead-lettered as that stage's. An attempt cut by its deadline (a hub
// of many thousand articles whose three stages together outlast
// --handler-timeout) has no time left to run again: the event's next
// attempts in this process run apart from the start.
func (p *Pipeline) apartOnFailure(ctx context.Context, ev events.Event, run func(context.Context) error) error {
	key := ev.MsgID()
	carry := &carrying{apart: p.carryFailed.has(key)}
	err := run(context.WithValue(ctx, carryKey{}, carry))
	if err == nil || !carry.tried {
		if err == nil && carry.apart {
			p.carryFailed.remove(key)
		}
		return err
	}
	p.carryFailed.add(key)
	if ctx.Err() != nil {
		// A trial cut attempts with a short --handler-timeout and found
		// nothing in the logs saying why the events then ran apart.
		p.Logger.InfoContext(ctx, "a delivery that carried its plan on was cut by its deadline; its next attempts run the stages apart",
			"site_id", ev.SiteID, "event_id", ev.ID, "event_type", ev.Type, "error", err)
		return err
	}
	p.Logger.InfoContext(ctx, "a delivery that carried its plan on failed; planning again with the stages apart",
		"site_id", ev.SiteID, "event_id", ev.ID, "event_type", ev.Type, "error", err)
	if err := run(context.WithValue(ctx, carryKey{}, &carrying{apart: true})); err != nil {
		return err
	}
	p.carryFailed.remove(key)
	return nil
}

// maxFailedCarries bounds the events remembered in failedCarries; past
// it the memory starts afresh, and an event forgotten carries on once
// more before it runs apart again.
const maxFailedCarries = 10_000

// failedCarries are the events (by message id) whose plan failed carried
// on in this process and whose delivery has not succeeded since.
type failedCarries struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func (f *failedCarries) add(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil || len(f.ids) >= maxFailedCarries {
		f.ids = map[string]struct{}{}
	}
	f.ids[id] = struct{}{}
}

func (f *failedCarries) has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.ids[id]
	return ok
}

func (f *failedCarries) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, id)
}

// ripple asks every page whose required links depend on page to plan
// again, once per cause: each replan event's id derives from the cause's.
// The event carries the number of this transaction, so a dependant whose
// plan already saw it skips the re-plan. A cause with more dependants than
// a page of them (a hub of a large cluster, a term page of a common
// value) asks the first page here and leaves the rest to links.fanout, a
// page per transaction.
func (p *Pipeline) ripple(ctx context.Context, tx *store.Tx, sc siteContext, page site.Page, ev events.Event, change string) error {
	d := planning.DependantsOf(sc.structure, page, change == "deleted")
	ids, err := tx.Dependants(ctx, page.SiteID, d, "", p.fanoutPage())
	if err != nil || len(ids) == 0 {
		return err
	}
	cause, err := tx.ChangeNumber(ctx)
	if err != nil {
		return err
	}
	return p.rippleTo(ctx, tx, page, ev, change, d, ids, cause)
}

// rippleTo is ripple once the first page of the dependants d (ids) and
// the number of the transaction's change (cause) are read.
func (p *Pipeline) rippleTo(ctx context.Context, tx *store.Tx, page site.Page, ev events.Event, change string, d planning.Dependants, ids []string, cause uint64) error {
	if len(ids) == 0 {
		return nil
	}
	f := events.FanoutData{
		Cause:       events.CauseIdentity{Source: ev.Source, Type: ev.Type, ID: ev.ID},
		CausePageID: page.ID, CauseChange: cause,
		Reason:     fmt.Sprintf("%s %s %s (event %s)", page.Kind.Page(), page.ID, change, ev.ID),
		Dependants: dependantsRef(d),
	}
	return p.askToReplan(ctx, tx, ev, f, ids)
}

// fanOut asks the next page of a change's dependants to plan again.
func (p *Pipeline) fanOut(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.FanoutData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerFanout, ev, func(tx *store.Tx) (bool, error) {
		claimed, err := tx.ClaimEvent(ctx, ConsumerFanout, ev.Identity())
		if err != nil || !claimed {
			return claimed, err
		}
		ids, err := tx.Dependants(ctx, ev.SiteID, dependantsOf(data.Dependants), data.After, p.fanoutPage())
		if err != nil || len(ids) == 0 {
			return true, err
		}
		return true, p.askToReplan(ctx, tx, ev, data, ids)
	})
}

// askToReplan emits links.replan for each of ids, and links.fanout for the
// dependants after them when ids is a whole page. Every id derives from
// the cause's identity, so a fan-out retried or redone emits the same
// events.
func (p *Pipeline) askToReplan(ctx context.Context, tx *store.Tx, ev events.Event, f events.FanoutData, ids []string) error {
	cause := events.Event{SiteID: ev.SiteID, Source: f.Cause.Source, Type: f.Cause.Type, ID: f.Cause.ID}
	for _, id := range ids {
		data := events.ReplanData{PageID: id, CauseEventID: f.Cause.ID, CausePageID: f.CausePageID,
			CauseChange: f.CauseChange, Reason: f.Reason}
		out, err := followOn(ev, events.LinksReplan, events.DerivedID(cause, events.LinksReplan+":"+id), data)
		if err != nil {
			return err
		}
		// The request waits ReplanDelay in the outbox, and replaces the
		// page's request still waiting there: a hub asked again meanwhile
		// by its other articles' arrivals re-plans once for all of them.
		headers := withTrace(ctx, &out, map[string]string{"correlation_id": ev.Correlation()})
		if err := tx.EnqueueReplan(ctx, out, id, headers, p.ReplanDelay); err != nil {
			return err
		}
	}
	p.Metrics.Replans.Add(float64(len(ids)))
	if len(ids) == p.fanoutPage() {
		f.After = ids[len(ids)-1]
		if err := emit(ctx, tx, ev, events.LinksFanout, events.DerivedID(cause, events.LinksFanout+":"+f.After), f.CausePageID, f); err != nil {
			return err
		}
	}
	p.Logger.InfoContext(ctx, "dependent pages asked to re-plan", "site_id", ev.SiteID, "cause_page_id", f.CausePageID,
		"pages", len(ids), "more", len(ids) == p.fanoutPage(), "reason", f.Reason)
	return nil
}

// defaultFanoutPage is how many dependants one transaction asks to re-plan.
const defaultFanoutPage = 500

func (p *Pipeline) fanoutPage() int {
	if p.FanoutPage > 0 {
		return p.FanoutPage
	}
	return defaultFanoutPage
}

func dependantsRef(d planning.Dependants) events.DependantsRef {
	return events.DependantsRef{HubOf: d.HubOf, MembersOf: d.MembersOf, TermsWith: d.TermsWith, PagesOf: d.PagesOf,
		HubsOf: d.HubsOf, SectorPage: d.SectorPage, Home: d.Home,
		LinkingTo: d.LinkingTo, Site: d.Site, ExcludedPageID: d.ExcludedPageID}
}

func dependantsOf(r events.DependantsRef) planning.Dependants {
	return planning.Dependants{HubOf: r.HubOf, MembersOf: r.MembersOf, TermsWith: r.TermsWith, PagesOf: r.PagesOf,
		HubsOf: r.HubsOf, SectorPage: r.SectorPage, Home: r.Home,
		LinkingTo: r.LinkingTo, Site: r.Site, ExcludedPageID: r.ExcludedPageID}
}

// restoredReason starts the reason of a restored plan's stages.
const restoredReason = "restored snapshot"

// restorePlan makes a kept plan of a page current again and sends it to
// validation, which emits links.inserted with the restored HTML.
func (p *Pipeline) restorePlan(ctx context.Context, ev events.Event) error {
	data, err := events.DecodeData[events.RestoreData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, ConsumerRestorer, ev, func(tx *store.Tx) (bool, error) {
		snap, err := tx.ClaimAndLockPage(ctx, ConsumerRestorer, ev.Identity(), data.PageID)
		if err != nil || !snap.Claimed {
			return snap.Claimed, err
		}
		if !snap.Found {
			return true, badInput("page %s of site %s is unknown", data.PageID, ev.SiteID)
		}
		sc, err := loadSite(ctx, tx, ev.SiteID, snap.SiteVersion, snap.SiteFound)
		if err != nil {
			return true, err
		}
		planID := events.DerivedID(ev, events.LinksPlanned)
		if err := tx.RestoreSnapshot(ctx, ev.SiteID, data.PageID, data.SnapshotID, planID); err != nil {
			if errors.Is(err, store.ErrSnapshotUnusable) {
				return true, badInput("%v", err)
			}
			return true, err
		}
		if err := tx.PruneSnapshots(ctx, ev.SiteID, data.PageID, sc.policy.SnapshotsKept); err != nil {
			return true, err
		}
		return true, emit(ctx, tx, ev, events.LinksInjected, events.DerivedID(ev, events.LinksInjected), data.PageID,
			events.StageData{PageID: data.PageID, Version: snap.Page.Version, PlanID: planID,
				Reason: fmt.Sprintf("%s %d", restoredReason, data.SnapshotID)})
	})
}
