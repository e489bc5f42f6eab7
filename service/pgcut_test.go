package service

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// tcpProxy stands between the service and Postgres, so a test can cut
// the database away and bring it back on the same address.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
}

func startTCPProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[up] = true, true
			p.mu.Unlock()
			go p.pipe(c, up)
			go p.pipe(up, c)
		}
	}()
}

func (p *tcpProxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

// cut stops listening and drops every connection: Postgres is away.
func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// restore listens again on the same address.
func (p *tcpProxy) restore() {
	var ln net.Listener
	var err error
	// The port was just let go; another process may hold it a moment.
	for range 50 {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func TestAPostgresOutageOfTenSecondsLosesNothingAndDeadLettersNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("cuts Postgres away for 10 seconds")
	}
	cfg := testConfig(t)
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startTCPProxy(t, u.Host)
	u.Host = proxy.addr
	cfg.DatabaseURL = u.String()
	h := startHarness(t, cfg)
	const siteID = "pg-cut"
	h.siteWithLinkedHub(siteID)

	const before, during = 10, 10
	for i := range before {
		h.publish(pageEvent(siteID, fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
	}
	waitFor(t, waitLong, "the first pages linked", func() bool { return h.inserted.pageCount(siteID) >= 4 })
	proxy.cut()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	readyErr := h.svc.Ready(ctx)
	cancel()
	if readyErr == nil {
		t.Errorf("ready while Postgres is away")
	}
	// Pages keep arriving while the database is away: JetStream holds
	// them until a handler can take them.
	for i := before; i < before+during; i++ {
		h.publish(pageEvent(siteID, fmt.Sprintf("tip-%d", i), "supporting", 1, supportingHTML(i)))
	}
	time.Sleep(10 * time.Second)
	proxy.restore()

	pages := before + during + 1
	waitFor(t, 2*time.Minute, "every page linked after the outage", func() bool { return h.inserted.pageCount(siteID) == pages })
	h.waitIdle(2 * time.Minute)
	ctx, cancel = context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := h.svc.Ready(ctx); err != nil {
		t.Errorf("not ready once Postgres is back: %v", err)
	}
	if dead := h.dead.all(); len(dead) > 0 {
		t.Errorf("%d events dead-lettered by a Postgres outage: first %s", len(dead), dead[0].Subject)
	}
	// Every page's last links.inserted is its stored plan: nothing was
	// lost between the bus and the database.
	for pageID := range h.inserted.pagesInserted(siteID) {
		rec, found, err := h.svc.Store().Page(t.Context(), siteID, pageID)
		if err != nil || !found || rec.LinkedHTML == "" {
			t.Errorf("page %s: stored %v, linked HTML %d bytes, %v", pageID, found, len(rec.LinkedHTML), err)
		}
	}
	if n := sqlCounter(t, cfg.DatabaseURL)(`SELECT count(*) FROM pages WHERE site_id = $1`, siteID); n != pages {
		t.Errorf("%d pages stored, want %d", n, pages)
	}
}
