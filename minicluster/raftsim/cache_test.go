package raftsim

import (
	"testing"
	"time"
)

// TestRetryCacheSweep: expired entries go when the cache has grown, and the sweeps are spaced
// so that a cache full of live entries is not scanned on every insert.
func TestRetryCacheSweep(t *testing.T) {
	c := newRetryCache(time.Hour)
	for i := range uint64(3 * minSweep) {
		c.getOrCreate(cacheKey{call: i})
	}
	if c.len() != 3*minSweep || c.sweepAt != 4*minSweep {
		t.Fatalf("%d entries, next sweep at %d", c.len(), c.sweepAt)
	}
	c.expiry = -1                         // everything has expired
	for i := range uint64(minSweep + 1) { // the last insert finds the cache at 4 × minSweep
		c.getOrCreate(cacheKey{call: 1<<32 + i})
	}
	if c.len() != 1 || c.sweepAt != minSweep {
		t.Fatalf("%d entries after the sweep", c.len())
	}
	c.expiry = time.Hour
	c.evict([16]byte{}, []uint64{1<<32 + minSweep})
	if c.len() != 0 {
		t.Fatal("evicted entry still there")
	}
}
