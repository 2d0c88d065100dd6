package js

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// ErrNotActivated is returned by RunIteration on a VU that no scenario has activated.
var ErrNotActivated = errors.New("VU has no active scenario: call Activate first")

// Activate hands the VU to a scenario: it selects the exported function to run, applies the
// scenario's env to __ENV and replaces the scenario tags. The scheduler calls it each time it
// gives the VU to a scenario, before that scenario's first iteration on the VU; __ITER keeps
// counting across activations.
//
// __ENV: when this or the previous activation has scenario env, __ENV becomes a fresh object of
// the test env overridden by this scenario's env, so one scenario's values never leak into
// another. Otherwise the object (and any change the script made to it) is kept.
func (vu *VU) Activate(s *execinfo.Scenario) error {
	// An interrupt can land just after an interrupted iteration returned (sleep returns early on
	// its own); a new activation must not inherit it, as reading the exports below runs JS.
	vu.disarm()
	name := s.Exec
	if name == "" {
		name = "default"
	}
	fn, ok := goja.AssertFunction(vu.exports.Get(name))
	if !ok {
		return fmt.Errorf("scenario %q: the script exports no function %q", s.Name, name)
	}
	if len(s.Env) > 0 || vu.scenarioEnv {
		if err := vu.resetEnv(s.Env); err != nil {
			return err
		}
		vu.scenarioEnv = len(s.Env) > 0
	}
	vu.tags.SetScenario(s.Name, s.Tags)
	if vu.r.vuMetadata {
		vu.tags.SetMetadata("vu", strconv.FormatUint(vu.id, 10))
	}
	vu.scenario, vu.execFn = s, fn
	return nil
}

// Deactivate ends the current activation: it pushes buffered samples and releases the VU's hold
// on the activation's context. RunIteration fails until the next Activate.
func (vu *VU) Deactivate() {
	vu.Flush()
	vu.disarm()
	vu.scenario, vu.execFn = nil, nil
}

// RunIteration runs the active scenario's function once with the setup data and reports the
// outcome the scheduler (engine/executor) books, so the VU is the scheduler's executor.Activation.
//
// The iteration is interrupted when ctx ends: the runtime stops at its next instruction (a busy
// loop included) and sleep returns at once. An interrupted iteration emits no `iterations` or
// `iteration_duration` sample; a complete one emits both. `data_sent` and `data_received` are
// emitted for every iteration.
//
// An uncaught exception is logged at ERROR with its stack, but the iteration is Completed (with
// the *ScriptError as Err, which the scheduler does not log again) and the run goes on.
// exec.test.abort is Aborted with a *modules.AbortError: the scheduler must stop the run (exit
// code 108). A VU without an active scenario (ErrNotActivated) fails the iteration.
func (vu *VU) RunIteration(ctx context.Context, it execinfo.Iteration) execinfo.Exit {
	if vu.execFn == nil {
		return execinfo.Exit{Outcome: execinfo.Failed, Err: ErrNotActivated}
	}
	data, err := vu.setupArg()
	if err != nil {
		return execinfo.Exit{Outcome: execinfo.Failed, Err: err}
	}
	if ctx.Err() != nil {
		// Never start an iteration whose context has already ended.
		return execinfo.Exit{Outcome: execinfo.Interrupted}
	}
	vu.iter++
	vu.iterInfo = it
	if vu.r.iterMetadata {
		vu.tags.SetMetadata("iter", strconv.FormatInt(vu.iter, 10))
	}
	root := vu.r.test.Groups.Root()
	vu.tags.SetGroup(root)

	vu.arm(ctx)
	start := time.Now()
	jsErr := vu.loop.Run(ctx, func() error {
		_, err := vu.execFn(goja.Undefined(), data)
		return err
	})
	end := time.Now()
	// An interrupt or exception inside group() skips its restore of the group tag.
	vu.tags.SetGroup(root)

	var (
		abort       *modules.AbortError
		script      *ScriptError
		interrupted bool
	)
	if jsErr != nil {
		abort, interrupted, script = fromJS(jsErr)
	}
	// A context that ended during the call interrupts the iteration even if the function
	// returned normally (sleep returns early, the script then finishes).
	interrupted = interrupted || ctx.Err() != nil

	if interrupted {
		vu.emitData(end)
	} else {
		b, tags, meta := vu.r.test.Builtin, vu.tags.Current(), vu.tags.Metadata()
		s := vu.reserve(4)
		vu.fillData(s[:2], end, tags, meta)
		s[2] = metrics.Sample{Metric: b.Iterations, Time: end, Value: 1, Tags: tags, Metadata: meta}
		s[3] = metrics.Sample{Metric: b.IterationDuration, Time: end,
			Value: float64(end.Sub(start)) / float64(time.Millisecond), Tags: tags, Metadata: meta}
	}
	vu.maybeFlush(end)
	if !interrupted {
		vu.holdFor(ctx, vu.r.minIteration-end.Sub(start))
	}

	switch {
	case abort != nil:
		return execinfo.Exit{Outcome: execinfo.Aborted, Err: abort}
	case interrupted:
		return execinfo.Exit{Outcome: execinfo.Interrupted}
	case script != nil:
		vu.logException(script)
		return execinfo.Exit{Outcome: execinfo.Completed, Err: script}
	}
	return execinfo.Exit{Outcome: execinfo.Completed}
}

// holdFor keeps the VU for d (minIterationDuration's remainder), or until ctx ends. As in k6
// (grafana/k6 internal/js/runner.go, ActiveVU.RunOnce), the wait comes after the iteration's
// samples: iteration_duration measures the script, not the wait.
func (vu *VU) holdFor(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// setupArg returns the setup data as a JS value, parsing the runner's JSON on first use only:
// every iteration of this VU then gets the same object, and its mutations stay in this VU.
func (vu *VU) setupArg() (goja.Value, error) {
	if vu.setupParsed {
		return vu.setupValue, nil
	}
	v, err := vu.parseJSON(vu.r.SetupData())
	if err != nil {
		return nil, fmt.Errorf("setup data: %w", err)
	}
	vu.setupValue, vu.setupParsed = v, true
	return v, nil
}

func (vu *VU) logException(err *ScriptError) {
	args := []any{"source", "stacktrace", "vu", vu.id, "iter", vu.iter}
	if vu.scenario != nil {
		args = append(args, "scenario", vu.scenario.Name)
	}
	vu.r.test.Logger.Error(err.Error(), args...)
}
