package service

import (
	"runtime/debug"
	"testing"
)

func TestAnOperatorsGOGCIsKept(t *testing.T) {
	t.Setenv("GOGC", "150")
	if got := DefaultConfig().GCPercent; got != 0 {
		t.Errorf("with GOGC set, the default GCPercent is %d; want 0, which leaves the runtime's", got)
	}
	t.Setenv("GOGC", "")
	if got := DefaultConfig().GCPercent; got != gcPercent {
		t.Errorf("without GOGC, the default GCPercent is %d; want %d", got, gcPercent)
	}
}

// Not parallel: the collector's target is the process's, and parallel
// tests start services that set it.
func TestStartSetsTheCollectorTargetAndZeroLeavesIt(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	cfg := testConfig(t)
	cfg.GCPercent = 250
	startHarness(t, cfg)
	if got := debug.SetGCPercent(123); got != 250 {
		t.Errorf("after Start with GCPercent 250 the collector's target is %d", got)
	}

	cfg = testConfig(t)
	cfg.GCPercent = 0
	startHarness(t, cfg)
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("Start with GCPercent 0 changed the collector's target to %d; want the 123 it had", got)
	}
}
