package js

import (
	"context"
	"github.com/dnecho/dnecho/testsupport/metricstest"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/dnecho/dnecho/engine/execinfo"
)

// writeFiles creates files (name → content) in a new temporary directory and returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// env bundles a loaded script with its sample collector and log.
type env struct {
	r   *Script
	out *collector
	log *logBuffer
	dir string
}

// load writes files and loads main from them. cfg may set Env and Modules.
func load(t testing.TB, files map[string]string, main string, cfg Config) (*env, error) {
	t.Helper()
	dir := writeFiles(t, files)
	e := &env{out: &collector{}, log: &logBuffer{}, dir: dir}
	cfg.Filename = filepath.Join(dir, main)
	cfg.Pusher = e.out
	cfg.Logger = slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := Load(context.Background(), cfg)
	e.r = r
	return e, err
}

// mustLoad is load that fails the test on error.
func mustLoad(t testing.TB, files map[string]string, main string, cfg Config) *env {
	t.Helper()
	e, err := load(t, files, main, cfg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return e
}

// vu creates and activates a VU for the default scenario.
func (e *env) vu(t testing.TB, id uint64) *VU {
	t.Helper()
	vu, err := e.r.NewVU(context.Background(), id, id)
	if err != nil {
		t.Fatalf("NewVU: %v", err)
	}
	if err := vu.Activate(&execinfo.Scenario{Name: "default", Executor: "per-vu-iterations"}); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	return vu
}

// iterate runs one iteration and fails the test on unexpected errors or interruption.
func iterate(t testing.TB, vu *VU) {
	t.Helper()
	interrupted, err := outcome(vu.RunIteration(context.Background(), execinfo.Iteration{}))
	if err != nil || interrupted {
		t.Fatalf("RunIteration: interrupted=%v err=%v", interrupted, err)
	}
}

// global reads a global variable of the VU as a Go value.
func global(vu *VU, name string) any {
	v := vu.Runtime().Get(name)
	if v == nil {
		return nil
	}
	return v.Export()
}

// iterationZero is an empty set of scheduler counters.
var iterationZero = execinfo.Iteration{}

// scenarioLate activates the lateOpen export of TestOpen.
var scenarioLate = execinfo.Scenario{Name: "late", Exec: "lateOpen"}

// scenarioQuick activates the quick export the interrupt tests add.
var scenarioQuick = execinfo.Scenario{Name: "quick", Exec: "quick"}

// scenarioDefault activates the default function.
var scenarioDefault = execinfo.Scenario{Name: "default", Executor: "constant-vus"}

// collector keeps every sample pushed to it.
type collector = metricstest.Samples

// logBuffer is a goroutine-safe buffer for log output.
type logBuffer = testkit.SyncBuffer

// outcome reads an iteration's result as the two facts most tests check: whether it stopped
// early (interrupted, or aborted by exec.test.abort) and the error it carries.
func outcome(r execinfo.Exit) (interrupted bool, err error) {
	return r.Outcome == execinfo.Interrupted || r.Outcome == execinfo.Aborted, r.Err
}
