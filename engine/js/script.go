package js

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/js/loader"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/js/modules/crypto"
	"github.com/dnecho/dnecho/engine/js/modules/data"
	"github.com/dnecho/dnecho/engine/js/modules/encoding"
	"github.com/dnecho/dnecho/engine/js/modules/execution"
	"github.com/dnecho/dnecho/engine/js/modules/k6"
	"github.com/dnecho/dnecho/engine/js/modules/k6summary"
	jsmetrics "github.com/dnecho/dnecho/engine/js/modules/metrics"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Defaults for batching a VU's samples before they reach the Pusher.
const (
	DefaultFlushSamples  = 256
	DefaultFlushInterval = 100 * time.Millisecond
)

// Config is what Load needs to compile a script and read its options.
type Config struct {
	// Filename is the main script (.js, .mjs, .ts, …); relative paths are taken from the working
	// directory.
	Filename string
	// Source, when not nil, is the main script's text, used instead of reading Filename (e.g. a
	// script from stdin). Filename still names it and anchors its relative imports.
	Source []byte
	// Env is the initial __ENV of every VU: the system environment when wanted plus -e values.
	Env map[string]string
	// Modules are the Go modules importable by this test besides the built-in ones (a name
	// given here overrides a built-in).
	Modules map[string]modules.Factory
	// Registry receives the script's metrics. Nil means a new registry.
	Registry *metrics.Registry
	// Pusher receives every VU's samples, in batches. Nil discards them.
	Pusher metrics.Pusher
	// Logger receives console output, exceptions and warnings. Nil means slog.Default().
	Logger *slog.Logger
	// Files, when not nil, is where local files come from instead of the disk (a test from an
	// archive).
	Files FileSystem
	// Remote gives the source of https:// imports; nil makes them an error.
	Remote RemoteModules
	// CompatibilityMode is k6's compatibilityMode: "extended" (or "") adds the global `global`
	// as an alias of globalThis; "base" does not (grafana/k6 internal/js/bundle.go).
	CompatibilityMode string
}

// RunOptions are the settings that only exist once options are consolidated. Call
// Script.Configure with them before creating VUs.
type RunOptions struct {
	// Options is the consolidated options as JSON, shown to scripts as exec.test.options (vus,
	// iterations, duration and stages are removed).
	Options json.RawMessage
	// RunTags are the run tags (options.tags, --tag), added to every sample.
	RunTags map[string]string
	// Throw is the `throw` option: metric-value and tag warnings become exceptions.
	Throw bool
	// Exec answers exec.instance; nil reads as zeros.
	Exec modules.ExecutionState
	// OnAbort is called once when a script calls exec.test.abort, from that VU's goroutine.
	OnAbort func(*modules.AbortError)
	// VUMetadata and IterMetadata say the `vu` and `iter` system tags are enabled: samples then
	// carry the VU id and iteration number as metadata (k6 treats them as metadata, not tags).
	VUMetadata   bool
	IterMetadata bool
	// FlushSamples and FlushInterval bound how long samples wait in a VU's buffer; zero values
	// mean DefaultFlushSamples and DefaultFlushInterval.
	FlushSamples  int
	FlushInterval time.Duration
	// Console, when not nil, receives console.* output instead of Config.Logger (the
	// consoleOutput option). The init context of the options VU (Load) still logs to Logger.
	Console *slog.Logger
	// MinIterationDuration is the minIterationDuration option: a complete iteration that ends
	// sooner holds its VU for the rest of it (0: no minimum).
	MinIterationDuration time.Duration
}

// Script is one compiled script for one test run: it creates VUs that run it and runs the
// lifecycle functions (setup, teardown, handleSummary). Its methods are safe for concurrent use,
// except Configure.
type Script struct {
	cfg     Config
	path    string
	main    *loader.Module
	src     *loader.Sources
	test    *modules.Test
	runTags map[string]string

	factories map[string]modules.Factory
	rootsMu   sync.Mutex
	roots     map[string]modules.Module

	options   json.RawMessage
	functions map[string]bool
	exports   map[string]bool

	flushSamples  int
	flushInterval time.Duration
	minIteration  time.Duration
	console       *slog.Logger // console.* output; nil: the test logger
	vuMetadata    bool
	iterMetadata  bool

	setupMu   sync.Mutex
	setupData []byte
}

