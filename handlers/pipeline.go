package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/singleflight"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/domain/planning"
	"github.com/interlinker/interlinker/domain/policy"
	"github.com/interlinker/interlinker/domain/site"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
)

// Durable consumer names, one per handler.
const (
	ConsumerSiteProjector = "site-projector"
	ConsumerPlanner       = "planner"
	ConsumerInjector      = "injector"
	ConsumerValidator     = "validator"
	ConsumerPublished     = "published-projector"
	ConsumerDeletion      = "deletion-projector"
	ConsumerReplanner     = "replanner"
	ConsumerRestorer      = "restorer"
	ConsumerFanout        = "fanout"
)

// Pipeline holds what every handler needs.
type Pipeline struct {
	Store   *store.Store
	Notify  func() // wakes the outbox relay after a commit
	Metrics *Metrics
	Logger  *slog.Logger
	// MaxEventBytes is the largest message the NATS server takes (its
	// max_payload); 0 for no limit. Pages must leave room within it for
	// what the pipeline adds, and links.inserted is kept within it.
	MaxEventBytes int
	// FanoutPage is how many dependants of a change one transaction asks
	// to re-plan (0: defaultFanoutPage).
	FanoutPage int
	// ReplanDelay is how long a re-plan request waits in the outbox before
	// it is published (0: not at all). A hub whose articles arrive over a
	// few seconds is asked to re-plan once per article; waiting lets one
	// re-plan answer every article that arrived meanwhile, each new
	// request replacing the one still waiting (store.Tx.EnqueueReplan).
	ReplanDelay time.Duration
	// SettleDelay is how long a site must be quiet before a settle pass
	// makes its links a function of its pages alone (settle.go); 0 turns
	// settling off and the pipeline marks no page for it.
	SettleDelay time.Duration

	// LLM is the model the fallback asks to rewrite a paragraph for a link
	// no text carries, and the audit for anchor phrases; nil when off.
	LLM LLM
	// LLMCallsPerPage caps the model calls one delivery of a page makes
	// (0: defaultLLMCallsPerPage); LLMRetryAfter is how long a page whose
	// fallback could not reach the model waits to be planned again (0:
	// defaultLLMRetryAfter).
	LLMCallsPerPage int
	LLMRetryAfter   time.Duration

	// WakeJobs wakes the runner of audits, applies and verifications
	// (RunJobs) after an audit.requested, audit.apply or verify.requested
	// is taken.
	WakeJobs func()

	// Checker checks link targets over HTTP for verify.requested and
	// audits with verify; VerifyWorkers is how many checks a run has in
	// flight (0: the outbound client's global limit).
	Checker       LinkChecker
	VerifyWorkers int

	// Tracer makes each delivery and background job a span (nil: none);
	// Replica names this process in them.
	Tracer  trace.Tracer
	Replica string

	// TxSlots bounds the handlers' transactions open at once (nil: no
	// bound but the connection pool's).
	TxSlots *TxSlots

	replanning     pageLocks          // pages being re-planned by this process
	asking         singleflight.Group // model calls of the LLM fallback in flight, by answer key
	settleFailures settleBackoff      // sites whose settle pass failed lately
	carryFailed    failedCarries      // events whose plan failed once carried on
}

// Route binds a handler to its subject through a durable consumer.
type Route struct {
	Consumer bus.ConsumerSpec
	Handle   func(ctx context.Context, ev events.Event) error
}

// Routes lists every handler of the pipeline.
func (p *Pipeline) Routes() []Route {
	return []Route{
		{bus.ConsumerSpec{Durable: ConsumerSiteProjector, Subject: events.SiteUpdated}, p.projectSite},
		{bus.ConsumerSpec{Durable: ConsumerPlanner, Subject: events.ContentGenerated}, p.planPage},
		{bus.ConsumerSpec{Durable: ConsumerInjector, Subject: events.LinksPlanned}, p.injectLinks},
		{bus.ConsumerSpec{Durable: ConsumerValidator, Subject: events.LinksInjected}, p.validateLinks},
		{bus.ConsumerSpec{Durable: ConsumerPublished, Subject: events.ContentPublished}, p.projectPublished},
		{bus.ConsumerSpec{Durable: ConsumerDeletion, Subject: events.ContentDeleted}, p.retirePage},
		{bus.ConsumerSpec{Durable: ConsumerReplanner, Subject: events.LinksReplan}, p.replanPage},
		{bus.ConsumerSpec{Durable: ConsumerRestorer, Subject: events.LinksRestore}, p.restorePlan},
		{bus.ConsumerSpec{Durable: ConsumerFanout, Subject: events.LinksFanout}, p.fanOut},
		{bus.ConsumerSpec{Durable: ConsumerAuditor, Subject: events.AuditRequested}, p.takeAudit},
		{bus.ConsumerSpec{Durable: ConsumerVerifier, Subject: events.VerifyRequested}, p.takeVerify},
		{bus.ConsumerSpec{Durable: ConsumerApplier, Subject: events.AuditApply}, p.takeApply},
	}
}

