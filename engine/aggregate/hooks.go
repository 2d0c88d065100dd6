package aggregate

import (
	"time"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/summary"
)

// Breakdown asks for Metric to be merged separately per value of Tag, as a single run's summary
// breaks it down (runner.Config.Breakdowns), for the front end's hooks and the summary.
type Breakdown struct{ Metric, Tag string }

// End is what Options.DuringTest and Options.EndOfTest are given: the same as a single run's
// hooks get (runner.End), over every instance's samples merged.
type End struct {
	// Snapshot is everything merged, breakdowns included; for DuringTest it holds the
	// breakdowns of Options.Breakdowns only.
	Snapshot *ingest.Snapshot
	// Registry holds the test's metrics (those the instances announced).
	Registry *metrics.Registry
	// Push takes the whole test's own samples (a verdict gauge): they count for the thresholds.
	// Time is when they are made, Tags the tags to give them (none: the aggregator has no run
	// tags of its own).
	Push metrics.Pusher
	Time time.Time
	Tags *metrics.Tags
}

// duringTest calls Options.DuringTest with the breakdowns merged so far.
func (a *Aggregator) duringTest(now time.Time) {
	if a.o.DuringTest == nil {
		return
	}
	snap := &ingest.Snapshot{}
	for _, b := range a.o.Breakdowns {
		if bd, ok := a.collector.GroupBy(b.Metric, b.Tag); ok {
			snap.Breakdowns = append(snap.Breakdowns, bd)
		}
	}
	a.o.DuringTest(a.end(snap, now))
}

// endOfTest calls Options.EndOfTest once every instance has ended, before the final
// evaluation.
func (a *Aggregator) endOfTest() []summary.Section {
	if a.o.EndOfTest == nil {
		return nil
	}
	return a.o.EndOfTest(a.end(a.collector.Snapshot(), time.Now()))
}

func (a *Aggregator) end(snap *ingest.Snapshot, now time.Time) End {
	return End{Snapshot: snap, Registry: a.reg, Push: a.collector, Time: now, Tags: a.testTags}
}
