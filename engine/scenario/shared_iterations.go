package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
)

// SharedIterationsConfig: VUs share one count of iterations; fast VUs do more of them (grafana/k6
// lib/executor/shared_iterations.go).
type SharedIterationsConfig struct {
	BaseConfig
	VUs         null.Value[int64]         `json:"vus"`
	Iterations  null.Value[int64]         `json:"iterations"`
	MaxDuration null.Value[time.Duration] `json:"maxDuration"`
}

func (c *SharedIterationsConfig) vus() int64        { return c.VUs.ValueOr(DefaultVUs) }
func (c *SharedIterationsConfig) iterations() int64 { return c.Iterations.ValueOr(DefaultIterations) }
func (c *SharedIterationsConfig) maxDuration() time.Duration {
	return c.MaxDuration.ValueOr(DefaultMaxDuration)
}

// Validate implements Config.
func (c *SharedIterationsConfig) Validate() []error {
	errs := c.validateBase()
	if c.vus() <= 0 {
		errs = append(errs, errors.New("the number of VUs must be more than 0"))
	}
	if c.iterations() < c.vus() {
		errs = append(errs, fmt.Errorf("the number of iterations (%d) can't be less than the number of VUs (%d)",
			c.iterations(), c.vus()))
	}
	if err := validateMinDuration("maxDuration", null.From(c.maxDuration())); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Split returns this instance's VUs and iterations, and its segment re-segmented by vus: so no
// instance gets iterations without a VU to run them.
func (c *SharedIterationsConfig) Split(et *plan.ExecutionTuple) (vus, iters int64, tuple *plan.ExecutionTuple) {
	t, ok := et.Resegment(c.vus())
	if !ok {
		return 0, 0, nil
	}
	return t.Scale(c.vus()), t.Scale(c.iterations()), t
}

// Description implements Config.
func (c *SharedIterationsConfig) Description(et *plan.ExecutionTuple) string {
	vus, iters, _ := c.Split(et)
	return fmt.Sprintf("%d iterations shared among %d VUs%s", iters, vus,
		c.describe("maxDuration: "+c.maxDuration().String()))
}

// PeakVUs implements Config.
func (c *SharedIterationsConfig) PeakVUs(et *plan.ExecutionTuple) int64 {
	vus, _, _ := c.Split(et)
	return vus
}

// RegularDuration implements Config.
func (c *SharedIterationsConfig) RegularDuration() time.Duration { return c.maxDuration() }

// FullDuration implements Config.
func (c *SharedIterationsConfig) FullDuration() time.Duration {
	return c.maxDuration() + c.GracefulStopValue()
}

// Plan implements Config.
func (c *SharedIterationsConfig) Plan(et *plan.ExecutionTuple) []plan.Step {
	return simplePlan(c.PeakVUs(et), 0, c.FullDuration())
}
