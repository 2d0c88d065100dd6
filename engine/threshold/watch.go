package threshold

import (
	"context"
	"time"
)

// DefaultInterval is how often thresholds are evaluated during the run (k6: every 2 s).
const DefaultInterval = 2 * time.Second

// Watch evaluates thresholds during a test: every Interval it calls Tick, then evaluates the
// Set. The runner watches its own thresholds, a distributed test's aggregator those of the whole
// test (which the first instance brings, after the watch started: Set is read at every tick).
type Watch struct {
	// Set returns the thresholds to evaluate; nil, or a nil Set, evaluates nothing (Tick still
	// runs).
	Set func() *Set
	// Source holds the sinks the thresholds read; Elapsed reports the test run time.
	Source  SinkSource
	Elapsed func() time.Duration
	// Interval is how often (DefaultInterval when 0).
	Interval time.Duration
	// Tick, when set, is called at every interval just before the evaluation, with the tick's
	// time, so that what it pushes (a front end's gauge) is judged in the same period, not the
	// next.
	Tick func(time.Time)
	// OnAbort is called once, with a *FailedError, when an abortOnFail threshold fails past its
	// delay. Run then returns, or with TickAfterAbort goes on calling Tick, evaluating nothing
	// more, until ctx ends (the aggregator's gauge keeps its periods while the instances stop).
	OnAbort        func(error)
	TickAfterAbort bool
}

// Run runs the watch until ctx ends (or an abort, see OnAbort). It blocks: the caller runs it on
// a goroutine it owns and stops it by cancelling ctx.
func (w Watch) Run(ctx context.Context) {
	interval := w.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	aborted := false
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
		if w.Tick != nil {
			w.Tick(now)
		}
		if aborted || w.Set == nil {
			continue
		}
		s := w.Set()
		if s == nil {
			continue
		}
		if r := s.Evaluate(w.Source, w.Elapsed(), false); r.Abort {
			w.OnAbort(r.Err())
			if !w.TickAfterAbort {
				return
			}
			aborted = true
		}
	}
}
