package executor

import (
	"fmt"
	"time"

	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
)

// driver is the executor-specific part of running one scenario.
type driver interface {
	// run starts and drives the scenario's VUs using sc.regularCtx (no new iterations after it
	// ends) and sc.hardCtx (running iterations are interrupted when it ends). It returns once
	// every VU it took is back in the pool; an error aborts the whole run.
	run() error
	// progress returns the fraction done (0..1) and the right-hand parts of the progress bar.
	progress(elapsed time.Duration) (float64, []string)
}

// newDriver builds the driver of sc's executor type for this instance's share of the work.
// Executors that re-segment the test by a value (shared-iterations by vus, the arrival-rate ones
// by maxVUs) replace sc.tuple with the re-segmented tuple.
func newDriver(sc *scenarioRun) (driver, error) {
	et := sc.tuple
	switch c := sc.cfg.(type) {
	case *scenario.SharedIterationsConfig:
		r := &sharedIterationsDriver{sc: sc, maxDur: c.RegularDuration()}
		r.vus, r.total, sc.tuple = c.Split(et)
		return r, nil
	case *scenario.PerVUIterationsConfig:
		return &perVUIterationsDriver{sc: sc, vus: c.PeakVUs(et), iters: c.IterationsPerVU(), maxDur: c.RegularDuration()}, nil
	case *scenario.ConstantVUsConfig:
		return &constantVUsDriver{sc: sc, vus: c.PeakVUs(et), dur: c.RegularDuration()}, nil
	case *scenario.RampingVUsConfig:
		return &rampingVUsDriver{sc: sc, steps: c.Steps(et), maxVUs: c.PeakVUs(et), total: c.RegularDuration(),
			rampDown: c.RampDown()}, nil
	case interface {
		Arrivals(*plan.ExecutionTuple) scenario.Arrivals
	}:
		a := c.Arrivals(et)
		sc.tuple = a.Tuple
		return newArrivalRateDriver(sc, a), nil
	}
	return nil, fmt.Errorf("scenario %s: executor %q cannot be run", sc.base.Name, sc.base.Executor)
}
