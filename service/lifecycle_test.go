package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
	"github.com/interlinker/interlinker/store/storetest"
)

func TestHealthReadinessAndMetricsAreServed(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.siteWithLinkedHub("s1")
	h.waitIdle(waitLong)

	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + h.svc.HTTPAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, "ok") {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, "ready") {
		t.Errorf("/readyz: %d %s", code, body)
	}
	wants := []string{
		`interlinker_events_in_total{handler="planner`,
		`interlinker_events_out_total{subject="links.inserted"} 1`,
		`interlinker_handler_seconds_bucket{handler="planner`,
		"interlinker_outbox_waiting 0",
		"interlinker_outbox_oldest_seconds",
		// Every page settled: the site's links are final.
		"interlinker_unsettled_pages 0",
	}
	// A handler's duration is observed once it returns, which may come
	// after the event its transaction committed has gone out: under load a
	// scrape fell between the two.
	deadline := time.Now().Add(waitLong)
	for {
		code, metrics := get("/metrics")
		var missing []string
		for _, w := range wants {
			if !strings.Contains(metrics, w) {
				missing = append(missing, w)
			}
		}
		if code == 200 && len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics answered %d and lacks %q after %s", code, missing, waitLong)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReadinessFailsWhenAConsumerIsMissing(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.svc.Ready(ctx); err != nil {
		t.Fatalf("ready at start: %v", err)
	}
	if err := h.js.DeleteConsumer(ctx, "LINKS", "validator"); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.Ready(ctx); err == nil || !strings.Contains(err.Error(), "validator") {
		t.Errorf("ready with the validator consumer gone: %v", err)
	}
}

// waitingConfig is the tests' configuration with room for a page to wait
// for state not yet known through redeliveries (about 12 s over 10 of
// them): the suite's schedule (4 deliveries in 350ms) would dead-letter
// it whenever a loaded machine takes longer to project what it waits for.
func waitingConfig(t *testing.T) Config {
	cfg := testConfig(t)
	cfg.NakDelays = []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}
	cfg.MaxDeliver = 10
	return cfg
}

func TestAPageArrivingBeforeItsSiteIsLinkedOnceTheSiteArrives(t *testing.T) {
	t.Parallel()
	h := startHarness(t, waitingConfig(t))
	h.publish(hubEvent("late"))
	time.Sleep(200 * time.Millisecond) // let the page be refused at least once
	h.publish(siteEvent("late"))
	waitFor(t, waitLong, "hub linked", func() bool { return len(h.inserted.insertedFor(t, "late", "boots-hub")) == 1 })
	if dead := h.dead.all(); len(dead) != 0 {
		t.Errorf("dead-lettered while waiting for the site: %s", dead[0].Header)
	}
}

// interlinker_unsettled_pages counts pages, and read 0 while a trial's
// pages waited for a site that had not arrived; interlinker_pipeline_idle
// says 0 until they are handled and the site has settled.
func TestThePipelineIsNotIdleWhileAPageWaitsForItsSite(t *testing.T) {
	t.Parallel()
	h := startHarness(t, waitingConfig(t))
	metric := func(name string) string {
		resp, err := http.Get("http://" + h.svc.HTTPAddr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				return v
			}
		}
		return ""
	}
	h.publish(hubEvent("waits"))
	waitFor(t, waitLong, "the page refused for want of its site", func() bool {
		return metric("interlinker_pipeline_idle") == "0" && metric("interlinker_unsettled_pages") == "0"
	})
	h.publish(siteEvent("waits"))
	waitFor(t, waitLong, "hub linked", func() bool { return len(h.inserted.insertedFor(t, "waits", "boots-hub")) == 1 })
	waitFor(t, waitLong, "the pipeline idle", func() bool { return metric("interlinker_pipeline_idle") == "1" })
}

