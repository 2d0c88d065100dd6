package scenario

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/internal/pacing"
)

// arrivalVUs holds the VU options both arrival-rate executors share.
type arrivalVUs struct {
	PreAllocatedVUs null.Value[int64] `json:"preAllocatedVUs"`
	MaxVUs          null.Value[int64] `json:"maxVUs"`
}

func (v *arrivalVUs) pre() int64    { return v.PreAllocatedVUs.V }
func (v *arrivalVUs) maxVUs() int64 { return v.MaxVUs.ValueOr(v.PreAllocatedVUs.V) }

func (v *arrivalVUs) validateVUs() []error {
	var errs []error
	if !v.PreAllocatedVUs.Valid {
		errs = append(errs, errors.New("the number of preAllocatedVUs isn't specified"))
	} else if v.PreAllocatedVUs.V < 0 {
		errs = append(errs, errors.New("the number of preAllocatedVUs can't be negative"))
	}
	if v.MaxVUs.Valid && v.MaxVUs.V < v.PreAllocatedVUs.V {
		errs = append(errs, errors.New("maxVUs can't be less than preAllocatedVUs"))
	}
	return errs
}

// arrivalSplit is one instance's share of an arrival-rate scenario. The test is re-segmented by
// maxVUs so an instance never gets iterations without VUs to run them.
type arrivalSplit struct {
	out      bool // this instance has no share of the scenario
	tuple    *plan.ExecutionTuple
	pre, max int64
	share    *big.Rat // fraction of the global rate this instance runs
}

func (v *arrivalVUs) split(et *plan.ExecutionTuple) arrivalSplit {
	t, ok := et.Resegment(v.maxVUs())
	if !ok {
		return arrivalSplit{out: true, share: new(big.Rat)}
	}
	return arrivalSplit{tuple: t, pre: t.Scale(v.pre()), max: t.Scale(v.maxVUs()), share: t.Length()}
}

// fact is the run header's "maxVUs: P" or "maxVUs: P-M".
func (s arrivalSplit) fact() string {
	if s.max > s.pre {
		return fmt.Sprintf("maxVUs: %d-%d", s.pre, s.max)
	}
	return fmt.Sprintf("maxVUs: %d", s.pre)
}

// perSecond converts a rate per timeUnit into this instance's iterations per second.
func (s arrivalSplit) perSecond(rate int64, timeUnit time.Duration) float64 {
	if timeUnit <= 0 {
		return 0
	}
	r := new(big.Rat).Mul(big.NewRat(rate, 1), s.share)
	r.Mul(r, new(big.Rat).SetFrac64(int64(time.Second), int64(timeUnit)))
	f, _ := r.Float64()
	return f
}

func (s arrivalSplit) steps(full time.Duration) []plan.Step {
	return simplePlan(s.pre, s.max-s.pre, full)
}

// Arrivals is one instance's share of an arrival-rate scenario, as the executor runs it: its VUs
// and when each of its iterations is due.
type Arrivals struct {
	// Out is true when this instance has no share of the scenario (maxVUs is smaller than the
	// number of instances).
	Out bool
	// Tuple is this instance's segment after re-segmenting by maxVUs; its Global maps the
	// instance's iterations to the global ones.
	Tuple *plan.ExecutionTuple
	// PreAllocatedVUs and MaxVUs are this instance's shares of the options.
	PreAllocatedVUs, MaxVUs int64
	// Duration is the regular duration: no iteration is due at or after it.
	Duration time.Duration
	// Start is when global iteration g is due, relative to the scenario's start; false when never.
	Start func(g int64) (time.Duration, bool)
	// Rate is this instance's rate at an offset into the scenario, in iterations per second.
	Rate func(elapsed time.Duration) float64
}

func (s arrivalSplit) arrivals(d time.Duration, start func(int64) (time.Duration, bool),
	rate func(time.Duration) float64) Arrivals {
	return Arrivals{Out: s.out, Tuple: s.tuple, PreAllocatedVUs: s.pre, MaxVUs: s.max, Duration: d, Start: start, Rate: rate}
}

// ConstantArrivalRateConfig: `rate` iterations start every `timeUnit`, whatever the VUs are
// doing; iterations that find no idle VU are dropped (grafana/k6
// lib/executor/constant_arrival_rate.go).
type ConstantArrivalRateConfig struct {
	BaseConfig
	Rate     null.Value[int64]         `json:"rate"`
	TimeUnit null.Value[time.Duration] `json:"timeUnit"`
	Duration null.Value[time.Duration] `json:"duration"`
	arrivalVUs
}

func (c *ConstantArrivalRateConfig) timeUnit() time.Duration {
	return c.TimeUnit.ValueOr(DefaultTimeUnit)
}

