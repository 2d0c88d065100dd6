package executor

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/scenario"
)

// arrivalRateDriver starts iterations on a schedule (open model). At each due time it offers
// the iteration to an idle VU without waiting; if none is idle the iteration is dropped, never
// queued, and one more VU is initialised in the background while maxVUs allows (grafana/k6
// lib/executor/constant_arrival_rate.go and ramping_arrival_rate.go).
//
// Idleness is counted explicitly: a VU counts itself idle before it waits for work, and the
// dispatcher claims one idle VU (decrementing the count) before handing an iteration over. So a
// VU that has just finished, or just been activated, and is on its way to receive is never
// mistaken for a busy one, and a claimed hand-over never waits for more than that short way.
type arrivalRateDriver struct {
	sc       *scenarioRun
	a        scenario.Arrivals
	work     chan arrival // unbuffered; only sent to after claiming an idle VU
	idle     atomic.Int64 // VUs waiting for work (or about to)
	vus      atomic.Int64 // VUs serving the scenario
	busy     atomic.Int64 // VUs running an iteration
	growing  atomic.Bool
	warned   atomic.Bool
	growDead atomic.Bool
	wg       sync.WaitGroup
}

// arrival is one iteration handed to a VU.
type arrival struct {
	local int64
	due   time.Time
}

func newArrivalRateDriver(sc *scenarioRun, a scenario.Arrivals) *arrivalRateDriver {
	return &arrivalRateDriver{sc: sc, a: a, work: make(chan arrival)}
}

func (r *arrivalRateDriver) run() error {
	if r.a.Out {
		r.sc.markStarted()
		<-r.sc.regularCtx.Done() // this instance has no share of the scenario
		return nil
	}
	pvs, err := r.sc.getVUs(r.a.PreAllocatedVUs)
	if err != nil {
		return err
	}
	for _, pv := range pvs {
		l := r.sc.activate(pv) // before dispatching, so iteration 0 finds the VUs idle
		r.vus.Add(1)
		r.idle.Add(1)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.serve(l)
		}()
	}
	r.sc.markStarted()
	r.dispatch()
	<-r.sc.regularCtx.Done() // VUs stay available until the regular end
	r.wg.Wait()
	return nil
}

// dispatch walks the schedule of this instance's iterations (its stripe of global iterations,
// each at its global due time) until the regular end.
func (r *arrivalRateDriver) dispatch() {
	start := r.sc.startedAt()
	regular := r.sc.regularCtx
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for k := int64(0); ; k++ {
		off, ok := r.a.Start(r.sc.tuple.Global(k))
		if !ok || off >= r.a.Duration {
			return
		}
		due := start.Add(off)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-regular.Done():
				return
			}
		} else if regular.Err() != nil {
			return
		}
		if !r.claimIdle() {
			r.drop()
			continue
		}
		select {
		case r.work <- arrival{local: k, due: due}:
		case <-regular.Done():
			return
		}
	}
}

// claimIdle reserves one idle VU for a hand-over; false when every VU is busy.
func (r *arrivalRateDriver) claimIdle() bool {
	for {
		n := r.idle.Load()
		if n <= 0 {
			return false
		}
		if r.idle.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// serve runs the iterations handed to one activated VU until the regular end. The caller has
// already counted the VU idle.
func (r *arrivalRateDriver) serve(l *lease) {
	defer r.sc.release(l)
	for {
		select {
		case w := <-r.work:
			r.busy.Add(1)
			r.sc.iterate(r.sc.hardCtx, l, w.local, w.due)
			r.busy.Add(-1)
			r.idle.Add(1)
		case <-r.sc.regularCtx.Done():
			return
		}
	}
}

func (r *arrivalRateDriver) drop() {
	r.sc.pushDropped(1, 0)
	if r.vus.Load() >= r.a.MaxVUs {
		if r.warned.CompareAndSwap(false, true) {
			r.sc.s.log.Warn(fmt.Sprintf("Insufficient VUs, reached %d active VUs and cannot initialize more", r.a.MaxVUs),
				"executor", string(r.sc.base.Executor), "scenario", r.sc.base.Name)
		}
		return
	}
	if r.growDead.Load() || !r.growing.CompareAndSwap(false, true) {
		return // one VU at a time
	}
	r.wg.Add(1)
	go r.grow()
}

// grow adds one VU (an idle pooled one, or a newly initialised one) and serves with it.
func (r *arrivalRateDriver) grow() {
	defer r.wg.Done()
	pv, err := r.sc.s.pool.grow(r.sc.regularCtx)
	if err != nil {
		if r.sc.regularCtx.Err() == nil {
			r.growDead.Store(true) // an init failure would repeat: stop trying, say it once
			r.sc.s.log.Error(fmt.Sprintf("could not initialize an extra VU: %v", err), "scenario", r.sc.base.Name)
		}
		r.growing.Store(false)
		return
	}
	l := r.sc.activate(pv)
	r.vus.Add(1)
	r.idle.Add(1)
	r.growing.Store(false)
	r.serve(l)
}

func (r *arrivalRateDriver) progress(elapsed time.Duration) (float64, []string) {
	rate := 0.0
	if Status(r.sc.status.Load()) == StatusRunning {
		rate = r.a.Rate(elapsed)
	}
	return timeFraction(elapsed, r.a.Duration), []string{
		padCount(r.busy.Load(), r.vus.Load()) + " VUs",
		timePart(elapsed, r.a.Duration),
		fmt.Sprintf("%.2f iters/s", rate),
	}
}
