package main

import (
	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/aggregate"
	"github.com/dnecho/dnecho/slowdatanode"
)

// aggregateSlowFactorUsage is the help of `dnecho aggregate --slow-factor`.
var aggregateSlowFactorUsage = "name a DataNode slow in the whole test's summary (and count it in dnecho_slow_datanodes),\n" +
	"judged over every instance's calls, when " + slowdatanode.RuleHelp + " (also " + envSlowFactor + ")"

// configureDataNodes gives a distributed test `dnecho run`'s per-DataNode block, verdict and
// dnecho_slow_datanodes gauge, over every instance's samples merged (r: the instances' samples
// name DataNodes by uuid only, so r knows no addresses); the instances' own gauges, each judged
// on its share, are left out.
func configureDataNodes(o *aggregate.Options, r slowdatanode.Report) {
	o.Breakdowns = slowdatanode.BreakdownsWithSummary()
	o.Computed = append(o.Computed, echometrics.SlowDataNodes)
	o.DuringTest, o.EndOfTest = r.DuringTest, r.EndOfTest
}
