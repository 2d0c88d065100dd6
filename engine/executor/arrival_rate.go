package executor

import (
	"errors"
	"fmt"
	"math/big"
	"time"
)

// arrivalVUs holds the VU options both arrival-rate executors share.
type arrivalVUs struct {
	PreAllocatedVUs NullInt `json:"preAllocatedVUs"`
	MaxVUs          NullInt `json:"maxVUs"`
}

func (v *arrivalVUs) pre() int64    { return v.PreAllocatedVUs.Int64 }
func (v *arrivalVUs) maxVUs() int64 { return v.MaxVUs.ValueOr(v.PreAllocatedVUs.Int64) }

func (v *arrivalVUs) validateVUs() []error {
	var errs []error
	if !v.PreAllocatedVUs.Valid {
		errs = append(errs, errors.New("the number of preAllocatedVUs isn't specified"))
	} else if v.PreAllocatedVUs.Int64 < 0 {
		errs = append(errs, errors.New("the number of preAllocatedVUs can't be negative"))
	}
	if v.MaxVUs.Valid && v.MaxVUs.Int64 < v.PreAllocatedVUs.Int64 {
		errs = append(errs, errors.New("maxVUs can't be less than preAllocatedVUs"))
	}
	return errs
}

// arrivalSplit is one instance's share of an arrival-rate scenario. The test is re-segmented by
// maxVUs (§5.2 rule 6) so an instance never gets iterations without VUs to run them.
type arrivalSplit struct {
	out      bool // this instance has no share of the scenario
	tuple    *ExecutionTuple
	pre, max int64
	share    *big.Rat // fraction of the global rate this instance runs
}

func (v *arrivalVUs) split(et *ExecutionTuple) arrivalSplit {
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

func (s arrivalSplit) plan(full time.Duration) []Step { return simplePlan(s.pre, s.max-s.pre, full) }

// ConstantArrivalRateConfig: `rate` iterations start every `timeUnit`, whatever the VUs are
// doing; iterations that find no idle VU are dropped (§3.2, §4).
type ConstantArrivalRateConfig struct {
	BaseConfig
	Rate     NullInt      `json:"rate"`
	TimeUnit NullDuration `json:"timeUnit"`
	Duration NullDuration `json:"duration"`
	arrivalVUs
}

func (c *ConstantArrivalRateConfig) timeUnit() time.Duration {
	return c.TimeUnit.ValueOr(DefaultTimeUnit)
}

// Validate implements Config.
func (c *ConstantArrivalRateConfig) Validate() []error { return c.validate(MinDuration) }

func (c *ConstantArrivalRateConfig) validate(minDur time.Duration) []error {
	errs := c.validateBase()
	if !c.Rate.Valid {
		errs = append(errs, errors.New("the iteration rate isn't specified"))
	} else if c.Rate.Int64 <= 0 {
		errs = append(errs, errors.New("the iteration rate must be more than 0"))
	}
	if c.timeUnit() <= 0 {
		errs = append(errs, errors.New("the timeUnit must be more than 0"))
	}
	if !c.Duration.Valid {
		errs = append(errs, errors.New("the duration is unspecified"))
	} else if err := validateMinDuration("duration", c.Duration, minDur); err != nil {
		errs = append(errs, err)
	}
	return append(errs, c.validateVUs()...)
}

// Description implements Config.
func (c *ConstantArrivalRateConfig) Description(et *ExecutionTuple) string {
	s := c.split(et)
	return fmt.Sprintf("%.2f iterations/s for %s%s", s.perSecond(c.Rate.Int64, c.timeUnit()),
		c.Duration.Duration, c.describe(s.fact()))
}

// PeakVUs implements Config.
func (c *ConstantArrivalRateConfig) PeakVUs(et *ExecutionTuple) int64 { return c.split(et).max }

func (c *ConstantArrivalRateConfig) regularDuration() time.Duration { return c.Duration.Duration }

// FullDuration implements Config.
func (c *ConstantArrivalRateConfig) FullDuration() time.Duration {
	return c.Duration.Duration + c.GracefulStopValue()
}

// Plan implements Config.
func (c *ConstantArrivalRateConfig) Plan(et *ExecutionTuple) []Step {
	return c.split(et).plan(c.FullDuration())
}

func (c *ConstantArrivalRateConfig) newRunner(sc *scenarioRun) runner {
	s := c.split(sc.s.opts.Tuple)
	sc.tuple = s.tuple
	rate, unit := c.Rate.Int64, c.timeUnit()
	perSec := s.perSecond(rate, unit)
	return newArrivalRateRunner(sc, s, c.Duration.Duration,
		func(g int64) (time.Duration, bool) { return ConstantStart(g, rate, unit), true },
		func(time.Duration) float64 { return perSec })
}

// RampingArrivalRateConfig: the iteration start rate follows stages linearly (§3.2).
type RampingArrivalRateConfig struct {
	BaseConfig
	StartRate NullInt      `json:"startRate"`
	TimeUnit  NullDuration `json:"timeUnit"`
	Stages    []Stage      `json:"stages"`
	arrivalVUs
}

func (c *RampingArrivalRateConfig) timeUnit() time.Duration {
	return c.TimeUnit.ValueOr(DefaultTimeUnit)
}

// Validate implements Config.
func (c *RampingArrivalRateConfig) Validate() []error { return c.validate(MinDuration) }

func (c *RampingArrivalRateConfig) validate(time.Duration) []error {
	errs := c.validateBase()
	if c.StartRate.Int64 < 0 {
		errs = append(errs, errors.New("the startRate value can't be negative"))
	}
	if c.timeUnit() <= 0 {
		errs = append(errs, errors.New("the timeUnit must be more than 0"))
	}
	errs = append(errs, validateStages(c.Stages)...)
	return append(errs, c.validateVUs()...)
}

// Description implements Config.
func (c *RampingArrivalRateConfig) Description(et *ExecutionTuple) string {
	s := c.split(et)
	peak := s.perSecond(stagesMaxTarget(c.StartRate.Int64, c.Stages), c.timeUnit())
	return fmt.Sprintf("Up to %.2f iterations/s for %s over %d stages%s", peak,
		stagesDuration(c.Stages), len(c.Stages), c.describe(s.fact()))
}

// PeakVUs implements Config.
func (c *RampingArrivalRateConfig) PeakVUs(et *ExecutionTuple) int64 { return c.split(et).max }

func (c *RampingArrivalRateConfig) regularDuration() time.Duration { return stagesDuration(c.Stages) }

// FullDuration implements Config.
func (c *RampingArrivalRateConfig) FullDuration() time.Duration {
	return stagesDuration(c.Stages) + c.GracefulStopValue()
}

// Plan implements Config.
func (c *RampingArrivalRateConfig) Plan(et *ExecutionTuple) []Step {
	return c.split(et).plan(c.FullDuration())
}

func (c *RampingArrivalRateConfig) newRunner(sc *scenarioRun) runner {
	s := c.split(sc.s.opts.Tuple)
	sc.tuple = s.tuple
	sched := NewRampingSchedule(c.StartRate.Int64, c.timeUnit(), c.Stages)
	share, _ := s.share.Float64()
	return newArrivalRateRunner(sc, s, stagesDuration(c.Stages), sched.Start,
		func(el time.Duration) float64 { return sched.RateAt(el) * share })
}
