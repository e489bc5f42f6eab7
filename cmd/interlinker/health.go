package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/interlinker/interlinker/service"
)

// healthCommand asks a running serve whether it is ready, for container
// health checks in images without a shell or an HTTP client: it exits 0
// when the endpoint answers 200. With INTERLINKER_HTTP_ADDR set for serve,
// the same variable points it at serve's listener.
func healthCommand(ctx context.Context, args []string) error {
	addr := service.DefaultConfig().HTTPAddr
	path := "/readyz"
	timeout := 3 * time.Second
	s := &settings{fs: flag.NewFlagSet("health", flag.ContinueOnError), takesArgs: true}
	s.String(&addr, "http-addr", "address serve listens on; an unspecified host (0.0.0.0, ::, empty) means this machine")
	s.String(&path, "path", "endpoint to ask: /readyz (ready for work) or /healthz (the process runs)")
	s.Duration(&timeout, "timeout", "how long to wait for the answer")
	s.fs.Usage = func() {
		fmt.Fprintln(s.fs.Output(), "usage: interlinker health [--http-addr HOST:PORT] [--path /readyz]\n\n"+
			"Exits 0 when a running serve answers 200 on the endpoint, 1 otherwise (a container health check).")
		s.fs.PrintDefaults()
	}
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	if len(s.args) != 0 {
		return fmt.Errorf("health: unexpected argument %q", s.args[0])
	}
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("health: --path %q must start with /", path)
	}
	url, err := healthURL(addr, path)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Println(strings.TrimSpace(string(body)))
	return nil
}

// healthURL is the URL of path on the listener addr, with an unspecified
// host replaced by loopback.
func healthURL(addr, path string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("health: --http-addr %q: %w", addr, err)
	}
	if port == "" || port == "0" {
		return "", errors.New("health: --http-addr needs the port serve listens on")
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
