package executor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/exec"
)

// activeVU is a VU activated for this scenario, held by a single goroutine.
type activeVU struct {
	h              *vuHandle
	vu             ActiveVU
	iterInScenario int64
}

func (sc *scenarioRun) activate(h *vuHandle) *activeVU {
	sc.s.active.Add(1)
	return &activeVU{h: h, vu: h.vu.Activate(sc.act)}
}

// release deactivates the VU and returns it to the pool.
func (sc *scenarioRun) release(a *activeVU) {
	a.vu.Deactivate()
	sc.s.active.Add(-1)
	sc.s.pool.put(a.h)
}

// iterate runs one iteration (local = exec.scenario.iterationInInstance) and books its outcome.
// scheduled is the due time of an arrival-rate iteration, zero otherwise.
func (sc *scenarioRun) iterate(ctx context.Context, a *activeVU, local int64, scheduled time.Time) exec.Outcome {
	it := exec.Iteration{
		ScenarioInInstance: local,
		ScenarioInTest:     sc.tuple.Global(local),
		VUInScenario:       a.iterInScenario,
		VUInInstance:       a.h.iter,
	}
	if !scheduled.IsZero() {
		it.Scheduled = scheduled
		it.StartDelay = time.Since(scheduled)
		if obs := sc.s.opts.StartDelay; obs != nil {
			obs.ObserveStartDelay(sc.base.Name, scheduled, it.StartDelay)
		}
	}
	a.iterInScenario++
	a.h.iter++
	res := a.vu.RunIteration(ctx, it)
	switch res.Outcome {
	case exec.Completed:
		sc.bookCompleted()
	case exec.Failed:
		sc.s.logIterationError(sc.base.Name, a.h.id, res.Err)
		sc.bookCompleted()
	case exec.Aborted:
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

// loopVU activates h and runs iterations until regularCtx ends (or next says stop), then
// releases it. next returns the local iteration number to run, or false to stop.
func (sc *scenarioRun) loopVU(h *vuHandle, next func() (int64, bool)) {
	a := sc.activate(h)
	defer sc.release(a)
	for sc.starting() {
		local, ok := next()
		if !ok {
			return
		}
		sc.iterate(sc.hardCtx, a, local, time.Time{})
	}
}

// starting reports whether the scenario still starts iterations. The hard context is checked
// too: a context's Done closes before its children are cancelled, so a VU woken by the hard end
// could otherwise see the regular context still alive and start one more iteration.
func (sc *scenarioRun) starting() bool { return sc.regularCtx.Err() == nil && sc.hardCtx.Err() == nil }

// nextLooping hands out consecutive local iteration numbers (looping executors).
func (sc *scenarioRun) nextLooping() (int64, bool) { return sc.nextIter.Add(1) - 1, true }

// eachVU runs f for every VU, each on its own goroutine, and returns when all have returned.
func eachVU(hs []*vuHandle, f func(h *vuHandle)) {
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(h)
		}()
	}
	wg.Wait()
}

// getVUs takes n VUs from the pool for the scenario's start.
func (sc *scenarioRun) getVUs(n int64) ([]*vuHandle, error) {
	hs := make([]*vuHandle, 0, n)
	for range n {
		h, err := sc.s.pool.get(sc.hardCtx)
		if err != nil {
			for _, h := range hs {
				sc.s.pool.put(h)
			}
			if sc.hardCtx.Err() != nil {
				return nil, nil // stopped while waiting: not an error
			}
			return nil, fmt.Errorf("scenario %s: %w", sc.base.Name, err)
		}
		hs = append(hs, h)
	}
	return hs, nil
}
