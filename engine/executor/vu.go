package executor

import (
	"context"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
)

// VUFactory creates initialised VUs: a script runtime implements it by running the init context
// in a fresh runtime. The scheduler calls it concurrently (GOMAXPROCS at a time before the test,
// one at a time for arrival-rate growth during it), and stops using a VU only at the end.
type VUFactory interface {
	NewVU(ctx context.Context, id execinfo.VUID) (VU, error)
}

// VUFactoryFunc adapts a function to VUFactory.
type VUFactoryFunc func(ctx context.Context, id execinfo.VUID) (VU, error)

// NewVU calls f.
func (f VUFactoryFunc) NewVU(ctx context.Context, id execinfo.VUID) (VU, error) { return f(ctx, id) }

// VU is an initialised virtual user. The scheduler owns it for the whole test and activates it
// for one scenario at a time; a VU may serve several scenarios one after another.
type VU interface {
	// Activate prepares the VU to run iterations of one scenario (exec function, env, tags). The
	// scenario value is shared by the scenario's VUs and stays valid until Deactivate.
	Activate(s *execinfo.Scenario) Activation
}

// Activation is a VU activated for one scenario: it runs that scenario's iterations until
// Deactivate. Only one goroutine uses it at a time.
type Activation interface {
	// RunIteration calls the scenario's exec function once. When ctx ends (gracefulStop,
	// gracefulRampDown, Stop(true), Abort) the runtime must interrupt the call and return
	// execinfo.Interrupted promptly. The runtime emits the `iterations` and `iteration_duration`
	// samples for Completed and Failed outcomes only; the scheduler books the instance-level
	// counts.
	RunIteration(ctx context.Context, it execinfo.Iteration) execinfo.Exit
	// Deactivate ends the activation (flush per-VU buffers, drop scenario env); it is called once,
	// after the last RunIteration, before the VU goes back to the pool.
	Deactivate()
}

// StartDelayObserver is told how late every arrival-rate iteration started compared with its
// schedule (fortio's "how late each call starts"), so a generator falling behind is visible.
// It is called from VU goroutines and must be safe for concurrent use and cheap.
type StartDelayObserver interface {
	ObserveStartDelay(scenario string, scheduled time.Time, delay time.Duration)
}
