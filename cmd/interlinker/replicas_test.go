package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/handlers"
	"github.com/interlinker/interlinker/store"
	"github.com/interlinker/interlinker/store/storetest"
)

// runMainEnv makes the test binary run the interlinker command instead of
// its tests, so a test can start real replicas as processes and kill them.
const runMainEnv = "INTERLINKER_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// replica is one `interlinker serve` process.
type replica struct {
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{} // closed when the process has exited
}

func (r *replica) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func startReplica(t *testing.T, name, natsURL, dbURL string) *replica {
	t.Helper()
	return startServe(t, name, os.Args[0], natsURL, dbURL)
}

// startServe starts `bin serve` on the NATS and database given, with the
// replica tests' settings and any extra flags.
func startServe(t testing.TB, name, bin, natsURL, dbURL string, extra ...string) *replica {
	t.Helper()
	args := append([]string{"serve", "--nats-url", natsURL, "--database-url", dbURL,
		"--http-addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--workers", "2", "--db-max-conns", "12",
		"--handler-timeout", "2s", "--retry-total", "3s", "--ack-wait", "7s", "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	r := &replica{cmd: cmd, log: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start replica %s: %v", name, err)
	}
	go func() {
		_ = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		if !r.exited() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-r.done
		}
		if t.Failed() {
			t.Logf("replica %s log:\n%s", name, r.log.String())
		}
	})
	return r
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// publisher applies links.inserted as a downstream publisher must: a
// page's event replaces what it holds only if its sequence is higher.
type publisher struct {
	mu      sync.Mutex
	applied map[string]events.LinksInsertedData
	count   map[string]int  // links.inserted the stages emitted per page
	settled map[string]int  // links.inserted of settle passes per page
	seen    map[uint64]bool // stream sequences applied (receiveOnce)
}

func (p *publisher) receive(d events.LinksInsertedData) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d.Reason == handlers.SettledReason {
		p.settled[d.PageID]++
	} else {
		p.count[d.PageID]++
	}
	if d.Sequence > p.applied[d.PageID].Sequence {
		p.applied[d.PageID] = d
	}
}

func (p *publisher) pages() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.applied)
}

func TestTwoReplicasOneKilledMidStreamLinkEveryPageExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills replica processes")
	}
	srv, err := bus.StartEmbedded(bus.EmbeddedOptions{Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	dbURL := storetest.NewDatabase(t)
	// The first replica creates and migrates the database before the
	// second starts, as a rolling start would.
	a := startReplica(t, "a", srv.ClientURL(), dbURL)
	b := startReplica(t, "b", srv.ClientURL(), dbURL)

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// A guard against a hung test; the waits on counts fail sooner when
	// pages stop being linked.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	go func() {
		// Waiting on anything is pointless once replica b is gone.
		select {
		case <-b.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	waitForStream(t, ctx, js, "LINKS")
	pub := &publisher{applied: map[string]events.LinksInsertedData{}, count: map[string]int{}, settled: map[string]int{}}
	cons, err := js.OrderedConsumer(ctx, "LINKS", jetstream.OrderedConsumerConfig{FilterSubjects: []string{events.LinksInserted}})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		var ev events.Event
		var d events.LinksInsertedData
		if json.Unmarshal(m.Data(), &ev) == nil && json.Unmarshal(ev.Data, &d) == nil {
			pub.receive(d)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Stop()

	send := func(ev events.Event) { sendUntilStored(t, ctx, js, ev) }
	send(replicaEvent(t, events.SiteUpdated, "site", events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: "s1", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "hiking", Name: "Hiking", URL: "/hiking/"}},
		Clusters: []events.ClusterInfo{{ID: "boots", SectorID: "hiking", Name: "Hiking Boots",
			PrimaryKeyword: "hiking boots", Keywords: []string{"trail boots"}}},
	}))
	send(replicaPage(t, "boots-hub", "hub", "/hiking/boots/",
		`<h1>Hiking Boots</h1><p>Our guide to hiking boots covers fit, materials and care.</p>`))
	await(t, ctx, "hub linked", func() bool { return pub.pages() == 1 })

	const n = 150
	for i := range n {
		if i == n/3 {
			awaitCount(t, ctx, "a quarter of the pages linked", pub.pages, n/4+1)
			if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-a.done
		}
		id := fmt.Sprintf("tip-%03d", i)
		send(replicaPage(t, id, "supporting", "/hiking/boots/"+id+"/",
			fmt.Sprintf(`<h1>Tip %d</h1><p>Good care keeps your hiking boots dry, tip %d.</p><p>Dry them slowly.</p>`, i, i)))
	}
	awaitCount(t, ctx, "every page linked", pub.pages, n+1)

	// Let the hub's re-plans settle: the last links.inserted stops changing.
	st, err := store.Open(ctx, dbURL, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	await(t, ctx, "the publisher holding every page's stored plan", func() bool {
		for id, d := range pub.snapshot() {
			rec, _, err := st.Page(ctx, "s1", id)
			if err != nil || rec.LinkedHTML == "" || d.HTML != rec.LinkedHTML || d.Sequence != rec.InsertedSeq {
				return false
			}
		}
		return true
	})
	// Once from the stages; a settle pass may add one, or replace the
	// plan before the stages emit and be the page's only one.
	settled := pub.settledCounts()
	for id, c := range pub.counts() {
		if id != "boots-hub" && (c > 1 || c+settled[id] == 0) {
			t.Errorf("page %s: %d links.inserted from the stages and %d from settle passes, want at most 1 and at least 1 in all", id, c, settled[id])
		}
	}
	if b.exited() {
		t.Errorf("replica b exited: %v", b.cmd.ProcessState)
	}
}

func (p *publisher) snapshot() map[string]events.LinksInsertedData {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]events.LinksInsertedData, len(p.applied))
	for k, v := range p.applied {
		out[k] = v
	}
	return out
}

