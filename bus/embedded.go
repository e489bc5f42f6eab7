// Package bus connects interlinker to NATS JetStream: it embeds a server for
// local use and tests, provisions streams and durable consumers, feeds
// Watermill routers, relays the outbox and dead-letters refused events.
package bus

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// MaxPayload is the largest message the embedded server accepts. It is well
// above any page interlinker takes, so an oversized page arrives and is
// dead-lettered with a reason instead of being refused at the producer.
const MaxPayload = 32 << 20

// EmbeddedOptions configure an in-process JetStream server.
type EmbeddedOptions struct {
	Listen   string // host:port; port 0 picks a free one
	StoreDir string // JetStream file store; reused across restarts
	// MaxPayload is the largest message in bytes the server accepts; 0
	// means the package's MaxPayload. Tests set it small to see how
	// interlinker copes with a server that refuses large events.
	MaxPayload int32
}

// StartEmbedded starts a JetStream server in this process and waits until it
// accepts connections.
func StartEmbedded(opts EmbeddedOptions) (*server.Server, error) {
	host, portText, err := net.SplitHostPort(opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("embedded nats listen address %q: %w", opts.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("embedded nats listen port %q: %w", portText, err)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	} else {
		// The server logs nothing here (NoLog) and would only time out on
		// an address it cannot take: trying it first tells the operator
		// why ("address already in use").
		l, err := net.Listen("tcp", opts.Listen)
		if err != nil {
			return nil, fmt.Errorf("embedded nats cannot listen on %s: %w", opts.Listen, err)
		}
		if err := l.Close(); err != nil {
			return nil, fmt.Errorf("embedded nats listen check on %s: %w", opts.Listen, err)
		}
	}
	maxPayload := opts.MaxPayload
	if maxPayload == 0 {
		maxPayload = MaxPayload
	}
	srv, err := server.NewServer(&server.Options{
		ServerName: "interlinker-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   opts.StoreDir,
		MaxPayload: maxPayload,
		NoSigs:     true,
		NoLog:      true,
	})
	if err != nil {
		return nil, fmt.Errorf("configure embedded nats: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(15 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("embedded nats did not start listening on %s", opts.Listen)
	}
	return srv, nil
}
