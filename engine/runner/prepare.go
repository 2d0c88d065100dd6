package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/dnecho/dnecho/engine/executor"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/builtin"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/engine/threshold"
	"github.com/dnecho/dnecho/engine/ui"
	"github.com/dnecho/dnecho/internal/exitcode"
)

// testRun is the state of one Run, built up phase by phase.
type testRun struct {
	cfg Config
	log *slog.Logger

	console   *os.File // the consoleOutput file; nil when console output goes to the log
	reg       *metrics.Registry
	collector *ingest.Collector
	roots     roots
	script    *js.Script
	opts      *options.Consolidated
	ths       *threshold.Set // nil with --no-thresholds
	outputs   []output.Output
	outSet    *builtin.Set
	// outputLoss is the *output.LossError of outputs that dropped samples, kept only when
	// Config.FailOnOutputLoss asks for it to decide the exit code.
	outputLoss error
	delay      *startDelay // nil without Config.StartDelayMetric
	sched      *executor.Scheduler
	control    *Control // nil without a REST API

	started, ended time.Time // setup start, teardown end: the test run duration
	summary        *summary.Data
	sections       []summary.Section // Config.EndOfTest's
}

// prepare loads the script and builds everything the run needs; nothing has run yet when it
// returns an error.
func (t *testRun) prepare(ctx context.Context) error {
	pre, _ := t.cfg.Layers.Merge()
	mode, err := summary.ParseMode(pre.SummaryModeSetting())
	if err != nil {
		return &options.Error{Option: "summaryMode", Err: err}
	}
	if mode == summary.Legacy {
		t.log.Warn(`summary mode "legacy" is k6's pre-v1 layout, deprecated in k6 v1 and removed in k6 v2: use "compact" or "full"`)
	}
	t.reg = metrics.NewRegistry()
	builtins := metrics.RegisterBuiltins(t.reg)
	// k6 sinks only the metrics thresholds need when there is no summary.
	t.collector = ingest.New(ingest.Options{Builtins: builtins, ThresholdsOnly: mode == summary.Disabled})
	if mode != summary.Disabled || t.cfg.EndOfTest != nil || t.cfg.DuringTest != nil {
		for _, b := range t.cfg.Breakdowns {
			t.collector.TrackByTag(b)
		}
	}
	if err := t.load(ctx); err != nil {
		return err
	}
	t.control.configure(t.opts.Paused.V)
	if err := t.checkVUMemory(); err != nil {
		return err
	}
	// Registered before the thresholds are parsed, so that thresholds may use it.
	runTags := metrics.NewTags(t.opts.Tags)
	if name := t.cfg.StartDelayMetric; name != "" {
		if t.delay, err = newStartDelay(t.reg, name, t.collector, runTags, t.opts.SystemTagEnabled("scenario")); err != nil {
			return err
		}
	}
	if err := t.buildThresholds(); err != nil {
		return err
	}
	if err := t.startOutputs(); err != nil {
		return err
	}
	if err := t.buildScheduler(runTags); err != nil {
		return err
	}
	return t.beginAggregation(ctx)
}

// load compiles the script, reads its options and consolidates them with the other layers.
func (t *testRun) load(ctx context.Context) error {
	pre, _ := t.cfg.Layers.Merge()
	if err := pre.CheckCompatibilityMode(); err != nil {
		return err
	}
	r, err := js.Load(ctx, js.Config{
		Filename: t.cfg.Script, Source: t.cfg.Source, Env: t.cfg.Env,
		Modules:  t.roots.wrap(t.cfg.Modules),
		Registry: t.reg, Pusher: t.collector, Logger: t.log,
		Files: t.cfg.Files, Remote: t.cfg.Remote,
		CompatibilityMode: pre.CompatibilityMode.V,
	})
	if err != nil {
		return scriptLoadError(err)
	}
	t.script = r
	layers := t.cfg.Layers
	if layers.Script, err = options.FromScript(t.scriptOptions()); err != nil {
		return err
	}
	if t.opts, err = options.Consolidate(layers); err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	for _, w := range t.opts.Warnings {
		t.log.Warn(w)
	}
	// The script's VUs already push to the collector; which system tags it drops is known only
	// now that the script's options are consolidated.
	t.collector.SetEnabledSystemTags(t.opts.EnabledSystemTags())
	if err := scenario.CheckExecs(t.opts.Scenarios, r.HasFunction); err != nil {
		return withCode(exitcode.InvalidConfig, err)
	}
	return nil
}

// scriptLoadError gives a load failure its exit code: script errors carry 107; a missing or
// unreadable file is a generic failure.
func scriptLoadError(err error) error {
	if _, ok := js.ExitCode(err); ok {
		return err
	}
	return withCode(exitcode.Failure, err)
}

// buildThresholds parses the thresholds against the registered metrics and makes the collector
// sink what they need, even before any sample.
func (t *testRun) buildThresholds() error {
	if t.opts.NoThresholds.V || len(t.opts.Thresholds) == 0 {
		return nil
	}
	set, warnings, err := threshold.New(t.opts.Thresholds, t.reg)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		t.log.Warn(w)
	}
	for _, m := range set.Metrics() {
		t.collector.Track(m)
	}
	for _, sm := range set.Submetrics() {
		t.collector.TrackSubmetric(sm)
	}
	t.ths = set
	return nil
}

