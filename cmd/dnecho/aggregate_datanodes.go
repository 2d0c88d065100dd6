package main

import (
	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/summary"
)

// aggregateSlowFactorUsage is the help of `dnecho aggregate --slow-factor`.
var aggregateSlowFactorUsage = "name a DataNode slow in the whole test's summary (and count it in dnecho_slow_datanodes),\n" +
	"judged over every instance's calls, when " + dnstats.RuleHelp + " (also " + envSlowFactor + ")"

// aggregateDataNodes is `dnecho run`'s per-DataNode verdict on a distributed test: the same
// block, verdict and dnecho_slow_datanodes gauge, over every instance's samples merged. The
// instances' samples name DataNodes by uuid only, so the whole test shows uuids without
// addresses.
type aggregateDataNodes struct{ opts dnstats.Options }

// configure asks the aggregator for the per-DataNode breakdowns and hands it the verdict's
// hooks; the instances' own dnecho_slow_datanodes, each judged on its share, are left out.
func (d aggregateDataNodes) configure(o *aggregate.Options) {
	o.Breakdowns = dnechoBreakdowns()
	o.Computed = append(o.Computed, echometrics.SlowDataNodes)
	o.DuringTest, o.EndOfTest = d.duringTest, d.endOfTest
}

// duringTest is aggregate.Options.DuringTest: the gauge every --threshold-interval.
func (d aggregateDataNodes) duringTest(e ingest.End) {
	setSlowGauge(e, len(dnstats.Judge(echometrics.DataNodes(e.Snapshot, nil), d.opts).Slow))
}

// endOfTest is aggregate.Options.EndOfTest.
func (d aggregateDataNodes) endOfTest(e ingest.End) []summary.Section {
	return judgeDataNodes(e, nil, d.opts)
}
