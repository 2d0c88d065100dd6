package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/ozone/echo"
)

// runFlags are the command line of `dnecho run`: k6's flags for our surface, then ours.
type runFlags struct {
	vus, iterations                    int64
	duration                           string
	stages, env, out, tags             []string
	includeSystemEnv                   bool
	summaryExport, summaryMode         string
	noSummary                          bool
	summaryTrendStats, summaryTimeUnit string
	systemTags, logFormat, config      string
	quiet, noColor, verbose, throw     bool
	noThresholds, noSetup, noTeardown  bool

	failOnOutputLoss bool
	vuMemoryCheck    bool
	slowFactor       float64

	// k6 flags whose options act on the runner (docs/k6-compat.md#cli).
	minIterationDuration, segment, segmentSequence string
	consoleOutput, logOutput, compatibilityMode    string

	// cluster holds --conf, -D, --scm, --tls-ca and --user: the dnecho.Client defaults.
	cluster echo.Spec
	specs   *specFlags

	localCluster bool
	lcDataNodes  int
	lcLatency    time.Duration

	dist distFlags
}

// runOnlyFlags are the flags of run that act on the run alone, not on the options an archive
// stores: the outputs, where the cluster is, the REST API's lingering, the aggregator, the
// memory check and the slow-DataNode verdict.
var runOnlyFlags = []string{
	"out", "fail-on-output-loss", "vu-memory-check", "slow-factor",
	"conf", "set", "scm", "tls-ca", "user", "principal", "keytab",
	"local-cluster", "local-cluster-datanodes", "local-cluster-latency",
	"address", "linger", "aggregator", "aggregator-timeout", "aggregator-ca",
}

// layers builds the option layers other than the script's: config file, environment, flags.
func (f *runFlags) layers(cmd *cobra.Command, env map[string]string) (options.Layers, error) {
	var l options.Layers
	var err error
	if l.Env, err = options.FromEnv(env); err != nil {
		return l, err
	}
	if l.CLI, err = f.cliLayer(cmd); err != nil {
		return l, err
	}
	l.ConfigFile, err = configFileLayer(f.config, env)
	return l, err
}

// configFileLayer reads the JSON config file of -c/--config, else of K6_CONFIG; none is an
// empty layer.
func configFileLayer(flag string, env map[string]string) (options.Options, error) {
	path := flag
	if path == "" {
		path = env["K6_CONFIG"]
	}
	if path == "" {
		return options.Options{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return options.Options{}, &options.Error{Option: "config file", Err: err}
	}
	o, err := options.FromConfigFile(data)
	if err != nil {
		return o, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// cliLayer turns the flags the user gave (and only those) into an options layer.
func (f *runFlags) cliLayer(cmd *cobra.Command) (options.Options, error) {
	var o options.Options
	set := cmd.Flags().Changed
	bad := func(flag string, err error) (options.Options, error) {
		return o, &options.Error{Option: "--" + flag, Err: err}
	}
	if set("vus") {
		o.VUs = null.From(f.vus)
	}
	for _, df := range []struct {
		name string
		dst  *null.Value[time.Duration]
		v    string
	}{{"duration", &o.Duration, f.duration}, {"min-iteration-duration", &o.MinIterationDuration, f.minIterationDuration}} {
		if set(df.name) {
			d, err := null.ParseDuration(df.v)
			if err != nil {
				return bad(df.name, err)
			}
			*df.dst = null.From(d)
		}
	}
	if set("iterations") {
		o.Iterations = null.From(f.iterations)
	}
	if set("stage") {
		st, err := options.ParseStages(f.stages)
		if err != nil {
			return bad("stage", err)
		}
		o.Stages = st
	}
	if set("tag") {
		tags, err := options.ParseTags(f.tags)
		if err != nil {
			return bad("tag", err)
		}
		o.Tags = tags
	}
	setChanged(set, []flagValue[string]{
		{"summary-export", &o.SummaryExport, f.summaryExport},
		{"summary-mode", &o.SummaryMode, f.summaryMode},
		{"summary-time-unit", &o.SummaryTimeUnit, f.summaryTimeUnit},
		{"log-format", &o.LogFormat, f.logFormat},
		{"log-output", &o.LogOutput, f.logOutput},
		{"console-output", &o.ConsoleOutput, f.consoleOutput},
		{"execution-segment", &o.ExecutionSegment, f.segment},
		{"execution-segment-sequence", &o.ExecutionSegmentSequence, f.segmentSequence},
		{"compatibility-mode", &o.CompatibilityMode, f.compatibilityMode},
	})
	setChanged(set, []flagValue[bool]{
		{"include-system-env-vars", &o.IncludeSystemEnvVars, f.includeSystemEnv},
		{"no-color", &o.NoColor, f.noColor},
		{"no-thresholds", &o.NoThresholds, f.noThresholds},
		{"no-summary", &o.NoSummary, f.noSummary},
		{"no-setup", &o.NoSetup, f.noSetup},
		{"no-teardown", &o.NoTeardown, f.noTeardown},
		{"throw", &o.Throw, f.throw},
	})
	if set("summary-trend-stats") {
		o.SummaryTrendStats = options.SplitList(f.summaryTrendStats)
	}
	if set("system-tags") {
		o.SystemTags = options.SplitList(f.systemTags)
	}
	if set("out") {
		o.Out = f.out
	}
	f.dist.layer(set, &o)
	return o, nil
}

// flagValue binds a flag to the option it sets.
type flagValue[T any] struct {
	name string
	dst  *null.Value[T]
	v    T
}

// setChanged sets each option whose flag the user gave, and only those.
func setChanged[T any](set func(string) bool, list []flagValue[T]) {
	for _, fv := range list {
		if set(fv.name) {
			*fv.dst = null.From(fv.v)
		}
	}
}
