package service

import (
	"runtime"
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

func TestTheDefaultPoolIsOneConnectionASlotPlusTheReserve(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DBConcurrency = 6
	if got := cfg.PoolSize(); got != 6+poolReserve {
		t.Errorf("pool of %d for 6 slots, want %d", got, 6+poolReserve)
	}
	cfg.DBMaxConns = 4
	if got := cfg.PoolSize(); got != 4 {
		t.Errorf("--db-max-conns 4 gave a pool of %d", got)
	}
	cfg = DefaultConfig()
	if got, want := cfg.PoolSize(), int32(DBConcurrencyPerCPU*runtime.GOMAXPROCS(0)+poolReserve); got != want {
		t.Errorf("default pool of %d, want %d (2 slots a CPU plus the reserve)", got, want)
	}
}
