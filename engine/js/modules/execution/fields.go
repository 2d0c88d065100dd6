package execution

import (
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

func (i *instance) stats() execinfo.InstanceStats {
	if e := i.vu.Test().Exec; e != nil {
		return e.InstanceStats()
	}
	return execinfo.InstanceStats{}
}

// newInstance builds exec.instance.
func (i *instance) newInstance() *goja.Object {
	rt := i.vu.Runtime()
	o := rt.NewObject()
	getter(rt, o, "iterationsInterrupted", func() goja.Value { return rt.ToValue(i.stats().IterationsInterrupted) })
	getter(rt, o, "iterationsCompleted", func() goja.Value { return rt.ToValue(i.stats().IterationsCompleted) })
	getter(rt, o, "vusActive", func() goja.Value { return rt.ToValue(i.stats().VUsActive) })
	getter(rt, o, "vusInitialized", func() goja.Value { return rt.ToValue(i.stats().VUsInitialized) })
	getter(rt, o, "currentTestRunDuration", func() goja.Value {
		return rt.ToValue(float64(i.stats().CurrentTestRunDuration) / float64(time.Millisecond))
	})
	return o
}

// newScenario builds exec.scenario; it reads the VU's current scenario on every access, so it
// stays right when the VU moves to another scenario.
func (i *instance) newScenario() *goja.Object {
	rt := i.vu.Runtime()
	o := rt.NewObject()
	sc := func() *execinfo.Scenario {
		s := i.vu.Scenario()
		if s == nil {
			modules.ThrowMessage(rt, "getting scenario information outside of a scenario is not supported")
		}
		return s
	}
	getter(rt, o, "name", func() goja.Value { return rt.ToValue(sc().Name) })
	getter(rt, o, "executor", func() goja.Value { return rt.ToValue(sc().Executor) })
	getter(rt, o, "startTime", func() goja.Value { return rt.ToValue(sc().StartTime().UnixMilli()) })
	getter(rt, o, "progress", func() goja.Value {
		return rt.ToValue(sc().Progress())
	})
	getter(rt, o, "iterationInInstance", func() goja.Value { return rt.ToValue(i.vu.IterationInfo().ScenarioInInstance) })
	getter(rt, o, "iterationInTest", func() goja.Value { return rt.ToValue(i.vu.IterationInfo().ScenarioInTest) })
	return o
}

// newVU builds exec.vu.
func (i *instance) newVU() *goja.Object {
	rt := i.vu.Runtime()
	o := rt.NewObject()
	tags := rt.NewDynamicObject(&tagsObject{vu: i.vu})
	meta := rt.NewDynamicObject(&tagsObject{vu: i.vu, metadata: true})
	m := rt.NewObject()
	_ = m.DefineDataProperty("tags", tags, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = m.DefineDataProperty("metadata", meta, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	getter(rt, o, "idInInstance", func() goja.Value { return rt.ToValue(i.vu.ID()) })
	getter(rt, o, "idInTest", func() goja.Value { return rt.ToValue(i.vu.IDInTest()) })
	// 0 before the VU's first iteration (setup, teardown, init), as __ITER and k6.
	getter(rt, o, "iterationInInstance", func() goja.Value { return rt.ToValue(max(i.vu.Iteration(), 0)) })
	getter(rt, o, "iterationInScenario", func() goja.Value { return rt.ToValue(i.vu.IterationInfo().VUInScenario) })
	_ = o.DefineDataProperty("metrics", m, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	// Legacy alias of metrics.tags.
	_ = o.DefineDataProperty("tags", tags, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return o
}