// startOutputs builds and starts the -o outputs (and the web dashboard when K6_WEB_DASHBOARD
// asks for it) and connects them to the collector.
func (t *testRun) startOutputs() error {
	set, err := builtin.Open(t.opts.Out, output.Params{
		Env: t.cfg.SystemEnv, Stdout: t.cfg.Stdout, Logger: t.log,
		SystemTags: t.opts.EnabledSystemTags(), Thresholds: t.ths, Charts: t.cfg.Charts,
		Length: scenario.Length(t.opts.Scenarios),
	})
	if err != nil {
		return &options.Error{Option: "output", Err: err}
	}
	if err := set.Start(); err != nil {
		return withCode(exitcode.Failure, err)
	}
	t.outSet = set
	t.outputs = set.Outputs()
	if len(t.outputs) > 0 {
		// Without outputs the collector is a batch's last user and recycles it; an empty set
		// would keep every batch alive until the GC took it.
		t.collector.AddOutput(set)
	}
	return nil
}

// buildScheduler plans the scenarios on the script's VUs and hands the script its run settings.
func (t *testRun) buildScheduler(runTags *metrics.Tags) error {
	var delay executor.StartDelayObserver // a nil *startDelay would be a non-nil observer
	if t.delay != nil {
		delay = t.delay
	}
	sched, err := executor.New(executor.Options{
		Scenarios:  t.opts.Scenarios,
		VUs:        t.script.VUs(),
		Samples:    t.collector,
		Registry:   t.reg,
		RunTags:    runTags,
		Logger:     t.log,
		StartDelay: delay,
		VUTag:      t.opts.SystemTagEnabled("vu"),
		Tuple:      t.opts.Tuple,
	})
	if err != nil {
		if scenario.IsConfigError(err) {
			return withCode(exitcode.InvalidConfig, err)
		}
		return err
	}
	t.sched = sched
	testOpts, err := t.opts.TestOptionsJSON()
	if err != nil {
		return err
	}
	console, err := t.openConsole()
	if err != nil {
		return err
	}
	t.script.Configure(js.RunOptions{
		Console: console,
		Options: testOpts,
		RunTags: t.opts.Tags,
		Throw:   t.opts.Throw.V,
		Exec:    sched,
		OnAbort: func(a *modules.AbortError) { sched.Abort(a) },

		VUMetadata:   t.opts.SystemTagEnabled("vu"),
		IterMetadata: t.opts.SystemTagEnabled("iter"),

		MinIterationDuration: t.opts.MinIterationDuration.V,
	})
	return nil
}

// openConsole opens the consoleOutput file (created or truncated) and returns the logger console
// output goes to; nil without the option.
func (t *testRun) openConsole() (*slog.Logger, error) {
	path := t.opts.ConsoleOutput.V
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, &options.Error{Option: "consoleOutput", Err: err}
	}
	t.console = f
	if t.cfg.ConsoleLogger != nil {
		return t.cfg.ConsoleLogger(f), nil
	}
	return slog.New(slog.NewTextHandler(f, nil)), nil
}

// header describes the planned run for the display.
func (t *testRun) header() ui.Header {
	req := t.sched.Requirements()
	share, _ := t.opts.Tuple.Length().Float64()
	h := ui.Header{Script: t.cfg.Script, Segment: 100 * share, MaxVUs: req.MaxVUs, MaxDuration: req.TotalDuration}
	if t.cfg.Source != nil && t.cfg.Script == "" {
		h.Script = "-"
	}
	for _, o := range t.outputs {
		h.Outputs = append(h.Outputs, o.Description())
	}
	for _, sc := range t.opts.Scenarios {
		h.Scenarios = append(h.Scenarios, ui.ScenarioLine{Name: sc.Base().Name, Description: sc.Description(t.opts.Tuple)})
	}
	return h
}

// release frees what prepare acquired when the run ends early, and closes the module roots.
func (t *testRun) release() {
	_ = t.stopOutputs() // logged; a run that ends early has its error already
	if err := t.roots.close(); err != nil {
		t.log.Error(err.Error())
	}
	if t.console != nil {
		if err := t.console.Close(); err != nil {
			t.log.Error("consoleOutput: " + err.Error())
		}
	}
}

// stopOutputs flushes and stops the outputs once and logs one line per output with what it
// wrote and dropped. It returns the outputs' own failures to finish (a file that could not be
// written: the results are lost, whatever the test's verdict). Samples a store dropped do not
// change the verdict unless Config.FailOnOutputLoss, as in k6.
func (t *testRun) stopOutputs() error {
	if t.outSet == nil {
		return nil
	}
	results := t.outSet.StopContext(t.cfg.Hard) // a second Ctrl-C does not wait for the outputs
	var errs []error
	for _, r := range results {
		if r.StopErr != nil {
			errs = append(errs, fmt.Errorf("output %s: %w", r.Description, r.StopErr))
		}
		if r.Lost() {
			t.log.Warn(r.Line())
		} else {
			t.log.Info(r.Line())
		}
	}
	if t.cfg.FailOnOutputLoss && t.outputLoss == nil {
		t.outputLoss = builtin.Lost(results)
	}
	t.outputs = nil
	return errors.Join(errs...)
}
