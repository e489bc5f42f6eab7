package bus

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/interlinker/interlinker/events"
)

// startCluster starts a JetStream cluster of n servers in this process, all
// on loopback, and returns the client URLs once it has a meta leader.
func startCluster(t *testing.T, n int) []string {
	t.Helper()
	var servers []*server.Server
	var urls []string
	// The route ports are found free and let go before the servers bind
	// them, so a test running beside this one may take one meanwhile: a
	// cluster with a node that cannot listen starts again on new ports.
	for attempt := 1; ; attempt++ {
		var err error
		if servers, urls, err = startNodes(t, n); err == nil {
			break
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("%v; starting the cluster again on new ports", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		leader, current := false, true
		for _, srv := range servers {
			// Only the meta leader lists the peers.
			leader = leader || srv.JetStreamIsLeader() && len(srv.JetStreamClusterPeers()) == n
			current = current && srv.JetStreamIsCurrent()
		}
		if leader && current {
			return urls
		}
		if time.Now().After(deadline) {
			t.Fatal("the JetStream cluster elected no meta leader in time")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startNodes starts n routed servers; on a node that does not come up it
// shuts down those it started and says which.
func startNodes(t *testing.T, n int) ([]*server.Server, []string, error) {
	t.Helper()
	routePorts := make([]int, n)
	for i := range routePorts {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		routePorts[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	routes := make([]string, n)
	for i, p := range routePorts {
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", p)
	}
	var servers []*server.Server
	var urls []string
	for i := range n {
		opts := &server.Options{
			ServerName: fmt.Sprintf("node-%d", i+1),
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoSigs:     true,
			NoLog:      true,
			Cluster:    server.ClusterOpts{Name: "replicas-test", Host: "127.0.0.1", Port: routePorts[i]},
			Routes:     server.RoutesFromStr(routes[0] + "," + routes[1%n] + "," + routes[2%n]),
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		t.Cleanup(srv.Shutdown)
		servers = append(servers, srv)
		if !srv.ReadyForConnections(10 * time.Second) {
			for _, s := range servers {
				s.Shutdown()
				s.WaitForShutdown()
			}
			return nil, nil, fmt.Errorf("%s did not start (route port %d)", opts.ServerName, routePorts[i])
		}
		urls = append(urls, srv.ClientURL())
	}
	return servers, urls, nil
}

// TestStreamReplicasApplyToEveryStreamAndConsumerAndChangeInPlace provisions
// on a three-node cluster with one replica, then three, then one again:
// each run leaves every stream and durable consumer interlinker provisions,
// the delivery watch's included, with the asked-for replicas, and the
// events stored survive the changes.
func TestStreamReplicasApplyToEveryStreamAndConsumerAndChangeInPlace(t *testing.T) {
	urls := startCluster(t, 3)
	js := connectJetStream(t, urls[0], "replicas-test")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := ConsumerSettings{AckWait: 30 * time.Second, DeliveryCeiling: 5, MaxAckPending: 100}
	specs := []ConsumerSpec{{Durable: "planner", Subject: events.ContentGenerated}, {Durable: "validator", Subject: events.LinksInjected}}

	check := func(replicas int) {
		t.Helper()
		streams := []string{advisoryStream}
		for _, s := range events.Streams {
			streams = append(streams, s.Name)
		}
		for _, name := range streams {
			st, err := js.Stream(ctx, name)
			if err != nil {
				t.Fatalf("stream %s: %v", name, err)
			}
			info, err := st.Info(ctx)
			if err != nil {
				t.Fatalf("stream %s: %v", name, err)
			}
			if info.Config.Replicas != replicas {
				t.Errorf("stream %s has %d replicas, want %d", name, info.Config.Replicas, replicas)
			}
		}
		consumers := map[string]string{advisoryConsumer: advisoryStream}
		for _, c := range specs {
			stream, _ := events.StreamFor(c.Subject)
			consumers[c.Durable] = stream
		}
		for durable, stream := range consumers {
			c, err := js.Consumer(ctx, stream, durable)
			if err != nil {
				t.Fatalf("consumer %s: %v", durable, err)
			}
			info, err := c.Info(ctx)
			if err != nil {
				t.Fatalf("consumer %s: %v", durable, err)
			}
			if info.Config.Replicas != replicas {
				t.Errorf("consumer %s on %s has %d replicas, want %d", durable, stream, info.Config.Replicas, replicas)
			}
		}
	}

	ss := StreamSettings{DuplicateWindow: time.Minute, MaxAge: time.Hour, Replicas: 1}
	if err := Provision(ctx, js, ss, cs, specs); err != nil {
		t.Fatalf("provision with 1 replica: %v", err)
	}
	check(1)
	if _, err := js.Publish(ctx, events.ContentGenerated, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	for _, replicas := range []int{3, 1} {
		ss.Replicas = replicas
		if err := Provision(ctx, js, ss, cs, specs); err != nil {
			t.Fatalf("provision with %d replicas over existing streams: %v", replicas, err)
		}
		check(replicas)
	}
	st, err := js.Stream(ctx, "CONTENT")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Errorf("CONTENT holds %d events after the replica changes, want the 1 published", info.State.Msgs)
	}
}

// TestReplicasProvisioningAtTheSameMomentConverge: three replicas starting
// together each provision every stream and consumer on a new cluster; each
// run succeeds, and the server ends with one of each, as asked.
func TestReplicasProvisioningAtTheSameMomentConverge(t *testing.T) {
	urls := startCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := ConsumerSettings{AckWait: 30 * time.Second, DeliveryCeiling: 5, MaxAckPending: 100}
	specs := []ConsumerSpec{{Durable: "planner", Subject: events.ContentGenerated}, {Durable: "validator", Subject: events.LinksInjected}}
	ss := StreamSettings{DuplicateWindow: time.Minute, MaxAge: time.Hour, Replicas: 3}
	errs := make(chan error, 3)
	start := make(chan struct{})
	for i := range 3 {
		js := connectJetStream(t, urls[i], fmt.Sprintf("replica-%d", i))
		go func() {
			<-start
			errs <- Provision(ctx, js, ss, cs, specs)
		}()
	}
	close(start)
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("a replica's provisioning failed: %v", err)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js := connectJetStream(t, urls[0], "check")
	names := js.StreamNames(ctx)
	n := 0
	for range names.Name() {
		n++
	}
	if want := len(events.Streams) + 1; n != want { // and the delivery watch's
		t.Errorf("%d streams, want %d", n, want)
	}
	for _, c := range specs {
		stream, _ := events.StreamFor(c.Subject)
		cons, err := js.Consumer(ctx, stream, c.Durable)
		if err != nil {
			t.Fatalf("consumer %s: %v", c.Durable, err)
		}
		info, err := cons.Info(ctx)
		if err != nil || info.Config.Replicas != 3 {
			t.Errorf("consumer %s: replicas %d, %v", c.Durable, info.Config.Replicas, err)
		}
	}
}
