// Package metrics is the built-in `k6/metrics` module: the Counter, Gauge, Rate and Trend
// constructors for custom metrics (docs/k6-compat.md#module-k6metrics).
package metrics

import (
	"fmt"
	"math"
	"time"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// Messages fixed by k6 compatibility (docs/k6-compat.md#init-context).
const (
	MsgDeclareInInit = "metrics must be declared in the init context"
	MsgAddInInit     = "Adding to metrics in the init context is not supported"
)

// New returns the module's root; metrics live in the test's registry, so it holds nothing.
func New() modules.Module { return root{} }

type root struct{}

func (root) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	return &instance{vu: vu}, nil
}

type instance struct{ vu modules.VU }

func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"Counter": i.constructor("Counter", metrics.Counter),
		"Gauge":   i.constructor("Gauge", metrics.Gauge),
		"Rate":    i.constructor("Rate", metrics.Rate),
		"Trend":   i.constructor("Trend", metrics.Trend),
	}}
}

// constructor returns `new <Type>(name, isTime = false)`.
func (i *instance) constructor(typeName string, typ metrics.MetricType) goja.Value {
	rt := i.vu.Runtime()
	var proto goja.Value
	ctor := rt.ToValue(func(call goja.ConstructorCall) *goja.Object {
		// A plain call with a `this` that is not a fresh instance (e.g. `metrics.Counter(…)`)
		// would decorate the wrong object.
		if call.This.Prototype() == nil || !call.This.Prototype().SameAs(proto) {
			panic(rt.NewTypeError(typeName + " must be called with new"))
		}
		if !i.vu.InitContext() {
			modules.ThrowMessage(rt, MsgDeclareInInit)
		}
		nameVal := call.Argument(0)
		if goja.IsUndefined(nameVal) || goja.IsNull(nameVal) {
			modules.ThrowMessage(rt, typeName+"() needs a metric name")
		}
		contains := metrics.Default
		if call.Argument(1).ToBoolean() {
			contains = metrics.Time
		}
		m, err := i.vu.Test().Registry.NewMetric(nameVal.String(), typ, contains)
		if err != nil {
			modules.Throw(rt, err)
		}
		_ = call.This.DefineDataProperty("name", rt.ToValue(m.Name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
		_ = call.This.Set("add", i.add(m))
		return nil
	}).(*goja.Object)
	proto = ctor.Get("prototype")
	return ctor
}

// add returns the metric's add(value, tags?) method.
func (i *instance) add(m *metrics.Metric) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		rt := i.vu.Runtime()
		if i.vu.InitContext() {
			modules.ThrowMessage(rt, MsgAddInInit)
		}
		v, ok := i.number(m, call.Argument(0))
		if !ok {
			return rt.ToValue(false)
		}
		ts := i.vu.Tags()
		tags := ts.Current()
		if extra := modules.TagsArgument(i.vu, call.Argument(1)); extra.Len() > 0 {
			tags = tags.Merge(extra)
		}
		i.vu.Push(metrics.Sample{Metric: m, Time: time.Now(), Value: v, Tags: tags, Metadata: ts.Metadata()})
		return rt.ToValue(true)
	}
}

// number converts an added value: booleans count as 1 and 0, anything else goes through JS
// number conversion. null, undefined and NaN are rejected with a warning.
func (i *instance) number(m *metrics.Metric, v goja.Value) (float64, bool) {
	if goja.IsUndefined(v) || goja.IsNull(v) {
		i.vu.Test().Warn(i.vu, fmt.Sprintf("%s.add() was given %s; no sample is recorded", m.Name, v.String()))
		return 0, false
	}
	if b, isBool := v.Export().(bool); isBool {
		if b {
			return 1, true
		}
		return 0, true
	}
	f := v.ToFloat()
	if math.IsNaN(f) {
		i.vu.Test().Warn(i.vu, fmt.Sprintf("%s.add() was given %q, which is not a number; no sample is recorded", m.Name, v.String()))
		return 0, false
	}
	return f, true
}
