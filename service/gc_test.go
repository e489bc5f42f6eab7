package service

import (
	"log/slog"
	"runtime/debug"
	"testing"
)

// TestTheCollectorTargetIsSetUnlessGOGCIs checks that the service sets
// the process's GC target from its configuration, and leaves it to GOGC
// when the operator set that.
func TestTheCollectorTargetIsSetUnlessGOGCIs(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	setGCPercent(250, slog.Default())
	if got := debug.SetGCPercent(250); got != 250 {
		t.Errorf("GC target %d after setGCPercent(250), want 250", got)
	}
	setGCPercent(0, slog.Default())
	if got := debug.SetGCPercent(250); got != 250 {
		t.Errorf("GC target %d after setGCPercent(0), want 250 left as it was", got)
	}
	t.Setenv("GOGC", "150")
	setGCPercent(400, slog.Default())
	if got := debug.SetGCPercent(250); got != 250 {
		t.Errorf("GC target %d with GOGC set, want 250 left as it was", got)
	}
}
