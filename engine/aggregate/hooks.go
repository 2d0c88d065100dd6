package aggregate

import (
	"time"

	"github.com/dnecho/dnecho/engine/summary"
)

// duringTest calls Options.DuringTest with the breakdowns merged so far.
func (a *Aggregator) duringTest(now time.Time) {
	if a.o.DuringTest == nil {
		return
	}
	a.o.DuringTest(a.collector.DuringTest(a.o.Breakdowns, a.reg, now, a.testTags))
}

// endOfTest calls Options.EndOfTest once every instance has ended, before the final
// evaluation.
func (a *Aggregator) endOfTest() []summary.Section {
	if a.o.EndOfTest == nil {
		return nil
	}
	return a.o.EndOfTest(a.collector.EndOfTest(a.reg, time.Now(), a.testTags))
}
