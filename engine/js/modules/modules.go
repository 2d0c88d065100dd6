// Package modules is the contract between the script runner (engine/js) and the JS modules that
// scripts import: the built-in k6, k6/metrics and k6/execution, and Go extensions such as
// k6/x/dnecho.
//
// A module has two levels, like k6 extensions (and grafana/xk6-sql):
//
//   - a root Module, created once per test run, that holds what all VUs share (connection pools,
//     caches, a parsed configuration);
//   - an Instance per VU, created the first time that VU imports the module, that holds per-VU
//     state and returns the JS exports.
//
// The instance talks to its VU through the VU interface: the goja runtime, whether the VU is in
// the init context, its tags, the iteration context, the sample buffer and the test-wide state.
//
// A minimal extension:
//
//	type root struct{ calls atomic.Int64 } // shared by all VUs of the test
//
//	func (r *root) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
//		return &instance{root: r, vu: vu}, nil
//	}
//
//	type instance struct {
//		root *root
//		vu   modules.VU
//	}
//
//	func (i *instance) Exports() modules.Exports {
//		return modules.Exports{Named: map[string]any{
//			"hello": func(call goja.FunctionCall) goja.Value {
//				i.root.calls.Add(1)
//				return i.vu.Runtime().ToValue("hello from VU " + strconv.FormatUint(i.vu.ID(), 10))
//			},
//		}}
//	}
//
// and, in the runner's configuration, Modules: {"k6/x/hello": func() modules.Module { return &root{} }}.
//
// Export functions with the signature func(goja.FunctionCall) goja.Value: goja calls them
// directly, whereas other Go function types go through reflection on every call.
package modules

import (
	"context"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// Module is the root of a JS module: one value per test run, shared by all its VUs. Its methods
// may be called from several VU goroutines at once.
type Module interface {
	// NewModuleInstance creates the module's state for one VU. It runs in that VU's init context,
	// the first time the VU imports the module. An error fails the import (and so the VU's init).
	NewModuleInstance(vu VU) (Instance, error)
}

// Instance is a module's per-VU state. It is used only from its VU's goroutine.
type Instance interface {
	// Exports returns the values the script imports. It is called once per VU.
	Exports() Exports
}

// Exports are the values of a module as seen by the script.
type Exports struct {
	// Default is what `import x from "name"` gives. When nil, the default export is an object
	// holding the named exports, so both import styles work.
	Default any
	// Named are the named exports: `import { a } from "name"`. Values are converted with
	// goja's Runtime.ToValue.
	Named map[string]any
}

// VU is what a module instance sees of its virtual user. All methods must be called from the
// goroutine that is running the VU's JavaScript (the one that called into the module).
type VU interface {
	// Runtime is the VU's JavaScript runtime.
	Runtime() *goja.Runtime
	// InitContext reports whether the VU is running the init context (module top level), where
	// `open()`, imports and metric constructors are allowed and most other operations are not.
	InitContext() bool
	// Context is the context of the running iteration (or setup, teardown, handleSummary call). It
	// is done when the iteration is interrupted; long operations must return when it is. In the
	// init context it is the context that NewVU was given.
	Context() context.Context
	// ID is __VU: the VU id within the instance, 1-based; 0 in the options, setup, teardown and
	// handleSummary VUs.
	ID() uint64
	// IDInTest is the VU's id across all instances of a distributed run (exec.vu.idInTest).
	IDInTest() uint64
	// Iteration is __ITER: this VU's 0-based iteration number, -1 before its first iteration.
	Iteration() int64
	// Tags are the VU's current tags (run, scenario, group, user) and metadata; samples a module
	// pushes should carry Tags().Current() and Tags().Metadata().
	Tags() *TagSet
	// Push appends a sample to the VU's buffer. The runner flushes the buffer to the test's
	// metrics.Pusher in batches.
	Push(s metrics.Sample)
	// Reserve appends n samples to the VU's buffer and returns them for the caller to fill in,
	// which spares a module that emits several samples per call a copy and a call per sample.
	// The caller must set every returned sample (a nil Metric included) before it next calls
	// into the VU or returns to the script, and must not keep the slice.
	Reserve(n int) []metrics.Sample
	// AddData counts bytes a module sent and received; the runner reports the totals as the
	// data_sent and data_received samples of the current iteration.
	AddData(sent, received int64)
	// Scenario is the scenario the VU is running, or nil outside VU code (init, setup, teardown).
	Scenario() *execinfo.Scenario
	// IterationInfo returns the scheduler's counters for the current iteration.
	IterationInfo() execinfo.Iteration
	// Test is the state shared by every VU of the test run: metric registry, built-in metrics,
	// group tree, run outcome, execution state and options.
	Test() *Test
	// RegisterCallback is how a module does work off the VU's goroutine (an RPC whose result a
	// Promise delivers): it promises the VU's event loop a callback, so the current iteration
	// (or setup, teardown, handleSummary) does not end before the returned enqueue function has
	// been called, exactly once. enqueue may be called from any goroutine; the callback then runs
	// on the VU's goroutine, the only place where the runtime (and a Promise's resolve and reject
	// functions) may be used. A callback's error ends the iteration like an uncaught exception.
	// When the iteration has already ended abnormally (an exception, an interrupt), the callback
	// is dropped, but the iteration still waits for enqueue: work started off the VU's goroutine
	// should return promptly once Context() is done.
	//
	//	enqueue := vu.RegisterCallback()
	//	p, resolve, reject := vu.Runtime().NewPromise()
	//	go func() {
	//		res, err := work(vu.Context())
	//		enqueue(func() error {
	//			if err != nil {
	//				return reject(err)
	//			}
	//			return resolve(res)
	//		})
	//	}()
	//	return vu.Runtime().ToValue(p)
	RegisterCallback() (enqueue func(func() error))
}
