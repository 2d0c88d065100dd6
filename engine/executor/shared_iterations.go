package executor

import (
	"sync/atomic"
	"time"
)

// sharedIterationsDriver: VUs claim iterations from one shared count until none is left.
type sharedIterationsDriver struct {
	sc         *scenarioRun
	vus, total int64
	maxDur     time.Duration
	claimed    atomic.Int64
	active     atomic.Int64
}

func (r *sharedIterationsDriver) run() error {
	pvs, err := r.sc.getVUs(r.vus)
	if err != nil {
		return err
	}
	next := func() (int64, bool) {
		n := r.claimed.Add(1) - 1
		return n, n < r.total
	}
	r.active.Add(int64(len(pvs))) // all counted before the first starts, as before
	r.sc.eachVU(pvs, func(l *lease) {
		defer r.active.Add(-1)
		r.sc.loop(l, next)
	})
	// Iterations nobody claimed before maxDuration are reported once, as one sample, as k6 does.
	r.sc.pushDropped(r.total-min(r.claimed.Load(), r.total), 0)
	return nil
}

func (r *sharedIterationsDriver) done() int64 { return r.sc.completed.Load() + r.sc.interrupted.Load() }

func (r *sharedIterationsDriver) progress(elapsed time.Duration) (float64, []string) {
	f := 1.0
	if r.total > 0 {
		f = clamp01(float64(r.done()) / float64(r.total))
	}
	return f, []string{
		vusPart(r.vus),
		timePart(elapsed, r.maxDur),
		padCount(r.done(), r.total) + " shared iters",
	}
}
