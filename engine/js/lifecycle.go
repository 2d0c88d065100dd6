package js

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// Setup runs the script's setup() in a fresh VU with __VU = 0, in group "::setup", and returns
// its result as JSON (nil when it returned undefined, or when there is no setup). The result is
// also kept for VUs and teardown (see SetupData). Errors: *ScriptError for an exception (exit 107;
// teardown must not run), *TimeoutError when ctx's deadline passes (exit 100),
// *modules.AbortError for exec.test.abort.
func (r *Script) Setup(ctx context.Context) ([]byte, error) {
	if !r.functions["setup"] {
		return nil, nil
	}
	vu, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	v, err := vu.runStage(ctx, "setup")
	if err != nil {
		return nil, err
	}
	data, err := vu.stringify(v)
	if err != nil {
		return nil, fmt.Errorf("setup() result: %w", err)
	}
	r.SetSetupData(data)
	return data, nil
}

// Teardown runs the script's teardown(data) in a fresh VU with __VU = 0, in group "::teardown",
// passing its own parse of the setup data. Errors are as for Setup (timeout: exit 101).
func (r *Script) Teardown(ctx context.Context) error {
	if !r.functions["teardown"] {
		return nil
	}
	vu, err := r.newVU(ctx, 0, 0)
	if err != nil {
		return err
	}
	_, err = vu.runStage(ctx, "teardown")
	return err
}

// runStage calls setup or teardown with the lifecycle rules: a group of its own, the stage's
// context, and the data samples flushed at the end.
func (vu *VU) runStage(ctx context.Context, stage string) (goja.Value, error) {
	var args []goja.Value
	if stage == "teardown" {
		data, err := vu.parseJSON(vu.r.SetupData())
		if err != nil {
			return nil, fmt.Errorf("setup data: %w", err)
		}
		args = append(args, data)
	}
	fn, _ := goja.AssertFunction(vu.exports.Get(stage))
	vu.tags.SetGroup(vu.r.test.Groups.Root().Detached(stage))

	vu.arm(ctx)
	v, err := vu.call(ctx, fn, args...)
	vu.disarm()
	now := time.Now()
	vu.emitData(now)
	vu.flush(now)
	if err != nil {
		return nil, stageError(ctx, stage, err)
	}
	return v, nil
}

// call runs a lifecycle function on the event loop and returns its result: for a function that
// returned a promise (an async function), the value the promise resolved to, as k6 does
// (grafana/k6 internal/js/runner.go, unPromisify); a rejection nobody handled is an error.
func (vu *VU) call(ctx context.Context, fn goja.Callable, args ...goja.Value) (goja.Value, error) {
	var v goja.Value
	err := vu.loop.Run(ctx, func() (err error) {
		v, err = fn(goja.Undefined(), args...)
		return err
	})
	if err != nil {
		return nil, err
	}
	if p, ok := v.Export().(*goja.Promise); ok {
		if p.State() != goja.PromiseStateFulfilled {
			return goja.Undefined(), nil
		}
		return p.Result(), nil
	}
	return v, nil
}

// stageError classifies the failure of a lifecycle function.
func stageError(ctx context.Context, stage string, err error) error {
	abort, interrupted, script := fromJS(err)
	switch {
	case abort != nil:
		return abort
	case interrupted && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{Stage: stage}
	case interrupted && ctx.Err() != nil:
		return fmt.Errorf("%s(): %w", stage, ctx.Err())
	case interrupted:
		return fmt.Errorf("%s() interrupted", stage)
	}
	return script
}
