package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
)

// ConstantVUsConfig: a fixed number of VUs loop for a duration (grafana/k6
// lib/executor/constant_vus.go).
type ConstantVUsConfig struct {
	BaseConfig
	VUs      null.Value[int64]         `json:"vus"`
	Duration null.Value[time.Duration] `json:"duration"`
}

func (c *ConstantVUsConfig) vus() int64 { return c.VUs.ValueOr(DefaultVUs) }

// Validate implements Config.
func (c *ConstantVUsConfig) Validate() []error {
	errs := c.validateBase()
	if c.vus() <= 0 {
		errs = append(errs, errors.New("the number of VUs must be more than 0"))
	}
	if !c.Duration.Valid {
		errs = append(errs, errors.New("the duration is unspecified"))
	} else if err := validateMinDuration("duration", c.Duration); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Description implements Config.
func (c *ConstantVUsConfig) Description(et *plan.ExecutionTuple) string {
	return fmt.Sprintf("%d looping VUs for %s%s", et.Scale(c.vus()), c.Duration.V, c.describe())
}

// PeakVUs implements Config.
func (c *ConstantVUsConfig) PeakVUs(et *plan.ExecutionTuple) int64 { return et.Scale(c.vus()) }

// RegularDuration implements Config.
func (c *ConstantVUsConfig) RegularDuration() time.Duration { return c.Duration.V }

// FullDuration implements Config.
func (c *ConstantVUsConfig) FullDuration() time.Duration {
	return c.Duration.V + c.GracefulStopValue()
}

// Plan implements Config.
func (c *ConstantVUsConfig) Plan(et *plan.ExecutionTuple) []plan.Step {
	return simplePlan(c.PeakVUs(et), 0, c.FullDuration())
}
