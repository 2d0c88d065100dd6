package js

import (
	"context"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/executor"
)

// VUs returns the factory the scheduler (engine/executor) makes this test's VUs with. Once
// activated, a VU is itself the scheduler's executor.Activation: an iteration goes from the
// scheduler to RunIteration with nothing in between.
func (r *Script) VUs() executor.VUFactory {
	return executor.VUFactoryFunc(func(ctx context.Context, id execinfo.VUID) (executor.VU, error) {
		vu, err := r.NewVU(ctx, id.InInstance, id.InTest)
		if err != nil {
			return nil, err
		}
		return schedulerVU{vu}, nil
	})
}

// schedulerVU is the VU as the scheduler sees it (executor.VU): Activate with the scheduler's
// signature.
type schedulerVU struct{ vu *VU }

// Activate implements executor.VU.
func (v schedulerVU) Activate(s *execinfo.Scenario) executor.Activation {
	if err := v.vu.Activate(s); err != nil {
		return failedActivation{err}
	}
	return v.vu
}

// failedActivation is the activation of a VU that could not be activated. CheckExecs ran before the test, so this means
// a broken runtime, not a user mistake: every iteration aborts the run with the error.
type failedActivation struct{ err error }

// RunIteration implements executor.Activation.
func (f failedActivation) RunIteration(context.Context, execinfo.Iteration) execinfo.Exit {
	return execinfo.Exit{Outcome: execinfo.Aborted, Err: f.err}
}

// Deactivate implements executor.Activation: there is no activation to end.
func (failedActivation) Deactivate() {}
