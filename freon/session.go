package freon

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// MaxLoggedErrors bounds the per-task ERROR lines of a Session: freon logs every failed task,
// which with --fail-at-end can be millions of stack traces. The failure breakdown at the end
// still counts them all.
const MaxLoggedErrors = 20

// Session is one freon test run as the command line shows it: the start line, an ERROR line per
// failed task (the first MaxLoggedErrors), the progress bar, the run, the report in the chosen
// format, and a breakdown of the failures by label.
type Session struct {
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
}

// Run executes the session. The Result is nil only when the run could not start; the error is
// about configuration or writing the report, never about failed tasks (see Result.Failures).
func (s Session) Run(ctx context.Context) (*Result, error) {
	cfg, err := s.Options.runConfig()
	if err != nil {
		return nil, err
	}
	var logged atomic.Int64
	cfg.OnError = func(taskID int, err error) {
		if n := logged.Add(1); n <= MaxLoggedErrors {
			_ = s.Log.Log(workerThread(taskID%s.Options.Threads), LevelError, LoggerBaseFreon, errorMessage(taskID), err.Error())
		} else if n == MaxLoggedErrors+1 {
			_ = s.Log.Log(ThreadMain, LevelWarn, LoggerDNEchoNotes,
				fmt.Sprintf("more than %d failed tasks: further errors are only counted (see the breakdown at the end)", MaxLoggedErrors))
		}
	}
	runner, err := newRunner(cfg, s.Task)
	if err != nil {
		return nil, err
	}
	_ = s.Log.Log(ThreadMain, LevelInfo, LoggerBaseFreon, startMessage(s.Prefix, s.Options.NumberOfTests))
	bar := startProgress(progressConfig{
		Interactive: s.Interactive, Out: s.Out, Log: s.Log,
		Max: runner.progressMax(), Value: runner.progressValue,
	})
	res := runner.Run(ctx)
	bar.terminate()

	now := time.Now()
	rep := res.reportAt(now)
	if s.Interactive {
		err = writeConsoleReport(s.Out, now, rep, consoleOptions{})
	} else {
		err = writeLogReport(s.Log, rep)
	}
	if b := res.failureBreakdown(); len(b) > 0 {
		parts := make([]string, len(b))
		for i, lc := range b {
			parts[i] = fmt.Sprintf("%s=%d", lc.Label, lc.Count)
		}
		_ = s.Log.Log(ThreadReport, LevelInfo, LoggerDNEchoNotes, "Failures by result: "+strings.Join(parts, ", "))
	}
	return res, err
}
