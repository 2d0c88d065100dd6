package executor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
)

// lease is a pooled VU lent to one goroutine of this scenario, with its activation for the
// scenario; release ends the activation and gives the VU back to the pool.
type lease struct {
	pv             *pooledVU
	activation     Activation
	iterInScenario int64
}

// activate activates pv for this scenario and leases it to the calling goroutine.
func (sc *scenarioRun) activate(pv *pooledVU) *lease {
	sc.s.countActive(1)
	return &lease{pv: pv, activation: pv.vu.Activate(sc.info)}
}

// release deactivates the VU and returns it to the pool.
func (sc *scenarioRun) release(l *lease) {
	l.activation.Deactivate()
	sc.s.countActive(-1)
	sc.s.pool.put(l.pv)
}

// iterate runs one iteration (local = exec.scenario.iterationInInstance) and books its outcome.
// scheduled is the due time of an arrival-rate iteration, zero otherwise.
func (sc *scenarioRun) iterate(ctx context.Context, l *lease, local int64, scheduled time.Time) execinfo.Outcome {
	it := execinfo.Iteration{
		ScenarioInInstance: local,
		ScenarioInTest:     sc.tuple.Global(local),
		VUInScenario:       l.iterInScenario,
		VUInInstance:       l.pv.iter,
	}
	if !scheduled.IsZero() {
		it.Scheduled = scheduled
		it.StartDelay = time.Since(scheduled)
		if obs := sc.s.opts.StartDelay; obs != nil {
			obs.ObserveStartDelay(sc.base.Name, scheduled, it.StartDelay)
		}
	}
	l.iterInScenario++
	l.pv.iter++
	res := l.activation.RunIteration(ctx, it)
	switch res.Outcome {
	case execinfo.Completed:
		sc.bookCompleted()
	case execinfo.Failed:
		sc.s.logIterationError(sc.base.Name, l.pv.id, res.Err)
		sc.bookCompleted()
	case execinfo.Aborted:
		sc.bookInterrupted()
		sc.s.Abort(res.Err)
	default:
		sc.bookInterrupted()
	}
	return res.Outcome
}

func (sc *scenarioRun) bookCompleted() {
	sc.completed.Add(1)
	sc.s.completed.Add(1)
}

func (sc *scenarioRun) bookInterrupted() {
	sc.interrupted.Add(1)
	sc.s.interrupted.Add(1)
}

// loop runs iterations on the leased VU until regularCtx ends (or next says stop), then
// releases it. next returns the local iteration number to run, or false to stop.
func (sc *scenarioRun) loop(l *lease, next func() (int64, bool)) {
	defer sc.release(l)
	for sc.starting() {
		local, ok := next()
		if !ok {
			return
		}
		sc.iterate(sc.hardCtx, l, local, time.Time{})
	}
}

// starting reports whether the scenario still starts iterations. The hard context is checked
// too: a context's Done closes before its children are cancelled, so a VU woken by the hard end
// could otherwise see the regular context still alive and start one more iteration. So is the
// clock: a deadline's context ends only when its timer has run, which a busy machine delays,
// while a call given that context (gRPC) fails at once once the deadline is past: VUs looped
// over hundreds of such instant failures before the timer ran.
func (sc *scenarioRun) starting() bool {
	return sc.regularCtx.Err() == nil && sc.hardCtx.Err() == nil && time.Now().Before(sc.regularEnd)
}

// nextLooping hands out consecutive local iteration numbers (looping executors).
func (sc *scenarioRun) nextLooping() (int64, bool) { return sc.nextIter.Add(1) - 1, true }

// eachVU activates every VU for the scenario, marks the scenario started, then runs f for each
// lease on its own goroutine and returns when all have returned. Activating them all first makes
// the start sample of vus count every one of them.
func (sc *scenarioRun) eachVU(pvs []*pooledVU, f func(l *lease)) {
	leases := make([]*lease, len(pvs))
	for i, pv := range pvs {
		leases[i] = sc.activate(pv)
	}
	sc.markStarted()
	var wg sync.WaitGroup
	for _, l := range leases {
		wg.Go(func() { f(l) })
	}
	wg.Wait()
}

// getVUs takes n VUs from the pool for the scenario's start.
func (sc *scenarioRun) getVUs(n int64) ([]*pooledVU, error) {
	pvs := make([]*pooledVU, 0, n)
	for range n {
		pv, err := sc.s.pool.get(sc.hardCtx)
		if err != nil {
			for _, pv := range pvs {
				sc.s.pool.put(pv)
			}
			if sc.hardCtx.Err() != nil {
				return nil, nil // stopped while waiting: not an error
			}
			return nil, fmt.Errorf("scenario %s: %w", sc.base.Name, err)
		}
		pvs = append(pvs, pv)
	}
	return pvs, nil
}
