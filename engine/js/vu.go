package js

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/js/eventloop"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dop251/goja"
)

// maxCallStackSize bounds JS recursion so that runaway recursion is a RangeError, not a crash.
const maxCallStackSize = 10000

// VU is one virtual user: a JavaScript runtime that has run the script's init context and then
// runs iterations. A VU is used by one goroutine at a time; it owns no goroutines.
type VU struct {
	r        *Script
	rt       *goja.Runtime
	loop     *eventloop.Loop
	id       uint64
	idInTest uint64
	iter     int64
	inInit   bool
	ctx      context.Context
	tags     *modules.TagSet

	buf       []metrics.Sample
	lastFlush time.Time
	sent      int64
	received  int64
	// fold holds the buffer's samples as deltas while the pusher lets the VU fold (samples.go).
	fold metrics.Fold

	// mods holds each evaluated module by key (file path or module name): for a file, its
	// `module` object; for a Go module, its exports object.
	mods    map[string]*goja.Object
	exports *goja.Object
	// timers are setTimeout and its kin, made once: the globals and k6/timers' exports are the
	// same functions.
	timers map[string]any
	env    *goja.Object
	// scenarioEnv says the current __ENV holds a scenario's env (see Activate).
	scenarioEnv bool

	scenario *execinfo.Scenario
	iterInfo execinfo.Iteration
	execFn   goja.Callable

	setupParsed bool
	setupValue  goja.Value
	jsonParse   goja.Callable
	jsonStr     goja.Callable

	watch watch
}

// NewVU creates a VU with __VU = id and runs the script's init context in it. idInTest is the
// VU's id across all instances of a distributed run (exec.vu.idInTest; equal to id on a single
// instance). Init exceptions come back as *ScriptError. ctx bounds the init context only.
func (r *Script) NewVU(ctx context.Context, id, idInTest uint64) (*VU, error) {
	return r.newVU(ctx, id, idInTest)
}

func (r *Script) newVU(ctx context.Context, id, idInTest uint64) (*VU, error) {
	rt := goja.New()
	rt.SetFieldNameMapper(goja.UncapFieldNameMapper())
	rt.SetMaxCallStackSize(maxCallStackSize)
	vu := &VU{
		r: r, rt: rt, id: id, idInTest: idInTest, iter: -1,
		ctx:       context.Background(),
		tags:      modules.NewTagSet(r.runTags, r.test.Groups.Root()),
		lastFlush: time.Now(),
		mods:      map[string]*goja.Object{},
	}
	vu.loop = eventloop.New(rt, func(v goja.Value) error { return rejectionError(rt, v) }, func(msg string) {
		vu.r.test.Logger.Warn(msg)
	})
	if err := vu.setGlobals(); err != nil {
		return nil, err
	}
	if r.vuMetadata {
		vu.tags.SetMetadata("vu", strconv.FormatUint(id, 10))
	}

	vu.inInit = true
	vu.arm(ctx)
	var module *goja.Object
	err := vu.loop.Run(ctx, func() (err error) {
		module, err = vu.evalFile(vu.r.main)
		return err
	})
	vu.disarm()
	vu.inInit = false
	if err != nil {
		return nil, vu.initError(ctx, err)
	}
	exp, ok := module.Get("exports").(*goja.Object)
	if !ok {
		exp = rt.NewObject()
	}
	vu.exports = exp
	return vu, nil
}

// initError turns a failure of the init context into the error NewVU returns.
func (vu *VU) initError(ctx context.Context, err error) error {
	abort, interrupted, script := fromJS(err)
	switch {
	case abort != nil:
		return abort
	case interrupted && ctx.Err() != nil:
		return fmt.Errorf("init of VU %d: %w", vu.id, ctx.Err())
	case interrupted:
		return fmt.Errorf("init of VU %d interrupted", vu.id)
	}
	return script
}

func (vu *VU) setGlobals() error {
	rt := vu.rt
	if err := vu.resetEnv(nil); err != nil {
		return err
	}
	// __ITER is a getter so that starting an iteration costs no property write.
	iter := rt.ToValue(func(goja.FunctionCall) goja.Value { return rt.ToValue(max(vu.iter, 0)) })
	if err := rt.GlobalObject().DefineAccessorProperty("__ITER", iter, nil, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
		return err
	}
	globals := map[string]any{
		"__VU":    vu.id,
		"console": newConsole(vu),
		"open":    vu.openFunc(vu.r.main.Dir),
		"require": vu.requireFunc(vu.r.main.Dir),
	}
	vu.timers = map[string]any{}
	for name, fn := range vu.loop.TimerFunctions() {
		vu.timers[name] = rt.ToValue(fn)
		globals[name] = vu.timers[name]
	}
	if vu.r.cfg.CompatibilityMode != "base" {
		globals["global"] = rt.GlobalObject()
	}
	for name, v := range globals {
		if err := rt.Set(name, v); err != nil {
			return err
		}
	}
	return nil
}

// resetEnv sets __ENV to a new object: the test env overridden by extra.
func (vu *VU) resetEnv(extra map[string]string) error {
	env := vu.rt.NewObject()
	for _, m := range []map[string]string{vu.r.cfg.Env, extra} {
		for k, v := range m {
			if err := env.Set(k, v); err != nil {
				return err
			}
		}
	}
	vu.env = env
	return vu.rt.Set("__ENV", env)
}

// exportJSON returns an export of the main module as JSON, or nil when it is undefined.
func (vu *VU) exportJSON(name string) (json.RawMessage, error) {
	v := vu.exports.Get(name)
	if v == nil || goja.IsUndefined(v) {
		return nil, nil
	}
	s, err := vu.stringify(v)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, nil
	}
	return json.RawMessage(s), nil
}

// exportedFunctions lists the main module's exports that are functions.
func (vu *VU) exportedFunctions() map[string]bool {
	fns := map[string]bool{}
	for _, k := range vu.exports.Keys() {
		if _, ok := goja.AssertFunction(vu.exports.Get(k)); ok {
			fns[k] = true
		}
	}
	return fns
}

// stringify is JSON.stringify: nil for undefined (and functions), which JSON cannot hold.
func (vu *VU) stringify(v goja.Value) ([]byte, error) {
	if vu.jsonStr == nil {
		vu.jsonStr, _ = goja.AssertFunction(vu.rt.Get("JSON").ToObject(vu.rt).Get("stringify"))
	}
	out, err := vu.jsonStr(goja.Undefined(), v)
	if err != nil {
		_, _, script := fromJS(err)
		if script == nil {
			return nil, err
		}
		return nil, script
	}
	if goja.IsUndefined(out) {
		return nil, nil
	}
	return []byte(out.String()), nil
}

// parseJSON is JSON.parse; nil data is undefined.
func (vu *VU) parseJSON(data []byte) (goja.Value, error) {
	if data == nil {
		return goja.Undefined(), nil
	}
	if vu.jsonParse == nil {
		vu.jsonParse, _ = goja.AssertFunction(vu.rt.Get("JSON").ToObject(vu.rt).Get("parse"))
	}
	return vu.jsonParse(goja.Undefined(), vu.rt.ToValue(string(data)))
}

// ID returns __VU.
func (vu *VU) ID() uint64 { return vu.id }

// Runtime returns the VU's goja runtime, e.g. for tests that inspect script state. Use it only
// from the goroutine that drives the VU.
func (vu *VU) Runtime() *goja.Runtime { return vu.rt }
