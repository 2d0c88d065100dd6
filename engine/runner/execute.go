package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/dnecho/dnecho/engine/threshold"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/restapi"
	"github.com/dnecho/dnecho/engine/ui"
)

// execute runs the test proper: VU initialisation, setup, the scenarios and teardown. It returns
// the error that decides the exit code, the earliest one winning.
func (t *testRun) execute(ctx context.Context) error {
	if d := t.cfg.Display; d != nil {
		d.Header(t.header())
	}
	stopProgress := func() {}
	if d := t.cfg.Display; d != nil {
		stopProgress = d.StartProgress(ui.SourceFunc(t.snapshot))
	}
	defer stopProgress()
	stopWatching := t.watchStops(ctx)
	defer stopWatching()

	// Setup and VU initialisation end on either stop (and on a stop through the REST API):
	// they have no graceful phase.
	lifeCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.cfg.Hard, cancel)()
	if t.control != nil {
		defer context.AfterFunc(t.control.ctx, cancel)()
	}

	t.control.setStatus(restapi.StatusInitVUs)
	if err := t.sched.Init(lifeCtx); err != nil {
		if lifeCtx.Err() != nil {
			return t.stopCause(fmt.Errorf("initializing VUs: %w", ErrInterrupted))
		}
		return err
	}
	t.control.setStatus(restapi.StatusInitDone)
	if err := t.control.waitResumed(lifeCtx); err != nil {
		return t.stopCause(err)
	}
	t.started = time.Now()
	teardown, err := t.setup(lifeCtx)
	if err == nil {
		t.control.setStatus(restapi.StatusRunning)
		err = t.runScenarios(ctx)
	}
	stopProgress()
	if teardown {
		t.control.setStatus(restapi.StatusTeardown)
		if tdErr := t.teardown(); err == nil {
			err = tdErr
		}
	}
	return t.stopCause(err)
}

// stopCause turns the interruption of a run stopped through the REST API into that stop's
// error (exit code 103 rather than 105).
func (t *testRun) stopCause(err error) error {
	if stop := t.control.StopErr(); stop != nil && errors.Is(err, ErrInterrupted) {
		return stop
	}
	return err
}

// watchStops turns the end of ctx into a graceful stop and the end of Config.Hard into a hard
// one, until the returned function is called.
func (t *testRun) watchStops(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		soft, hard, api := ctx.Done(), t.cfg.Hard.Done(), t.control.Stopped()
		var agg <-chan struct{}
		if t.cfg.Aggregation != nil {
			agg = t.cfg.Aggregation.Stopped()
		}
		for {
			select {
			case <-soft:
				t.sched.Stop(false)
				soft = nil
			case <-api:
				// k6 ends the run context: running iterations are interrupted at once.
				t.sched.Abort(ErrStoppedFromAPI)
				api = nil
			case <-agg:
				// Only its verdict tells why: the whole test's thresholds (exit 99).
				t.sched.Abort(ErrStoppedFromAPI)
				agg = nil
			case <-hard:
				t.sched.Stop(true)
				return
			case <-done:
				return
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// setup runs setup() unless disabled, and reports whether teardown should run afterwards: not
// when setup threw, timed out or was interrupted (k6 skips teardown then), but yes after
// exec.test.abort, which ends the test the regular way.
func (t *testRun) setup(ctx context.Context) (teardown bool, err error) {
	if t.opts.NoSetup.V {
		return true, nil
	}
	t.control.setStatus(restapi.StatusSetup)
	sctx, cancel := context.WithTimeout(ctx, t.opts.SetupTimeoutValue())
	defer cancel()
	_, err = t.script.Setup(sctx)
	var abort *modules.AbortError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &abort):
		return true, err
	case ctx.Err() != nil:
		return false, fmt.Errorf("setup(): %w", ErrInterrupted)
	}
	return false, err
}

// runScenarios runs the scheduler with the thresholds watched (and Config.DuringTest called)
// every 2 s.
func (t *testRun) runScenarios(ctx context.Context) error {
	if ctx.Err() != nil || t.cfg.Hard.Err() != nil {
		return ErrInterrupted // stopped while setup was finishing
	}
	watchCtx, cancelWatch := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	if t.ths != nil || t.cfg.DuringTest != nil {
		onAbort := t.sched.Abort
		if t.cfg.Aggregation != nil {
			onAbort = func(error) {} // the aggregator judges aborts on the whole test
		}
		elapsed := func() time.Duration { return t.sched.InstanceStats().CurrentTestRunDuration }
		w := threshold.Watch{Set: func() *threshold.Set { return t.ths }, Source: t.collector, Elapsed: elapsed, Tick: t.duringTest, OnAbort: onAbort}
		wg.Go(func() { w.Run(watchCtx) })
	}
	err := t.sched.Run(context.Background())
	cancelWatch()
	wg.Wait()
	if t.delay != nil {
		t.delay.Flush()
	}
	switch {
	case err != nil:
		return err
	case ctx.Err() != nil || t.cfg.Hard.Err() != nil:
		return ErrInterrupted
	}
	return nil
}

// teardown runs teardown() unless disabled or the test was stopped hard. A second Ctrl-C
// interrupts it.
func (t *testRun) teardown() error {
	if t.opts.NoTeardown.V || t.cfg.Hard.Err() != nil {
		return nil
	}
	tctx, cancel := context.WithTimeout(t.cfg.Hard, t.opts.TeardownTimeoutValue())
	defer cancel()
	err := t.script.Teardown(tctx)
	if err != nil && t.cfg.Hard.Err() != nil {
		return fmt.Errorf("teardown(): %w", ErrInterrupted)
	}
	return err
}

// snapshot is the progress display's view of the run.
func (t *testRun) snapshot() ui.Snapshot {
	req := t.sched.Requirements()
	return ui.Snapshot{
		Instance:    t.sched.InstanceStats(),
		Scenarios:   t.sched.Progress(),
		MaxVUs:      req.MaxVUs,
		MaxDuration: req.TotalDuration,
	}
}
