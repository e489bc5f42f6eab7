package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
	"github.com/interlinker/interlinker/store"
	"github.com/interlinker/interlinker/store/storetest"
)

// natsCluster is a JetStream cluster of three nats-server nodes in this
// process, routed over loopback. Each node keeps its ports and store, so
// a node stopped and started again rejoins as itself.
type natsCluster struct {
	t     testing.TB
	mu    sync.Mutex
	opts  []*server.Options
	nodes []*server.Server
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startAttempts is how many times startNATSCluster picks fresh ports: a
// port freePort found free can be taken by another test package before
// the node listens on it, and the node then never becomes ready.
const startAttempts = 3

func startNATSCluster(t testing.TB, n int) *natsCluster {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c, err := tryNATSCluster(t, n)
		if err == nil {
			t.Cleanup(func() {
				for i := range c.nodes {
					c.stop(i)
				}
			})
			c.waitForMetaLeader()
			return c
		}
		if attempt == startAttempts {
			t.Fatalf("start a %d-node cluster, %d attempts: %v", n, attempt, err)
		}
		t.Logf("start a %d-node cluster, attempt %d: %v; again on other ports", n, attempt, err)
	}
}

// tryNATSCluster starts n nodes on ports free a moment before; on failure
// it stops those it started.
func tryNATSCluster(t testing.TB, n int) (*natsCluster, error) {
	c := &natsCluster{t: t}
	routes := make([]string, n)
	routePorts := make([]int, n)
	for i := range n {
		routePorts[i] = freePort(t)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", routePorts[i])
	}
	for i := range n {
		c.opts = append(c.opts, &server.Options{
			ServerName: fmt.Sprintf("node-%d", i+1),
			Host:       "127.0.0.1",
			Port:       freePort(t),
			JetStream:  true,
			StoreDir:   filepath.Join(t.TempDir(), "js"),
			NoSigs:     true,
			NoLog:      true,
			Cluster:    server.ClusterOpts{Name: "chaos", Host: "127.0.0.1", Port: routePorts[i]},
			Routes:     server.RoutesFromStr(strings.Join(routes, ",")),
		})
		c.nodes = append(c.nodes, nil)
	}
	for i := range n {
		if err := c.tryStart(i); err != nil {
			for j := range i {
				c.stop(j)
			}
			return nil, err
		}
	}
	return c, nil
}

// start starts node i again on its own ports and store.
func (c *natsCluster) start(i int) {
	c.t.Helper()
	if err := c.tryStart(i); err != nil {
		c.t.Fatal(err)
	}
}

func (c *natsCluster) tryStart(i int) error {
	srv, err := server.NewServer(c.opts[i].Clone())
	if err != nil {
		return fmt.Errorf("node %d: %w", i+1, err)
	}
	srv.Start()
	if !srv.ReadyForConnections(20 * time.Second) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return fmt.Errorf("node %d (client port %d, route port %d) did not start", i+1, c.opts[i].Port, c.opts[i].Cluster.Port)
	}
	c.mu.Lock()
	c.nodes[i] = srv
	c.mu.Unlock()
	return nil
}