// Validate implements Config.
func (c *ConstantArrivalRateConfig) Validate() []error {
	errs := c.validateBase()
	if !c.Rate.Valid {
		errs = append(errs, errors.New("the iteration rate isn't specified"))
	} else if c.Rate.V <= 0 {
		errs = append(errs, errors.New("the iteration rate must be more than 0"))
	}
	if c.timeUnit() <= 0 {
		errs = append(errs, errors.New("the timeUnit must be more than 0"))
	}
	if !c.Duration.Valid {
		errs = append(errs, errors.New("the duration is unspecified"))
	} else if err := validateMinDuration("duration", c.Duration); err != nil {
		errs = append(errs, err)
	}
	return append(errs, c.validateVUs()...)
}

// Description implements Config.
func (c *ConstantArrivalRateConfig) Description(et *plan.ExecutionTuple) string {
	s := c.split(et)
	return fmt.Sprintf("%.2f iterations/s for %s%s", s.perSecond(c.Rate.V, c.timeUnit()),
		c.Duration.V, c.describe(s.fact()))
}

// PeakVUs implements Config.
func (c *ConstantArrivalRateConfig) PeakVUs(et *plan.ExecutionTuple) int64 { return c.split(et).max }

// RegularDuration implements Config.
func (c *ConstantArrivalRateConfig) RegularDuration() time.Duration { return c.Duration.V }

// FullDuration implements Config.
func (c *ConstantArrivalRateConfig) FullDuration() time.Duration {
	return c.Duration.V + c.GracefulStopValue()
}

// Plan implements Config.
func (c *ConstantArrivalRateConfig) Plan(et *plan.ExecutionTuple) []plan.Step {
	return c.split(et).steps(c.FullDuration())
}

// RampingArrivalRateConfig: the iteration start rate follows stages linearly (grafana/k6
// lib/executor/ramping_arrival_rate.go).
type RampingArrivalRateConfig struct {
	BaseConfig
	StartRate null.Value[int64]         `json:"startRate"`
	TimeUnit  null.Value[time.Duration] `json:"timeUnit"`
	Stages    []Stage                   `json:"stages"`
	arrivalVUs
}

func (c *RampingArrivalRateConfig) timeUnit() time.Duration {
	return c.TimeUnit.ValueOr(DefaultTimeUnit)
}

// Validate implements Config.
func (c *RampingArrivalRateConfig) Validate() []error {
	errs := c.validateBase()
	if c.StartRate.V < 0 {
		errs = append(errs, errors.New("the startRate value can't be negative"))
	}
	if c.timeUnit() <= 0 {
		errs = append(errs, errors.New("the timeUnit must be more than 0"))
	}
	errs = append(errs, validateStages(c.Stages)...)
	return append(errs, c.validateVUs()...)
}

// Description implements Config.
func (c *RampingArrivalRateConfig) Description(et *plan.ExecutionTuple) string {
	s := c.split(et)
	peak := s.perSecond(stagesMaxTarget(c.StartRate.V, c.Stages), c.timeUnit())
	return fmt.Sprintf("Up to %.2f iterations/s for %s over %d stages%s", peak,
		stagesDuration(c.Stages), len(c.Stages), c.describe(s.fact()))
}

// PeakVUs implements Config.
func (c *RampingArrivalRateConfig) PeakVUs(et *plan.ExecutionTuple) int64 { return c.split(et).max }

// RegularDuration implements Config.
func (c *RampingArrivalRateConfig) RegularDuration() time.Duration { return stagesDuration(c.Stages) }

// FullDuration implements Config.
func (c *RampingArrivalRateConfig) FullDuration() time.Duration {
	return stagesDuration(c.Stages) + c.GracefulStopValue()
}

// Plan implements Config.
func (c *RampingArrivalRateConfig) Plan(et *plan.ExecutionTuple) []plan.Step {
	return c.split(et).steps(c.FullDuration())
}

// Arrivals is this instance's share of the scenario: iteration g is due at g·timeUnit/rate.
func (c *ConstantArrivalRateConfig) Arrivals(et *plan.ExecutionTuple) Arrivals {
	s := c.split(et)
	rate, unit := c.Rate.V, c.timeUnit()
	perSec := s.perSecond(rate, unit)
	return s.arrivals(c.Duration.V,
		func(g int64) (time.Duration, bool) { return pacing.Constant(g, rate, unit), true },
		func(time.Duration) float64 { return perSec })
}

// Arrivals is this instance's share of the scenario: iteration g is due when the integral of the
// ramping rate reaches g+1.
func (c *RampingArrivalRateConfig) Arrivals(et *plan.ExecutionTuple) Arrivals {
	s := c.split(et)
	sched := plan.NewRampingSchedule(c.StartRate.V, c.timeUnit(), planStages(c.Stages))
	share, _ := s.share.Float64()
	return s.arrivals(stagesDuration(c.Stages), sched.Start,
		func(el time.Duration) float64 { return sched.RateAt(el) * share })
}