// Load compiles the main script and runs its init context once, in a VU with __VU = 0, to read
// the exported options and functions. Syntax errors, unresolvable imports and exceptions thrown
// by the init context come back as *ScriptError (exit code 107).
func Load(ctx context.Context, cfg Config) (*Script, error) {
	path, err := filepath.Abs(cfg.Filename)
	if err != nil {
		return nil, fmt.Errorf("script %q: %w", cfg.Filename, err)
	}
	if cfg.Registry == nil {
		cfg.Registry = metrics.NewRegistry()
	}
	if cfg.Pusher == nil {
		cfg.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	builtin, err := modules.NewBuiltinMetrics(cfg.Registry)
	if err != nil {
		return nil, err
	}
	r := &Script{
		cfg:  cfg,
		path: path,
		src:  loader.New(cfg.Files, cfg.Remote),
		test: &modules.Test{
			Registry: cfg.Registry,
			Pusher:   cfg.Pusher,
			Builtin:  builtin,
			Groups:   checktree.New(),
			Outcome:  modules.NewOutcome(),
			Logger:   cfg.Logger,
		},
		factories:     map[string]modules.Factory{},
		roots:         map[string]modules.Module{},
		flushSamples:  DefaultFlushSamples,
		flushInterval: DefaultFlushInterval,
	}
	r.factories[modules.NameK6] = k6.New
	r.factories[modules.NameMetrics] = jsmetrics.New
	r.factories[modules.NameExecution] = execution.New
	r.factories[modules.NameTimers] = newTimersModule
	r.factories[modules.NameEncoding] = encoding.New
	r.factories[modules.NameCrypto] = crypto.New
	r.factories[modules.NameData] = data.New
	r.factories[k6summary.Name] = k6summary.New
	for name, f := range cfg.Modules {
		r.factories[name] = f
	}

	if r.main, err = r.compile(path, cfg.Source); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("script %q: %w", cfg.Filename, err)
		}
		return nil, err
	}
	vu, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	r.src.Freeze()
	if r.options, err = vu.exportJSON("options"); err != nil {
		return nil, err
	}
	if r.options == nil {
		r.options = json.RawMessage("{}")
	}
	r.test.Options = stripShortcuts(r.options)
	r.functions = vu.exportedFunctions()
	r.exports = map[string]bool{}
	for _, k := range vu.exports.Keys() {
		r.exports[k] = true
	}
	vu.Flush()
	return r, nil
}

// Configure applies the consolidated run settings. Call it once, after Load and before creating
// VUs or running setup.
func (r *Script) Configure(o RunOptions) {
	if o.Options != nil {
		r.test.Options = stripShortcuts(o.Options)
	}
	r.runTags = o.RunTags
	r.test.Throw = o.Throw
	r.test.Exec = o.Exec
	r.test.Outcome.SetOnAbort(o.OnAbort)
	r.vuMetadata, r.iterMetadata = o.VUMetadata, o.IterMetadata
	if o.FlushSamples > 0 {
		r.flushSamples = o.FlushSamples
	}
	if o.FlushInterval > 0 {
		r.flushInterval = o.FlushInterval
	}
	r.minIteration = o.MinIterationDuration
	r.console = o.Console
}

// Path returns the main script's absolute path.
func (r *Script) Path() string { return r.path }

// Options returns the script's exported `options` object as JSON ("{}" when there is none).
// Values are kept as the script wrote them: durations may be numbers (ms) or strings.
func (r *Script) Options() json.RawMessage { return r.options }

// HasExport reports whether the script exports a value (of any type) by that name.
func (r *Script) HasExport(name string) bool { return r.exports[name] }

// HasFunction reports whether the script exports a function by that name (e.g. a scenario's
// exec, "setup", "handleSummary").
func (r *Script) HasFunction(name string) bool { return r.functions[name] }

// Files returns every file the test has loaded so far (modules, remote modules and open()
// files), sorted by name: what an archive of the test must hold.
func (r *Script) Files() []File { return r.src.Files() }

// Groups returns the tree of groups and checks with their counts, for the summary's root_group.
func (r *Script) Groups() *checktree.Tree { return r.test.Groups }

// Outcome returns the script's verdicts on the run: exec.test.abort and exec.test.fail.
func (r *Script) Outcome() *modules.Outcome { return r.test.Outcome }

// Registry returns the metric registry of the test.
func (r *Script) Registry() *metrics.Registry { return r.test.Registry }

// SetSetupData sets the JSON that VUs pass to their exec function (and teardown). Setup sets it;
// call this only to inject setup data produced elsewhere (e.g. by another instance).
func (r *Script) SetSetupData(data []byte) {
	r.setupMu.Lock()
	defer r.setupMu.Unlock()
	r.setupData = data
}

// SetupData returns the setup data JSON; nil means undefined.
func (r *Script) SetupData() []byte {
	r.setupMu.Lock()
	defer r.setupMu.Unlock()
	return r.setupData
}

// compile returns a compiled module (loader.Sources.Compile), a syntax error as a *ScriptError.
func (r *Script) compile(name string, src []byte) (*loader.Module, error) {
	m, err := r.src.Compile(name, src)
	var se *loader.SyntaxError
	if errors.As(err, &se) {
		return nil, &ScriptError{Kind: KindSyntax, File: se.File, Line: se.Line, Column: se.Column, Message: se.Message}
	}
	return m, err
}

// root returns the test's root of a Go module, creating it on first use.
func (r *Script) root(name string) (modules.Module, bool) {
	r.rootsMu.Lock()
	defer r.rootsMu.Unlock()
	if m, ok := r.roots[name]; ok {
		return m, true
	}
	f, ok := r.factories[name]
	if !ok {
		return nil, false
	}
	m := f()
	r.roots[name] = m
	return m, true
}

// stripShortcuts removes from exec.test.options what k6 removes
// (docs/k6-compat.md#module-k6execution): the shortcut options, which consolidation has turned
// into scenarios.
func stripShortcuts(opts json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(opts, &m); err != nil {
		return opts
	}
	for _, k := range []string{"vus", "iterations", "duration", "stages"} {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return opts
	}
	return b
}