func (c *natsCluster) stop(i int) {
	c.mu.Lock()
	srv := c.nodes[i]
	c.nodes[i] = nil
	c.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// urls are the seed URLs of every node, comma-separated, as --nats-url
// takes them.
func (c *natsCluster) urls() string {
	var out []string
	for _, o := range c.opts {
		out = append(out, fmt.Sprintf("nats://127.0.0.1:%d", o.Port))
	}
	return strings.Join(out, ",")
}

// nodeNamed is the index of the node of that server name.
func (c *natsCluster) nodeNamed(name string) int {
	for i, o := range c.opts {
		if o.ServerName == name {
			return i
		}
	}
	c.t.Fatalf("no node named %q", name)
	return -1
}

func (c *natsCluster) waitForMetaLeader() {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		leader := false
		for _, srv := range c.nodes {
			leader = leader || (srv != nil && srv.JetStreamIsLeader())
		}
		c.mu.Unlock()
		if leader {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatal("the cluster elected no meta leader")
}

var (
	serveBinaryOnce sync.Once
	serveBinary     string
	serveBinaryErr  error
)

// builtBinary builds interlinker without the race detector, once: the
// cluster tests run two replicas through thousands of pages, which a
// race-instrumented replica takes several times longer to do.
func builtBinary(t testing.TB) string {
	t.Helper()
	serveBinaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "interlinker-bin-")
		if err != nil {
			serveBinaryErr = err
			return
		}
		serveBinary = filepath.Join(dir, "interlinker")
		out, err := exec.Command("go", "build", "-o", serveBinary, ".").CombinedOutput()
		if err != nil {
			serveBinaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if serveBinaryErr != nil {
		t.Fatal(serveBinaryErr)
	}
	return serveBinary
}

// clusterRun is a site's pages going through replicas on a cluster, with a
// downstream publisher applying links.inserted as it must.
type clusterRun struct {
	t       testing.TB
	ctx     context.Context
	cluster *natsCluster
	dbURL   string
	js      jetstream.JetStream
	pub     *publisher
	sent    int
}

func newClusterRun(t testing.TB, ctx context.Context, cluster *natsCluster, dbURL string) *clusterRun {
	t.Helper()
	nc, err := nats.Connect(cluster.urls(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	r := &clusterRun{t: t, ctx: ctx, cluster: cluster, dbURL: dbURL, js: js,
		pub: &publisher{applied: map[string]events.LinksInsertedData{}, count: map[string]int{}, settled: map[string]int{}}}
	waitForStream(t, ctx, js, "LINKS")
	// The publisher reads links.inserted through a durable consumer kept
	// by every node, so it reads on whichever node leads while another is
	// down.
	var cons jetstream.Consumer
	await(t, ctx, "the publisher's consumer created", func() bool {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var err error
		cons, err = js.CreateOrUpdateConsumer(attempt, "LINKS", jetstream.ConsumerConfig{Durable: "chaos-publisher",
			FilterSubject: events.LinksInserted, AckPolicy: jetstream.AckExplicitPolicy, Replicas: 3})
		return err == nil
	})
	cc, err := cons.Consume(func(m jetstream.Msg) {
		var ev events.Event
		var d events.LinksInsertedData
		if json.Unmarshal(m.Data(), &ev) == nil && json.Unmarshal(ev.Data, &d) == nil {
			r.pub.receiveOnce(m, d)
		}
		_ = m.Ack()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cc.Stop)
	return r
}

func (r *clusterRun) send(ev events.Event) {
	r.t.Helper()
	sendUntilStored(r.t, r.ctx, r.js, ev)
}

// clusters is how many clusters the run's site has: its articles are
// spread over them, as a real site's are, rather than piled under one hub.
const clusters = 20

func (r *clusterRun) site() {
	data := events.SiteUpdatedData{
		Site:    events.SiteInfo{ID: "s1", BaseURL: "https://shop.example", Name: "Shop", Policy: "sag"},
		Sectors: []events.SectorInfo{{ID: "hiking", Name: "Hiking", URL: "/hiking/"}},
	}
	for c := range clusters {
		data.Clusters = append(data.Clusters, events.ClusterInfo{ID: fmt.Sprintf("gear-%02d", c), SectorID: "hiking",
			Name: fmt.Sprintf("Gear %d", c), PrimaryKeyword: fmt.Sprintf("gear %d", c)})
	}
	r.send(replicaEvent(r.t, events.SiteUpdated, "site", data))
	for c := range clusters {
		id := fmt.Sprintf("gear-%02d", c)
		r.send(clusterPage(r.t, id+"-hub", "hub", id, "/hiking/"+id+"/",
			fmt.Sprintf(`<h1>Gear %d</h1><p>Our guide to gear %d covers fit, materials and care.</p>`, c, c)))
	}
	awaitCount(r.t, r.ctx, "hubs linked", r.pub.pages, clusters)
}

func clusterPage(t testing.TB, id, kind, clusterID, url, html string) events.Event {
	return replicaEvent(t, events.ContentGenerated, "gen-"+id, events.ContentData{Page: events.PageInfo{
		ID: id, URL: url, Title: id, Kind: kind, ClusterID: clusterID, SectorID: "hiking", Version: 1, HTML: html}})
}

func (r *clusterRun) page() {
	i := r.sent
	r.sent++
	id := fmt.Sprintf("tip-%04d", i)
	c := i % clusters
	cluster := fmt.Sprintf("gear-%02d", c)
	r.send(clusterPage(r.t, id, "supporting", cluster, "/hiking/"+cluster+"/"+id+"/",
		fmt.Sprintf(`<h1>Tip %d</h1><p>Good care keeps your gear %d dry, tip %d.</p><p>Dry it slowly.</p>`, i, c, i)))
}

// verdict waits for every page to be linked and its stored plan to be
// what the publisher holds, and reports the pages lost, the pages linked
// more than once by the stages, and the events dead-lettered.
func (r *clusterRun) verdict() (lost, duplicated, deadLettered int) {
	r.t.Helper()
	awaitCount(r.t, r.ctx, "every page linked", r.pub.pages, r.sent+clusters)
	st, err := store.Open(r.ctx, r.dbURL, store.Options{MaxConns: 2})
	if err != nil {
		r.t.Fatal(err)
	}
	defer st.Close()
	await(r.t, r.ctx, "the publisher holding every page's stored plan", func() bool {
		for id, d := range r.pub.snapshot() {
			rec, _, err := st.Page(r.ctx, "s1", id)
			if err != nil || rec.LinkedHTML == "" || d.HTML != rec.LinkedHTML || d.Sequence != rec.InsertedSeq {
				return false
			}
		}
		return true
	})
	settled := r.pub.settledCounts()
	counts := r.pub.counts()
	for i := range r.sent {
		id := fmt.Sprintf("tip-%04d", i)
		c := counts[id]
		switch {
		case c+settled[id] == 0:
			lost++
		case c > 1:
			duplicated++
		}
	}
	var deadLetters int
	await(r.t, r.ctx, "the DEADLETTER stream's count", func() bool {
		attempt, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		defer cancel()
		dead, err := r.js.Stream(attempt, "DEADLETTER")
		if err != nil {
			return false
		}
		info, err := dead.Info(attempt)
		if err != nil {
			return false
		}
		deadLetters = int(info.State.Msgs)
		return true
	})
	return lost, duplicated, deadLetters
}

// receiveOnce applies a links.inserted delivered once to the publisher: a
// durable consumer may redeliver one whose ack was lost while a node was
// down, and a publisher that deduplicates by stream sequence sees it once.
func (p *publisher) receiveOnce(m jetstream.Msg, d events.LinksInsertedData) {
	md, err := m.Metadata()
	if err != nil {
		return
	}
	p.mu.Lock()
	if p.seen == nil {
		p.seen = map[uint64]bool{}
	}
	if p.seen[md.Sequence.Stream] {
		p.mu.Unlock()
		return
	}
	p.seen[md.Sequence.Stream] = true
	p.mu.Unlock()
	p.receive(d)
}

func TestClusterChaosLinksEveryPageOnceThroughAReplicaKillAndAStreamLeaderStop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3-node cluster and two replica processes through 2,000 pages")
	}
	bin := builtBinary(t)
	cluster := startNATSCluster(t, 3)
	dbURL := storetest.NewDatabase(t)
	flags := []string{"--stream-replicas", "3"}
	a := startServe(t, "a", bin, cluster.urls(), dbURL, flags...)
	// A guard against a hung test; the waits on counts fail sooner when
	// pages stop being linked.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	run := newClusterRun(t, ctx, cluster, dbURL)
	startServe(t, "b", bin, cluster.urls(), dbURL, flags...)
	run.site()

	const pages, burst = 2000, 100
	for run.sent < pages {
		switch run.sent {
		case pages / 3 / burst * burst:
			if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-a.done
			t.Logf("replica a killed after %d pages sent, %d linked", run.sent, run.pub.pages())
			a = startServe(t, "a-again", bin, cluster.urls(), dbURL, flags...)
		case 2 * pages / 3 / burst * burst:
			var info *jetstream.StreamInfo
			await(t, ctx, "the CONTENT stream's leader", func() bool {
				attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				s, err := run.js.Stream(attempt, "CONTENT")
				if err == nil {
					info, err = s.Info(attempt)
				}
				return err == nil && info.Cluster != nil && info.Cluster.Leader != ""
			})
			leader := cluster.nodeNamed(info.Cluster.Leader)
			cluster.stop(leader)
			t.Logf("node %s, leader of CONTENT, stopped after %d pages sent, %d linked", info.Cluster.Leader, run.sent, run.pub.pages())
			for range burst {
				run.page()
			}
			cluster.start(leader)
		}
		for range burst {
			run.page()
		}
		// Bursts, not a flood: the next waits until the pipeline has
		// caught up to within two bursts.
		awaitCount(t, ctx, "the pipeline catching up", run.pub.pages, run.sent+clusters-2*burst)
	}
	lost, duplicated, dead := run.verdict()
	t.Logf("chaos: %d pages published, %d lost, %d linked twice by the stages, %d dead-lettered", run.sent+clusters, lost, duplicated, dead)
	if lost != 0 || duplicated != 0 || dead != 0 {
		t.Errorf("lost %d, duplicated %d, dead-lettered %d; want none", lost, duplicated, dead)
	}
}

func TestARollingRestartLosesAndDuplicatesNothingAndEachReplicaStopsWithin25s(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3-node cluster and restarts two replica processes")
	}
	bin := builtBinary(t)
	cluster := startNATSCluster(t, 3)
	dbURL := storetest.NewDatabase(t)
	// A shutdown budget under the 25 s this test allows leaves room for
	// the process to exit after a step that used the whole budget.
	flags := []string{"--stream-replicas", "3", "--shutdown-timeout", "20s"}
	replicas := []*replica{startServe(t, "a", bin, cluster.urls(), dbURL, flags...)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	run := newClusterRun(t, ctx, cluster, dbURL)
	replicas = append(replicas, startServe(t, "b", bin, cluster.urls(), dbURL, flags...))
	run.site()

	for i := range replicas {
		for range 100 {
			run.page()
		}
		began := time.Now()
		if err := replicas[i].cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-replicas[i].done:
		case <-time.After(30 * time.Second):
			t.Fatalf("replica %d still running 30 s after SIGTERM", i)
		}
		stopped := time.Since(began)
		t.Logf("replica %d stopped %.1f s after SIGTERM, exit %v", i, stopped.Seconds(), replicas[i].cmd.ProcessState)
		if stopped > 25*time.Second || !replicas[i].cmd.ProcessState.Success() {
			t.Errorf("replica %d: stopped after %s with %v; want a clean exit within 25 s", i, stopped, replicas[i].cmd.ProcessState)
		} else if stopped > 5*time.Second {
			// In time, but slow: its log names the step that held it.
			t.Logf("replica %d log:\n%s", i, replicas[i].log.String())
		}
		for range 100 {
			run.page()
		}
		replicas[i] = startServe(t, fmt.Sprintf("%d-again", i), bin, cluster.urls(), dbURL, flags...)
	}
	lost, duplicated, dead := run.verdict()
	t.Logf("rolling restart: %d pages published, %d lost, %d linked twice by the stages, %d dead-lettered", run.sent+clusters, lost, duplicated, dead)
	if lost != 0 || duplicated != 0 || dead != 0 {
		t.Errorf("lost %d, duplicated %d, dead-lettered %d; want none", lost, duplicated, dead)
	}
}

// BenchmarkReplicasOnACluster links pages with 1, 2 and 3 replicas on a
// 3-node cluster with R3 streams, and measures raw JetStream on such a
// cluster in the same run as the baseline: each message published to an
// R3 stream and consumed from a durable R3 consumer, acknowledged. It
// reports pages/s and the ratio to raw messages/s. Two cores cap the
// scaling here; the figure shows each replica's cost and that nothing
// serialises them.
//
//	go test -run '^$' -bench BenchmarkReplicasOnACluster -benchtime 1x ./cmd/interlinker/
func BenchmarkReplicasOnACluster(b *testing.B) {
	const pages = 1000
	rawPerSec := rawClusterThroughput(b, pages)
	b.Logf("raw JetStream on the cluster: %.0f msg/s", rawPerSec)
	for replicas := 1; replicas <= 3; replicas++ {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			bin := builtBinary(b)
			var perSec float64
			for range b.N {
				cluster := startNATSCluster(b, 3)
				dbURL := storetest.NewDatabase(b)
				startServe(b, "r0", bin, cluster.urls(), dbURL, "--stream-replicas", "3")
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				run := newClusterRun(b, ctx, cluster, dbURL)
				for i := 1; i < replicas; i++ {
					startServe(b, fmt.Sprintf("r%d", i), bin, cluster.urls(), dbURL, "--stream-replicas", "3")
				}
				run.site()
				began := time.Now()
				for range pages {
					run.page()
				}
				awaitCount(b, ctx, "every page linked", run.pub.pages, pages+clusters)
				perSec = pages / time.Since(began).Seconds()
				cancel()
			}
			b.ReportMetric(perSec, "pages/s")
			b.ReportMetric(perSec/rawPerSec, "ratio_to_raw")
		})
	}
}

// rawClusterThroughput publishes n page-sized messages to an R3 stream of
// a fresh 3-node cluster and consumes them, acknowledged, from a durable
// R3 consumer: the messages per second of the whole.
func rawClusterThroughput(b *testing.B, n int) float64 {
	b.Helper()
	cluster := startNATSCluster(b, 3)
	nc, err := nats.Connect(cluster.urls())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "RAW", Subjects: []string{"raw.>"}, Replicas: 3})
	if err != nil {
		b.Fatal(err)
	}
	cons, err := s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "raw", AckPolicy: jetstream.AckExplicitPolicy, Replicas: 3})
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 2048) // a page event's size, about
	got := make(chan struct{}, n)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		_ = m.Ack()
		got <- struct{}{}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()
	began := time.Now()
	for i := range n {
		if _, err := js.PublishAsync(fmt.Sprintf("raw.%d", i), payload); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		b.Fatal("raw publishes not acknowledged")
	}
	for range n {
		select {
		case <-got:
		case <-ctx.Done():
			b.Fatal("raw messages not consumed")
		}
	}
	return float64(n) / time.Since(began).Seconds()
}
