package main

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/runner"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/internal/exitcode"
	dnechoext "github.com/dnecho/dnecho/xdnecho"
)

// envSlowFactor is the environment form of --slow-factor.
const envSlowFactor = "DNECHO_SLOW_FACTOR"

// runDataNodes is the per-DataNode end of `dnecho run`: it makes the test's k6/x/dnecho root (to
// know its DataNodes and stop its network watch), and at the end of the test turns the
// per-DataNode breakdowns into the summary's per-DataNode block and the slow-DataNode verdict,
// whose count it sets in dnecho_slow_datanodes before the thresholds' final evaluation.
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
func (d *runDataNodes) endOfTest(e runner.End) []summary.Section {
	root := d.root.Load()
	if root == nil {
		return nil // the script does not import k6/x/dnecho
	}
	root.StopNetwork()
	addrs := map[string]string{}
	for uuid, dn := range root.DataNodes() {
		addrs[uuid] = dn.Addr
	}
	dns := echometrics.DataNodes(e.Snapshot, addrs)
	v := dnstats.Judge(dns, d.opts)
	if m := e.Registry.Get(echometrics.SlowDataNodes); m != nil {
		e.Push.PushSamples([]metrics.Sample{{Metric: m, Time: e.Time, Value: float64(len(v.Slow)), Tags: e.Tags}})
	}
	if len(dns) == 0 {
		return nil
	}
	return []summary.Section{
		{Title: "per DataNode", Lines: append([]string{dnstats.Legend}, dnstats.Table(dns)...)},
		{Title: "slow DataNodes", Lines: v.Lines()},
	}
}

// slowOptions are the verdict's options: --slow-factor when given, else DNECHO_SLOW_FACTOR, else
// the default.
func (f *runFlags) slowOptions(cmd *cobra.Command, env map[string]string) (dnstats.Options, error) {
	o := dnstats.DefaultOptions()
	o.SlowFactor = f.slowFactor
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
