// Package heapfloor keeps Go's garbage collector from running while the heap is small.
//
// With GOGC=100 the runtime starts a collection when the heap reaches twice what the previous one
// left live. A load generator's live heap is a few MB (the connections, a Runtime per VU, the
// metric sinks) while it allocates a few hundred bytes to a few KB per call, so it collects every
// few thousand calls and each collection marks the whole live heap again: 10–20% of the CPU of a
// dnecho client at 32 threads (BENCHMARKS.md, "A heap floor"). A floor raises the GC percent while
// the live heap is small, so a collection starts no earlier than at the floor; once the live heap
// is above the floor the percent is the runtime's default again and memory grows as it would
// without the floor.
package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the heap size below which dnecho's commands do not collect: 64 MiB instead of
// ≈ 10 MB at GOGC=100, for a few collections a second at most where a small client made hundreds
// (4 instead of 165 for ~100 MB of garbage, cmd/dnecho TestHeapFloor).
const DefaultFloor = 64 << 20

const (
	// basePercent is the runtime's default GOGC, used once the live heap is above the floor.
	basePercent = 100
	// maxPercent bounds the percent for a nearly empty heap: the runtime applies the percent of
	// the previous cycle to a new live heap until the controller has run (a few µs after the
	// collection), so a live heap that jumped meanwhile (a large SharedArray, say) can overshoot
	// the floor by this factor at most once.
	maxPercent = 2000
	// heapMinimum is the runtime's heap goal at GOGC=100 before its first collection.
	heapMinimum = 4 << 20
	// liveMetric is the heap the last collection marked live.
	liveMetric = "/gc/heap/live:bytes"
)

// Percent is the GC percent that puts the next collection at floor bytes of heap for a live heap
// of live bytes: never below the runtime's default, never above maxPercent.
func Percent(floor, live uint64) int {
	switch {
	case live == 0:
		// No collection yet: the goal is the runtime's minimum heap, 4 MiB × percent/100
		// (mgcpacer.go, defaultHeapMinimum).
		return int(min(max(floor*100/heapMinimum, basePercent), maxPercent))
	case live >= floor:
		return basePercent
	}
	// The runtime's heap goal is live + (live + stacks + globals) × percent/100, recomputed by
	// debug.SetGCPercent from the last marked heap (Go: src/runtime/mgcpacer.go,
	// gcControllerState.commit); the stacks and globals of a client are small beside its heap.
	p := (floor - live) * 100 / live
	return int(min(max(p, basePercent), maxPercent))
}

// Start keeps the heap goal at floor bytes or more (at most a quarter of the process's memory
// limit, see Fit) until the returned stop is called, unless the GOGC environment variable is set
// (then whoever set it decides, and Start does nothing). It adjusts the GC percent after every
// collection. Only a command's main should call it: the GC percent belongs to the whole process.
func Start(floor uint64) (stop func()) {
	c := newController(Fit(floor), os.Getenv, nil)
	if c == nil {
		return func() {}
	}
	return c.stop
}

// newController starts a controller, or returns nil where Start does nothing.
func newController(floor uint64, getenv func(string) string, adjusted func(uint64, int)) *controller {
	if getenv("GOGC") != "" || floor == 0 {
		return nil
	}
	c := &controller{floor: floor, sample: []metrics.Sample{{Name: liveMetric}}, adjusted: adjusted}
	c.adjust()
	c.arm()
	return c
}

// controller re-arms itself after every collection: a cleanup attached to a fresh sentinel runs
// once the collector has found the sentinel unreachable, that is after each cycle.
type controller struct {
	floor  uint64
	mu     sync.Mutex
	done   bool
	set    int // the percent last applied
	sample []metrics.Sample
	// adjusted, when set (tests), hears of every percent adjust computed.
	adjusted func(live uint64, percent int)
}

// sentinel holds a pointer so that it is not a tiny allocation (those share a block, and a
// cleanup on one could wait for its neighbours).
type sentinel struct {
	_ *byte
	_ [8]byte
}

func (c *controller) arm() {
	s := &sentinel{}
	runtime.AddCleanup(s, func(c *controller) { c.afterGC() }, c)
}

func (c *controller) afterGC() {
	if c.adjust() {
		c.arm()
	}
}

// adjust applies the percent for the live heap the last collection left; false once stopped.
func (c *controller) adjust() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return false
	}
	metrics.Read(c.sample)
	var live uint64
	if c.sample[0].Value.Kind() == metrics.KindUint64 {
		live = c.sample[0].Value.Uint64()
	}
	p := Percent(c.floor, live)
	if p != c.set {
		debug.SetGCPercent(p)
		c.set = p
	}
	if c.adjusted != nil {
		c.adjusted(live, p)
	}
	return true
}

// stop puts the runtime's default percent back; the armed cleanup finds the controller done and
// does not re-arm.
func (c *controller) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done {
		c.done = true
		debug.SetGCPercent(basePercent)
	}
}
