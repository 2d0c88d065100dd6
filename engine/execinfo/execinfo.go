// Package execinfo holds what the scheduler and a script runtime tell each other about a running
// test, the execution information scripts read from the k6/execution object (exec.scenario,
// exec.vu, exec.instance): the scenario a VU is activated for, the counters of one iteration, the
// instance-wide counters and how an iteration ended. The executor produces these values and the
// JS modules read them, so whoever connects the two hands them over unchanged.
package execinfo

import "time"

// VUID identifies a VU: InInstance is `__VU` / exec.vu.idInInstance (1-based, creation order);
// InTest is exec.vu.idInTest, unique across all instances of a segmented test.
type VUID struct {
	InInstance uint64
	InTest     uint64
}

// Scenario is what a VU needs to know about the scenario it runs. The scheduler makes one value
// per scenario, shares it among the scenario's VUs and hands it to every activation; its fields
// must not be modified.
type Scenario struct {
	// Name is the scenario name (the `scenario` tag, exec.scenario.name).
	Name string
	// Executor is the executor type, e.g. "constant-vus" (exec.scenario.executor).
	Executor string
	// Exec is the exported function to call; "" means "default".
	Exec string
	// Env overrides `__ENV` keys for this scenario's iterations.
	Env map[string]string
	// Tags are the scenario's own tags, added to every sample of its iterations.
	Tags map[string]string
	// State reads the scenario's live state; nil (a scenario made by hand, as in tests) reads
	// as a zero start time and no progress.
	State State
}

// State is the live state of a running scenario. Its methods may be called from any goroutine.
type State interface {
	// StartTime is when the scenario started; zero before.
	StartTime() time.Time
	// Progress is the share of the scenario done, 0..1.
	Progress() float64
}

// StartTime is when the scenario started (exec.scenario.startTime).
func (s *Scenario) StartTime() time.Time {
	if s.State == nil {
		return time.Time{}
	}
	return s.State.StartTime()
}

// Progress is the scenario's progress, 0..1 (exec.scenario.progress).
func (s *Scenario) Progress() float64 {
	if s.State == nil {
		return 0
	}
	return s.State.Progress()
}

// Iteration holds the counters of one call of a scenario's exec function; they feed k6/execution
// and `__ITER`. Every counter is 0-based.
type Iteration struct {
	// ScenarioInInstance is exec.scenario.iterationInInstance: the iteration's number within the
	// scenario on this instance.
	ScenarioInInstance int64
	// ScenarioInTest is exec.scenario.iterationInTest: the global (striped) number, unique across
	// the instances of a segmented test.
	ScenarioInTest int64
	// VUInScenario is exec.vu.iterationInScenario: this VU's count within this scenario.
	VUInScenario int64
	// VUInInstance is `__ITER` / exec.vu.iterationInInstance: this VU's count across scenarios.
	VUInInstance int64
	// Scheduled is when an arrival-rate iteration was due; zero for the other executors.
	Scheduled time.Time
	// StartDelay is how late the iteration started compared with Scheduled (arrival-rate only).
	StartDelay time.Duration
}

// InstanceStats are the instance-wide counters behind exec.instance and the progress display's
// top line.
type InstanceStats struct {
	IterationsCompleted   int64
	IterationsInterrupted int64
	VUsActive             int64
	VUsInitialized        int64
	// CurrentTestRunDuration is the time since the scenarios started (frozen when they end);
	// scripts see it as float milliseconds.
	CurrentTestRunDuration time.Duration
}

// Outcome is how an iteration ended.
type Outcome int

// Iteration outcomes.
const (
	// Completed: the exec function returned.
	Completed Outcome = iota
	// Failed: the exec function threw. The scheduler logs the error at ERROR; the iteration
	// counts as complete and does not change the exit code (k6 behaviour).
	Failed
	// Interrupted: the iteration's context ended before the function returned; no iteration
	// samples are emitted.
	Interrupted
	// Aborted: the script called exec.test.abort(); the scheduler aborts the run with the error.
	// Counts as interrupted.
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

// Exit is how running one iteration ended: its outcome and, for some outcomes, the error.
type Exit struct {
	Outcome Outcome
	// Err is the error of a Failed iteration or the abort (Aborted); with Completed, an
	// exception the runtime has already logged (the scheduler does not log it again); nil
	// otherwise.
	Err error
}
