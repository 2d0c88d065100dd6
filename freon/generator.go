package freon

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// MaxLoggedErrors bounds the per-task ERROR lines of a Generator: freon logs every failed task,
// which with --fail-at-end can be millions of stack traces. The failure breakdown at the end
// still counts them all.
const MaxLoggedErrors = 20

// Generator runs one freon test as the command line shows it, like Java's BaseFreonGenerator
// (Ozone: hadoop-ozone/freon/src/main/java/org/apache/hadoop/ozone/freon/BaseFreonGenerator.java):
// the start line, an ERROR line per failed task (the first MaxLoggedErrors), the progress bar, the
// run, the report in the chosen format, and a breakdown of the failures by label.
type Generator struct {
	// Options must have passed Validate.
	Options Options
	// Prefix is the resolved test prefix (see ResolvePrefix).
	Prefix string
	// Task runs one test step.
	Task Task
	// Interactive selects the console report and the redrawn bar on Out; otherwise both go to
	// Log as log4j lines.
	Interactive bool
	Out         io.Writer
	Log         *LogWriter
	// Appendix, when set, returns what the front end adds after the report (a per-server block, a
	// verdict), from the finished run: printed after the console report, or logged (see
	// writeAppendix). An entry may span lines.
	Appendix func(*Report) []string
	// OptionList, when not nil, is freon's --verbose block: the report is followed by "Option:"
	// and one name=value line per entry, before the Appendix (see writeOptionList).
	OptionList []string
}

// Run executes the test. The Report is nil only when the run could not start; the error is
// about configuration or writing the report, never about failed tasks (see Report.Failures).
func (g Generator) Run(ctx context.Context) (*Report, error) {
	cfg, err := g.Options.runConfig()
	if err != nil {
		return nil, err
	}
	var logged atomic.Int64
	cfg.OnError = func(taskID int, err error) {
		if n := logged.Add(1); n <= MaxLoggedErrors {
			_ = g.Log.Log(workerThread(taskID%g.Options.Threads), LevelError, LoggerBaseFreon, errorMessage(taskID), err.Error())
		} else if n == MaxLoggedErrors+1 {
			_ = g.Log.Log(ThreadMain, LevelWarn, LoggerDNEchoNotes,
				fmt.Sprintf("more than %d failed tasks: further errors are only counted (see the breakdown at the end)", MaxLoggedErrors))
		}
	}
	runner, err := newRunner(cfg, g.Task)
	if err != nil {
		return nil, err
	}
	_ = g.Log.Log(ThreadMain, LevelInfo, LoggerBaseFreon, startMessage(g.Prefix, g.Options.NumberOfTests))
	bar := startProgress(progressConfig{
		Interactive: g.Interactive, Out: g.Out, Log: g.Log,
		Max: runner.progressMax(), Value: runner.progressValue,
	})
	res := runner.Run(ctx)
	bar.terminate()

	now := time.Now()
	rep := res.reportAt(now)
	_ = g.Log.Log(ThreadReport, LevelInfo, LoggerDNEchoNotes, "Loop: "+res.Loop.String())
	if g.Interactive {
		err = writeConsoleReport(g.Out, now, rep, consoleOptions{})
	} else {
		err = writeLogReport(g.Log, rep)
	}
	if err == nil {
		err = g.writeOptionList()
	}
	if err == nil {
		err = g.writeAppendix(res)
	}
	if b := res.failureBreakdown(); len(b) > 0 {
		parts := make([]string, len(b))
		for i, lc := range b {
			parts[i] = fmt.Sprintf("%s=%d", lc.Label, lc.Count)
		}
		_ = g.Log.Log(ThreadReport, LevelInfo, LoggerDNEchoNotes, "Failures by result: "+strings.Join(parts, ", "))
	}
	return res, err
}
