package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
)

// Type names an executor as written in a scenario's `executor` key.
type Type string

// The executor types this package runs (k6 v1.x minus externally-controlled).
const (
	SharedIterations    Type = "shared-iterations"
	PerVUIterations     Type = "per-vu-iterations"
	ConstantVUs         Type = "constant-vus"
	RampingVUs          Type = "ramping-vus"
	ConstantArrivalRate Type = "constant-arrival-rate"
	RampingArrivalRate  Type = "ramping-arrival-rate"
)

// Defaults of the scenario options (grafana/k6 lib/executor/base_config.go and the executors'
// configs).
const (
	DefaultVUs              = 1
	DefaultIterations       = 1
	DefaultStartVUs         = 1
	DefaultGracefulStop     = 30 * time.Second
	DefaultGracefulRampDown = 30 * time.Second
	DefaultMaxDuration      = 10 * time.Minute
	DefaultTimeUnit         = time.Second
	DefaultExec             = "default"
	// MinDuration is the shortest accepted duration / maxDuration.
	MinDuration = time.Second
	// maxConcurrentVUs caps ramping-vus targets (k6 rejects anything above it).
	maxConcurrentVUs = 100_000_000
)

// Config is one scenario of any executor type, as decoded (call Validate before running it).
// The concrete types are *SharedIterationsConfig, *PerVUIterationsConfig, *ConstantVUsConfig,
// *RampingVUsConfig, *ConstantArrivalRateConfig and *RampingArrivalRateConfig.
type Config interface {
	// Base returns the options every executor has.
	Base() *BaseConfig
	// Validate returns every problem with the options, in k6's words (nil when valid).
	Validate() []error
	// Description is the scenario's line in the run header; et may be nil (whole test).
	Description(et *plan.ExecutionTuple) string
	// PeakVUs is the most VUs the scenario may hold at once, including VUs an arrival-rate
	// scenario may initialise mid-test; et may be nil.
	PeakVUs(et *plan.ExecutionTuple) int64
	// RegularDuration is how long the scenario starts iterations: duration, maxDuration or the
	// sum of its stages.
	RegularDuration() time.Duration
	// FullDuration is the longest the scenario can run from its own start: its regular duration
	// plus gracefulStop.
	FullDuration() time.Duration
	// Plan returns the scenario's VU requirements over time, relative to its start; et may be nil.
	Plan(et *plan.ExecutionTuple) []plan.Step
}

// BaseConfig holds the options common to all executors.
type BaseConfig struct {
	// Name is the scenario's key in options.scenarios.
	Name         string                    `json:"-"`
	Executor     Type                      `json:"executor"`
	StartTime    null.Value[time.Duration] `json:"startTime"`
	GracefulStop null.Value[time.Duration] `json:"gracefulStop"`
	Env          map[string]string         `json:"env"`
	Exec         null.Value[string]        `json:"exec"`
	Tags         map[string]string         `json:"tags"`
	// Options holds browser options; they are kept verbatim and not interpreted here.
	Options json.RawMessage `json:"options,omitempty"`
}

// Base returns b itself; it lets every executor config satisfy Config by embedding.
func (b *BaseConfig) Base() *BaseConfig { return b }

// StartOffset is when the scenario starts, relative to the start of the test.
func (b *BaseConfig) StartOffset() time.Duration { return b.StartTime.ValueOr(0) }

// GracefulStopValue is how long running iterations may continue after the regular end.
func (b *BaseConfig) GracefulStopValue() time.Duration {
	return b.GracefulStop.ValueOr(DefaultGracefulStop)
}

// ExecName is the exported function the scenario's iterations call.
func (b *BaseConfig) ExecName() string {
	if b.Exec.Valid && b.Exec.V != "" {
		return b.Exec.V
	}
	return DefaultExec
}

var scenarioNameRE = regexp.MustCompile(`^[0-9a-zA-Z_-]+$`)

