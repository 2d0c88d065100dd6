package runner

import (
	"context"
	"errors"

	"github.com/dnecho/dnecho/engine/exec"
	"github.com/dnecho/dnecho/engine/executor"
	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/js/modules"
)

// vuFactory adapts the script runner's VUs to the scheduler's VU contract. Both sides speak the
// types of package exec, so scenarios and iteration counters pass through unchanged; what is
// left to adapt is how an iteration's error becomes its outcome.
type vuFactory struct{ r *js.Runner }

// NewVU implements executor.VUFactory: a fresh runtime that has run the init context.
func (f vuFactory) NewVU(ctx context.Context, id exec.VUID) (executor.VU, error) {
	vu, err := f.r.NewVU(ctx, id.InInstance, id.InTest)
	if err != nil {
		return nil, err
	}
	return jsVU{vu}, nil
}

type jsVU struct{ vu *js.VU }

// Activate implements executor.VU.
func (v jsVU) Activate(s *exec.Scenario) executor.ActiveVU {
	return &activeVU{vu: v.vu, err: v.vu.Activate(s)}
}

type activeVU struct {
	vu  *js.VU
	err error // the activation failed: every iteration aborts the run with it
}

// RunIteration implements executor.ActiveVU.
func (a *activeVU) RunIteration(ctx context.Context, it exec.Iteration) exec.Result {
	if a.err != nil {
		// CheckExecs ran before the test, so this means a broken runtime, not a user mistake.
		return exec.Result{Outcome: exec.Aborted, Err: a.err}
	}
	interrupted, err := a.vu.RunIteration(ctx, it)
	if err == nil && !interrupted {
		return exec.Result{Outcome: exec.Completed} // the hot path: no error to classify
	}
	var abort *modules.AbortError
	var script *js.ScriptError
	switch {
	case errors.As(err, &abort):
		return exec.Result{Outcome: exec.Aborted, Err: abort}
	case interrupted:
		return exec.Result{Outcome: exec.Interrupted}
	case errors.As(err, &script):
		// The script runner has already logged the exception with its stack; reporting Failed
		// would make the scheduler log it a second time. Both count the iteration as complete.
		return exec.Result{Outcome: exec.Completed}
	case err != nil:
		return exec.Result{Outcome: exec.Failed, Err: err}
	}
	return exec.Result{Outcome: exec.Completed}
}

// Deactivate implements executor.ActiveVU; it also pushes the VU's buffered samples.
func (a *activeVU) Deactivate() {
	if a.err == nil {
		a.vu.Deactivate()
	}
}
