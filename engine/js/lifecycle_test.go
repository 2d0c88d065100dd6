package js

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/internal/exitcode"
)

func TestLifecycleOrderAndVUIDs(t *testing.T) {
	mod := newTestModule()
	e := mustLoad(t, map[string]string{
		"script.js": `
import { record } from "k6/x/test";
record("init vu=" + __VU);
export function setup() { record("setup vu=" + __VU); }
export default function () { record("default vu=" + __VU + " iter=" + __ITER); }
export function teardown() { record("teardown vu=" + __VU); }
export function handleSummary() { record("summary vu=" + __VU); }
`}, "script.js", Config{Modules: testModules(mod)})
	ctx := context.Background()
	if _, err := e.r.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	vu := e.vu(t, 7)
	iterate(t, vu)
	iterate(t, vu)
	vu.Flush()
	if err := e.r.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.HandleSummary(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"init vu=0",               // options VU (Load)
		"init vu=0", "setup vu=0", // setup VU
		"init vu=7", // VU 7
		"default vu=7 iter=0", "default vu=7 iter=1",
		"init vu=0", "teardown vu=0", // teardown VU
		"init vu=0", "summary vu=0", // handleSummary VU
	}
	if got := mod.log(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range e.out.ByName("iterations") {
		if g, _ := s.Tags.Get("group"); g != "" {
			t.Fatalf("iterations sample group tag %q", g)
		}
	}
	if n := len(e.out.ByName("iterations")); n != 2 {
		t.Fatalf("%d iterations samples, want 2 (setup/teardown emit none)", n)
	}
}

func TestSetupData(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
export function setup() {
  return { n: 1, list: [1, 2], fn: function () {}, when: undefined, nested: { ok: true } };
}
export default function (data) {
  data.n++;            // mutations persist within this VU only
  data.list.push(__ITER);
  globalThis.seen = JSON.stringify(data);
  globalThis.same = globalThis.prev === undefined || globalThis.prev === data;
  globalThis.prev = data;
}
export function teardown(data) { if (data.n !== 1 || data.list.length !== 2) throw new Error("teardown got " + JSON.stringify(data)); }
`}, "script.js", Config{})
	data, err := e.r.Setup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"n":1,"list":[1,2],"nested":{"ok":true}}` {
		t.Fatalf("setup JSON = %s", data)
	}
	vu1, vu2 := e.vu(t, 1), e.vu(t, 2)
	iterate(t, vu1)
	iterate(t, vu1)
	iterate(t, vu2)
	if got := global(vu1, "seen"); got != `{"n":3,"list":[1,2,0,1],"nested":{"ok":true}}` {
		t.Fatalf("vu1 data = %v", got)
	}
	if global(vu1, "same") != true {
		t.Fatal("vu1 got a new setup object on its second iteration")
	}
	if got := global(vu2, "seen"); got != `{"n":2,"list":[1,2,0],"nested":{"ok":true}}` {
		t.Fatalf("vu2 data = %v: mutations leaked between VUs", got)
	}
	if err := e.r.Teardown(context.Background()); err != nil {
		t.Fatalf("teardown did not get a fresh parse: %v", err)
	}
}

func TestSetupUndefined(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
export function setup() {}
export default function (data) { globalThis.kind = typeof data + "/" + arguments.length; }
export function teardown(data) { if (data !== undefined) throw new Error("teardown data " + data); }
`}, "script.js", Config{})
	data, err := e.r.Setup(context.Background())
	if err != nil || data != nil {
		t.Fatalf("setup = %q, %v; want nil (undefined)", data, err)
	}
	vu := e.vu(t, 1)
	iterate(t, vu)
	if got := global(vu, "kind"); got != "undefined/1" {
		t.Fatalf("default saw %v", got)
	}
	if err := e.r.Teardown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestSetupErrors(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
export function setup() { throw new Error("no setup for you"); }
export default function () {}`}, "script.js", Config{})
	_, err := e.r.Setup(context.Background())
	var se *ScriptError
	if !errors.As(err, &se) || se.Message != "Error: no setup for you" || se.Line != 2 {
		t.Fatalf("setup err = %v", err)
	}
	if code, _ := ExitCode(err); code != exitcode.ScriptException {
		t.Fatalf("exit code %d", code)
	}

	e = mustLoad(t, map[string]string{
		"script.js": `
import { sleep } from "k6";
export function setup() { sleep(10); }
export function teardown() { while (true) {} }
export default function () {}`}, "script.js", Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = e.r.Setup(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Stage != "setup" {
		t.Fatalf("setup timeout err = %v", err)
	}
	if code, _ := ExitCode(err); code != exitcode.SetupTimeout {
		t.Fatalf("exit code %d", code)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if err := e.r.Teardown(ctx2); !errors.As(err, &te) || te.ExitCode() != exitcode.TeardownTimeout {
		t.Fatalf("teardown timeout err = %v", err)
	}
}

func TestEnvVUIter(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
export const initSeen = __ENV.BASE + "/" + __VU + "/" + __ITER;
export default function () {
  globalThis.seen = [__ENV.BASE, __ENV.SC, __VU, __ITER].join("/");
  __ENV.BASE = "changed-by-" + __VU; // a plain mutable object, per VU
}
export function other() { globalThis.seen = [__ENV.BASE, __ENV.SC, __ITER].join("/"); }
`}, "script.js", Config{Env: map[string]string{"BASE": "b"}})
	vu := e.vu(t, 3)
	if got := vu.exports.Get("initSeen").String(); got != "b/3/0" {
		t.Fatalf("init saw %s", got)
	}
	iterate(t, vu)
	if got := global(vu, "seen"); got != "b//3/0" {
		t.Fatalf("iteration 0 saw %v", got)
	}
	iterate(t, vu)
	if got := global(vu, "seen"); got != "changed-by-3//3/1" {
		t.Fatalf("iteration 1 saw %v", got)
	}
	// A new activation with env: a fresh __ENV of test env + scenario env; __ITER keeps counting.
	if err := vu.Activate(&execinfo.Scenario{Name: "s2", Exec: "other", Env: map[string]string{"SC": "x", "BASE": "sc"}}); err != nil {
		t.Fatal(err)
	}
	iterate(t, vu)
	if got := global(vu, "seen"); got != "sc/x/2" {
		t.Fatalf("after activation saw %v", got)
	}
	// The next scenario without env does not see the previous scenario's values.
	vu.Deactivate()
	if err := vu.RunIteration(context.Background(), iterationZero).Err; !errors.Is(err, ErrNotActivated) {
		t.Fatalf("RunIteration after Deactivate: %v", err)
	}
	if err := vu.Activate(&execinfo.Scenario{Name: "s3", Exec: "other"}); err != nil {
		t.Fatal(err)
	}
	iterate(t, vu)
	if got := global(vu, "seen"); got != "b//3" {
		t.Fatalf("after a scenario without env saw %v", got)
	}
	if other := e.vu(t, 4); global(other, "__ENV").(map[string]any)["BASE"] != "b" {
		t.Fatal("__ENV changes leaked to another VU")
	}
	if err := vu.Activate(&execinfo.Scenario{Name: "bad", Exec: "missing"}); err == nil {
		t.Fatal("activating a missing exec function succeeded")
	}
}

func TestOptionsAndExports(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
export const options = {
  vus: 5, duration: "30s", iterations: undefined,
  scenarios: { a: { executor: "constant-vus", vus: 2, duration: 60000, exec: "a" } },
  thresholds: { checks: ["rate>0.99"] },
};
export function a() {}
export default function () {}`}, "script.js", Config{})
	want := `{"vus":5,"duration":"30s","scenarios":{"a":{"executor":"constant-vus","vus":2,"duration":60000,"exec":"a"}},"thresholds":{"checks":["rate>0.99"]}}`
	if got := string(e.r.Options()); got != want {
		t.Fatalf("options:\n%s\nwant\n%s", got, want)
	}
	if !e.r.HasFunction("a") || !e.r.HasFunction("default") || e.r.HasFunction("options") || e.r.HasFunction("setup") {
		t.Fatal("HasFunction is wrong")
	}
	e = mustLoad(t, map[string]string{"s.js": "export default function () {}"}, "s.js", Config{})
	if string(e.r.Options()) != "{}" {
		t.Fatalf("no options = %s", e.r.Options())
	}
}
