package executor

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
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

// Defaults shared by several executors (§3.1, §3.2).
const (
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
// The concrete types are
// *SharedIterationsConfig, *PerVUIterationsConfig, *ConstantVUsConfig, *RampingVUsConfig,
// *ConstantArrivalRateConfig and *RampingArrivalRateConfig.
type Config interface {
	// Base returns the options every executor has.
	Base() *BaseConfig
	// Validate returns every problem with the options, in k6's words (nil when valid).
	Validate() []error
	// Description is the scenario's line in the run header (§3.2); et may be nil (whole test).
	Description(et *ExecutionTuple) string
	// PeakVUs is the most VUs the scenario may hold at once, including VUs an arrival-rate
	// scenario may initialise mid-test; et may be nil.
	PeakVUs(et *ExecutionTuple) int64
	// FullDuration is the longest the scenario can run from its own start: its regular duration
	// (duration, maxDuration or the sum of stages) plus gracefulStop.
	FullDuration() time.Duration
	// Plan returns the scenario's VU requirements over time, relative to its start; et may be nil.
	Plan(et *ExecutionTuple) []Step

	validate(minDuration time.Duration) []error
	regularDuration() time.Duration
	newRunner(sc *scenarioRun) runner
}

// BaseConfig holds the options common to all executors (§3.1).
type BaseConfig struct {
	// Name is the scenario's key in options.scenarios.
	Name         string            `json:"-"`
	Executor     Type              `json:"executor"`
	StartTime    NullDuration      `json:"startTime"`
	GracefulStop NullDuration      `json:"gracefulStop"`
	Env          map[string]string `json:"env"`
	Exec         NullString        `json:"exec"`
	Tags         map[string]string `json:"tags"`
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
	if b.Exec.Valid && b.Exec.String != "" {
		return b.Exec.String
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
	if b.Exec.Valid && b.Exec.String == "" {
		errs = append(errs, errors.New("exec value cannot be empty"))
	}
	if b.Executor == "" {
		errs = append(errs, errors.New("missing or empty type field"))
	}
	if b.StartTime.Duration < 0 {
		errs = append(errs, errors.New("the startTime can't be negative"))
	}
	if b.GracefulStop.Duration < 0 {
		errs = append(errs, errors.New("the gracefulStop timeout can't be negative"))
	}
	return errs
}

// describe appends the common facts to an executor's own ones and wraps them in parentheses, as
// the run header does: executor facts, then exec (only when set), startTime and gracefulStop
// (only when positive).
func (b *BaseConfig) describe(facts ...string) string {
	if b.Exec.Valid {
		facts = append(facts, "exec: "+b.Exec.String)
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
	Duration NullDuration `json:"duration"`
	Target   NullInt      `json:"target"`
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
		} else if s.Duration.Duration < 0 {
			errs = append(errs, fmt.Errorf("the duration for stage %d can't be negative", n))
		}
		if !s.Target.Valid {
			errs = append(errs, fmt.Errorf("stage %d doesn't have a target", n))
		} else if s.Target.Int64 < 0 {
			errs = append(errs, fmt.Errorf("the target for stage %d can't be negative", n))
		}
	}
	return errs
}

func stagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		d += max(s.Duration.Duration, 0)
	}
	return d
}

func stagesMaxTarget(start int64, stages []Stage) int64 {
	m := start
	for _, s := range stages {
		m = max(m, s.Target.Int64)
	}
	return m
}

func validateMinDuration(what string, d NullDuration, minDur time.Duration) error {
	if d.Duration < minDur {
		return fmt.Errorf("the %s must be at least %s, but is %s", what, MinDuration, d.Duration)
	}
	return nil
}
