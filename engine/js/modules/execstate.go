package modules

import "time"

// ExecutionState is what the scheduler tells scripts about the whole instance (exec.instance). The
// scheduler implements it; methods may be called from any VU goroutine at any time.
type ExecutionState interface {
	InstanceStats() InstanceStats
}

// InstanceStats are the live counters behind exec.instance (spec §8.5).
type InstanceStats struct {
	IterationsInterrupted int64
	IterationsCompleted   int64
	VUsActive             int64
	VUsInitialized        int64
	// CurrentTestRunDuration is reported to scripts as float milliseconds.
	CurrentTestRunDuration time.Duration
}

// Scenario describes one activation of a VU by a scenario: the scheduler builds one value per
// scenario and passes it to VU.Activate whenever it hands the VU to that scenario.
type Scenario struct {
	// Name is the scenario name (the `scenario` tag, exec.scenario.name).
	Name string
	// Executor is the executor type, e.g. "constant-vus".
	Executor string
	// Exec is the exported function to call; "" means "default".
	Exec string
	// StartTime is when the scenario started (exec.scenario.startTime, Unix ms).
	StartTime time.Time
	// Progress returns the scenario's progress in [0, 1]; nil reads as 0.
	Progress func() float64
	// Env is merged into __ENV on each activation (values override).
	Env map[string]string
	// Tags are added to every sample of the scenario's iterations.
	Tags map[string]string
}

// Iteration are the scheduler's counters for one iteration (spec §8.5).
type Iteration struct {
	// InScenario is exec.vu.iterationInScenario: this VU's iteration number within the scenario.
	InScenario int64
	// ScenarioInInstance is exec.scenario.iterationInInstance: 0-based within the scenario and
	// this instance.
	ScenarioInInstance int64
	// ScenarioInTest is exec.scenario.iterationInTest: the global striped index.
	ScenarioInTest int64
}
