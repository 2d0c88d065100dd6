package k6

import (
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// check(val, {name: fnOrValue, …}, tags?) evaluates each entry in key order, pushes one `checks`
// sample per entry tagged check=<name>, counts it in the group tree and returns whether all
// passed. A throwing entry counts as failed and the exception propagates.
func (i *instance) check(call goja.FunctionCall) goja.Value {
	rt := i.vu.Runtime()
	modules.ThrowInInit(i.vu, "check()")
	val, sets := call.Argument(0), call.Argument(1)
	if goja.IsUndefined(sets) || goja.IsNull(sets) {
		modules.ThrowMessage(rt, "no checks provided") // k6 throws rather than pass nothing
	}
	obj := sets.ToObject(rt)
	extra := modules.TagsArgument(i.vu, call.Argument(2))
	ts := i.vu.Tags()
	group, base := ts.Group(), ts.Current()
	if extra.Len() > 0 {
		base = base.Merge(extra)
	}

	all := true
	for _, name := range obj.Keys() {
		c := i.checkIn(group, name)
		entry := obj.Get(name)
		var pass bool
		if fn, ok := goja.AssertFunction(entry); ok {
			if modules.IsAsyncFunction(entry) {
				modules.ThrowMessage(rt, "check() does not support async functions")
			}
			res, err := fn(goja.Undefined(), val)
			if err != nil {
				if _, interrupted := err.(*goja.InterruptedError); !interrupted {
					i.record(c, false, base, extra.Len() == 0)
				}
				modules.Rethrow(err)
			}
			pass = res.ToBoolean()
		} else {
			pass = entry.ToBoolean()
		}
		i.record(c, pass, base, extra.Len() == 0)
		all = all && pass
	}
	return rt.ToValue(all)
}

// checkIn returns the named check of group, rejecting names with "::".
func (i *instance) checkIn(group *checktree.Group, name string) *checktree.Check {
	k := childKey{group, name}
	if c, ok := i.checks[k]; ok {
		return c
	}
	c, err := group.Check(name)
	if err != nil {
		modules.Throw(i.vu.Runtime(), err)
	}
	i.checks[k] = c
	return c
}

// record counts a check result and pushes its sample. cacheable says whether base is the VU's
// own tag set (whose check variants are worth caching) rather than a one-off merge.
func (i *instance) record(c *checktree.Check, pass bool, base *metrics.Tags, cacheable bool) {
	c.Record(pass)
	var tags *metrics.Tags
	if cacheable {
		k := tagKey{base, c.Name}
		if tags = i.checkTags[k]; tags == nil {
			if len(i.checkTags) >= maxCachedCheckTags {
				clear(i.checkTags)
			}
			tags = base.With("check", c.Name)
			i.checkTags[k] = tags
		}
	} else {
		tags = base.With("check", c.Name)
	}
	v := 0.0
	if pass {
		v = 1
	}
	i.vu.Push(metrics.Sample{
		Metric: i.vu.Test().Builtin.Checks, Time: time.Now(), Value: v,
		Tags: tags, Metadata: i.vu.Tags().Metadata(),
	})
}
