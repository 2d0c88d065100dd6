package executor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
)

// scenarioRun is the live state of one scenario.
type scenarioRun struct {
	s           *Scheduler
	cfg         scenario.Config
	base        *scenario.BaseConfig
	info        *execinfo.Scenario // what every activation for this scenario is given
	driver      driver
	droppedTags *metrics.Tags
	regular     time.Duration
	graceful    time.Duration
	// tuple splits this scenario's work between instances; drivers that re-segment replace it
	// in newDriver.
	tuple *plan.ExecutionTuple

	// Set before driver.run starts; read-only afterwards.
	regularCtx, hardCtx context.Context
	regularEnd          time.Time // regularCtx's deadline

	startOnce    sync.Once // markStarted
	status       atomic.Int32
	startNs      atomic.Int64 // Unix ns when the scenario started, 0 before
	endNs        atomic.Int64 // Unix ns when it ended, 0 before
	nextIter     atomic.Int64 // next exec.scenario.iterationInInstance for looping executors
	completed    atomic.Int64
	interrupted  atomic.Int64
	stoppedEarly atomic.Bool

	mu            sync.Mutex
	cancelRegular context.CancelFunc
	cancelHard    context.CancelFunc
	hardTimer     *time.Timer
	ended         bool // the driver has returned; Stop has nothing left to do
}

func newScenarioRun(s *Scheduler, c scenario.Config) (*scenarioRun, error) {
	b := c.Base()
	sc := &scenarioRun{
		s:           s,
		cfg:         c,
		base:        b,
		regular:     c.RegularDuration(),
		graceful:    b.GracefulStopValue(),
		droppedTags: s.opts.RunTags.With("scenario", b.Name),
		tuple:       s.opts.Tuple,
	}
	sc.info = &execinfo.Scenario{
		Name:     b.Name,
		Executor: string(b.Executor),
		Exec:     b.ExecName(),
		Env:      b.Env,
		Tags:     b.Tags,
		State:    sc,
	}
	var err error
	if sc.driver, err = newDriver(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// run waits for the scenario's startTime, runs it, and records how it ended.
func (sc *scenarioRun) run(runCtx context.Context) {
	defer sc.markStarted() // a scenario that ends before its VUs are active
	wait := time.NewTimer(sc.base.StartOffset())
	select {
	case <-wait.C:
	case <-runCtx.Done():
	case <-sc.s.stopping:
	}
	wait.Stop()
	if runCtx.Err() != nil || isClosed(sc.s.stopping) {
		sc.stoppedEarly.Store(true)
		sc.finish(time.Now())
		return
	}

	start := time.Now()
	hardCtx, cancelHard := context.WithDeadline(runCtx, start.Add(sc.regular+sc.graceful))
	regularCtx, cancelRegular := context.WithDeadline(hardCtx, start.Add(sc.regular))
	defer cancelHard()
	defer cancelRegular()
	sc.mu.Lock()
	sc.regularCtx, sc.hardCtx, sc.regularEnd = regularCtx, hardCtx, start.Add(sc.regular)
	sc.cancelRegular, sc.cancelHard = cancelRegular, cancelHard
	sc.startNs.Store(start.UnixNano())
	sc.status.Store(int32(StatusRunning))
	sc.mu.Unlock()
	if isClosed(sc.s.stopping) { // Stop raced with our start
		sc.stopGracefully()
	}

	err := sc.driver.run()

	sc.mu.Lock()
	sc.ended = true
	if sc.hardTimer != nil {
		sc.hardTimer.Stop()
	}
	sc.mu.Unlock()
	if runCtx.Err() != nil {
		sc.stoppedEarly.Store(true)
	}
	sc.finish(time.Now())
	if err != nil {
		sc.s.Abort(err)
	}
}

func (sc *scenarioRun) finish(now time.Time) {
	sc.endNs.Store(now.UnixNano())
	st := StatusDone
	if sc.stoppedEarly.Load() || sc.startNs.Load() == 0 || sc.progressFraction() < 1 {
		st = StatusInterrupted
	}
	sc.status.Store(int32(st))
}

// stopGracefully ends the regular phase now and the hard phase gracefulStop later.
func (sc *scenarioRun) stopGracefully() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.cancelRegular == nil || sc.ended { // not started (run() sees s.stopping), or over
		return
	}
	if sc.regularCtx.Err() == nil {
		sc.stoppedEarly.Store(true)
	}
	sc.cancelRegular()
	if sc.hardTimer == nil {
		sc.hardTimer = time.AfterFunc(sc.graceful, sc.cancelHard)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// StartTime implements execinfo.State.
func (sc *scenarioRun) StartTime() time.Time { return sc.startedAt() }

// Progress implements execinfo.State.
func (sc *scenarioRun) Progress() float64 { return sc.progressFraction() }

func (sc *scenarioRun) startedAt() time.Time {
	if ns := sc.startNs.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// elapsed is the time since the scenario started, frozen at its end.
func (sc *scenarioRun) elapsed() time.Duration {
	start := sc.startNs.Load()
	if start == 0 {
		return 0
	}
	if end := sc.endNs.Load(); end != 0 {
		return time.Duration(end - start)
	}
	return time.Duration(time.Now().UnixNano() - start)
}

func (sc *scenarioRun) progressFraction() float64 {
	f, _ := sc.driver.progress(sc.elapsed())
	return f
}