// Consumers lists the durable consumers the routes need.
func Consumers(routes []Route) []bus.ConsumerSpec {
	specs := make([]bus.ConsumerSpec, len(routes))
	for i, r := range routes {
		specs[i] = r.Consumer
	}
	return specs
}

// asWatermill adapts a route to Watermill: it refuses messages whose headers
// could not be read or whose event does not decode, then calls the route.
func asWatermill(r Route) message.NoPublishHandlerFunc {
	return func(msg *message.Message) error {
		if fault := msg.Metadata.Get(bus.MetaHeaderFault); fault != "" {
			return badInput("%s", fault)
		}
		ev, err := events.Decode(msg.Payload)
		if err != nil {
			return err
		}
		if subject := msg.Metadata.Get(bus.MetaSubject); subject != "" && subject != ev.Type {
			return badInput("event of type %q arrived on subject %q", ev.Type, subject)
		}
		middleware.SetCorrelationID(ev.Correlation(), msg)
		ctx := msg.Context()
		if pos, ok := bus.Position(msg); ok {
			ctx = context.WithValue(ctx, streamPositionKey{}, pos)
		}
		return r.Handle(ctx, ev)
	}
}

type streamPositionKey struct{}

// streamPosition is where the event being handled sits in its stream; the
// zero position when it did not come from one.
func streamPosition(ctx context.Context) bus.StreamPosition {
	pos, _ := ctx.Value(streamPositionKey{}).(bus.StreamPosition)
	return pos
}

// apply runs change in one transaction that also claims the event in the
// consumer's inbox, so an event id has one effect however often it is
// delivered. change claims the event itself (alone or pipelined with its
// first reads) and reports false when the consumer applied it before; it
// must then change nothing. Its statements run on generic plans
// (store.InGenericTx): an event's reads and writes find rows by key.
//
// The transaction waits for one of p.TxSlots first. change must not call
// apply again: the outer transaction would hold a slot the inner waits for.
func (p *Pipeline) apply(ctx context.Context, consumer string, ev events.Event, change func(*store.Tx) (claimed bool, err error)) error {
	release, waited, err := p.TxSlots.take(ctx)
	if p.TxSlots != nil {
		p.Metrics.TxSlotWait.WithLabelValues(consumer).Observe(waited.Seconds())
	}
	if err != nil {
		return err
	}
	defer release()
	claimed := true
	err = p.Store.InGenericTx(ctx, func(tx *store.Tx) error {
		var err error
		claimed, err = change(tx)
		return err
	})
	if err != nil {
		return err
	}
	if !claimed {
		p.skipped(consumer, "duplicate", ev)
		return nil
	}
	if p.Notify != nil {
		p.Notify()
	}
	return nil
}

func (p *Pipeline) skipped(consumer, reason string, ev events.Event) {
	p.Metrics.Skipped.WithLabelValues(consumer, reason).Inc()
	p.Logger.Debug("event changed nothing", "consumer", consumer, "reason", reason, "event_id", ev.ID, "source", ev.Source, "site_id", ev.SiteID)
}

// siteContext is a site's structure with its resolved policy.
type siteContext struct {
	structure site.Structure
	policy    policy.Policy
}

// loadSite returns the site's structure and policy at the structure
// version read in this transaction.
func loadSite(ctx context.Context, tx *store.Tx, siteID string, version int64, found bool) (siteContext, error) {
	if !found {
		return siteContext{}, fmt.Errorf("%w: unknown site %q (no site.updated received for it)", ErrNotYet, siteID)
	}
	rec, found, err := tx.LoadSiteAt(ctx, siteID, version)
	if err != nil {
		return siteContext{}, err
	}
	if !found {
		return siteContext{}, fmt.Errorf("%w: unknown site %q (no site.updated received for it)", ErrNotYet, siteID)
	}
	pol, err := policy.Resolve(rec.Structure.Site.Policy, rec.Overrides)
	if err != nil {
		return siteContext{}, fmt.Errorf("%w: stored policy of site %s: %v", ErrPermanent, siteID, err)
	}
	return siteContext{structure: rec.Structure, policy: pol}, nil
}

