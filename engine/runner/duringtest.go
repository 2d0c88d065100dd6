package runner

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// duringTest calls Config.DuringTest with the breakdowns aggregated so far; it is the threshold
// watch's tick, so what it pushes counts for that period's evaluation.
func (t *testRun) duringTest(now time.Time) {
	if t.cfg.DuringTest == nil {
		return
	}
	t.cfg.DuringTest(t.collector.DuringTest(t.cfg.Breakdowns, t.reg, now, metrics.NewTags(t.opts.Tags)))
}
