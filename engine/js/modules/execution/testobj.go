package execution

import (
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// newTest builds exec.test: abort, fail and options.
func (i *instance) newTest() *goja.Object {
	rt := i.vu.Runtime()
	o := rt.NewObject()
	_ = o.Set("abort", func(call goja.FunctionCall) goja.Value {
		err := i.vu.Test().Outcome.Abort(reason(call))
		// An interrupt cannot be caught by the script: the VU stops at its next instruction and
		// the runner reports the abort error.
		rt.Interrupt(err)
		return goja.Undefined()
	})
	_ = o.Set("fail", func(call goja.FunctionCall) goja.Value {
		msg := reason(call)
		i.vu.Test().Outcome.Fail(msg)
		i.vu.Test().Logger.Error("test marked as failed: "+msg, "vu", i.vu.ID(), "iter", i.vu.Iteration())
		return goja.Undefined()
	})
	getter(rt, o, "options", func() goja.Value {
		i.notInInit("test options")
		if i.options == nil {
			i.options = i.parseOptions()
		}
		return i.options
	})
	return o
}

func reason(call goja.FunctionCall) string {
	if a := call.Argument(0); !goja.IsUndefined(a) && !goja.IsNull(a) {
		return a.String()
	}
	return ""
}

// parseOptions turns the consolidated options into a deeply frozen JS object: scripts read it,
// and changing it would not change the run.
func (i *instance) parseOptions() goja.Value {
	rt := i.vu.Runtime()
	raw := i.vu.Test().Options
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	parse, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	v, err := parse(goja.Undefined(), rt.ToValue(string(raw)))
	if err != nil {
		modules.Rethrow(err)
	}
	freeze, _ := goja.AssertFunction(rt.Get("Object").ToObject(rt).Get("freeze"))
	deepFreeze(freeze, v)
	return v
}

func deepFreeze(freeze goja.Callable, v goja.Value) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return
	}
	for _, k := range obj.Keys() {
		deepFreeze(freeze, obj.Get(k))
	}
	_, _ = freeze(goja.Undefined(), obj)
}
