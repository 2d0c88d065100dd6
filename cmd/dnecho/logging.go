package main

import (
	"io"
	"log/slog"

	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/ui"
)

// commandLog is the log of a command, set up from --log-output, --log-format, -v and the
// colour settings; console builds the consoleOutput logger in the same format.
type commandLog struct {
	log     *slog.Logger
	console func(w io.Writer) *slog.Logger
	close   func()
}

// newCommandLog opens the log output; wrap lets the progress display interleave log lines.
func newCommandLog(pre options.Options, verbose bool, s streams, wrap func(io.Writer) io.Writer) (*commandLog, error) {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	out, err := openLogOutput(pre.LogOutput.V)
	if err != nil {
		return nil, err
	}
	level = out.levelOr(level)
	tty := (out.stream == "stderr" && isTerminal(s.err)) || (out.stream == "stdout" && isTerminal(s.out))
	if wrap == nil {
		wrap = func(w io.Writer) io.Writer { return w }
	}
	format := pre.LogFormat.V
	return &commandLog{
		log: slog.New(ui.NewLogHandler(wrap(out.writer(s)), ui.LogOptions{Format: format, Level: level, Color: tty && !pre.NoColor.V})),
		console: func(w io.Writer) *slog.Logger {
			return slog.New(ui.NewLogHandler(w, ui.LogOptions{Format: format, Level: level}))
		},
		close: out.close,
	}, nil
}
