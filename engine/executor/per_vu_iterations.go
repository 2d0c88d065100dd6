package executor

import (
	"fmt"
	"time"
)

// perVUIterationsDriver: every VU runs the same number of iterations.
type perVUIterationsDriver struct {
	sc         *scenarioRun
	vus, iters int64
	maxDur     time.Duration
}

func (r *perVUIterationsDriver) run() error {
	pvs, err := r.sc.getVUs(r.vus)
	if err != nil {
		return err
	}
	r.sc.eachVU(pvs, func(l *lease) {
		var done int64
		vu := l.pv.id.InInstance
		r.sc.loop(l, func() (int64, bool) {
			if done == r.iters {
				return 0, false
			}
			done++
			return r.sc.nextIter.Add(1) - 1, true
		})
		// maxDuration cut this VU short: report what it did not start, per VU as k6 does.
		r.sc.pushDropped(r.iters-done, vu)
	})
	return nil
}

func (r *perVUIterationsDriver) progress(elapsed time.Duration) (float64, []string) {
	total := r.vus * r.iters
	done := r.sc.completed.Load() + r.sc.interrupted.Load()
	f := 1.0
	if total > 0 {
		f = clamp01(float64(done) / float64(total))
	}
	return f, []string{
		vusPart(r.vus),
		timePart(elapsed, r.maxDur),
		fmt.Sprintf("%s iters, %d per VU", padCount(done, total), r.iters),
	}
}
