package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
)

// RampingVUsConfig: the number of looping VUs follows stages (grafana/k6
// lib/executor/ramping_vus.go).
type RampingVUsConfig struct {
	BaseConfig
	StartVUs         null.Value[int64]         `json:"startVUs"`
	Stages           []Stage                   `json:"stages"`
	GracefulRampDown null.Value[time.Duration] `json:"gracefulRampDown"`
}

func (c *RampingVUsConfig) startVUs() int64 { return c.StartVUs.ValueOr(DefaultStartVUs) }

// RampDown is how long a VU removed by a ramp-down may finish its iteration (gracefulRampDown).
func (c *RampingVUsConfig) RampDown() time.Duration {
	return c.GracefulRampDown.ValueOr(DefaultGracefulRampDown)
}

// Validate implements Config.
func (c *RampingVUsConfig) Validate() []error {
	errs := c.validateBase()
	if c.startVUs() < 0 {
		errs = append(errs, errors.New("the number of start VUs can't be negative"))
	}
	if stagesMaxTarget(c.startVUs(), c.Stages) <= 0 {
		errs = append(errs, errors.New("either startVUs or one of the stages' target values must be greater than 0"))
	}
	if c.GracefulRampDown.V < 0 {
		errs = append(errs, errors.New("the gracefulRampDown timeout can't be negative"))
	}
	errs = append(errs, validateStages(c.Stages)...)
	if c.startVUs() > maxConcurrentVUs {
		errs = append(errs, fmt.Errorf("the startVUs exceed max limit of %d", maxConcurrentVUs))
	}
	for i, s := range c.Stages {
		if s.Target.V > maxConcurrentVUs {
			errs = append(errs, fmt.Errorf("target for stage %d exceeds max limit of %d", i+1, maxConcurrentVUs))
		}
	}
	return errs
}

// Description implements Config.
func (c *RampingVUsConfig) Description(et *plan.ExecutionTuple) string {
	return fmt.Sprintf("Up to %d looping VUs for %s over %d stages%s",
		c.PeakVUs(et), stagesDuration(c.Stages), len(c.Stages),
		c.describe("gracefulRampDown: "+c.RampDown().String()))
}

// PeakVUs implements Config.
func (c *RampingVUsConfig) PeakVUs(et *plan.ExecutionTuple) int64 {
	return et.Scale(stagesMaxTarget(c.startVUs(), c.Stages))
}

// RegularDuration implements Config.
func (c *RampingVUsConfig) RegularDuration() time.Duration { return stagesDuration(c.Stages) }

// FullDuration implements Config.
func (c *RampingVUsConfig) FullDuration() time.Duration {
	return stagesDuration(c.Stages) + c.GracefulStopValue()
}

// Plan implements Config: VUs removed by a ramp-down stay reserved for gracefulRampDown. The
// plan also counts a rise to the last stage's target at the very end, as k6 does: a 1→10 ramp plans 10
// VUs (k6's raw execution steps keep the step at the end of the last stage; grafana/k6
// lib/executor/ramping_vus.go, getRawExecutionSteps), although the 10th never starts an
// iteration because the stage is over.
func (c *RampingVUsConfig) Plan(et *plan.ExecutionTuple) []plan.Step {
	end := stagesDuration(c.Stages)
	steps := c.Steps(et)
	if n := len(c.Stages); n > 0 {
		final := et.Scale(max(c.Stages[n-1].Target.ValueOr(0), 0))
		if last := steps[len(steps)-1]; final > last.VUs && last.At < end {
			steps = append(steps, plan.VUStep{At: end, VUs: final})
		}
	}
	return plan.ReserveForRampDown(steps, c.RampDown(), end, c.FullDuration())
}

// Steps are the VUs that should be looping over time on this instance, before any ramp-down
// reservation.
func (c *RampingVUsConfig) Steps(et *plan.ExecutionTuple) []plan.VUStep {
	return plan.RampingVUSteps(c.startVUs(), planStages(c.Stages), et)
}
