package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// logOutput is where --log-output (K6_LOG_OUTPUT) sends the log: stderr (the default), stdout,
// none, or file=PATH[,level=LEVEL], as k6 reads it (grafana/k6 internal/cmd/root.go and
// internal/log/file.go). A file is appended to, and its directory must exist; level keeps that
// level and the more severe ones.
type logOutput struct {
	// stream is "stderr", "stdout" or "" (none or a file).
	stream string
	file   *os.File
	// level is the least severe level written; nil means the logger's own (info, or debug
	// with -v).
	level *slog.Level
}

// logLevels are k6's level names (logrus's) and the slog level each stands for.
var logLevels = map[string]slog.Level{
	"trace": slog.LevelDebug, "debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warning": slog.LevelWarn, "warn": slog.LevelWarn,
	"error": slog.LevelError, "fatal": slog.LevelError, "panic": slog.LevelError,
}

// openLogOutput parses a --log-output value and opens its file.
func openLogOutput(spec string) (*logOutput, error) {
	switch spec {
	case "", "stderr":
		return &logOutput{stream: "stderr"}, nil
	case "stdout":
		return &logOutput{stream: "stdout"}, nil
	case "none":
		return &logOutput{}, nil
	}
	kind, _, _ := strings.Cut(spec, "=")
	if kind != "file" {
		return nil, fmt.Errorf("--log-output %q: use stderr, stdout, none or file=PATH[,level=LEVEL]", spec)
	}
	o := &logOutput{}
	path := ""
	for _, part := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.TrimSpace(k) {
		case "file":
			path = strings.TrimSpace(v)
		case "level":
			l, ok := logLevels[strings.ToLower(strings.TrimSpace(v))]
			if !ok {
				return nil, fmt.Errorf("--log-output %q: unknown level %q (trace, debug, info, warning, error)", spec, v)
			}
			o.level = &l
		default:
			return nil, fmt.Errorf("--log-output %q: unknown setting %q (file, level)", spec, k)
		}
	}
	if path == "" {
		return nil, fmt.Errorf("--log-output %q: the file path is empty", spec)
	}
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--log-output %q: directory %s does not exist", spec, filepath.Dir(path))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--log-output: %w", err)
	}
	o.file = f
	return o, nil
}

// writer returns the destination of the log lines.
func (o *logOutput) writer(s streams) io.Writer {
	switch {
	case o.file != nil:
		return o.file
	case o.stream == "stdout":
		return s.out
	case o.stream == "stderr":
		return s.err
	}
	return io.Discard
}

// levelOr is the least severe level to write: the file's level=, else def.
func (o *logOutput) levelOr(def slog.Level) slog.Level {
	if o.level != nil {
		return *o.level
	}
	return def
}

// close closes the log file, if any.
func (o *logOutput) close() {
	if o.file != nil {
		_ = o.file.Close()
	}
}
