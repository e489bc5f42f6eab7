// Package storetest gives tests a database of their own on the real
// Postgres server, and a proxy that can cut the connection to it.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// ServerURL is the Postgres server tests use: INTERLINKER_TEST_DATABASE_URL,
// or the local server with trust auth.
func ServerURL() string {
	if u := os.Getenv("INTERLINKER_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// NewDatabase returns the URL of a database name that does not exist yet
// (the store creates it on open) and drops it when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	suffix := make([]byte, 6)
	if _, err := rand.Read(suffix); err != nil {
		t.Fatal(err)
	}
	name := "interlinker_test_" + hex.EncodeToString(suffix)
	u, err := url.Parse(ServerURL())
	if err != nil {
		t.Fatalf("parse test database url: %v", err)
	}
	admin := *u
	u.Path = "/" + name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin.String())
		if err != nil {
			t.Logf("drop test database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Logf("drop test database %s: %v", name, err)
		}
	})
	return u.String()
}

// WithHost returns dbURL with its host and port replaced, to route it
// through a proxy.
func WithHost(t testing.TB, dbURL, hostPort string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("parse database url: %v", err)
	}
	u.Host = hostPort
	return u.String()
}
