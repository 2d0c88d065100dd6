package js

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// runOnce loads a one-file script, runs one iteration of its default function in VU 1 and
// returns the environment and RunIteration's results.
func runOnce(t *testing.T, src string) (e *env, interrupted bool, err error) {
	t.Helper()
	e = mustLoad(t, map[string]string{"script.js": src}, "script.js", Config{})
	vu := e.vu(t, 1)
	interrupted, err = outcome(vu.RunIteration(context.Background(), iterationZero))
	vu.Flush()
	return e, interrupted, err
}

func TestAsyncIterationRejectionIsLoggedLikeAThrow(t *testing.T) {
	for _, tc := range []struct {
		name, body, message, frame string
	}{
		{"throw after await", "export default async function () {\n  await null;\n  throw new Error('late');\n}\n",
			"Uncaught (in promise) Error: late", "(%s:3:9)"},
		{"throw before any await", "export default async function () {\n  throw new Error('early');\n}\n",
			"Uncaught (in promise) Error: early", "(%s:2:9)"},
		{"promise rejected and dropped", "export default function () {\n  Promise.reject(new Error('dropped'));\n}\n",
			"Uncaught (in promise) Error: dropped", "(%s:2:18)"},
		{"rejection with a string", "export default async function () { await null; throw 'just text'; }\n",
			"Uncaught (in promise) just text", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, interrupted, err := runOnce(t, tc.body)
			var se *ScriptError
			if interrupted || !errors.As(err, &se) {
				t.Fatalf("interrupted=%v err=%v, want a *ScriptError", interrupted, err)
			}
			if !strings.Contains(se.Message, tc.message) {
				t.Errorf("message %q, want %q", se.Message, tc.message)
			}
			log := e.log.String()
			if !strings.Contains(log, tc.message) || !strings.Contains(log, "level=ERROR") {
				t.Errorf("log does not show the rejection at ERROR:\n%s", log)
			}
			if tc.frame != "" {
				frame := strings.ReplaceAll(tc.frame, "%s", e.dir+"/script.js")
				if !strings.Contains(se.Stack, frame) {
					t.Errorf("stack %q, want a frame %q", se.Stack, frame)
				}
			}
			// k6 counts such an iteration as complete, like one ended by a synchronous throw.
			if n := len(e.out.ByName("iterations")); n != 1 {
				t.Errorf("%d iterations samples, want 1", n)
			}
		})
	}
}

// TestRejectionReadsLikeAThrow compares the error of an async function that throws with the one
// of the same function written synchronously: same position, same stack.
func TestRejectionReadsLikeAThrow(t *testing.T) {
	const body = "function inner() {\n  throw new Error('boom');\n}\nexport default %sfunction () {\n  %sinner();\n}\n"
	_, _, syncErr := runOnce(t, fmt.Sprintf(body, "", ""))
	_, _, asyncErr := runOnce(t, fmt.Sprintf(body, "async ", "await null; "))
	var s, a *ScriptError
	if !errors.As(syncErr, &s) || !errors.As(asyncErr, &a) {
		t.Fatalf("errors %v / %v", syncErr, asyncErr)
	}
	if a.Message != uncaughtPrefix+s.Message || a.Line != s.Line || a.Column != s.Column {
		t.Errorf("async %q at %d:%d, sync %q at %d:%d", a.Message, a.Line, a.Column, s.Message, s.Line, s.Column)
	}
	// The frames match but for the directory of each test's script and the column of the call.
	trim := func(st string) string {
		var out []string
		for _, l := range strings.Split(st, "\n") {
			_, rest, _ := strings.Cut(l, "script.js:")
			line, _, _ := strings.Cut(rest, ":")
			out = append(out, line)
		}
		return strings.Join(out, ",")
	}
	if trim(a.Stack) != trim(s.Stack) || !strings.Contains(a.Stack, "at inner (") {
		t.Errorf("async stack:\n%s\nsync stack:\n%s", a.Stack, s.Stack)
	}
}

