package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An event the pipeline refuses is listed with its reason, and saved
// byte for byte to be mended and sent again: trial U could read the
// reason of a "priority": "high" page only with a NATS client of its own.
func TestDeadLettersListsRefusedEventsWithTheirReasonAndSavesThem(t *testing.T) {
	svc, _ := startTestService(t)
	hub, err := os.ReadFile(filepath.Join("..", "..", "docs", "events", "02-content.generated.hub.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(hub, []byte(`"priority": 1`), []byte(`"priority": "high"`), 1)
	if bytes.Equal(bad, hub) {
		t.Fatal(`the documented hub event has no "priority": 1 to spoil`)
	}
	file := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	url := svc.NATSURL()
	if out, err := runCapturing(t, "dead-letters", "--nats-url", url); err != nil || !strings.Contains(out, "no dead letters") {
		t.Fatalf("dead-letters before any: %q (%v), want \"no dead letters\"", out, err)
	}
	if _, err := runCapturing(t, "publish", "--nats-url", url, "--validate=false", file); err != nil {
		t.Fatalf("publish: %v", err)
	}
	saveDir := t.TempDir()
	var out string
	if err := waitUntil(t.Context(), time.Minute, func() bool {
		out, err = runCapturing(t, "dead-letters", "--nats-url", url, "--subject", "content.generated", "--save", saveDir)
		return err == nil && strings.Contains(out, "reason:")
	}); err != nil {
		t.Fatalf("no dead letter listed: %q (%v)", out, err)
	}
	for _, want := range []string{"content.generated", "handler=planner", "at /page/priority", "saved:"} {
		if !strings.Contains(out, want) {
			t.Errorf("dead-letters printed %q, want %q in it", out, want)
		}
	}
	saved, _ := filepath.Glob(filepath.Join(saveDir, "deadletter-*.json"))
	if len(saved) != 1 {
		t.Fatalf("saved %v, want one file", saved)
	}
	// publish sends a file's event as it stands, its surrounding space trimmed.
	if got, err := os.ReadFile(saved[0]); err != nil || !bytes.Equal(got, bytes.TrimSpace(bad)) {
		t.Errorf("the saved payload differs from the event published (%v)", err)
	}
	if out, err := runCapturing(t, "dead-letters", "--nats-url", url, "--subject", "site.updated"); err != nil || !strings.Contains(out, "no dead letters") {
		t.Errorf("dead letters of another subject: %q (%v), want none", out, err)
	}
	if out, err := runCapturing(t, "dead-letters", "--nats-url", url, "--json"); err != nil || !strings.Contains(out, `"reason":"`) || !strings.Contains(out, `"payload":{`) {
		t.Errorf("--json printed %q (%v), want a line with the reason and the payload", out, err)
	}
}
