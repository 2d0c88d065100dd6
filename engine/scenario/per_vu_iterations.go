package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
)

// PerVUIterationsConfig: every VU runs exactly `iterations` iterations (grafana/k6
// lib/executor/per_vu_iterations.go).
type PerVUIterationsConfig struct {
	BaseConfig
	VUs         null.Value[int64]         `json:"vus"`
	Iterations  null.Value[int64]         `json:"iterations"`
	MaxDuration null.Value[time.Duration] `json:"maxDuration"`
}

func (c *PerVUIterationsConfig) vus() int64 { return c.VUs.ValueOr(DefaultVUs) }

// IterationsPerVU is how many iterations each VU runs.
func (c *PerVUIterationsConfig) IterationsPerVU() int64 {
	return c.Iterations.ValueOr(DefaultIterations)
}
func (c *PerVUIterationsConfig) maxDuration() time.Duration {
	return c.MaxDuration.ValueOr(DefaultMaxDuration)
}

// Validate implements Config.
func (c *PerVUIterationsConfig) Validate() []error {
	errs := c.validateBase()
	if c.vus() <= 0 {
		errs = append(errs, errors.New("the number of VUs must be more than 0"))
	}
	if c.IterationsPerVU() <= 0 {
		errs = append(errs, errors.New("the number of iterations must be more than 0"))
	}
	if err := validateMinDuration("maxDuration", null.From(c.maxDuration())); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Description implements Config. Only VUs are split between instances: scaling the per-VU
// iterations too would scale the work twice.
func (c *PerVUIterationsConfig) Description(et *plan.ExecutionTuple) string {
	return fmt.Sprintf("%d iterations for each of %d VUs%s", c.IterationsPerVU(), et.Scale(c.vus()),
		c.describe("maxDuration: "+c.maxDuration().String()))
}

// PeakVUs implements Config.
func (c *PerVUIterationsConfig) PeakVUs(et *plan.ExecutionTuple) int64 { return et.Scale(c.vus()) }

// RegularDuration implements Config.
func (c *PerVUIterationsConfig) RegularDuration() time.Duration { return c.maxDuration() }

// FullDuration implements Config.
func (c *PerVUIterationsConfig) FullDuration() time.Duration {
	return c.maxDuration() + c.GracefulStopValue()
}

// Plan implements Config.
func (c *PerVUIterationsConfig) Plan(et *plan.ExecutionTuple) []plan.Step {
	return simplePlan(c.PeakVUs(et), 0, c.FullDuration())
}
