package js

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// testModule is the example Go extension, imported as "k6/x/test": a root shared by the test
// (instance counter, call log) and a per-VU instance.
type testModule struct {
	instances atomic.Int64
	mu        sync.Mutex
	calls     []string
	metric    *metrics.Metric
}

func newTestModule() *testModule { return &testModule{} }

func (m *testModule) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	m.instances.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.metric == nil {
		var err error
		if m.metric, err = vu.Test().Registry.NewMetric("test_calls", metrics.Counter, metrics.Default); err != nil {
			return nil, err
		}
	}
	return &testInstance{root: m, vu: vu}, nil
}

func (m *testModule) record(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, s)
}

func (m *testModule) log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

type testInstance struct {
	root  *testModule
	vu    modules.VU
	count int // per-VU state
}

func (i *testInstance) Exports() modules.Exports {
	return modules.Exports{
		Default: map[string]any{"kind": "default"},
		Named: map[string]any{
			// The fast signature: goja calls it without reflection.
			"noop": func(goja.FunctionCall) goja.Value { return goja.Undefined() },
			"vuID": func(goja.FunctionCall) goja.Value { return i.vu.Runtime().ToValue(i.vu.ID()) },
			"inInit": func(goja.FunctionCall) goja.Value {
				return i.vu.Runtime().ToValue(i.vu.InitContext())
			},
			"record": func(call goja.FunctionCall) goja.Value {
				i.root.record(call.Argument(0).String())
				return goja.Undefined()
			},
			"bump": func(goja.FunctionCall) goja.Value {
				i.count++
				return i.vu.Runtime().ToValue(i.count)
			},
			"push": func(call goja.FunctionCall) goja.Value {
				i.vu.Push(metrics.Sample{
					Metric: i.root.metric, Time: time.Now(), Value: call.Argument(0).ToFloat(),
					Tags: i.vu.Tags().Current(), Metadata: i.vu.Tags().Metadata(),
				})
				return goja.Undefined()
			},
			"transfer": func(call goja.FunctionCall) goja.Value {
				i.vu.AddData(call.Argument(0).ToInteger(), call.Argument(1).ToInteger())
				return goja.Undefined()
			},
			// waitCtx blocks until the iteration context ends, like a network call would.
			"waitCtx": func(goja.FunctionCall) goja.Value {
				select {
				case <-i.vu.Context().Done():
					i.root.record("done")
				case <-time.After(10 * time.Second):
					i.root.record("timeout")
				}
				return goja.Undefined()
			},
			// Reflection-wrapped Go function: works too, only slower.
			"add": func(a, b int) int { return a + b },
		},
	}
}

func testModules(m *testModule) map[string]modules.Factory {
	return map[string]modules.Factory{"k6/x/test": func() modules.Module { return m }}
}

func TestCustomModule(t *testing.T) {
	mod := newTestModule()
	e := mustLoad(t, map[string]string{
		"script.js": `
import t, { vuID, inInit, bump, push, add, transfer } from "k6/x/test";
import * as all from "k6/x/test";
export const initVU = vuID();
export const initFlag = inInit();
export default function () {
  globalThis.result = [t.kind, vuID(), inInit(), bump(), add(2, 3), typeof all.noop];
  push(7);
  transfer(10, 20);
}
`}, "script.js", Config{Modules: testModules(mod)})
	if got := mod.instances.Load(); got != 1 {
		t.Fatalf("instances after Load = %d, want 1 (the options VU)", got)
	}
	vu1, vu2 := e.vu(t, 1), e.vu(t, 2)
	iterate(t, vu1)
	iterate(t, vu1)
	iterate(t, vu2)
	vu1.Flush()
	vu2.Flush()
	if got := mod.instances.Load(); got != 3 {
		t.Fatalf("instances = %d, want 3 (one per VU)", got)
	}
	if got := vu1.exports.Get("initFlag").Export(); got != true {
		t.Fatalf("inInit() during init = %v", got)
	}
	want := []any{"default", int64(1), false, int64(2), int64(5), "function"}
	got := global(vu1, "result").([]any)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("vu1 result = %v, want %v", got, want)
		}
	}
	if c := global(vu2, "result").([]any)[3]; c != int64(1) {
		t.Fatalf("vu2 bump = %v: per-VU state leaked", c)
	}
	calls := e.out.ByName("test_calls")
	if len(calls) != 3 || calls[0].Value != 7 {
		t.Fatalf("test_calls samples = %+v", calls)
	}
	if sc, _ := calls[0].Tags.Get("scenario"); sc != "default" {
		t.Fatalf("module sample tags = %v", calls[0].Tags.Map())
	}
	sent, recv := e.out.ByName("data_sent"), e.out.ByName("data_received")
	if len(sent) != 3 || sent[0].Value != 10 || recv[0].Value != 20 {
		t.Fatalf("data samples: sent=%+v recv=%+v", sent, recv)
	}
}

func TestModuleContextEndsWithIteration(t *testing.T) {
	mod := newTestModule()
	e := mustLoad(t, map[string]string{
		"script.js": `import { waitCtx } from "k6/x/test";
export default function () { waitCtx(); }`,
	}, "script.js", Config{Modules: testModules(mod)})
	vu := e.vu(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	interrupted, err := outcome(vu.RunIteration(ctx, execinfo.Iteration{}))
	if !interrupted || err != nil {
		t.Fatalf("interrupted=%v err=%v", interrupted, err)
	}
	if got := strings.Join(mod.log(), ","); got != "done" {
		t.Fatalf("waitCtx saw %q", got)
	}
}