func (p *publisher) settledCounts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.settled)
}

func (p *publisher) counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.count)
}

// sendUntilStored publishes an event as a producer must: again until the
// stream stores it, with its identity as Nats-Msg-Id, each attempt bounded
// so one lost in a leader election is asked again.
func sendUntilStored(t testing.TB, ctx context.Context, js jetstream.JetStream, ev events.Event) {
	t.Helper()
	raw, err := ev.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := js.PublishMsg(attempt, &nats.Msg{Subject: ev.Type, Data: raw, Header: nats.Header{nats.MsgIdHdr: {ev.MsgID()}}})
		cancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("publish %s: %v", ev.ID, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func replicaEvent(t testing.TB, typ, id string, data any) events.Event {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return events.Event{SpecVersion: "1.0", ID: id, Source: "replica-test", Type: typ, SiteID: "s1", Data: raw}
}

func replicaPage(t *testing.T, id, kind, url, html string) events.Event {
	return replicaEvent(t, events.ContentGenerated, "gen-"+id, events.ContentData{Page: events.PageInfo{
		ID: id, URL: url, Title: id, Kind: kind, ClusterID: "boots", SectorID: "hiking", Version: 1, HTML: html}})
}

func waitForStream(t testing.TB, ctx context.Context, js jetstream.JetStream, name string) {
	t.Helper()
	await(t, ctx, "stream "+name+" provisioned", func() bool {
		// Each look-up has its own few seconds: a cluster can lose the
		// answer to one, which must not hold the wait to its end.
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := js.Stream(attempt, name)
		return err == nil
	})
}

// await waits for cond with the demo's poll, failing the test when ctx
// ends first.
func await(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	if err := waitUntil(ctx, time.Hour, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// stallLimit is how long a count of linked pages may stand still before a
// test calls the missing pages lost. It is longer than anything the
// pipeline waits for by design: a consumer's AckWait (30 s) before a
// dropped or unacknowledged message comes again, and a cluster electing
// new leaders.
const stallLimit = 3 * time.Minute

// awaitCount waits until count reaches want. It fails the test when the
// count stands still for stallLimit, or when ctx ends first: a slow,
// loaded machine makes the wait long, and a page lost makes it stand
// still.
func awaitCount(t testing.TB, ctx context.Context, what string, count func() int, want int) {
	t.Helper()
	last, moved := count(), time.Now()
	for last < want {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %d of %d: %v", what, last, want, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if n := count(); n != last {
			last, moved = n, time.Now()
		} else if time.Since(moved) > stallLimit {
			t.Fatalf("waiting for %s: %d of %d, unchanged for %s", what, last, want, stallLimit)
		}
	}
}
