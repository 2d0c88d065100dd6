package k6

import (
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// group(name, fn) runs fn with the group tag set to <parent>::<name>, pushes its group_duration
// and returns fn's result.
func (i *instance) group(call goja.FunctionCall) goja.Value {
	rt := i.vu.Runtime()
	modules.ThrowInInit(i.vu, "group()")
	name := call.Argument(0).String()
	fnVal := call.Argument(1)
	fn, ok := goja.AssertFunction(fnVal)
	if !ok {
		modules.ThrowMessage(rt, "group() needs a function as its second argument")
	}
	if modules.IsAsyncFunction(fnVal) {
		modules.ThrowMessage(rt, "group() does not support async functions")
	}
	ts := i.vu.Tags()
	parent := ts.Group()
	g := i.child(parent, name)

	ts.SetGroup(g)
	tags, meta := ts.Current(), ts.Metadata()
	start := time.Now()
	res, err := fn(goja.Undefined())
	end := time.Now()
	ts.SetGroup(parent)
	if err != nil {
		if _, interrupted := err.(*goja.InterruptedError); interrupted {
			modules.Rethrow(err)
		}
	}
	i.vu.Push(metrics.Sample{
		Metric: i.vu.Test().Builtin.GroupDuration, Time: end,
		Value: float64(end.Sub(start)) / float64(time.Millisecond), Tags: tags, Metadata: meta,
	})
	if err != nil {
		modules.Rethrow(err)
	}
	return res
}

func (i *instance) child(parent *checktree.Group, name string) *checktree.Group {
	k := childKey{parent, name}
	if g, ok := i.children[k]; ok {
		return g
	}
	g, err := parent.Child(name)
	if err != nil {
		modules.Throw(i.vu.Runtime(), err)
	}
	i.children[k] = g
	return g
}