// currentSite returns the site's structure and policy as they are now;
// found is false for a site never described by site.updated.
func currentSite(ctx context.Context, tx *store.Tx, siteID string) (sc siteContext, found bool, err error) {
	rec, found, err := tx.LoadCurrentSite(ctx, siteID)
	if err != nil || !found {
		return siteContext{}, found, err
	}
	pol, err := policy.Resolve(rec.Structure.Site.Policy, rec.Overrides)
	if err != nil {
		return siteContext{}, true, fmt.Errorf("%w: stored policy of site %s: %v", ErrPermanent, siteID, err)
	}
	return siteContext{structure: rec.Structure, policy: pol}, true, nil
}

// claimAndLoadSite claims the event and loads its site in as few round
// trips as the cache allows.
func claimAndLoadSite(ctx context.Context, tx *store.Tx, consumer string, ev events.Event) (bool, siteContext, error) {
	snap, err := tx.ClaimAndReadSite(ctx, consumer, ev.Identity(), "")
	if err != nil || !snap.Claimed {
		return snap.Claimed, siteContext{}, err
	}
	sc, err := loadSite(ctx, tx, ev.SiteID, snap.SiteVersion, snap.SiteFound)
	return true, sc, err
}

// hubFor is the hub a page links up to: itself when it is the hub.
func hubFor(page site.Page, stored *site.Page) *site.Page {
	if page.ClusterID == "" {
		return nil
	}
	if page.Kind == site.KindHub {
		return &page
	}
	return stored
}

// pageFromEvent turns a page payload into the domain's page.
func pageFromEvent(siteID string, in events.PageInfo) (site.Page, error) {
	kind, err := site.ParseKind(in.Kind)
	if err != nil {
		return site.Page{}, badInput("page %s: %v", in.ID, err)
	}
	p := site.Page{
		SiteID: siteID, ID: in.ID, URL: in.URL, Title: in.Title, Kind: kind, ClusterID: in.ClusterID,
		SectorID: in.SectorID, PrimaryKeyword: in.PrimaryKeyword, Keywords: in.Keywords, Labels: in.Labels,
		Attributes: in.Attributes, Priority: int(in.Priority), Version: in.Version, HTML: in.HTML,
	}
	if in.PublishedAt != nil {
		p.PublishedAt = *in.PublishedAt
	}
	return p, nil
}

// checkPage refuses a page the site cannot take and returns it with its URL
// in the one form pages are stored and matched in, the path on the site,
// and its title without the site's name (site.TitleWithoutSiteName).
func checkPage(sc siteContext, p site.Page, maxEventBytes int) (site.Page, error) {
	if len(p.HTML) > sc.policy.MaxHTMLBytes {
		return p, badInput("page %s html is %d bytes, over the site's limit of %d (max_html_bytes)", p.ID, len(p.HTML), sc.policy.MaxHTMLBytes)
	}
	if limit := intakeLimit(maxEventBytes); limit > 0 && len(p.HTML) > limit {
		return p, badInput("page %s html is %d bytes, over %d: the NATS server's max payload (%d) less room for the links the pipeline adds",
			p.ID, len(p.HTML), limit, maxEventBytes)
	}
	if err := sc.structure.CheckPage(p); err != nil {
		if errors.Is(err, site.ErrUndeclared) {
			// Waited for like a page before its site: the site.updated that
			// declares the name may be on its way; a name no site.updated
			// ever declares is dead-lettered once the deliveries run out.
			return p, fmt.Errorf("%w: %v (no site.updated applied so far declares it)", ErrNotYet, err)
		}
		return p, badInput("%v", err)
	}
	path, ok := sitePath(sc.structure.Site, p.URL)
	if !ok {
		return p, badInput("page %s: url %q is neither an absolute path nor on host %s", p.ID, p.URL, sc.structure.Site.Host())
	}
	p.URL = path
	if p.Kind == site.KindSector && p.SectorID == "" {
		if sec, ok := sc.structure.SectorAt(path); ok {
			p.SectorID = sec.ID
		}
	}
	p.Title = site.TitleWithoutSiteName(p.Title, sc.structure.Site.Name)
	return p, nil
}

// intakeLimit is the largest page HTML taken when events may be at most
// maxEventBytes: a quarter is left for the links, blocks and link records
// the pipeline adds, so the page's links.inserted still fits.
func intakeLimit(maxEventBytes int) int {
	if maxEventBytes <= 0 {
		return 0
	}
	return maxEventBytes - maxEventBytes/4
}

