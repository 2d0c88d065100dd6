package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/internal/exitcode"
)

// finish ends a run that got past prepare: outputs are flushed, thresholds get their final
// evaluation, the summary is shown, and the run's verdict becomes the returned error. Results
// that could not be written (an output, the summary export, the summary itself) fail a run that
// would otherwise succeed, with exitcode.Failure: a green exit must mean the results exist. k6
// only logs these failures; the test's own verdict (thresholds, script errors, stops) still
// comes first.
func (t *testRun) finish(runErr error) error {
	t.ended = time.Now()
	t.endOfTest()
	unwritten := t.stopOutputs()
	err := runErr
	if t.started.IsZero() { // never started: nothing to evaluate or summarise
		if t.cfg.Aggregation != nil {
			err = t.aggregateVerdict(err, nil)
		}
		if err == nil {
			err = notWritten(nil, unwritten)
		}
		return err
	}
	var local error
	if t.ths != nil {
		// At the end even empty sinks are evaluated, as k6 does.
		local = t.ths.Evaluate(t.collector, t.duration(), true).Err()
	}
	if t.cfg.Aggregation != nil {
		err = t.aggregateVerdict(err, local)
	} else if err == nil {
		err = local
	}
	unwritten = errors.Join(unwritten, t.summarize())
	t.finishOutputs()
	if reason, failed := t.script.Outcome().Failed(); failed && err == nil {
		err = &modules.FailedError{Reason: reason}
	}
	if err == nil {
		err = notWritten(nil, unwritten)
	}
	if err == nil {
		err = t.outputLoss
	}
	return err
}

// endOfTest runs Config.EndOfTest on a test that started, while the outputs still take samples.
func (t *testRun) endOfTest() {
	if t.cfg.EndOfTest == nil || t.started.IsZero() {
		return
	}
	t.sections = t.cfg.EndOfTest(t.collector.EndOfTest(t.reg, t.ended, metrics.NewTags(t.opts.Tags)))
}

// notWritten is the error of a run whose results were not all written, or nil when they were
// or the run has failed already (err).
func notWritten(err, unwritten error) error {
	if err != nil || unwritten == nil {
		return nil
	}
	return withCode(exitcode.Failure, fmt.Errorf("the results were not all written: %w", unwritten))
}

// finishOutputs hands the summary to the outputs that want it after they stopped (the web
// dashboard's HTML report). Failures are logged: the test's verdict is already known.
func (t *testRun) finishOutputs() {
	if t.outSet == nil || !t.outSet.WantsEnd() {
		return
	}
	end := output.End{Summary: t.summary, Duration: t.duration()}
	if t.summary != nil {
		text := *t.summary
		text.Options.NoColor = true
		end.Text = text.Text()
	}
	if err := t.outSet.Finish(end); err != nil {
		t.log.Error(err.Error())
	}
}

// duration is the test run time: setup start to teardown end.
func (t *testRun) duration() time.Duration {
	if t.started.IsZero() {
		return 0
	}
	return t.ended.Sub(t.started)
}

func (t *testRun) report() Report {
	r := Report{Duration: t.duration(), Summary: t.summary}
	if t.sched != nil {
		r.Stats = t.sched.InstanceStats()
	}
	return r
}

// summarize builds the summary and delivers it: the --summary-export file, then handleSummary's
// outputs when the script exports it, else the text summary on stdout. Every failure is logged;
// the ones that lost results are also returned. A handleSummary that throws, rejects, times out
// or is not a function is only logged, and the default summary is printed instead, as k6 does
// for a throwing one (grafana/k6 internal/js/runner.go, runUserProvidedHandleSummaryCallback).
func (t *testRun) summarize() error {
	mode := t.opts.SummaryModeValue()
	if mode == summary.Disabled {
		return nil
	}
	data, err := summary.Build(summary.Input{
		Snapshot:   t.collector.Snapshot(),
		Thresholds: t.ths,
		Duration:   t.duration(),
		SetupData:  json.RawMessage(t.script.SetupData()),
		Root:       t.script.Groups().Clone().Root(),
		Sections:   t.sections,
		Options: summary.Options{
			TrendStats:  t.opts.SummaryTrendStats,
			TimeUnit:    t.opts.SummaryTimeUnit.V,
			NoColor:     t.opts.NoColor.V,
			IsStdOutTTY: t.cfg.StdoutTTY,
			IsStdErrTTY: t.cfg.StderrTTY,
			Mode:        mode,
		},
	})
	if err != nil {
		t.log.Error("failed to build the end-of-test summary", "error", err)
		return fmt.Errorf("build the end-of-test summary: %w", err)
	}
	t.summary = data
	var errs []error
	if path := t.opts.SummaryExport.V; path != "" {
		errs = append(errs, t.export(data, path))
	}
	if t.script.HasExport("handleSummary") {
		handled, err := t.handleSummary(data)
		if handled {
			return errors.Join(append(errs, err)...)
		}
	}
	// Colours only make sense on a terminal; the data above still reports the noColor option.
	text := *data
	text.Options.NoColor = text.Options.NoColor || !t.cfg.StdoutTTY
	if _, err := io.WriteString(t.cfg.Stdout, text.Text()); err != nil {
		t.log.Error("failed to write the end-of-test summary", "error", err)
		errs = append(errs, fmt.Errorf("write the end-of-test summary: %w", err))
	}
	return errors.Join(errs...)
}

// export writes the --summary-export document.
func (t *testRun) export(data *summary.Data, path string) error {
	b, err := data.Export()
	if err == nil {
		err = os.WriteFile(path, b, 0o666)
	}
	if err != nil {
		t.log.Error(fmt.Sprintf("failed to write the summary export %s", path), "error", err)
		return fmt.Errorf("summary export %s: %w", path, err)
	}
	return nil
}

// handleSummary calls the script's handleSummary and writes what it returns. It reports whether
// the summary was handled (false: print the default text summary) and the error of writing its
// outputs; the script's own failures are only logged, and leave the summary to the default.
func (t *testRun) handleSummary(data *summary.Data) (handled bool, writeErr error) {
	b, err := data.JSON()
	if err != nil {
		t.log.Error("failed to handle the end-of-test summary", "error", err)
		return true, fmt.Errorf("handleSummary data: %w", err)
	}
	base := t.cfg.Hard
	if base.Err() != nil {
		base = context.Background() // stopped hard: the test is over, but its summary is still wanted
	}
	ctx, cancel := context.WithTimeout(base, t.opts.HandleSummaryTimeoutValue())
	defer cancel()
	res, err := t.script.HandleSummary(ctx, b)
	if err != nil {
		t.log.Error("failed to handle the end-of-test summary", "error", err)
		return false, nil
	}
	if !res.Handled {
		return false, nil
	}
	if err := res.Write(t.cfg.Stdout, t.cfg.Stderr); err != nil {
		t.log.Error("failed to handle the end-of-test summary", "error", err)
		return true, fmt.Errorf("handleSummary outputs: %w", err)
	}
	return true, nil
}
