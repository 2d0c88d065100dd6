package executor

import (
	"context"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// VUFactory creates initialised VUs: a script runtime implements it by running the init context
// in a fresh runtime. The scheduler calls it concurrently (GOMAXPROCS at a time before the test,
// one at a time for arrival-rate growth during it), and stops using a VU only at the end.
type VUFactory interface {
	NewVU(ctx context.Context, id VUID) (VU, error)
}

// VUFactoryFunc adapts a function to VUFactory.
type VUFactoryFunc func(ctx context.Context, id VUID) (VU, error)

// NewVU calls f.
func (f VUFactoryFunc) NewVU(ctx context.Context, id VUID) (VU, error) { return f(ctx, id) }

// VUID identifies a VU: InInstance is `__VU` / exec.vu.idInInstance (1-based, creation order);
// InTest is exec.vu.idInTest, unique across all instances of a segmented test.
type VUID struct {
	InInstance uint64
	InTest     uint64
}

// VU is an initialised virtual user. The scheduler owns it for the whole test and activates it
// for one scenario at a time; a VU may serve several scenarios one after another.
type VU interface {
	// Activate prepares the VU to run iterations of one scenario (exec function, env, tags). The
	// Activation stays valid until Deactivate.
	Activate(a *Activation) ActiveVU
}

// ActiveVU is a VU activated for one scenario. Only one goroutine uses it at a time.
type ActiveVU interface {
	// RunIteration calls the scenario's exec function once. When ctx ends (gracefulStop,
	// gracefulRampDown, Stop(true), Abort) the runtime must interrupt the call and return
	// Interrupted promptly. The runtime emits the `iterations` and `iteration_duration` samples
	// for Completed and Failed outcomes only; the scheduler books the instance-level counts.
	RunIteration(ctx context.Context, it Iteration) IterationResult
	// Deactivate ends the activation (flush per-VU buffers, drop scenario env); it is called once,
	// after the last RunIteration, before the VU goes back to the pool.
	Deactivate()
}

// Iteration describes one call of the exec function; its counters feed `__ITER` and k6/execution.
type Iteration struct {
	// InScenario is exec.scenario.iterationInInstance: 0-based within the scenario, this instance.
	InScenario int64
	// InTest is exec.scenario.iterationInTest: the global (striped) number, unique across instances.
	InTest int64
	// VUInScenario is exec.vu.iterationInScenario: this VU's 0-based count in this scenario.
	VUInScenario int64
	// VUInInstance is `__ITER` / exec.vu.iterationInInstance: this VU's 0-based count across scenarios.
	VUInInstance int64
	// Scheduled is when an arrival-rate iteration was due; zero for the other executors.
	Scheduled time.Time
	// StartDelay is how late the iteration started compared with Scheduled (arrival-rate only).
	StartDelay time.Duration
}

// Outcome is how an iteration ended.
type Outcome int

// Iteration outcomes.
const (
	// Completed: the exec function returned.
	Completed Outcome = iota
	// Failed: the exec function threw. The scheduler logs Err at ERROR; the iteration counts as
	// complete and does not affect the exit code (§3.3 rule 4).
	Failed
	// Interrupted: ctx ended before the function returned; no iteration samples are emitted.
	Interrupted
	// Aborted: the script called test.abort(); the scheduler aborts the run with Err (which the
	// runtime should make a typed error so the CLI can exit 108). Counts as interrupted.
	Aborted
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Completed:
		return "completed"
	case Failed:
		return "failed"
	case Interrupted:
		return "interrupted"
	case Aborted:
		return "aborted"
	}
	return "unknown"
}

// IterationResult is what RunIteration reports.
type IterationResult struct {
	Outcome Outcome
	Err     error
}

// Activation is what a VU needs to know about the scenario it runs. One Activation is shared by
// all VUs of a scenario; its fields must not be modified.
type Activation struct {
	// Scenario is the scenario name (exec.scenario.name).
	Scenario string
	// Executor is the executor type (exec.scenario.executor).
	Executor Type
	// Exec is the exported function to call.
	Exec string
	// Env overrides `__ENV` keys for this scenario's iterations.
	Env map[string]string
	// Tags are the scenario's own tags, to add to every sample (the runtime adds the `scenario`
	// system tag when that tag is enabled).
	Tags *metrics.Tags

	sc *scenarioRun
}

// StartTime is when the scenario started (exec.scenario.startTime).
func (a *Activation) StartTime() time.Time { return a.sc.startedAt() }

// Progress is the scenario's progress, 0..1 (exec.scenario.progress).
func (a *Activation) Progress() float64 { return a.sc.progressFraction() }

// Instance returns the instance-wide counters (exec.instance).
func (a *Activation) Instance() InstanceStats { return a.sc.s.Instance() }

// StartDelayObserver is told how late every arrival-rate iteration started compared with its
// schedule (fortio's "how late each call starts"), so a generator falling behind is visible.
// It is called from VU goroutines and must be safe for concurrent use and cheap.
type StartDelayObserver interface {
	ObserveStartDelay(scenario string, scheduled time.Time, delay time.Duration)
}

// StartDelayFunc adapts a function to StartDelayObserver.
type StartDelayFunc func(scenario string, scheduled time.Time, delay time.Duration)

// ObserveStartDelay calls f.
func (f StartDelayFunc) ObserveStartDelay(scenario string, scheduled time.Time, delay time.Duration) {
	f(scenario, scheduled, delay)
}
