// Package k6 is the built-in `k6` module: check, group, sleep, fail and randomSeed
// (docs/k6-compat.md#module-k6).
package k6

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// New returns the module's root. It holds nothing: group and check state is test-wide in
// modules.Test.Groups.
func New() modules.Module { return root{} }

type root struct{}

func (root) NewModuleInstance(vu modules.VU) (modules.Instance, error) {
	return &instance{
		vu:        vu,
		children:  map[childKey]*checktree.Group{},
		checks:    map[childKey]*checktree.Check{},
		checkTags: map[tagKey]*metrics.Tags{},
	}, nil
}

// instance keeps per-VU caches so that a check or group in a hot loop neither takes the tree's
// lock nor builds a tag set.
type instance struct {
	vu        modules.VU
	children  map[childKey]*checktree.Group
	checks    map[childKey]*checktree.Check
	checkTags map[tagKey]*metrics.Tags
}

type childKey struct {
	parent *checktree.Group
	name   string
}

type tagKey struct {
	base *metrics.Tags
	name string
}

// maxCachedCheckTags bounds checkTags: tag sets change with user tags and groups, and a script
// that keeps changing them must not grow the cache forever.
const maxCachedCheckTags = 4096

func (i *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"check":      i.check,
		"group":      i.group,
		"sleep":      i.sleep,
		"fail":       i.fail,
		"randomSeed": i.randomSeed,
	}}
}

// sleep pauses the VU for a float number of seconds, returning early when the iteration ends.
func (i *instance) sleep(call goja.FunctionCall) goja.Value {
	secs := call.Argument(0).ToFloat()
	if math.IsNaN(secs) || secs <= 0 {
		return goja.Undefined()
	}
	t := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer t.Stop()
	ctx := i.vu.Context()
	select {
	case <-t.C:
	case <-ctx.Done():
		// Stop the script right here rather than at whatever instruction the runner's own
		// interrupt reaches first, so nothing after sleep() runs in an interrupted iteration.
		i.vu.Runtime().Interrupt(ctx.Err())
	}
	return goja.Undefined()
}

// fail throws "GoError: <msg>", which ends the iteration like any uncaught exception.
func (i *instance) fail(call goja.FunctionCall) goja.Value {
	msg := ""
	if a := call.Argument(0); !goja.IsUndefined(a) {
		msg = a.String()
	}
	modules.Throw(i.vu.Runtime(), errors.New(msg))
	return nil
}

// randomSeed makes Math.random of this VU deterministic.
func (i *instance) randomSeed(call goja.FunctionCall) goja.Value {
	seed := call.Argument(0).ToInteger()
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	i.vu.Runtime().SetRandSource(r.Float64)
	return goja.Undefined()
}
