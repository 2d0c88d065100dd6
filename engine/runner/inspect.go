package runner

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
)

// Inspection is a test loaded and configured, not run: what `dnecho inspect` and `dnecho
// archive` report.
type Inspection struct {
	// ScriptOptions are the options the script exports, as it wrote them (unknown keys such as
	// `cloud` and `ext` included).
	ScriptOptions json.RawMessage
	// Merged are the option layers merged (Config.Layers with the script's), not yet turned into
	// scenarios: the options an archive carries.
	Merged options.Options
	// Options are the validated options with the derived scenarios.
	Options *options.Consolidated
	// Requirements are the execution plan's peaks: max VUs and total duration.
	Requirements plan.Requirements
	// Main is the main script's absolute path; Files are the files the script loaded.
	Main  string
	Files []js.File
	// Metrics are the built-in metrics and those the init context registered, against which
	// thresholds are checked.
	Metrics *metrics.Registry
}

// Inspect loads the script of cfg, runs its init context once and consolidates its options
// with the layers of cfg, without running any test function or starting any output. Errors carry
// exit codes as Run's do (107 script errors, 104 invalid options).
func Inspect(ctx context.Context, cfg Config) (*Inspection, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Stdout == nil {
		cfg.Stdout, cfg.Stderr = io.Discard, io.Discard
	}
	t := &testRun{cfg: cfg, log: cfg.Logger}
	defer t.release()
	t.reg = metrics.NewRegistry()
	t.collector = ingest.New(ingest.Options{Builtins: metrics.RegisterBuiltins(t.reg), ThresholdsOnly: true})
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	layers := cfg.Layers
	layers.Script, _ = options.FromScript(t.scriptOptions()) // load has decoded it already
	merged, _ := layers.Merge()
	return &Inspection{
		ScriptOptions: t.script.Options(),
		Merged:        merged,
		Options:       t.opts,
		Requirements:  scenario.Requirements(t.opts.Scenarios, t.opts.Tuple),
		Main:          t.script.Path(),
		Files:         t.script.Files(),
		Metrics:       t.reg,
	}, nil
}

// scriptOptions are the options that stand for the script's: its export, or Config.ScriptOptions.
func (t *testRun) scriptOptions() json.RawMessage {
	if t.cfg.ScriptOptions != nil {
		return t.cfg.ScriptOptions
	}
	return t.script.Options()
}