// sitePath reduces an absolute path, or an http(s) URL on the site's host
// (markup.SameSiteHost), to its path without fragment; ok is false for anything else.
func sitePath(s site.Site, u string) (path string, ok bool) {
	u, _, _ = strings.Cut(u, "#")
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		return u, true
	}
	for _, scheme := range []string{"https://", "http://"} {
		if rest, found := strings.CutPrefix(u, scheme); found {
			h, p, hasPath := strings.Cut(rest, "/")
			if !markup.SameSiteHost(h, s.Host()) {
				return "", false
			}
			if !hasPath {
				return "/", true
			}
			return "/" + p, true
		}
	}
	return "", false
}

// markupOptions are the placement settings of a site's policy for the
// page, the same the planner's trial placement uses.
func markupOptions(sc siteContext, page site.Page) markup.Options {
	return planning.MarkupOptions(sc.structure, sc.policy, page)
}

// planStage is what the inject and validate stages work on: the page whose
// plan the event names, its site and its links.
type planStage struct {
	data  events.StageData
	page  store.PageRecord
	site  siteContext
	links []link.Link
	hub   *site.Page
	// targets are the live pages the links point to, when the stage asked.
	targets map[string]planning.Target
}

// onCurrentPlan runs a stage on the page's current plan in one transaction
// with the inbox row; an event about a plan since replaced changes nothing.
// withTargets reads the links' live targets in the same round trip.
func (p *Pipeline) onCurrentPlan(ctx context.Context, consumer string, ev events.Event, withTargets bool, stage func(*store.Tx, planStage) error) error {
	data, err := events.DecodeData[events.StageData](ev)
	if err != nil {
		return err
	}
	return p.apply(ctx, consumer, ev, func(tx *store.Tx) (bool, error) {
		snap, err := tx.ClaimAndReadPage(ctx, consumer, ev.Identity(), data.PageID, data.PlanID, withTargets)
		if err != nil || !snap.Claimed {
			return snap.Claimed, err
		}
		st, current, err := planStageOf(ctx, tx, ev, data, snap)
		if err != nil {
			return true, err
		}
		if !current {
			p.skipped(consumer, "stale", ev)
			return true, nil
		}
		return true, stage(tx, st)
	})
}

// planStageOf is the stage the snapshot read for the plan data names;
// current is false when the page no longer has that plan.
func planStageOf(ctx context.Context, tx *store.Tx, ev events.Event, data events.StageData, snap store.PageSnapshot) (st planStage, current bool, err error) {
	page := snap.Page
	if !snap.Found || page.State == store.StateDeleted || page.PlanID != data.PlanID || page.Version != data.Version {
		return planStage{}, false, nil
	}
	sc, err := loadSite(ctx, tx, ev.SiteID, snap.SiteVersion, snap.SiteFound)
	if err != nil {
		return planStage{}, true, err
	}
	var hub *site.Page
	if snap.HubFound {
		hub = &snap.Hub
	}
	return planStage{data: data, page: page, site: sc, links: snap.Links, hub: hubFor(page.Page, hub), targets: snap.Targets}, true, nil
}

// onPageVersion runs a handler for a page event (content.generated or
// content.published) in one transaction with the inbox row, once the page
// is known to fit its site.
func (p *Pipeline) onPageVersion(ctx context.Context, consumer string, ev events.Event, handle func(*store.Tx, siteContext, site.Page) error) error {
	data, err := events.DecodeData[events.ContentData](ev)
	if err != nil {
		return err
	}
	page, err := pageFromEvent(ev.SiteID, data.Page)
	if err != nil {
		return err
	}
	return p.apply(ctx, consumer, ev, func(tx *store.Tx) (bool, error) {
		claimed, sc, err := claimAndLoadSite(ctx, tx, consumer, ev)
		if err != nil || !claimed {
			return claimed, err
		}
		page, err := checkPage(sc, page, p.MaxEventBytes)
		if err != nil {
			return true, err
		}
		return true, handle(tx, sc, page)
	})
}

// emit queues a follow-on event of cause about a page in the outbox, in
// the same transaction as the change it reports, with cause's correlation
// id.
func emit(ctx context.Context, tx *store.Tx, cause events.Event, typ, id, pageID string, data any) error {
	out, err := followOn(cause, typ, id, data)
	if err != nil {
		return err
	}
	return enqueue(ctx, tx, cause, out, pageID)
}

// followOn builds a follow-on event of cause, with its correlation id.
func followOn(cause events.Event, typ, id string, data any) (events.Event, error) {
	return events.New(typ, cause.SiteID, id, cause.Correlation(), data)
}

// enqueue queues a built follow-on event of cause in the outbox.
func enqueue(ctx context.Context, tx *store.Tx, cause events.Event, out events.Event, pageID string) error {
	headers := withTrace(ctx, &out, map[string]string{"correlation_id": cause.Correlation()})
	return tx.Enqueue(ctx, out, pageID, headers)
}
