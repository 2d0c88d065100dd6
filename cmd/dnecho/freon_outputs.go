package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/builtin"
	"github.com/dnecho/dnecho/freon"
	"github.com/dnecho/dnecho/ozone/echo"
)

// freonOutputs are the freon command's -o outputs (and the web dashboard of K6_WEB_DASHBOARD),
// fed by echometrics.Outputs; what is left here is how their end shows in freon's log and exit
// status. nil without any output.
type freonOutputs struct {
	outs *echometrics.Outputs
	log  *freon.LogWriter
}

// openFreonOutputs builds the outputs of -o (and K6_WEB_DASHBOARD) without starting them, so a
// bad value fails before SCM is asked; nil (and no cost per call) without any output.
// The run's expected length (freon.Options.Length) sizes the dashboard's period.
func openFreonOutputs(specs []string, env map[string]string, s streams, logw *freon.LogWriter, charts output.Charts, length time.Duration) (*builtin.Set, error) {
	if len(specs) == 0 && !strings.EqualFold(env["K6_WEB_DASHBOARD"], "true") {
		return nil, nil
	}
	set, err := builtin.Open(specs, output.Params{Env: env, Stdout: s.out, Logger: slog.New(freonLogHandler{logw}), Charts: charts, Length: length})
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	return set, nil
}

// startFreonOutputs starts the outputs for a session, every sample tagged with tags (--tag).
func startFreonOutputs(set *builtin.Set, tags map[string]string, sess *echo.Session, threads int, logw *freon.LogWriter) (*freonOutputs, error) {
	if set == nil {
		return nil, nil
	}
	outs, err := echometrics.StartOutputs(echometrics.OutputsConfig{
		Set: set, Tags: echometrics.FixedTags(tags, sess), Mode: sess.Mode(), VUs: threads,
	})
	if err != nil {
		return nil, err
	}
	return &freonOutputs{outs: outs, log: logw}, nil
}

// record feeds one call.
func (o *freonOutputs) record(taskID int, r *echo.Result) {
	if o != nil {
		o.outs.Record(taskID, r)
	}
}

// recordNetwork feeds one tick of the session's network watch.
func (o *freonOutputs) recordNetwork(tick []echo.NetworkSample) {
	if o != nil {
		o.outs.RecordNetwork(tick)
	}
}

// close flushes the outputs, logs a line per output, writes the dashboard's report with the
// freon report in it, and returns a loss error when failOnLoss and an output dropped samples.
// A second Ctrl-C (hard) stops waiting for the outputs.
func (o *freonOutputs) close(hard context.Context, report string, d time.Duration, failOnLoss bool) error {
	if o == nil {
		return nil
	}
	results := o.outs.Close(hard)
	var failed []string
	for _, r := range results {
		level := freon.LevelInfo
		if r.Lost() || r.StopErr != nil {
			level = freon.LevelWarn
		}
		if r.StopErr != nil {
			failed = append(failed, r.Description)
		}
		_ = o.log.Log(freon.ThreadReport, level, freon.LoggerDNEchoNotes, r.Line())
	}
	if err := o.outs.Finish(output.End{Text: report, Duration: d}); err != nil {
		_ = o.log.Log(freon.ThreadReport, freon.LevelError, freon.LoggerDNEchoNotes, err.Error())
		failed = append(failed, "the web dashboard's report")
	}
	if failed != nil {
		return withCode(freonExitFailed, fmt.Errorf("the results were not all written: %s", strings.Join(failed, ", ")))
	}
	if failOnLoss {
		if err := builtin.Lost(results); err != nil {
			return withCode(output.ExitDataLost, err)
		}
	}
	return nil
}

// freonLogHandler shows the outputs' log records as freon log lines.
type freonLogHandler struct{ log *freon.LogWriter }

func (h freonLogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (h freonLogHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h freonLogHandler) WithGroup(string) slog.Handler                { return h }

func (h freonLogHandler) Handle(_ context.Context, r slog.Record) error {
	level := freon.LevelInfo
	switch {
	case r.Level >= slog.LevelError:
		level = freon.LevelError
	case r.Level >= slog.LevelWarn:
		level = freon.LevelWarn
	}
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	return h.log.Log(freon.ThreadMain, level, freon.LoggerDNEchoNotes, msg)
}
