package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/store/storetest"
)

// closedPort is a loopback port nothing listens on: connecting to it is
// refused at once.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

func TestServeStoppedWhileStartingExitsCleanly(t *testing.T) {
	// The database never answers, so serve keeps retrying its start until
	// the signal (here: the context) stops it, as a rolling restart can
	// stop a replica still waiting for its database or NATS.
	port := closedPort(t)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	err := serve(ctx, []string{"--database-url", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/never?sslmode=disable", port),
		"--nats-url", fmt.Sprintf("nats://127.0.0.1:%d", port), "--http-addr", "127.0.0.1:0", "--data-dir", t.TempDir()})
	if err != nil {
		t.Errorf("serve stopped while starting returned %v; want a clean stop", err)
	}

	// Without a stop, a start that fails is an error: here its HTTP
	// address is taken.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	err = serve(t.Context(), []string{"--database-url", storetest.NewDatabase(t), "--db-max-conns", "8", "--embedded-nats",
		"--nats-listen", "127.0.0.1:0", "--http-addr", taken.Addr().String(), "--data-dir", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "listen for http") {
		t.Errorf("serve whose HTTP address is taken returned %v; want the listen error", err)
	}
}
