// Package execution is the built-in `k6/execution` module: a default export whose `instance`,
// `scenario`, `vu` and `test` properties are read when accessed
// (docs/k6-compat.md#module-k6execution).
package execution

import (
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// New returns the module's root. Everything it reports comes from the VU and modules.Test.
func New() modules.Module { return root{} }

type root struct{}

func (root) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	return &instance{vu: vu}, nil
}

// instance builds each sub-object once per VU, on first access; their fields are getters, so
// they always show the current state.
type instance struct {
	vu       modules.VU
	exec     *goja.Object
	inst     *goja.Object
	scenario *goja.Object
	vuObj    *goja.Object
	test     *goja.Object
	options  goja.Value
}

func (i *instance) Exports() modules.Exports {
	rt := i.vu.Runtime()
	i.exec = rt.NewObject()
	getter(rt, i.exec, "instance", func() goja.Value {
		i.notInInit("instance")
		if i.inst == nil {
			i.inst = i.newInstance()
		}
		return i.inst
	})
	getter(rt, i.exec, "scenario", func() goja.Value {
		i.notInInit("scenario")
		if i.vu.Scenario() == nil {
			modules.ThrowMessage(rt, "getting scenario information outside of a scenario (e.g. in setup or teardown) is not supported")
		}
		if i.scenario == nil {
			i.scenario = i.newScenario()
		}
		return i.scenario
	})
	getter(rt, i.exec, "vu", func() goja.Value {
		i.notInInit("VU")
		if i.vuObj == nil {
			i.vuObj = i.newVU()
		}
		return i.vuObj
	})
	getter(rt, i.exec, "test", func() goja.Value {
		if i.test == nil {
			i.test = i.newTest()
		}
		return i.test
	})
	return modules.Exports{Default: i.exec}
}

func (i *instance) notInInit(what string) {
	if i.vu.InitContext() {
		modules.ThrowMessage(i.vu.Runtime(), "getting "+what+" information in the init context is not supported")
	}
}

// getter defines a read-only, enumerable accessor property backed by a Go function.
func getter(rt *goja.Runtime, obj *goja.Object, name string, get func() goja.Value) {
	fn := rt.ToValue(func(goja.FunctionCall) goja.Value { return get() })
	_ = obj.DefineAccessorProperty(name, fn, nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
}
