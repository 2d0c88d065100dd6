package runner

import (
	"context"
	"errors"
	"sync"

	"github.com/dnecho/dnecho/engine/executor"
	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/js/modules"
)

// vuFactory adapts the script runner's VUs to the scheduler's VU contract.
type vuFactory struct {
	r *js.Runner

	mu        sync.Mutex
	scenarios map[*executor.Activation]*modules.Scenario
}

func newVUFactory(r *js.Runner) *vuFactory {
	return &vuFactory{r: r, scenarios: map[*executor.Activation]*modules.Scenario{}}
}

// NewVU implements executor.VUFactory: a fresh runtime that has run the init context.
func (f *vuFactory) NewVU(ctx context.Context, id executor.VUID) (executor.VU, error) {
	vu, err := f.r.NewVU(ctx, id.InInstance, id.InTest)
	if err != nil {
		return nil, err
	}
	return &jsVU{f: f, vu: vu}, nil
}

// scenario returns the script-side description of an activation. The scheduler shares one
// Activation among a scenario's VUs and builds it before the scenario starts, so one value per
// Activation, made at the first activation (when the start time is known), serves them all.
func (f *vuFactory) scenario(a *executor.Activation) *modules.Scenario {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.scenarios[a]; ok {
		return s
	}
	s := &modules.Scenario{
		Name:      a.Scenario,
		Executor:  string(a.Executor),
		Exec:      a.Exec,
		StartTime: a.StartTime(),
		Progress:  a.Progress,
		Env:       a.Env,
		Tags:      a.Tags.Map(),
	}
	f.scenarios[a] = s
	return s
}

type jsVU struct {
	f  *vuFactory
	vu *js.VU
}

// Activate implements executor.VU.
func (v *jsVU) Activate(a *executor.Activation) executor.ActiveVU {
	err := v.vu.Activate(v.f.scenario(a))
	return &activeVU{vu: v.vu, err: err}
}

type activeVU struct {
	vu  *js.VU
	err error // the activation failed: every iteration aborts the run with it
}

// RunIteration implements executor.ActiveVU.
func (a *activeVU) RunIteration(ctx context.Context, it executor.Iteration) executor.IterationResult {
	if a.err != nil {
		// CheckExecs ran before the test, so this means a broken runtime, not a user mistake.
		return executor.IterationResult{Outcome: executor.Aborted, Err: a.err}
	}
	interrupted, err := a.vu.RunIteration(ctx, modules.Iteration{
		InScenario:         it.VUInScenario,
		ScenarioInInstance: it.InScenario,
		ScenarioInTest:     it.InTest,
	})
	var abort *modules.AbortError
	var script *js.ScriptError
	switch {
	case errors.As(err, &abort):
		return executor.IterationResult{Outcome: executor.Aborted, Err: abort}
	case interrupted:
		return executor.IterationResult{Outcome: executor.Interrupted}
	case errors.As(err, &script):
		// The script runner has already logged the exception with its stack; reporting Failed
		// would make the scheduler log it a second time. Both count the iteration as complete.
		return executor.IterationResult{Outcome: executor.Completed}
	case err != nil:
		return executor.IterationResult{Outcome: executor.Failed, Err: err}
	}
	return executor.IterationResult{Outcome: executor.Completed}
}

// Deactivate implements executor.ActiveVU; it also pushes the VU's buffered samples.
func (a *activeVU) Deactivate() {
	if a.err == nil {
		a.vu.Deactivate()
	}
}
