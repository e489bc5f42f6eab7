package storetest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a target and can cut them all: while
// cut, open connections are closed and new ones are refused at once, as when
// the database host goes away.
type Proxy struct {
	ln     net.Listener
	target string

	mu        sync.Mutex
	cut       bool
	latency   time.Duration
	databases []string
	conns     map[net.Conn]struct{}
	wg        sync.WaitGroup
}

// SetLatency delays every reply from the server by d, as a slow or distant
// database would; 0 removes the delay.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// Databases lists the database each connection through the proxy asked
// for in its startup message, in order.
func (p *Proxy) Databases() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.databases...)
}

// NewProxy listens on a free loopback port and forwards to target.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore accepts connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops the proxy.
func (p *Proxy) Close() {
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			client.Close()
			continue
		}
		p.conns[client] = struct{}{}
		p.conns[server] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go func() {
			if err := p.forwardStartup(server, client); err != nil {
				client.Close()
				server.Close()
			}
			p.pipe(server, client, false)
		}()
		go p.pipe(client, server, true)
	}
}

// forwardStartup passes the client's startup message on, noting the
// database it names.
func (p *Proxy) forwardStartup(server, client net.Conn) error {
	var head [4]byte
	if _, err := io.ReadFull(client, head[:]); err != nil {
		return err
	}
	n := int(binary.BigEndian.Uint32(head[:]))
	if n < 8 || n > 1<<16 {
		return fmt.Errorf("startup message of %d bytes", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(client, body); err != nil {
		return err
	}
	// Protocol version, then NUL-terminated key and value pairs.
	fields := bytes.Split(body[4:], []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		if string(fields[i]) == "database" {
			p.mu.Lock()
			p.databases = append(p.databases, string(fields[i+1]))
			p.mu.Unlock()
		}
	}
	_, err := server.Write(append(head[:], body...))
	return err
}

func (p *Proxy) pipe(dst, src net.Conn, fromServer bool) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			delay := p.latency
			p.mu.Unlock()
			if fromServer && delay > 0 {
				time.Sleep(delay)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}
