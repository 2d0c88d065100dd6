package executor

import (
	"errors"
	"fmt"
	"time"
)

// PerVUIterationsConfig: every VU runs exactly `iterations` iterations (§3.2).
type PerVUIterationsConfig struct {
	BaseConfig
	VUs         NullInt      `json:"vus"`
	Iterations  NullInt      `json:"iterations"`
	MaxDuration NullDuration `json:"maxDuration"`
}

func (c *PerVUIterationsConfig) vus() int64        { return c.VUs.ValueOr(1) }
func (c *PerVUIterationsConfig) iterations() int64 { return c.Iterations.ValueOr(1) }
func (c *PerVUIterationsConfig) maxDuration() time.Duration {
	return c.MaxDuration.ValueOr(DefaultMaxDuration)
}

// Validate implements Config.
func (c *PerVUIterationsConfig) Validate() []error { return c.validate(MinDuration) }

func (c *PerVUIterationsConfig) validate(minDur time.Duration) []error {
	errs := c.validateBase()
	if c.vus() <= 0 {
		errs = append(errs, errors.New("the number of VUs must be more than 0"))
	}
	if c.iterations() <= 0 {
		errs = append(errs, errors.New("the number of iterations must be more than 0"))
	}
	if err := validateMinDuration("maxDuration", NewNullDuration(c.maxDuration()), minDur); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// Description implements Config. Only VUs are split between instances: scaling the per-VU
// iterations too would scale the work twice (§5.2 rule 7).
func (c *PerVUIterationsConfig) Description(et *ExecutionTuple) string {
	return fmt.Sprintf("%d iterations for each of %d VUs%s", c.iterations(), et.Scale(c.vus()),
		c.describe("maxDuration: "+c.maxDuration().String()))
}

// PeakVUs implements Config.
func (c *PerVUIterationsConfig) PeakVUs(et *ExecutionTuple) int64 { return et.Scale(c.vus()) }

func (c *PerVUIterationsConfig) regularDuration() time.Duration { return c.maxDuration() }

// FullDuration implements Config.
func (c *PerVUIterationsConfig) FullDuration() time.Duration {
	return c.maxDuration() + c.GracefulStopValue()
}

// Plan implements Config.
func (c *PerVUIterationsConfig) Plan(et *ExecutionTuple) []Step {
	return simplePlan(c.PeakVUs(et), 0, c.FullDuration())
}

func (c *PerVUIterationsConfig) newRunner(sc *scenarioRun) runner {
	return &perVUIterationsRunner{sc: sc, vus: c.PeakVUs(sc.tuple), iters: c.iterations(), maxDur: c.maxDuration()}
}

type perVUIterationsRunner struct {
	sc         *scenarioRun
	vus, iters int64
	maxDur     time.Duration
}

func (r *perVUIterationsRunner) run() error {
	hs, err := r.sc.getVUs(r.vus)
	if err != nil {
		return err
	}
	eachVU(hs, func(h *vuHandle) {
		var done int64
		r.sc.loopVU(h, func() (int64, bool) {
			if done == r.iters {
				return 0, false
			}
			done++
			return r.sc.nextIter.Add(1) - 1, true
		})
		// maxDuration cut this VU short: report what it did not start (§3.4).
		r.sc.pushDropped(r.iters-done, h.id.InInstance)
	})
	return nil
}

func (r *perVUIterationsRunner) progress(elapsed time.Duration) (float64, []string) {
	total := r.vus * r.iters
	done := r.sc.completed.Load() + r.sc.interrupted.Load()
	f := 1.0
	if total > 0 {
		f = clamp01(float64(done) / float64(total))
	}
	return f, []string{
		vusPart(r.vus),
		timePart(elapsed, r.maxDur),
		fmt.Sprintf("%s iters, %d per VU", padCount(done, total), r.iters),
	}
}
