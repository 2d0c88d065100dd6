package freon

import (
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/internal/quantile"
)

// defaultExactSampleCap is the default number of latencies kept individually per run
// (8 bytes each, so 128 MiB; a slice may briefly hold twice that while it grows). Count
// mode with -n at or below the cap is always exact. Above it (long duration runs), each
// worker that exceeds its share moves to an HDR histogram (internal/quantile, the store the
// engine's Trends use too) and the percentiles become approximate; the report says so.
const defaultExactSampleCap = 16 << 20

// bytesPerSample is the memory one exactly-kept latency costs.
const bytesPerSample = 8

// recorder belongs to one worker goroutine: the hot path touches only its own fields, so
// workers share no lock and no written cache line except the runner's attempt counter.
type recorder struct {
	lat     *quantile.Store // latencies in ns: exact up to the worker's share of the cap
	mom     moments
	perTick []int64 // completions per TickInterval since the run start
	failed  map[string]int64
	servers workerServers

	// done counts finished tasks; the progress bar reads it from another goroutine.
	done atomic.Int64
	_    [56]byte // keep the next worker's counter off this cache line
}

func newRecorder(limit, serverLimit int) *recorder {
	return &recorder{lat: quantile.New(limit, 1), servers: workerServers{limit: serverLimit}}
}

// record stores one finished task: its latency and the offset of its end from the run
// start, which picks the moving-average interval it counts towards.
func (r *recorder) record(latency, endOffset time.Duration) {
	ns := int64(latency)
	r.mom.add(ns)
	r.lat.Add(float64(ns))
	tick := int(endOffset / tickInterval)
	for len(r.perTick) <= tick {
		r.perTick = append(r.perTick, 0)
	}
	r.perTick[tick]++
	r.done.Add(1)
}

func (r *recorder) fail(label string) {
	if r.failed == nil {
		r.failed = map[string]int64{}
	}
	r.failed[label]++
}

// mergeRecorders combines the workers' data once they have stopped.
func mergeRecorders(recs []*recorder) (LatencyStats, []int64, map[string]int64) {
	var (
		mom     moments
		perTick []int64
		failed  = map[string]int64{}
		stores  = make([]*quantile.Store, 0, len(recs))
	)
	for _, r := range recs {
		mom.merge(r.mom)
		for len(perTick) < len(r.perTick) {
			perTick = append(perTick, 0)
		}
		for i, c := range r.perTick {
			perTick[i] += c
		}
		for k, v := range r.failed {
			failed[k] += v
		}
		stores = append(stores, r.lat)
	}
	u := quantile.Merge(stores...)
	stats := mom.stats()
	stats.Exact = u.Exact()
	stats.setQuantiles(dropwizardQuantiles(u))
	return stats, perTick, failed
}
