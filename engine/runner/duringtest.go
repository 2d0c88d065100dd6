package runner

import (
	"context"
	"time"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

// watch runs Config.DuringTest, then evaluates the thresholds, every threshold.DefaultInterval
// until ctx ends or an abortOnFail threshold fails (onAbort is then called once). One goroutine
// does both so that what DuringTest pushes is judged in the same period, not the next.
func (t *testRun) watch(ctx context.Context, onAbort func(error)) {
	tick := time.NewTicker(threshold.DefaultInterval)
	defer tick.Stop()
	elapsed := func() time.Duration { return t.sched.InstanceStats().CurrentTestRunDuration }
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}
		t.duringTest(now)
		if t.ths == nil {
			continue
		}
		if r := t.ths.Evaluate(t.collector, elapsed(), false); r.Abort {
			onAbort(r.Err())
			return
		}
	}
}

// duringTest calls Config.DuringTest with the breakdowns aggregated so far.
func (t *testRun) duringTest(now time.Time) {
	if t.cfg.DuringTest == nil {
		return
	}
	t.cfg.DuringTest(ingest.End{Snapshot: t.collector.BreakdownsOf(t.cfg.Breakdowns), Registry: t.reg, Push: t.collector, Time: now,
		Tags: metrics.NewTags(t.opts.Tags)})
}
