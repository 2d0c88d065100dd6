// Package data is the built-in `k6/data` module: SharedArray, a read-only array built once per
// test run and shared by every VU, so that a large data set costs one copy of memory rather than
// one per VU (grafana/k6 internal/js/modules/k6/data; docs/k6-compat.md#module-k6data).
//
// The array is kept as one JSON text per element. A VU sees it through a dynamic array: reading
// an element parses its text in that VU's runtime and deep-freezes the result, so a VU holds
// nothing of the data between reads, and no VU can change what another sees.
package data

import (
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// Messages of the errors scripts see, k6's words (grafana/k6 internal/js/modules/k6/data/data.go).
const (
	MsgNotInInit  = "new SharedArray must be called in the init context"
	MsgEmptyName  = "empty name provided to SharedArray's constructor"
	MsgAsyncFn    = "SharedArray constructor does not support async functions as second argument"
	MsgNotFunc    = "a function is expected as the second argument of SharedArray's constructor"
	MsgNotArray   = "only arrays can be made into SharedArray"
	MsgImmutable  = "SharedArray is immutable"
	MsgNeedsNewOp = "SharedArray must be called with new"
)

// New returns the module's root: the test run's shared arrays, by name.
func New() modules.Module { return &root{arrays: map[string]*entry{}} }

type root struct {
	mu     sync.Mutex
	arrays map[string]*entry
}

// entry is one named array; ready is closed once elems or err is set.
type entry struct {
	ready chan struct{}
	elems []string
	err   error
}

// load returns the array called name, building it with build if no VU has. Other VUs asking for
// it meanwhile wait for the build; a failed build is not kept, so a later VU tries again.
func (r *root) load(name string, build func() ([]string, error)) ([]string, error) {
	r.mu.Lock()
	e, ok := r.arrays[name]
	if ok {
		r.mu.Unlock()
		<-e.ready
		return e.elems, e.err
	}
	e = &entry{ready: make(chan struct{})}
	r.arrays[name] = e
	r.mu.Unlock()

	e.elems, e.err = build()
	if e.err != nil {
		r.mu.Lock()
		delete(r.arrays, name)
		r.mu.Unlock()
	}
	close(e.ready)
	return e.elems, e.err
}

func (r *root) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	return &instance{root: r, vu: vu}, nil
}

// instance is the module in one VU; it caches the JS built-ins every element read uses.
type instance struct {
	root *root
	vu   modules.VU

	parse, stringify, freeze goja.Callable
}

func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{"SharedArray": i.construct}}
}

// construct is `new SharedArray(name, fn)`.
func (i *instance) construct(call goja.ConstructorCall) *goja.Object {
	rt := i.vu.Runtime()
	if !i.vu.InitContext() {
		modules.ThrowMessage(rt, MsgNotInInit)
	}
	name := call.Argument(0).String()
	if goja.IsUndefined(call.Argument(0)) || name == "" {
		modules.ThrowMessage(rt, MsgEmptyName)
	}
	fnValue := call.Argument(1)
	if modules.IsAsyncFunction(fnValue) {
		modules.ThrowMessage(rt, MsgAsyncFn)
	}
	fn, ok := goja.AssertFunction(fnValue)
	if !ok {
		modules.ThrowMessage(rt, MsgNotFunc)
	}
	i.builtins()
	built := false
	elems, err := i.root.load(name, func() ([]string, error) {
		built = true
		return i.build(fn)
	})
	switch {
	case err == nil:
	case built && isJSError(err):
		modules.Rethrow(err) // the script's own exception, with its stack
	case built:
		modules.Throw(rt, err)
	default:
		// Another VU's build failed; its exception belongs to that VU's runtime.
		modules.Throw(rt, fmt.Errorf("SharedArray %q: %s", name, err.Error()))
	}
	return rt.NewDynamicArray(&view{inst: i, elems: elems})
}

// isJSError tells an exception or interrupt of the runtime from a Go error.
func isJSError(err error) bool {
	var ex *goja.Exception
	var ie *goja.InterruptedError
	return errors.As(err, &ex) || errors.As(err, &ie)
}

// builtins looks up JSON.parse, JSON.stringify and Object.freeze in the VU's runtime, once.
func (i *instance) builtins() {
	if i.parse != nil {
		return
	}
	rt := i.vu.Runtime()
	json := rt.Get("JSON").ToObject(rt)
	i.parse, _ = goja.AssertFunction(json.Get("parse"))
	i.stringify, _ = goja.AssertFunction(json.Get("stringify"))
	i.freeze, _ = goja.AssertFunction(rt.Get("Object").ToObject(rt).Get("freeze"))
}

// build calls the script's function and keeps each element of the array it returns as JSON.
// An element JSON cannot hold (a function, undefined) becomes null, as in JSON.stringify of the
// whole array.
func (i *instance) build(fn goja.Callable) ([]string, error) {
	v, err := fn(goja.Undefined())
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Array" {
		return nil, errors.New(MsgNotArray)
	}
	elems := make([]string, obj.Get("length").ToInteger())
	for k := range elems {
		s, err := i.stringify(goja.Undefined(), obj.Get(strconv.Itoa(k)))
		if err != nil {
			return nil, err
		}
		if goja.IsUndefined(s) {
			elems[k] = "null"
			continue
		}
		elems[k] = s.String()
	}
	return elems, nil
}

// view is a VU's read-only window on a shared array (goja.DynamicArray).
type view struct {
	inst  *instance
	elems []string
}

func (v *view) Len() int { return len(v.elems) }

// Get parses element k afresh on every read: a read gives a new, frozen value, as in k6.
func (v *view) Get(k int) goja.Value {
	if k < 0 || k >= len(v.elems) {
		return goja.Undefined()
	}
	rt := v.inst.vu.Runtime()
	val, err := v.inst.parse(goja.Undefined(), rt.ToValue(v.elems[k]))
	if err != nil {
		modules.Rethrow(err)
	}
	v.inst.deepFreeze(val)
	return val
}

func (v *view) Set(int, goja.Value) bool {
	panic(v.inst.vu.Runtime().NewTypeError(MsgImmutable))
}

func (v *view) SetLen(int) bool {
	panic(v.inst.vu.Runtime().NewTypeError(MsgImmutable))
}

// deepFreeze freezes a parsed value and every object in it. Parsed JSON has no cycles, and
// primitives are immutable already.
func (i *instance) deepFreeze(val goja.Value) {
	obj, ok := val.(*goja.Object)
	if !ok {
		return
	}
	for _, k := range obj.Keys() {
		i.deepFreeze(obj.Get(k))
	}
	if _, err := i.freeze(goja.Undefined(), obj); err != nil {
		modules.Rethrow(err)
	}
}
