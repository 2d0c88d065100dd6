package main

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/ozone/echo"
	dnechoext "github.com/dnecho/dnecho/xdnecho"
)

// envSlowFactor is the environment form of --slow-factor.
const envSlowFactor = "DNECHO_SLOW_FACTOR"

// runDataNodes is the per-DataNode side of `dnecho run`: it makes the test's k6/x/dnecho root (to
// know its DataNodes and stop its network watch); during the test it judges the per-DataNode
// breakdowns every threshold period and sets dnecho_slow_datanodes; at the end it turns them into
// the summary's per-DataNode block and the slow-DataNode verdict, whose count it sets before the
// thresholds' final evaluation.
type runDataNodes struct {
	defaults dnechoext.Defaults
	opts     dnstats.Options
	root     atomic.Pointer[dnechoext.Root]
}

// factory is the module factory of runner.Config.Modules.
func (d *runDataNodes) factory() modules.Module {
	r := dnechoext.New(d.defaults)
	d.root.Store(r)
	return r
}

// endOfTest is runner.Config.EndOfTest.
func (d *runDataNodes) endOfTest(e ingest.End) []summary.Section {
	root := d.root.Load()
	if root == nil {
		return nil // the script does not import k6/x/dnecho
	}
	root.StopNetwork()
	return judgeDataNodes(e, d.addrs(), d.opts)
}

// duringTest is runner.Config.DuringTest: every threshold period (2 s) it judges the calls so
// far and sets dnecho_slow_datanodes, so that an abortOnFail threshold on it stops the run as
// soon as a DataNode is slow. The gauge is set at every period, changed or not: outputs chart
// it as a line, and the threshold judges its latest value.
func (d *runDataNodes) duringTest(e ingest.End) {
	if d.root.Load() == nil {
		return // the script does not import k6/x/dnecho
	}
	setSlowGauge(e, len(dnstats.Judge(echometrics.DataNodes(e.Snapshot, nil), d.opts).Slow))
}

// judgeDataNodes judges the per-DataNode breakdowns of e's snapshot, sets dnecho_slow_datanodes
// to the number of slow DataNodes, and returns the summary's sections: the per-DataNode table and
// the verdict when it has something to say (none without DataNodes). addr gives the DataNodes' addresses by uuid and mode
// (nil: none known). `dnecho aggregate` calls it too, over every instance's samples.
func judgeDataNodes(e ingest.End, addr func(string, echo.Mode) string, opts dnstats.Options) []summary.Section {
	dns := echometrics.DataNodes(e.Snapshot, addr)
	v := dnstats.Judge(dns, opts)
	setSlowGauge(e, len(v.Slow))
	if len(dns) == 0 {
		return nil
	}
	out := []summary.Section{{Title: "per DataNode", Lines: append([]string{dnstats.Legend}, dnstats.Table(dns)...)}}
	if lines := v.Lines(); lines != nil {
		out = append(out, summary.Section{Title: "slow DataNodes", Lines: lines})
	}
	return out
}

// setSlowGauge pushes one sample of dnecho_slow_datanodes, when the test registered it.
func setSlowGauge(e ingest.End, slow int) {
	if m := e.Registry.Get(echometrics.SlowDataNodes); m != nil {
		e.Push.PushSamples([]metrics.Sample{{Metric: m, Time: e.Time, Value: float64(slow), Tags: e.Tags}})
	}
}

// slowOptions are the verdict's options of a command with a --slow-factor flag (factor its
// value): the flag when given, else DNECHO_SLOW_FACTOR, else the default. A bad value is one
// line naming the flag or the variable, exit code 104.
func slowOptions(cmd *cobra.Command, env map[string]string, factor float64) (dnstats.Options, error) {
	o := dnstats.DefaultOptions()
	o.SlowFactor = factor
	name := "--slow-factor"
	if v, ok := env[envSlowFactor]; ok && !cmd.Flags().Changed("slow-factor") {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return o, withCode(exitcode.InvalidConfig, fmt.Errorf("%s=%q: want a number above 1", envSlowFactor, v))
		}
		o.SlowFactor, name = n, envSlowFactor
	}
	if err := o.Validate(); err != nil {
		return o, withCode(exitcode.InvalidConfig, fmt.Errorf("%s %v: want a number above 1", name, o.SlowFactor))
	}
	return o, nil
}
