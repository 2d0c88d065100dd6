package metrics

import "sync"

// Sample batches are the unit that flows from VUs to the collector. Once a batch has been
// aggregated and no output keeps it, it can carry the next samples instead of becoming garbage:
// with a few samples per call, batch buffers would otherwise be the largest allocation of the
// script path after gRPC itself.
//
// The free list is a plain bounded stack under a mutex rather than a sync.Pool: a batch is taken
// and returned once per few hundred samples, so the lock costs nothing measurable, whereas a
// sync.Pool of slices needs a box per Put (or loses batches when boxes are reused) and is emptied
// by every GC cycle, which at tens of thousands of calls per second comes every few milliseconds.
var freeBatches struct {
	mu    sync.Mutex
	stack [][]Sample
}

// Bounds of the free list: enough for every batch in flight between a few hundred VUs and the
// collector, and no hoarding of exceptionally large batches.
const (
	maxFreeBatches = 64
	maxFreeCap     = 1 << 14
)

// GetBatch returns an empty sample slice with room for at least n samples, reusing a recycled
// one when available.
func GetBatch(n int) []Sample {
	freeBatches.mu.Lock()
	var b []Sample
	if k := len(freeBatches.stack); k > 0 {
		b = freeBatches.stack[k-1]
		freeBatches.stack[k-1] = nil
		freeBatches.stack = freeBatches.stack[:k-1]
	}
	freeBatches.mu.Unlock()
	if cap(b) < n {
		return make([]Sample, 0, n)
	}
	return b[:0]
}

// RecycleBatch hands a batch back for reuse. Only the batch's last user may call it: nothing may
// read or keep the slice afterwards. The samples are cleared so a recycled batch keeps no tag sets
// or metrics alive.
func RecycleBatch(b []Sample) {
	if cap(b) == 0 || cap(b) > maxFreeCap {
		return
	}
	clear(b[:cap(b)])
	freeBatches.mu.Lock()
	if len(freeBatches.stack) < maxFreeBatches {
		freeBatches.stack = append(freeBatches.stack, b[:0])
	}
	freeBatches.mu.Unlock()
}
