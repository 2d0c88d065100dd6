package xdnecho

import (
	"context"
	"github.com/dnecho/dnecho/testsupport/metricstest"
	"github.com/dnecho/dnecho/testsupport/testkit"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/proto/hddspb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testDefaults are the cluster defaults of the scripts the next load runs (as `dnecho run
// --local-cluster` passes them); set with useDefaults.
var testDefaults Defaults

// useDefaults sets testDefaults until the test ends.
func useDefaults(tb testing.TB, d Defaults) {
	testDefaults = d
	tb.Cleanup(func() { testDefaults = Defaults{} })
}

// run is one loaded script with the Root of its dnecho module and its samples.
type run struct {
	r    *js.Script
	root *Root
	out  *collector
	log  *logBuffer
}

// load runs the script's init (as js.Load does, in VU 0) with env as __ENV. The module's Root is
// captured through Config.Modules, the way a runner that closes it would do, and closed when
// the test ends.
func load(tb testing.TB, src string, env map[string]string) (*run, error) {
	tb.Helper()
	return loadFile(tb, filepath.Join(tb.TempDir(), "script.js"), []byte(src), env)
}

func loadFile(tb testing.TB, path string, src []byte, env map[string]string) (*run, error) {
	tb.Helper()
	rn := &run{out: &collector{}, log: &logBuffer{}}
	var once sync.Once
	factory := func() modules.Module {
		once.Do(func() {
			rn.root = New(testDefaults)
			tb.Cleanup(func() { _ = rn.root.Close() })
		})
		return rn.root
	}
	r, err := js.Load(context.Background(), js.Config{
		Filename: path,
		Source:   src,
		Env:      env,
		Modules:  map[string]modules.Factory{ImportPath: factory},
		Pusher:   rn.out,
		Logger:   slog.New(slog.NewTextHandler(rn.log, nil)),
	})
	rn.r = r
	return rn, err
}

func mustLoad(tb testing.TB, src string, env map[string]string) *run {
	tb.Helper()
	rn, err := load(tb, src, env)
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return rn
}

// vu creates VU id and activates it for scenario s (the default scenario when nil).
func (rn *run) vu(tb testing.TB, id uint64, s *execinfo.Scenario) *js.VU {
	tb.Helper()
	vu, err := rn.r.NewVU(context.Background(), id, id)
	if err != nil {
		tb.Fatalf("NewVU %d: %v", id, err)
	}
	if s == nil {
		s = &execinfo.Scenario{Name: "default", Executor: "per-vu-iterations"}
	}
	if err := vu.Activate(s); err != nil {
		tb.Fatalf("Activate: %v", err)
	}
	return vu
}

// iterate runs one iteration and fails on an exception or an interruption.
func iterate(tb testing.TB, vu *js.VU) {
	tb.Helper()
	interrupted, err := outcome(vu.RunIteration(context.Background(), execinfo.Iteration{}))
	if err != nil || interrupted {
		tb.Fatalf("RunIteration: interrupted=%v err=%v", interrupted, err)
	}
}

// global reads a global of the VU as a Go value. It goes through JSON in the VU, as a script
// would see the value, so echo() results export as plain maps.
func global(vu *js.VU, name string) any {
	rt := vu.Runtime()
	v, err := rt.RunString("(v => v === undefined ? undefined : JSON.parse(JSON.stringify(v)))(globalThis." + name + ")")
	if err != nil {
		panic(err)
	}
	return v.Export()
}

// obj reads a global of the VU that holds an object.
func obj(tb testing.TB, vu *js.VU, name string) map[string]any {
	tb.Helper()
	m, ok := global(vu, name).(map[string]any)
	if !ok {
		tb.Fatalf("global %s = %#v, want an object", name, global(vu, name))
	}
	return m
}

// clusterEnv is __ENV pointing scripts at c.
func clusterEnv(c *minicluster.Cluster) map[string]string {
	return map[string]string{"SCM": strings.Join(c.SCMAddrs(), ",")}
}

// wantErr fails unless err's text contains every part.
func wantErr(tb testing.TB, err error, parts ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			tb.Fatalf("error %q does not contain %q", err, p)
		}
	}
}

// collector keeps every sample pushed to it.
type collector = metricstest.Samples

// logBuffer is a goroutine-safe buffer for log output.
type logBuffer = testkit.SyncBuffer

// closedContainer is container 9, CLOSED, on c's pipeline (no DataNode holds it).
func closedContainer(c *minicluster.Cluster) scmsim.Container {
	return scmsim.Container{ID: 9, State: hddspb.LifeCycleState_CLOSED, PipelineID: c.PipelineID()}
}

// outcome reads an iteration's result as the two facts most tests check: whether it stopped
// early (interrupted, or aborted by exec.test.abort) and the error it carries.
func outcome(r execinfo.Exit) (interrupted bool, err error) {
	return r.Outcome == execinfo.Interrupted || r.Outcome == execinfo.Aborted, r.Err
}
