// Package runner runs one k6-style test from start to end: it loads the script, consolidates
// the options, wires the metric pipeline (collector, thresholds, outputs) and the scheduler to
// the script's VUs, runs setup, the scenarios and teardown, and ends with the thresholds verdict
// and the summary. It is the library behind `dnecho run`: it never exits the process or installs
// signal handlers; the caller turns the returned error into an exit code with ExitCode.
//
// Stopping: ending the context given to Run stops the test gracefully (running iterations get
// their scenario's gracefulStop), ending Config.Hard stops it at once. Either way teardown and
// the summary still run (teardown only after a graceful stop) and the exit code is 105.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/stream"
	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/restapi"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/engine/ui"
)

// Config is what a test run needs besides the script's own options.
type Config struct {
	// Script is the main script's path. Source, when not nil, is its text (e.g. read from stdin).
	Script string
	Source []byte
	// Layers hold the option layers other than the script's (config file, K6_* environment,
	// command line); Run fills in the script layer.
	Layers options.Layers
	// Env is the scripts' initial __ENV (system environment when wanted, plus -e values).
	Env map[string]string
	// SystemEnv is the process environment, read by outputs for their K6_* settings.
	SystemEnv map[string]string
	// Modules are the Go modules the script may import besides the built-in ones (k6/x/...).
	Modules map[string]modules.Factory
	// Files, when not nil, is where the script's local files come from instead of the disk (a
	// test from an archive).
	Files js.FileSystem
	// Remote gives the source of https:// imports; nil makes them an error.
	Remote js.RemoteModules
	// ScriptOptions, when not nil, stands for the options the script exports (a test from an
	// archive carries the options it was archived with).
	ScriptOptions json.RawMessage
	// Breakdowns are the metrics the summary shows per value of a tag (e.g. a protocol module's
	// latency per server), so one slow server stands out.
	Breakdowns []ingest.ByTag
	// Charts names the metrics and tags the web dashboard charts as calls (a protocol module's);
	// empty, it charts iterations.
	Charts output.Charts
	// EndOfTest, when set, judges the test from what it aggregated once it is over (teardown
	// included), before the outputs stop and the thresholds get their final evaluation: samples
	// it pushes to View.Push reach the outputs and count for those thresholds (a protocol module's
	// verdict on its servers, as a gauge), and the sections it returns follow the metrics in the
	// text summary. Breakdowns are kept for it even when the summary is disabled.
	EndOfTest func(ingest.View) []summary.Section
	// DuringTest, when set, is called every threshold evaluation period (threshold.DefaultInterval,
	// 2 s) while the scenarios run, just before the thresholds are evaluated, with the
	// Breakdowns aggregated so far: samples it pushes to View.Push count for that evaluation, so
	// an abortOnFail threshold on the gauge it sets stops the run as soon as the verdict turns.
	// It runs on the threshold watch's goroutine and should return quickly: the breakdowns are
	// copied once per period, never per sample.
	DuringTest func(ingest.View)
	// StartDelayMetric names the Trend (time) of how late arrival-rate iterations started
	// compared with their schedule, so that a generator that falls behind shows before it shows
	// as dropped_iterations (the front end picks the name); empty, start delays are not recorded.
	StartDelayMetric string

	// Stdout receives the summary (and `-o json=-`); Stderr receives handleSummary's "stderr".
	Stdout, Stderr io.Writer
	// StdoutTTY and StderrTTY tell the summary whether colours make sense there.
	StdoutTTY, StderrTTY bool
	// Logger receives warnings, script logs and errors; nil discards them.
	Logger *slog.Logger
	// ConsoleLogger builds the logger console.* output goes to when the consoleOutput option
	// names a file (as Logger is built, writing to w); nil means a plain text logger.
	ConsoleLogger func(w io.Writer) *slog.Logger
	// Display shows the run header and progress; nil shows nothing.
	Display Display
	// Hard, when it ends, stops the test at once (a second Ctrl-C). Nil never ends.
	Hard context.Context
	// Aggregation, when set, streams the run's metric state to the aggregator of a
	// distributed test, whose verdict on the whole test then decides the exit code.
	Aggregation *stream.Stream
	// APIAddress is the REST API's address (--address), told to the aggregator so that it can
	// stop this instance.
	APIAddress string
	// Control, when set, lets the REST API watch and steer the run (status, pause, stop,
	// setup data); it keeps answering after Run returns.
	Control *Control
	// FailOnOutputLoss makes a run whose outputs dropped samples end with an *output.LossError
	// (exit code output.ExitDataLost) when nothing else failed; by default, as in k6, losses are
	// only reported.
	FailOnOutputLoss bool
	// NoVUMemoryCheck starts the run whatever its VUs need; by default a run whose VUs would not
	// fit in the memory the process may use (internal/vumemory) fails with exit code 104 before
	// any VU is initialised.
	NoVUMemoryCheck bool
}

// Display shows a run to a person; *ui.Display implements it.
type Display interface {
	Header(ui.Header)
	StartProgress(ui.Source) (stop func())
}

// Report describes a finished run, also when Run returns an error.
type Report struct {
	// Duration is the test run time: from the start of setup to the end of teardown.
	Duration time.Duration
	// Stats are the scheduler's final counters.
	Stats execinfo.InstanceStats
	// Summary is the end-of-test summary data; nil when the summary is disabled or the test did
	// not get to run.
	Summary *summary.Data
}

// Run runs the test. The error, if any, carries its exit code (see ExitCode): 104 invalid
// options or thresholds, 107 script errors, 100/101 setup/teardown timeouts, 105 stopped from
// outside, 108 exec.test.abort, 99 thresholds crossed, 110 exec.test.fail.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Hard == nil {
		cfg.Hard = context.Background()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	t := &testRun{cfg: cfg, log: cfg.Logger, control: cfg.Control}
	defer func() {
		if !t.control.adopt(t.release) {
			t.release()
		}
	}()
	if err := t.prepare(ctx); err != nil {
		if ctx.Err() != nil || cfg.Hard.Err() != nil {
			// Loading was cut short by the stop; the failure is its consequence, not its cause.
			err = fmt.Errorf("%w (while loading the script: %v)", ErrInterrupted, err)
		}
		t.control.detach(restapi.StatusInterrupted)
		return Report{}, err
	}
	t.control.attach(t)
	err := t.execute(ctx)
	err = t.finish(err)
	t.control.detach(finalStatus(err))
	return t.report(), err
}

// finalStatus is the REST API's run status once the run is over.
func finalStatus(err error) restapi.RunStatus {
	var failed *modules.FailedError
	switch {
	case err == nil:
		return restapi.StatusEnded
	case errors.As(err, &failed):
		return restapi.StatusMarkedAsFailed
	}
	return restapi.StatusInterrupted
}
