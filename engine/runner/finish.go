package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dnecho/dnecho/engine/js/groups"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/summary"
)

// finish ends a run that got past prepare: outputs are flushed, thresholds get their final
// evaluation, the summary is shown, and the run's verdict becomes the returned error.
func (t *testRun) finish(runErr error) error {
	t.ended = time.Now()
	t.stopOutputs()
	err := runErr
	if t.started.IsZero() {
		return err // the test never started: nothing to evaluate or summarise
	}
	if t.ths != nil {
		// At the end even empty sinks are evaluated (§6.4 rule 2).
		res := t.ths.Evaluate(t.collector, t.duration(), true)
		if err == nil {
			err = res.Err()
		}
	}
	t.summarize()
	t.finishOutputs()
	if reason, failed := t.script.Outcome().Failed(); failed && err == nil {
		err = &modules.FailedError{Reason: reason}
	}
	if err == nil {
		err = t.outputLoss
	}
	return err
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

func (t *testRun) result() Result {
	r := Result{Duration: t.duration(), Summary: t.summary}
	if t.sched != nil {
		r.Stats = t.sched.Instance()
	}
	return r
}

// summarize builds the summary and delivers it: the --summary-export file, then handleSummary's
// outputs when the script exports it, else the text summary on stdout. Failures are logged:
// they do not change the verdict of the test (k6 only logs handleSummary errors).
func (t *testRun) summarize() {
	mode := t.opts.SummaryModeValue()
	if mode == summary.Disabled {
		return
	}
	data, err := summary.Build(summary.Input{
		Snapshot:   t.collector.Snapshot(),
		Thresholds: t.ths,
		Duration:   t.duration(),
		SetupData:  json.RawMessage(t.script.SetupData()),
		Root:       summaryGroup(t.script.Groups().Summary()),
		Options: summary.Options{
			TrendStats:  t.opts.SummaryTrendStats,
			TimeUnit:    t.opts.SummaryTimeUnit.String,
			NoColor:     t.opts.NoColor.Bool,
			IsStdOutTTY: t.cfg.StdoutTTY,
			IsStdErrTTY: t.cfg.StderrTTY,
			Mode:        mode,
		},
	})
	if err != nil {
		t.log.Error("failed to build the end-of-test summary", "error", err)
		return
	}
	t.summary = data
	if path := t.opts.SummaryExport.String; path != "" {
		t.export(data, path)
	}
	if t.script.HasFunction("handleSummary") && t.handleSummary(data) {
		return
	}
	// Colours only make sense on a terminal; the data above still reports the noColor option.
	text := *data
	text.Options.NoColor = text.Options.NoColor || !t.cfg.StdoutTTY
	if _, err := io.WriteString(t.cfg.Stdout, text.Text()); err != nil {
		t.log.Error("failed to write the end-of-test summary", "error", err)
	}
}

// export writes the --summary-export document.
func (t *testRun) export(data *summary.Data, path string) {
	b, err := data.Export()
	if err == nil {
		err = os.WriteFile(path, b, 0o666)
	}
	if err != nil {
		t.log.Error(fmt.Sprintf("failed to write the summary export %s", path), "error", err)
	}
}

// handleSummary calls the script's handleSummary and writes what it returns. It reports whether
// the summary was handled; false means the default text summary should be printed.
func (t *testRun) handleSummary(data *summary.Data) bool {
	b, err := data.JSON()
	if err != nil {
		t.log.Error("failed to handle the end-of-test summary", "error", err)
		return true
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
		return true
	}
	if !res.Handled {
		return false
	}
	if err := res.Write(t.cfg.Stdout, t.cfg.Stderr); err != nil {
		t.log.Error("failed to handle the end-of-test summary", "error", err)
	}
	return true
}

// summaryGroup converts the script runner's group tree to the summary's.
func summaryGroup(g groups.GroupSummary) *summary.Group {
	out := &summary.Group{Name: g.Name, Path: g.Path, ID: g.ID}
	for _, c := range g.Checks {
		out.Checks = append(out.Checks, &summary.Check{Name: c.Name, Path: c.Path, ID: c.ID, Passes: c.Passes, Fails: c.Fails})
	}
	for _, sub := range g.Groups {
		out.Groups = append(out.Groups, summaryGroup(sub))
	}
	return out
}
