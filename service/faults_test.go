package service

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/interlinker/interlinker/bus"
	"github.com/interlinker/interlinker/domain/link"
	"github.com/interlinker/interlinker/store/storetest"
)

// freeAddr reserves a loopback port the restarted server can listen on again.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// assertEachLinkedOnce checks that every page has exactly one links.inserted
// and one verified uplink row.
func assertEachLinkedOnce(t *testing.T, h *harness, siteID string, ids []string) {
	t.Helper()
	counts := h.inserted.pagesInserted(siteID)
	for _, id := range ids {
		if counts[id] != 1 {
			t.Errorf("page %s: %d links.inserted, want 1", id, counts[id])
			continue
		}
		links, err := h.svc.Store().LinksFrom(context.Background(), siteID, id)
		if err != nil {
			t.Fatal(err)
		}
		if up := ofType(links, link.TypeVerticalUp); len(up) != 1 || !up[0].Placed() {
			t.Errorf("page %s: links %+v, want one placed uplink", id, links)
		}
	}
}

func TestNATSRestartMidStreamLinksEveryPageOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	addr, storeDir := freeAddr(t), filepath.Join(t.TempDir(), "nats")
	srv, err := bus.StartEmbedded(bus.EmbeddedOptions{Listen: addr, StoreDir: storeDir})
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-registered first: the server must outlive the
	// service's shutdown, which drains its connections.
	t.Cleanup(func() { srv.Shutdown() })
	cfg := testConfig(t)
	cfg.NATSURL = srv.ClientURL()
	h := startHarness(t, cfg)

	h.siteWithLinkedHub("s1")
	const n = 500
	ids := make([]string, n)
	for i := range n {
		if i == n/3 {
			srv.Shutdown()
			srv.WaitForShutdown()
			time.Sleep(500 * time.Millisecond)
			if srv, err = bus.StartEmbedded(bus.EmbeddedOptions{Listen: addr, StoreDir: storeDir}); err != nil {
				t.Fatalf("restart nats: %v", err)
			}
		}
		ids[i] = fmt.Sprintf("article-%03d", i)
		h.publish(pageEvent("s1", ids[i], "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, 3*time.Minute, "every page linked", func() bool { return h.inserted.pageCount("s1") == n+1 })
	h.waitIdle(2 * time.Minute)
	assertEachLinkedOnce(t, h, "s1", ids)
}

func TestPostgresAwayForSecondsLinksEveryPageOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	cfg := testConfig(t)
	proxy := storetest.NewProxy(t, "127.0.0.1:5432")
	cfg.DatabaseURL = storetest.WithHost(t, cfg.DatabaseURL, proxy.Addr())
	h := startHarness(t, cfg)

	h.siteWithLinkedHub("s1")
	const n = 200
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("article-%03d", i)
		h.publish(pageEvent("s1", ids[i], "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, time.Minute, "some pages linked", func() bool { return h.inserted.pageCount("s1") >= 20 })
	proxy.Cut()
	time.Sleep(3 * time.Second)
	proxy.Restore()
	waitFor(t, 3*time.Minute, "every page linked", func() bool { return h.inserted.pageCount("s1") == n+1 })
	h.waitIdle(2 * time.Minute)
	assertEachLinkedOnce(t, h, "s1", ids)
}
