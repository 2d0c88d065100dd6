package ingest

import (
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// ByTag names a breakdown a front end asks for: Metric's samples aggregated apart per value of
// the tag Tag (TrackBreakdown), as the summary lists them and the front end's hooks read them.
// With And, per combination of the values of Tag and of the tags And (at most MaxAnd; a sample
// without one of them has "" for it): such breakdowns are for the hooks, the summary lists only
// those by one tag.
type ByTag struct {
	Metric, Tag string
	And         []string
}

// MaxAnd is how many further tags a breakdown may take (ByTag.And).
const MaxAnd = 3

// key identifies the breakdown among a metric's.
func (b ByTag) key() string { return strings.Join(append([]string{b.Tag}, b.And...), "\x00") }

// View is what a front end's hooks see of a test's aggregated state, during the test and at its end:
// the single run's (engine/runner) and the distributed test's (engine/aggregate), which merges
// every instance's samples.
type View struct {
	// Snapshot is everything aggregated, breakdowns included; during the test it holds only the
	// breakdowns the front end asked for (BreakdownsOf: no metric sinks, no check tree).
	Snapshot *Snapshot
	// Registry holds the test's metrics, for the ones the samples pushed are of.
	Registry *metrics.Registry
	// Push takes the hook's own samples (a verdict gauge): they count for the thresholds. Time is
	// when they are made (the end of the test, or the tick's time) and Tags the tags to give them
	// (the run's; none for the aggregator, which has no run tags of its own).
	Push metrics.Pusher
	Time time.Time
	Tags *metrics.Tags
}

// DuringTest is what c gives a front end's hook every period of the test (runner.Config and
// aggregate.Options DuringTest): the breakdowns bys aggregated so far (BreakdownsOf), c to push
// to, samples of reg's metrics at now tagged tags.
func (c *Collector) DuringTest(bys []ByTag, reg *metrics.Registry, now time.Time, tags *metrics.Tags) View {
	return View{Snapshot: c.BreakdownsOf(bys), Registry: reg, Push: c, Time: now, Tags: tags}
}

// EndOfTest is what c gives a front end's hook once the test is over (EndOfTest): everything it
// aggregated (Snapshot), and as DuringTest, c to push to.
func (c *Collector) EndOfTest(reg *metrics.Registry, now time.Time, tags *metrics.Tags) View {
	return View{Snapshot: c.Snapshot(), Registry: reg, Push: c, Time: now, Tags: tags}
}

// BreakdownsOf copies the breakdowns asked for, and only them: the lock is held for one
// breakdown at a time, and the metrics' own sinks, which Snapshot would copy too, are left out.
// A breakdown not tracked, or with no sample yet, is absent.
func (c *Collector) BreakdownsOf(bys []ByTag) *Snapshot {
	snap := &Snapshot{}
	for _, b := range bys {
		if bd, ok := c.groupBy(b); ok {
			snap.Breakdowns = append(snap.Breakdowns, bd)
		}
	}
	return snap
}