// A producer that adds a cluster sends its site.updated and the cluster's
// pages together; they travel on different streams, so the planner may
// take a page before the site projector has the cluster. A trial saw 3
// such hubs of 3 dead-lettered at once ("names unknown cluster"), though
// each site.updated was published and acknowledged first. The page now
// waits for the structure as a page waits for its site.
func TestAPageNamingAClusterNotYetDeclaredWaitsForTheSiteUpdateThatDeclaresIt(t *testing.T) {
	t.Parallel()
	h := startHarness(t, waitingConfig(t))
	before := siteEvent("grow")
	var d events.SiteUpdatedData
	if err := json.Unmarshal(before.Data, &d); err != nil {
		t.Fatal(err)
	}
	declared := d.Clusters
	d.Clusters = []events.ClusterInfo{{ID: "tents", SectorID: "hiking", Name: "Tents", PrimaryKeyword: "backpacking tents"}}
	h.publish(mustEvent(events.SiteUpdated, "grow", "site-grow-v1", d))
	h.waitIdle(waitLong)

	h.publish(hubEvent("grow"))        // cluster "boots", not declared yet
	time.Sleep(200 * time.Millisecond) // let the page be refused at least once
	d.Clusters = append(d.Clusters, declared...)
	h.publish(mustEvent(events.SiteUpdated, "grow", "site-grow-v2", d))
	waitFor(t, waitLong, "hub linked", func() bool { return len(h.inserted.insertedFor(t, "grow", "boots-hub")) == 1 })
	if dead := h.dead.all(); len(dead) != 0 {
		t.Fatalf("dead-lettered while waiting for its cluster: %s", dead[0].Header)
	}
}

// A cluster no site.updated ever declares reaches the dead letters, with
// that reason, once the page's deliveries run out, and counts as an
// exhausted event.
func TestAPageNamingAClusterNeverDeclaredIsDeadLetteredOnceItsDeliveriesRunOut(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	h.publish(siteEvent("grow"))
	h.waitIdle(waitLong)
	typo := pageEvent("grow", "stoves-hub", "hub", 1, hubHTML)
	var pd events.ContentData
	if err := json.Unmarshal(typo.Data, &pd); err != nil {
		t.Fatal(err)
	}
	pd.Page.ClusterID, pd.Page.URL = "stoves", "/hiking/stoves/"
	h.publish(mustEvent(typo.Type, "grow", typo.ID, pd))
	waitFor(t, waitLong, "the page naming a cluster never declared dead-lettered", func() bool { return len(h.dead.all()) == 1 })
	if reason := h.dead.all()[0].Header.Get(bus.HeaderReason); !strings.Contains(reason, `names unknown cluster "stoves"`) {
		t.Errorf("dead letter reason %q, want it to name the unknown cluster", reason)
	}
	if n := h.metricTotal("interlinker_handler_errors_total", `handler="planner",kind="exhausted"`); n != 1 {
		t.Errorf("interlinker_handler_errors_total{kind=\"exhausted\"} is %v, want 1: the page whose deliveries ran out", n)
	}
}

