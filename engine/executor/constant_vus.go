package executor

import (
	"errors"
	"fmt"
	"time"
)

// ConstantVUsConfig: a fixed number of VUs loop for a duration (§3.2).
type ConstantVUsConfig struct {
	BaseConfig
	VUs      NullInt      `json:"vus"`
	Duration NullDuration `json:"duration"`
}

func (c *ConstantVUsConfig) vus() int64 { return c.VUs.ValueOr(1) }

// Validate implements Config.
func (c *ConstantVUsConfig) Validate() []error { return c.validate(MinDuration) }

func (c *ConstantVUsConfig) validate(minDur time.Duration) []error {
	errs := c.validateBase()
	if c.vus() <= 0 {
		errs = append(errs, errors.New("the number of VUs must be more than 0"))
	}
	if !c.Duration.Valid {
		errs = append(errs, errors.New("the duration is unspecified"))
	} else if err := validateMinDuration("duration", c.Duration, minDur); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Description implements Config.
func (c *ConstantVUsConfig) Description(et *ExecutionTuple) string {
	return fmt.Sprintf("%d looping VUs for %s%s", et.Scale(c.vus()), c.Duration.Duration, c.describe())
}

// PeakVUs implements Config.
func (c *ConstantVUsConfig) PeakVUs(et *ExecutionTuple) int64 { return et.Scale(c.vus()) }

func (c *ConstantVUsConfig) regularDuration() time.Duration { return c.Duration.Duration }

// FullDuration implements Config.
func (c *ConstantVUsConfig) FullDuration() time.Duration {
	return c.Duration.Duration + c.GracefulStopValue()
}

// Plan implements Config.
func (c *ConstantVUsConfig) Plan(et *ExecutionTuple) []Step {
	return simplePlan(c.PeakVUs(et), 0, c.FullDuration())
}

func (c *ConstantVUsConfig) newRunner(sc *scenarioRun) runner {
	return &constantVUsRunner{sc: sc, vus: c.PeakVUs(sc.tuple), dur: c.Duration.Duration}
}

type constantVUsRunner struct {
	sc  *scenarioRun
	vus int64
	dur time.Duration
}

func (r *constantVUsRunner) run() error {
	hs, err := r.sc.getVUs(r.vus)
	if err != nil {
		return err
	}
	eachVU(hs, func(h *vuHandle) { r.sc.loopVU(h, r.sc.nextLooping) })
	return nil
}

func (r *constantVUsRunner) progress(elapsed time.Duration) (float64, []string) {
	return timeFraction(elapsed, r.dur), []string{vusPart(r.vus), timePart(elapsed, r.dur)}
}
