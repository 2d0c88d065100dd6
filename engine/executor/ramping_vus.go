package executor

import (
	"errors"
	"fmt"
	"time"
)

// RampingVUsConfig: the number of looping VUs follows stages (§3.2, §3.3 rule 5).
type RampingVUsConfig struct {
	BaseConfig
	StartVUs         NullInt      `json:"startVUs"`
	Stages           []Stage      `json:"stages"`
	GracefulRampDown NullDuration `json:"gracefulRampDown"`
}

func (c *RampingVUsConfig) startVUs() int64 { return c.StartVUs.ValueOr(1) }
func (c *RampingVUsConfig) gracefulRampDown() time.Duration {
	return c.GracefulRampDown.ValueOr(DefaultGracefulRampDown)
}

// Validate implements Config.
func (c *RampingVUsConfig) Validate() []error { return c.validate(MinDuration) }

func (c *RampingVUsConfig) validate(time.Duration) []error {
	errs := c.validateBase()
	if c.startVUs() < 0 {
		errs = append(errs, errors.New("the number of start VUs can't be negative"))
	}
	if stagesMaxTarget(c.startVUs(), c.Stages) <= 0 {
		errs = append(errs, errors.New("either startVUs or one of the stages' target values must be greater than 0"))
	}
	if c.GracefulRampDown.Duration < 0 {
		errs = append(errs, errors.New("the gracefulRampDown timeout can't be negative"))
	}
	errs = append(errs, validateStages(c.Stages)...)
	if c.startVUs() > maxConcurrentVUs {
		errs = append(errs, fmt.Errorf("the startVUs exceed max limit of %d", maxConcurrentVUs))
	}
	for i, s := range c.Stages {
		if s.Target.Int64 > maxConcurrentVUs {
			errs = append(errs, fmt.Errorf("target for stage %d exceeds max limit of %d", i+1, maxConcurrentVUs))
		}
	}
	return errs
}

// Description implements Config.
func (c *RampingVUsConfig) Description(et *ExecutionTuple) string {
	return fmt.Sprintf("Up to %d looping VUs for %s over %d stages%s",
		c.PeakVUs(et), stagesDuration(c.Stages), len(c.Stages),
		c.describe("gracefulRampDown: "+c.gracefulRampDown().String()))
}

// PeakVUs implements Config.
func (c *RampingVUsConfig) PeakVUs(et *ExecutionTuple) int64 {
	return et.Scale(stagesMaxTarget(c.startVUs(), c.Stages))
}

func (c *RampingVUsConfig) regularDuration() time.Duration { return stagesDuration(c.Stages) }

// FullDuration implements Config.
func (c *RampingVUsConfig) FullDuration() time.Duration {
	return stagesDuration(c.Stages) + c.GracefulStopValue()
}

// Plan implements Config: VUs removed by a ramp-down stay reserved for gracefulRampDown.
func (c *RampingVUsConfig) Plan(et *ExecutionTuple) []Step {
	end := stagesDuration(c.Stages)
	return reserveForRampDown(rampingVUSteps(c.startVUs(), c.Stages, et), c.gracefulRampDown(), end, c.FullDuration())
}

func (c *RampingVUsConfig) newRunner(sc *scenarioRun) runner {
	return &rampingVUsRunner{
		sc:       sc,
		steps:    rampingVUSteps(c.startVUs(), c.Stages, sc.tuple),
		maxVUs:   c.PeakVUs(sc.tuple),
		total:    stagesDuration(c.Stages),
		rampDown: c.gracefulRampDown(),
	}
}
