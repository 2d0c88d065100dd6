package executor

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/plan"
)

// rampingVUsDriver drives VU slots along the raw steps. Slot i loops while the target is above i.
// When the target drops below i+1 the slot stops starting iterations, may finish the current one
// within gracefulRampDown, and then is interrupted and gives its VU back; if the target rises
// again before that, the same slot simply resumes (grafana/k6 lib/executor/ramping_vus.go).
type rampingVUsDriver struct {
	sc       *scenarioRun
	steps    []plan.VUStep
	maxVUs   int64
	total    time.Duration
	rampDown time.Duration

	target atomic.Int64 // VUs that should be looping now (progress display)
	slots  []*rampSlot  // owned by the run goroutine
	wg     sync.WaitGroup
	// activated counts slots that have not yet activated their VU (or given up); run waits on
	// it once, after the first step, to mark the scenario started.
	activated sync.WaitGroup

	errOnce sync.Once
	err     error
}

// rampSlot is one VU position of the ramp.
type rampSlot struct {
	r      *rampingVUsDriver
	ctx    context.Context // ends at the slot's hard stop
	cancel context.CancelFunc
	wake   chan struct{}

	mu      sync.Mutex
	looping bool
	timer   *time.Timer // pending ramp-down hard stop
}

func (r *rampingVUsDriver) run() error {
	start := r.sc.startedAt()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
steps:
	for i, st := range r.steps {
		if wait := time.Until(start.Add(st.At)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-r.sc.regularCtx.Done():
				break steps
			}
		}
		if r.sc.regularCtx.Err() != nil {
			break
		}
		r.apply(st.VUs)
		if i == 0 {
			r.activated.Wait()
			r.sc.markStarted()
		}
	}
	<-r.sc.regularCtx.Done() // the last step's VUs loop until the regular end
	r.wg.Wait()
	return r.err
}

// apply moves the target to n VUs.
func (r *rampingVUsDriver) apply(n int64) {
	prev := r.target.Swap(n)
	for i := prev; i < n; i++ {
		if i < int64(len(r.slots)) && r.slots[i] != nil && r.slots[i].resume() {
			continue
		}
		r.startSlot(i)
	}
	for i := n; i < prev; i++ {
		r.slots[i].rampDown(r.rampDown)
	}
}

func (r *rampingVUsDriver) startSlot(i int64) {
	for int64(len(r.slots)) <= i {
		r.slots = append(r.slots, nil)
	}
	ctx, cancel := context.WithCancel(r.sc.hardCtx)
	s := &rampSlot{r: r, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1), looping: true}
	r.slots[i] = s
	r.wg.Add(1)
	r.activated.Add(1)
	go s.loop()
}

func (s *rampSlot) loop() {
	r := s.r
	defer r.wg.Done()
	defer s.stop()
	pv, err := r.sc.s.pool.get(s.ctx)
	if err != nil {
		r.activated.Done()
		if s.ctx.Err() == nil {
			r.errOnce.Do(func() { r.err = fmt.Errorf("scenario %s: %w", r.sc.base.Name, err) })
		}
		return
	}
	l := r.sc.activate(pv)
	r.activated.Done()
	defer r.sc.release(l)
	for s.ctx.Err() == nil && r.sc.starting() {
		s.mu.Lock()
		looping := s.looping
		s.mu.Unlock()
		if looping {
			r.sc.iterate(s.ctx, l, r.sc.nextIter.Add(1)-1, time.Time{})
			continue
		}
		select { // reserved during a ramp-down: wait to resume or to be stopped
		case <-s.wake:
		case <-s.ctx.Done():
		case <-r.sc.regularCtx.Done():
		}
	}
}

// rampDown stops new iterations and hard-stops the slot after grace.
func (s *rampSlot) rampDown(grace time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.looping = false
	if s.timer == nil {
		s.timer = time.AfterFunc(grace, s.cancel)
	}
}

// resume makes a ramping-down slot loop again; false if it is already being stopped.
func (s *rampSlot) resume() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	if s.timer != nil {
		if !s.timer.Stop() {
			return false // the hard stop has fired and is cancelling the slot
		}
		s.timer = nil
	}
	s.looping = true
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

func (s *rampSlot) stop() {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	s.cancel()
}

func (r *rampingVUsDriver) progress(elapsed time.Duration) (float64, []string) {
	cur := r.target.Load()
	if Status(r.sc.status.Load()) >= StatusDone {
		cur = 0
	}
	return timeFraction(elapsed, r.total), []string{
		padCount(cur, r.maxVUs) + " VUs",
		timePart(elapsed, r.total),
	}
}
