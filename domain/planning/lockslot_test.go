package planning

import (
	"fmt"
	"testing"
)

// The slots are pinned: replicas of two releases plan side by side during
// a deploy, and a slot that moved would let them through together. The
// expected values are FNV-1a 64 of site, NUL, name, modulo 1024, computed
// independently of the code under test.
func TestLockSlotIsStable(t *testing.T) {
	for _, c := range []struct {
		site, name string
		slot       int32
	}{
		{"site-1", "cluster:boots", 337},
		{"site-1", "facet:material=leather", 930},
		{"site-2", "cluster:boots", 708},
		{"", "", 991},
	} {
		if got := LockSlot(c.site, c.name); got != c.slot {
			t.Errorf("LockSlot(%q, %q) = %d, want %d", c.site, c.name, got, c.slot)
		}
	}
}

func TestLockSlotsAreInRangeAndSpread(t *testing.T) {
	const names = 100 * LockSlots
	counts := make([]int, LockSlots)
	for i := range names {
		slot := LockSlot(fmt.Sprintf("site-%d", i%7), fmt.Sprintf("facet:attr-%d=value %d", i%13, i))
		if slot < 0 || slot >= LockSlots {
			t.Fatalf("slot %d out of [0, %d)", slot, LockSlots)
		}
		counts[slot]++
	}
	// 100 names a slot on average; a fair hash keeps every slot within
	// about five standard deviations (10) of that.
	for slot, n := range counts {
		if n < 50 || n > 150 {
			t.Errorf("slot %d holds %d of %d names, want about 100", slot, n, names)
		}
	}
	// The site is part of the key: one name of many sites does not pile
	// into one slot.
	seen := map[int32]bool{}
	for i := range 100 {
		seen[LockSlot(fmt.Sprintf("site-%d", i), "cluster:boots")] = true
	}
	if len(seen) < 90 {
		t.Errorf("one name of 100 sites falls in %d slots, want nearly 100", len(seen))
	}
}