func TestPublishedPagesFeedTheLinkMapAndDeletedPagesBreakLinks(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// The deletion's re-plan of the article is what this test proves. A
	// settle pass running while that request is in flight would make the
	// same change under its own reason (one run in nine did so).
	cfg.SettleDelay = 0
	h := startHarness(t, cfg)
	h.siteWithLinkedHub("s1")
	h.publish(pageEvent("s1", "care", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "article linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "care")) == 1 })
	linked := h.inserted.insertedFor(t, "s1", "care")[0]

	// The publisher puts the linked HTML live, plus a link of its own,
	// written as writers do: absolute, without the trailing slash, to a part
	// of the hub. It is a link to the hub all the same (markup.PagePath).
	published := strings.Replace(linked.HTML, "</ul>", `</ul><p>See <a href="https://shop.example/hiking/boots#sizes" rel="nofollow">all boots</a> and <a href="https://other.example/">a friend</a>.</p>`, 1)
	var d events.ContentData
	_ = json.Unmarshal(pageEvent("s1", "care", "supporting", 1, published).Data, &d)
	h.publish(mustEvent(events.ContentPublished, "s1", "pub-care-v1", d))
	h.waitIdle(waitLong)

	ctx := context.Background()
	care, _, err := h.svc.Store().Page(ctx, "s1", "care")
	if err != nil {
		t.Fatal(err)
	}
	hub, _, err := h.svc.Store().Page(ctx, "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	// Live internal links to the hub: the uplink, the publisher's own link
	// and the breadcrumb trail's hub step.
	if care.State != "published" || care.Outbound != 3 || hub.Inbound != 3 {
		t.Errorf("after publish: care %s with %d outbound, hub %d inbound; want published, 3 internal links, 3 inbound",
			care.State, care.Outbound, hub.Inbound)
	}
	if care.LinkedHTML != linked.HTML {
		t.Error("publishing the same version replaced the linked HTML")
	}

	h.publish(mustEvent(events.ContentDeleted, "s1", "del-hub-v2", events.ContentDeletedData{PageID: "boots-hub", Version: 2}))
	h.waitIdle(waitLong)
	links, err := h.svc.Store().LinksFrom(ctx, "s1", "care")
	if err != nil {
		t.Fatal(err)
	}
	// The article depended on the hub: it is planned again without it, and
	// says why it was emitted again.
	for _, l := range links {
		if l.TargetPageID == "boots-hub" {
			t.Errorf("link to the deleted hub survived the re-plan: %+v", l)
		}
	}
	h.waitStoredReceived("s1", []string{"care"})
	emitted := h.inserted.insertedFor(t, "s1", "care")
	last, _ := h.inserted.latestFor(t, "s1", "care")
	if len(emitted) != 2 || !strings.Contains(last.Reason, "hub page boots-hub deleted") {
		t.Errorf("care emitted %d times, last because %q; want a second emission naming the hub's deletion", len(emitted), last.Reason)
	}
	if hasRule(last.Validation, "mandatory_uplink", true) {
		t.Errorf("care passes mandatory_uplink with its hub deleted: %+v", last.Validation.Rules)
	}
	hub, _, _ = h.svc.Store().Page(ctx, "s1", "boots-hub")
	if hub.State != "deleted" {
		t.Errorf("hub state %s, want deleted", hub.State)
	}
	// The deletion sent again under a new id (a trial's producer did)
	// plans nothing again: nothing links the hub any more.
	h.publish(mustEvent(events.ContentDeleted, "s1", "del-hub-v2-again", events.ContentDeletedData{PageID: "boots-hub", Version: 2}))
	h.waitIdle(waitLong)
	if n := len(h.inserted.insertedFor(t, "s1", "care")); n != 2 {
		t.Errorf("care emitted %d times after the hub's deletion came again, want still 2", n)
	}
	// A late, older generated version of the deleted hub changes nothing.
	h.publish(hubEvent("s1"))
	h.waitIdle(waitLong)
	if hub, _, _ = h.svc.Store().Page(ctx, "s1", "boots-hub"); hub.State != "deleted" {
		t.Errorf("older version revived a deleted page: %s", hub.State)
	}
}

// startPublishedSite starts a service without settling that holds site s1,
// for tests of pages that go live as they are (livePage).
func startPublishedSite(t *testing.T) *harness {
	t.Helper()
	cfg := testConfig(t)
	cfg.SettleDelay = 0
	h := startHarness(t, cfg)
	h.publish(siteEvent("s1"))
	waitFor(t, waitLong, "site projected", func() bool {
		_, found, err := h.svc.Store().LoadSite(context.Background(), "s1")
		return err == nil && found
	})
	return h
}

// livePage is the content.published of version 1 of a page of site s1 at
// url, with html as it is live.
func livePage(id, kind, url, html string) events.Event {
	var d events.ContentData
	_ = json.Unmarshal(pageEvent("s1", id, kind, 1, html).Data, &d)
	d.Page.URL = url
	return mustEvent(events.ContentPublished, "s1", "pub-"+id+"-v1", d)
}

// A live page's link to a page the site has not sent yet counts once that
// page arrives: an existing site imported in any order has the same link
// counts, and a deletion breaks the same links, as one sent targets
// first. Before, the link stayed matched to no page for good.
func TestALinkPublishedBeforeItsTargetArrivedCountsOnceTheTargetDoes(t *testing.T) {
	t.Parallel()
	h := startPublishedSite(t)
	// The article links the hub, relative and without its trailing slash,
	// before the site has sent the hub.
	h.publish(livePage("care", "supporting", "/hiking/boots/care/",
		`<h1>Care</h1><p>Start with <a href="../../boots">our hiking boots guide</a> before you clean anything.</p>`))
	h.waitIdle(waitLong)
	ctx := context.Background()
	care, _, err := h.svc.Store().Page(ctx, "s1", "care")
	if err != nil {
		t.Fatal(err)
	}
	if care.Outbound != 0 {
		t.Fatalf("care has %d outbound links to known pages before the hub arrived, want 0", care.Outbound)
	}

	h.publish(livePage("boots-hub", "hub", "/hiking/boots/", hubHTML))
	waitFor(t, waitLong, "the early link counted", func() bool {
		hub, _, err := h.svc.Store().Page(ctx, "s1", "boots-hub")
		care, _, err2 := h.svc.Store().Page(ctx, "s1", "care")
		return err == nil && err2 == nil && hub.Inbound == 1 && care.Outbound == 1
	})

	h.publish(mustEvent(events.ContentDeleted, "s1", "del-hub-v2", events.ContentDeletedData{PageID: "boots-hub", Version: 2}))
	h.waitIdle(waitLong)
	if care, _, _ = h.svc.Store().Page(ctx, "s1", "care"); care.Outbound != 0 {
		t.Errorf("care still has %d outbound links to live pages after the hub's deletion, want its link broken", care.Outbound)
	}
}

// A shutdown stops pulling and gives back (NAKs) what it fetched and did
// not start, so the work goes on elsewhere at once. Against a shared NATS,
// as replicas run, the restarted process takes it at once: the consumers'
// AckWait is 10 minutes, longer than the test waits, so a message not
// given back would fail it. With the embedded server, which stops and
// starts with the process, the give-back does not outlive the server
// (JetStream keeps a consumer's delivered, unacknowledged messages on disk
// but the queue of those to redeliver in memory): after the restart those
// few messages wait out their AckWait first, and nothing is lost (README:
// Operations, Shutdown).
func TestShutdownWithWorkInFlightLosesNothing(t *testing.T) {
	t.Parallel()
	t.Run("against a shared NATS, the restart takes the work at once", func(t *testing.T) {
		t.Parallel()
		srv, err := bus.StartEmbedded(bus.EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		// Cleanups run last-registered first: the server outlives both
		// processes' shutdowns.
		t.Cleanup(srv.Shutdown)
		cfg := testConfig(t)
		cfg.NATSURL = srv.ClientURL()
		cfg.AckWait = 10 * time.Minute
		shutDownMidStreamAndRestart(t, cfg)
	})
	t.Run("with the embedded server, nothing is lost", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t)
		cfg.NATSListen = freeAddr(t)
		// The messages given back as the server stopped come again once
		// their AckWait runs out: at the default 30 s the restart idled 27
		// s for them. It stays over HandlerTimeout and RetryTotal (5 and 6
		// s), as handlers.RouterSettings asks.
		cfg.AckWait = 12 * time.Second
		shutDownMidStreamAndRestart(t, cfg)
	})
}

// shutDownMidStreamAndRestart publishes 150 articles at once, shuts the
// service down while it plans them, starts it again on the same database
// and NATS, and checks that every page is linked once.
func shutDownMidStreamAndRestart(t *testing.T, cfg Config) {
	t.Helper()
	cfg.PullBuffer = 2 // so shutdown leaves fetched work to give back
	h := startHarness(t, cfg)
	h.siteWithLinkedHub("s1")
	// The pages are published at once: published one acknowledgement at a
	// time, they were planned as fast as they came, and the shutdown found
	// no work left (150 of 150 linked before it).
	const n = 150
	payloads, ids := make([][]byte, n), make([]string, n)
	for i := range n {
		ev := pageEvent("s1", fmt.Sprintf("article-%03d", i), "supporting", 1, supportingHTML(i))
		raw, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		payloads[i], ids[i] = raw, ev.MsgID()
	}
	publishAll(t, h.js, events.ContentGenerated, payloads, ids)
	// The planner's own count: links.inserted reach the test later.
	waitFor(t, waitLong, "some pages planned", func() bool {
		return h.metricAtLeast(`interlinker_handler_seconds_count{handler="planner"}`, 11)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.svc.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	stoppedAt := h.inserted.pageCount("s1")

	// The same database and JetStream store: a restarted process.
	startCtx, cancelStart := context.WithTimeout(context.Background(), waitStart)
	defer cancelStart()
	svc, err := Start(startCtx, cfg)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(func() { _ = svc.Shutdown(context.Background()) })
	h.svc = svc
	h.connect(svc.NATSURL())
	waitFor(t, waitLong, "every page linked after restart", func() bool { return h.inserted.pageCount("s1") == n+1 })
	h.waitIdle(waitLong)
	for id, count := range h.inserted.pagesInserted("s1") {
		// The hub is re-planned as articles arrive; an article's plan may
		// be replaced by a settle pass before its stages emit.
		if count > 1 && id != "boots-hub" {
			t.Errorf("page %s: %d links.inserted from the stages, want at most 1", id, count)
		}
	}
	// Shutdown stops pulling: it finishes what its handlers hold and
	// leaves the rest in the stream.
	if stoppedAt == n+1 {
		t.Errorf("every page was linked before the shutdown returned: it went on pulling, or left the restart nothing to do")
	}
	t.Logf("%d of %d pages were linked before the shutdown", stoppedAt-1, n)
}

func TestShutdownPastItsBudgetLeavesWorkBehindWithoutPanicking(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.ShutdownTimeout = time.Second
	proxy := storetest.NewProxy(t, "127.0.0.1:5432")
	cfg.DatabaseURL = storetest.WithHost(t, cfg.DatabaseURL, proxy.Addr())
	h := startHarness(t, cfg)
	h.siteWithLinkedHub("s1")
	// Every database reply now takes longer than the whole shutdown
	// budget, so handlers are still working when it runs out.
	proxy.SetLatency(3 * time.Second)
	for i := range 20 {
		h.publish(pageEvent("s1", fmt.Sprintf("article-%03d", i), "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, waitLong, "handlers busy", func() bool {
		return h.metricTotal("interlinker_events_in_total", `subject="content.generated"`) >= 3 // the hub and two articles
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.shutDownByTest = true
	err := h.svc.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("shutdown past its budget returned %v, want the deadline reported", err)
	}
	proxy.SetLatency(0)
	// Handlers left running finish on their own; the router closed its
	// channels only after its loops stopped, so nothing panics meanwhile.
	time.Sleep(2 * time.Second)
}

// lockedBuffer is a log sink tests read while the service writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestEachFailedDeliveryIsLoggedOnceAndNeitherItNorTheShutdownAsAnError(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// The budget is not under test: the page must outlast the wait for
	// its site however slowly the test polls.
	cfg.MaxDeliver = 1000
	logs := &lockedBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := startHarness(t, cfg)
	// A page for a site not known yet fails, expectedly, until it is.
	h.publish(hubEvent("s1"))
	waitFor(t, waitLong, "two failed deliveries", func() bool {
		return h.metricTotal("interlinker_handler_errors_total", `kind="not_yet"`) >= 2
	})
	h.publish(siteEvent("s1"))
	waitFor(t, waitLong, "hub linked", func() bool { return len(h.inserted.insertedFor(t, "s1", "boots-hub")) == 1 })
	h.waitIdle(waitLong)

	failed := h.metricTotal("interlinker_handler_errors_total", `kind="not_yet"`)
	// A shutdown asked for drains every subscription, and so stops every
	// handler: that is not an error either.
	h.stop()
	var reported int
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=ERROR") {
			t.Errorf("an expected retry or a shutdown was logged as an error: %s", line)
		}
		if !strings.Contains(line, "gen-s1-boots-hub-v1") {
			continue
		}
		switch {
		case strings.Contains(line, "level=INFO"):
			reported++
		case strings.Contains(line, "level=WARN"):
			t.Errorf("a page waiting for its site was logged as a warning: %s", line)
		}
	}
	if float64(reported) != failed {
		t.Errorf("%d failed deliveries logged %d times at INFO, want once each", int(failed), reported)
	}
}

// A live page's jumps within itself (a table of contents' "#part") are no
// links between pages: they have no link map rows, so no report shows them
// as external links. And a page's link to itself (a theme linking the title
// of the page it is on) is not an inbound link of it, as the audit counts
// it: before, every such page counted one inbound link it does not have.
func TestAJumpWithinAPageIsNoLinkAndAPagesLinkToItselfIsNotInbound(t *testing.T) {
	t.Parallel()
	h := startPublishedSite(t)
	h.publish(livePage("boots-hub", "hub", "/hiking/boots/",
		`<h1><a href="https://shop.example/hiking/boots/">Hiking Boots</a></h1>
<ul><li><a href="#fit">Fit</a></li><li><a href=" #care">Care</a></li></ul>
<p id="fit">Our guide to hiking boots covers fit, materials and care for every kind of trail.</p>
<p id="care">Read on for sizing, breaking in and waterproofing. <a href="#top">Back to the top</a>.</p>`))
	h.publish(livePage("care", "supporting", "/hiking/boots/care/",
		`<h1>Care</h1><p>Start with <a href="/hiking/boots/">our hiking boots guide</a> before you clean anything.</p>`))
	ctx := context.Background()
	waitFor(t, waitLong, "the article's link to the hub counted", func() bool {
		care, _, err := h.svc.Store().Page(ctx, "s1", "care")
		return err == nil && care.Outbound == 1
	})
	h.waitIdle(waitLong)

	hub, _, err := h.svc.Store().Page(ctx, "s1", "boots-hub")
	if err != nil {
		t.Fatal(err)
	}
	if hub.Inbound != 1 {
		t.Errorf("the hub has %d inbound links, want 1: the article's, not its own title's", hub.Inbound)
	}
	entries, err := h.svc.Store().LinkMapPage(ctx, "s1", store.LinkMapFilter{Source: "boots-hub", AfterOrdinal: -1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].TargetPageID != "boots-hub" || !entries[0].Internal {
		t.Errorf("the hub's link map is %+v, want its title's link to itself alone, no row for a jump within it", entries)
	}
}

// A page imported from its live HTML has its document's <title>, in which
// a CMS names the site too ("Boot Care – Shop"). The site's name is no
// name of the page: stored without it, no anchor, crumb or report reads
// "Boot Care – Shop".
func TestAPageIsStoredWithoutTheSiteNameItsTitleCarries(t *testing.T) {
	t.Parallel()
	h := startPublishedSite(t)
	ev := livePage("care", "supporting", "/hiking/boots/care/", `<h1>Boot care</h1><p>Clean the uppers after every walk.</p>`)
	var d events.ContentData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		t.Fatal(err)
	}
	d.Page.Title = "Boot Care – Shop"
	h.publish(mustEvent(events.ContentPublished, "s1", "pub-care-titled", d))
	ctx := context.Background()
	waitFor(t, waitLong, "the page stored", func() bool {
		_, found, err := h.svc.Store().Page(ctx, "s1", "care")
		return err == nil && found
	})
	care, _, err := h.svc.Store().Page(ctx, "s1", "care")
	if err != nil {
		t.Fatal(err)
	}
	if care.Title != "Boot Care" {
		t.Errorf("the page's title is %q, want %q: the site's name left out", care.Title, "Boot Care")
	}
}

// A page whose writer links a deleted page says so in its validation, as a
// warning that leaves the page passing; its link to a path the pipeline
// never sent a page for (an about page) is no broken link.
func TestAWritersLinkToADeletedPageIsReportedInValidation(t *testing.T) {
	t.Parallel()
	h := startHarness(t, testConfig(t))
	const siteID = "writer-broken"
	h.siteWithLinkedHub(siteID)
	h.publish(pageEvent(siteID, "old-tips", "supporting", 1, supportingHTML(1)))
	waitFor(t, waitLong, "old-tips linked", func() bool { return len(h.inserted.insertedFor(t, siteID, "old-tips")) > 0 })
	h.publish(mustEvent(events.ContentDeleted, siteID, "del-old-tips", events.ContentDeletedData{PageID: "old-tips", Version: 2}))
	h.waitIdle(waitLong)
	html := supportingHTML(2) + `<p>Our <a href="/hiking/boots/old-tips/">older tips</a> are gone; <a href="/about/">about us</a>.</p>
`
	h.publish(pageEvent(siteID, "care", "supporting", 1, html))
	waitFor(t, waitLong, "care linked", func() bool { return len(h.inserted.insertedFor(t, siteID, "care")) > 0 })
	h.waitIdle(waitLong)
	last, _ := h.inserted.latestFor(t, siteID, "care")
	var broken *events.RuleResult
	for i, r := range last.Validation.Rules {
		if r.Name == "no_broken_links" {
			broken = &last.Validation.Rules[i]
		}
	}
	want := "the page's own links lead to deleted pages: /hiking/boots/old-tips/ (page old-tips)"
	if broken == nil || broken.Passed || broken.Severity != "warning" || broken.Detail != want {
		t.Fatalf("no_broken_links %+v, want a warning: %s", broken, want)
	}
	if !last.Validation.Passed {
		t.Errorf("care fails validation (%+v); a warning should not fail it", last.Validation.Rules)
	}
}
