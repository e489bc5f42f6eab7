package planning

import "hash/fnv"

// LockSlots is how many lock slots planning's lock names hash into. A
// planning transaction takes one Postgres advisory lock per slot its names
// fall in, so it holds at most LockSlots of them however many facets its
// page carries: a site with hundreds of facets per page cannot fill
// Postgres' shared lock table (max_locks_per_transaction ×
// max_connections), which every tenant's transactions need.
//
// Slots are shared by all names of all sites. Two names in one slot make
// planning transactions wait that need not; they never let two through
// that should wait, since equal names always land in the same slot. A
// collision therefore costs throughput, never correctness, and with 1024
// slots two pages' handfuls of names seldom meet.
const LockSlots = 1024

// LockSlot is the slot, in [0, LockSlots), of a site's lock name. It is a
// stable hash (FNV-1a 64 of the site id, a NUL and the name), the same in
// every process and release: replicas, old and new ones in a rolling
// deploy included, must agree on it.
func LockSlot(siteID, name string) int32 {
	h := fnv.New64a()
	h.Write([]byte(siteID))
	h.Write([]byte{0})
	h.Write([]byte(name))
	return int32(h.Sum64() % LockSlots)
}