func TestAsyncIterationHandledRejectionIsNotAnError(t *testing.T) {
	e, interrupted, err := runOnce(t, `export default async function () {
  try { await Promise.reject(new Error('caught')); } catch (e) { globalThis.caught = e.message; }
  const p = Promise.reject(new Error('handled later'));
  await null;
  p.catch(() => {});
}`)
	if interrupted || err != nil {
		t.Fatalf("interrupted=%v err=%v\n%s", interrupted, err, e.log.String())
	}
	if strings.Contains(e.log.String(), "Uncaught") {
		t.Fatalf("a handled rejection was reported:\n%s", e.log.String())
	}
}

func TestIterationWaitsForWhatItQueued(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
import { setTimeout as st } from "k6/timers";
export default async function () {
  const order = [];
  setTimeout(() => order.push("timeout 20"), 20);
  st(() => order.push("timeout 0 (k6/timers)"), 0);
  Promise.resolve().then(() => order.push("microtask"));
  await new Promise((resolve) => setTimeout(resolve, 5));
  order.push("after await");
  globalThis.order = order;
  setTimeout(() => { order.push("after return"); globalThis.done = true; }, 1);
}`}, "script.js", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	if global(vu, "done") != true {
		t.Fatal("the iteration ended before its last timer ran")
	}
	// "timeout 20" runs last or before "after return", depending on how long the 5 ms wait took.
	got := strings.Replace(joinAny(vu.Runtime().Get("order").Export()), ",timeout 20", "", 1)
	if want := "microtask,timeout 0 (k6/timers),after await,after return"; got != want {
		t.Fatalf("order %s, want %s (and timeout 20)", got, want)
	}
	if !strings.Contains(joinAny(vu.Runtime().Get("order").Export()), "timeout 20") {
		t.Fatal("the iteration ended before its 20 ms timer ran")
	}
}

func joinAny(v any) string {
	list, _ := v.([]any)
	s := make([]string, len(list))
	for i, x := range list {
		s[i], _ = x.(string)
	}
	return strings.Join(s, ",")
}

func TestTimersClearAndInterval(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
import { setInterval, clearInterval, clearTimeout } from "k6/timers";
export default function () {
  globalThis.ticks = 0;
  const never = setTimeout(() => { globalThis.fired = true; }, 1);
  clearTimeout(never);
  const id = setInterval((step) => { globalThis.ticks += step; if (globalThis.ticks >= 3) clearInterval(id); }, 1, 1);
  globalThis.ids = [typeof never, never > 0, id !== never];
}`}, "script.js", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	if global(vu, "fired") != nil {
		t.Error("a cleared timeout ran")
	}
	if n := global(vu, "ticks"); n != int64(3) {
		t.Errorf("ticks %v, want 3", n)
	}
	if s := joinAny(global(vu, "ids")); s != "number,," {
		ids := vu.Runtime().Get("ids").Export().([]any)
		if ids[0] != "number" || ids[1] != true || ids[2] != true {
			t.Errorf("timer ids %v: want positive, distinct numbers", ids)
		}
	}
}

func TestTimerCallbackThrowEndsTheIteration(t *testing.T) {
	e, interrupted, err := runOnce(t, "export default function () {\n  setTimeout(() => { throw new Error('in timer'); }, 1);\n  setTimeout(() => { globalThis.second = true; }, 50);\n}\n")
	var se *ScriptError
	if interrupted || !errors.As(err, &se) || !strings.Contains(se.Message, "Error: in timer") {
		t.Fatalf("interrupted=%v err=%v", interrupted, err)
	}
	if !strings.Contains(e.log.String(), "in timer") {
		t.Fatalf("log:\n%s", e.log.String())
	}
}

