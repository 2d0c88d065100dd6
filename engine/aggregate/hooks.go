package aggregate

import (
	"time"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/summary"
)

// duringTest calls Options.DuringTest with the breakdowns merged so far.
func (a *Aggregator) duringTest(now time.Time) {
	if a.o.DuringTest == nil {
		return
	}
	a.o.DuringTest(a.end(a.collector.BreakdownsOf(a.o.Breakdowns), now))
}

// endOfTest calls Options.EndOfTest once every instance has ended, before the final
// evaluation.
func (a *Aggregator) endOfTest() []summary.Section {
	if a.o.EndOfTest == nil {
		return nil
	}
	return a.o.EndOfTest(a.end(a.collector.Snapshot(), time.Now()))
}

func (a *Aggregator) end(snap *ingest.Snapshot, now time.Time) ingest.End {
	return ingest.End{Snapshot: snap, Registry: a.reg, Push: a.collector, Time: now, Tags: a.testTags}
}