func (b *BaseConfig) validateBase() []error {
	var errs []error
	if b.Name == "" {
		errs = append(errs, errors.New("scenario name can't be empty"))
	} else if !scenarioNameRE.MatchString(b.Name) {
		errs = append(errs, errors.New(
			"the scenario name should contain only numbers, latin letters, underscores, and dashes"))
	}
	if b.Exec.Valid && b.Exec.V == "" {
		errs = append(errs, errors.New("exec value cannot be empty"))
	}
	if b.Executor == "" {
		errs = append(errs, errors.New("missing or empty type field"))
	}
	if b.StartTime.V < 0 {
		errs = append(errs, errors.New("the startTime can't be negative"))
	}
	if b.GracefulStop.V < 0 {
		errs = append(errs, errors.New("the gracefulStop timeout can't be negative"))
	}
	return errs
}

// describe appends the common facts to an executor's own ones and wraps them in parentheses, as
// the run header does: executor facts, then exec (only when set), startTime and gracefulStop
// (only when positive).
func (b *BaseConfig) describe(facts ...string) string {
	if b.Exec.Valid {
		facts = append(facts, "exec: "+b.Exec.V)
	}
	if st := b.StartOffset(); st > 0 {
		facts = append(facts, "startTime: "+st.String())
	}
	if gs := b.GracefulStopValue(); gs > 0 {
		facts = append(facts, "gracefulStop: "+gs.String())
	}
	if len(facts) == 0 {
		return ""
	}
	return " (" + strings.Join(facts, ", ") + ")"
}

// Stage is one step of a ramping executor: reach Target (VUs, or iterations per timeUnit)
// linearly over Duration.
type Stage struct {
	Duration null.Value[time.Duration] `json:"duration"`
	Target   null.Value[int64]         `json:"target"`
}

// UnmarshalJSON decodes a stage strictly: keys other than duration and target are rejected.
func (s *Stage) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("a stage must be an object like {\"duration\": \"10s\", \"target\": 5}")
	}
	var out Stage
	for _, k := range sortedKeys(raw) {
		var err error
		switch k {
		case "duration":
			err = json.Unmarshal(raw[k], &out.Duration)
		case "target":
			err = json.Unmarshal(raw[k], &out.Target)
		default:
			return fmt.Errorf("unknown stage option %q (allowed: duration, target)", k)
		}
		if err != nil {
			return fmt.Errorf("stage option %q: %w", k, err)
		}
	}
	*s = out
	return nil
}

func validateStages(stages []Stage) []error {
	if len(stages) == 0 {
		return []error{errors.New("at least one stage has to be specified")}
	}
	var errs []error
	for i, s := range stages {
		n := i + 1
		if !s.Duration.Valid {
			errs = append(errs, fmt.Errorf("stage %d doesn't have a duration", n))
		} else if s.Duration.V < 0 {
			errs = append(errs, fmt.Errorf("the duration for stage %d can't be negative", n))
		}
		if !s.Target.Valid {
			errs = append(errs, fmt.Errorf("stage %d doesn't have a target", n))
		} else if s.Target.V < 0 {
			errs = append(errs, fmt.Errorf("the target for stage %d can't be negative", n))
		}
	}
	return errs
}

func stagesDuration(stages []Stage) time.Duration { return plan.StagesDuration(planStages(stages)) }

// planStages drops the "was it set" of each stage value: validation has already required both.
func planStages(stages []Stage) []plan.Stage {
	out := make([]plan.Stage, len(stages))
	for i, s := range stages {
		out[i] = plan.Stage{Duration: s.Duration.V, Target: s.Target.V}
	}
	return out
}

func stagesMaxTarget(start int64, stages []Stage) int64 {
	m := start
	for _, s := range stages {
		m = max(m, s.Target.V)
	}
	return m
}

func validateMinDuration(what string, d null.Value[time.Duration]) error {
	if d.V < MinDuration {
		return fmt.Errorf("the %s must be at least %s, but is %s", what, MinDuration, d.V)
	}
	return nil
}

// simplePlan is the plan of executors that hold a fixed number of VUs for their whole run.
func simplePlan(planned, unplanned int64, hardEnd time.Duration) []plan.Step {
	return []plan.Step{{At: 0, PlannedVUs: planned, UnplannedVUs: unplanned}, {At: hardEnd}}
}