func TestUnclearedIntervalIsInterrupted(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
export function quick() { globalThis.quickRan = (globalThis.quickRan || 0) + 1; }
export default function () { globalThis.n = 0; setInterval(() => { globalThis.n++; }, 1); }`}, "script.js", Config{})
	vu := e.vu(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	interrupted, err := outcome(vu.RunIteration(ctx, iterationZero))
	if !interrupted || err != nil {
		t.Fatalf("interrupted=%v err=%v, want interrupted", interrupted, err)
	}
	if err := vu.Activate(&scenarioQuick); err != nil {
		t.Fatal(err)
	}
	n := global(vu, "n")
	iterate(t, vu)
	if global(vu, "n") != n {
		t.Fatal("the interval of an interrupted iteration kept running in the next one")
	}
}

func TestAsyncSetupTeardownAndSummary(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
export async function setup() {
  await new Promise((r) => setTimeout(r, 1));
  return { token: "abc", n: 2 };
}
export default function (data) { globalThis.got = data.token + data.n; }
export async function teardown(data) {
  await null;
  if (data.token !== "abc") throw new Error("teardown got " + JSON.stringify(data));
}
export async function handleSummary(data) {
  await new Promise((r) => setTimeout(r, 1));
  return { stdout: "async summary " + data.x };
}`}, "script.js", Config{})
	ctx := context.Background()
	data, err := e.r.Setup(ctx)
	if err != nil || string(data) != `{"token":"abc","n":2}` {
		t.Fatalf("setup data %s, err %v", data, err)
	}
	vu := e.vu(t, 1)
	iterate(t, vu)
	if got := global(vu, "got"); got != "abc2" {
		t.Fatalf("the VU got %v", got)
	}
	if err := e.r.Teardown(ctx); err != nil {
		t.Fatalf("teardown: %v", err)
	}
	res, err := e.r.HandleSummary(ctx, []byte(`{"x": 7}`))
	if err != nil || !res.Handled || len(res.Outputs) != 1 || string(res.Outputs[0].Data) != "async summary 7" {
		t.Fatalf("handleSummary: %+v %v", res, err)
	}
}

func TestAsyncSetupRejectionIsAScriptError(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
export async function setup() { await null; throw new Error("no data"); }
export default function () {}`}, "script.js", Config{})
	_, err := e.r.Setup(context.Background())
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "Uncaught (in promise) Error: no data") {
		t.Fatalf("err %v, want an uncaught rejection", err)
	}
	if code, _ := ExitCode(err); code != 107 {
		t.Fatalf("exit code %d, want 107", code)
	}
}

func TestAsyncTeardownRejection(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
export default function () {}
export async function teardown() { await null; throw new Error("td"); }`}, "script.js", Config{})
	var se *ScriptError
	if err := e.r.Teardown(context.Background()); !errors.As(err, &se) || !strings.Contains(se.Message, "Error: td") {
		t.Fatalf("err %v", err)
	}
}

func TestSetupTimeoutWhileAwaiting(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
export async function setup() { await new Promise(() => setInterval(() => {}, 1)); }
export default function () {}`}, "script.js", Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := e.r.Setup(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Stage != "setup" {
		t.Fatalf("err %v, want a setup timeout", err)
	}
}

// TestInterruptedTimersAreReported: timers an interrupted iteration leaves behind are dropped
// with k6's warning, one per timer.
func TestInterruptedTimersAreReported(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
export default async function () {
  setTimeout(() => {}, 60000);
  setInterval(() => {}, 60000);
  const gone = setTimeout(() => {}, 60000);
  clearTimeout(gone);
  stop(); // the run stops the iteration now
  await new Promise(() => {}); // never settles: only the interrupt ends the iteration
}`}, "script.js", Config{})
	vu := e.vu(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := vu.Runtime().Set("stop", cancel); err != nil {
		t.Fatal(err)
	}
	if interrupted, err := outcome(vu.RunIteration(ctx, iterationZero)); !interrupted || err != nil {
		t.Fatalf("interrupted=%v err=%v, want interrupted", interrupted, err)
	}
	log := e.log.String()
	for _, want := range []string{
		`level=WARN msg="setTimeout 1 was stopped because the VU iteration was interrupted"`,
		`level=WARN msg="setInterval 2 was stopped because the VU iteration was interrupted"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "setTimeout 3") {
		t.Errorf("a cleared timer was reported:\n%s", log)
	}
}

// TestTimersModuleIsTheGlobals: k6/timers exports the global functions themselves.
func TestTimersModuleIsTheGlobals(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `
import * as timers from "k6/timers";
globalThis.same = ["setTimeout", "clearTimeout", "setInterval", "clearInterval"].map((n) => timers[n] === globalThis[n]).join();
export default function () {}`}, "script.js", Config{})
	if got := global(e.vu(t, 1), "same"); got != "true,true,true,true" {
		t.Errorf("k6/timers === globals: %v", got)
	}
}
