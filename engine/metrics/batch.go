package metrics

import "sync"

// Sample batches are the unit that flows from VUs to the collector. Once a batch has been
// aggregated and no output keeps it, it can carry the next samples instead of becoming garbage:
// with a few samples per call, batch buffers would otherwise be the largest allocation of the
// script path after gRPC itself.
var batchPool = sync.Pool{New: func() any { return new([]Sample) }}

// GetBatch returns an empty sample slice with room for at least n samples, reusing a recycled
// one when available.
func GetBatch(n int) []Sample {
	p := batchPool.Get().(*[]Sample)
	b := *p
	*p = nil
	batchPool.Put(p)
	if cap(b) < n {
		return make([]Sample, 0, n)
	}
	return b[:0]
}

// RecycleBatch hands a batch back for reuse. Only the batch's last user may call it: nothing may
// read or keep the slice afterwards. The samples are cleared so a recycled batch keeps no tag sets
// or metrics alive.
func RecycleBatch(b []Sample) {
	if cap(b) == 0 {
		return
	}
	clear(b[:cap(b)])
	p := batchPool.Get().(*[]Sample)
	*p = b[:0]
	batchPool.Put(p)
}
