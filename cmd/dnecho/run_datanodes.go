package main

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/slowdatanode"
	dnechoext "github.com/dnecho/dnecho/xdnecho"
)

// envSlowFactor is the environment form of --slow-factor.
const envSlowFactor = "DNECHO_SLOW_FACTOR"

// runDataNodes wires `dnecho run`'s per-DataNode block and verdict (slowdatanode.Report): it
// makes the test's k6/x/dnecho root, which knows the DataNodes' addresses and runs the network
// watch that the end of the test stops.
type runDataNodes struct {
	defaults dnechoext.Defaults
	report   slowdatanode.Report
	root     atomic.Pointer[dnechoext.Root]
}

// newRunDataNodes returns the wiring of a run with the verdict's options opts.
func newRunDataNodes(defaults dnechoext.Defaults, opts slowdatanode.Options) *runDataNodes {
	d := &runDataNodes{defaults: defaults}
	d.report = slowdatanode.Report{Options: opts, Addrs: d.addrs}
	return d
}

// factory is the module factory of runner.Config.Modules.
func (d *runDataNodes) factory() modules.Module {
	r := dnechoext.New(d.defaults)
	d.root.Store(r)
	return r
}

// endOfTest is runner.Config.EndOfTest: the network watch stops, then the report's sections.
func (d *runDataNodes) endOfTest(view ingest.View) []summary.Section {
	if root := d.root.Load(); root != nil {
		root.StopNetwork()
	}
	return d.report.EndOfTest(view)
}

// addrs are the addresses of the DataNodes of the test's k6/x/dnecho root, by uuid and mode;
// nil before the script imports it.
func (d *runDataNodes) addrs() func(string, echo.Mode) string {
	root := d.root.Load()
	if root == nil {
		return nil
	}
	return root.Addrs()
}

// slowOptions are the verdict's options of a command with a --slow-factor flag (factor its
// value): the flag when given, else DNECHO_SLOW_FACTOR, else the default. A bad value is one
// line naming the flag or the variable, exit code 104.
func slowOptions(cmd *cobra.Command, env map[string]string, factor float64) (slowdatanode.Options, error) {
	o := slowdatanode.DefaultOptions()
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
