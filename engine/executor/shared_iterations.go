package executor

import (
	"errors"
	"fmt"

	"sync/atomic"
	"time"
)

// SharedIterationsConfig: VUs share one pool of iterations; fast VUs do more of them (§3.2).
type SharedIterationsConfig struct {
	BaseConfig
	VUs         NullInt      `json:"vus"`
	Iterations  NullInt      `json:"iterations"`
	MaxDuration NullDuration `json:"maxDuration"`
}

func (c *SharedIterationsConfig) vus() int64        { return c.VUs.ValueOr(1) }
func (c *SharedIterationsConfig) iterations() int64 { return c.Iterations.ValueOr(1) }
func (c *SharedIterationsConfig) maxDuration() time.Duration {
	return c.MaxDuration.ValueOr(DefaultMaxDuration)
}

// Validate implements Config.
func (c *SharedIterationsConfig) Validate() []error { return c.validate(MinDuration) }

func (c *SharedIterationsConfig) validate(minDur time.Duration) []error {
	errs := c.validateBase()
	if c.vus() <= 0 {
		errs = append(errs, errors.New("the number of VUs must be more than 0"))
	}
	if c.iterations() < c.vus() {
		errs = append(errs, fmt.Errorf("the number of iterations (%d) can't be less than the number of VUs (%d)",
			c.iterations(), c.vus()))
	}
	if err := validateMinDuration("maxDuration", NewNullDuration(c.maxDuration()), minDur); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// split returns this instance's VUs and iterations: the test is re-segmented by vus so no
// instance gets iterations without a VU to run them (§5.2 rule 6).
func (c *SharedIterationsConfig) split(et *ExecutionTuple) (vus, iters int64, tuple *ExecutionTuple) {
	t, ok := et.Resegment(c.vus())
	if !ok {
		return 0, 0, nil
	}
	return t.Scale(c.vus()), t.Scale(c.iterations()), t
}

// Description implements Config.
func (c *SharedIterationsConfig) Description(et *ExecutionTuple) string {
	vus, iters, _ := c.split(et)
	return fmt.Sprintf("%d iterations shared among %d VUs%s", iters, vus,
		c.describe("maxDuration: "+c.maxDuration().String()))
}

// PeakVUs implements Config.
func (c *SharedIterationsConfig) PeakVUs(et *ExecutionTuple) int64 {
	vus, _, _ := c.split(et)
	return vus
}

func (c *SharedIterationsConfig) regularDuration() time.Duration { return c.maxDuration() }

// FullDuration implements Config.
func (c *SharedIterationsConfig) FullDuration() time.Duration {
	return c.maxDuration() + c.GracefulStopValue()
}

// Plan implements Config.
func (c *SharedIterationsConfig) Plan(et *ExecutionTuple) []Step {
	return simplePlan(c.PeakVUs(et), 0, c.FullDuration())
}

func (c *SharedIterationsConfig) newRunner(sc *scenarioRun) runner {
	r := &sharedIterationsRunner{sc: sc}
	r.vus, r.total, sc.tuple = c.split(sc.s.opts.Tuple)
	r.maxDur = c.maxDuration()
	return r
}

type sharedIterationsRunner struct {
	sc         *scenarioRun
	vus, total int64
	maxDur     time.Duration
	claimed    atomic.Int64
	active     atomic.Int64
}

func (r *sharedIterationsRunner) run() error {
	hs, err := r.sc.getVUs(r.vus)
	if err != nil {
		return err
	}
	next := func() (int64, bool) {
		n := r.claimed.Add(1) - 1
		return n, n < r.total
	}
	r.active.Add(int64(len(hs))) // all counted before the first starts, as before
	eachVU(hs, func(h *vuHandle) {
		defer r.active.Add(-1)
		r.sc.loopVU(h, next)
	})
	// Iterations nobody claimed before maxDuration are reported once, as one sample (§3.4).
	r.sc.pushDropped(r.total-min(r.claimed.Load(), r.total), 0)
	return nil
}

func (r *sharedIterationsRunner) done() int64 { return r.sc.completed.Load() + r.sc.interrupted.Load() }

func (r *sharedIterationsRunner) progress(elapsed time.Duration) (float64, []string) {
	f := 1.0
	if r.total > 0 {
		f = clamp01(float64(r.done()) / float64(r.total))
	}
	return f, []string{
		vusPart(r.vus),
		timePart(elapsed, r.maxDur),
		padCount(r.done(), r.total) + " shared iters",
	}
}
