package js

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/checktree"
)

func TestChecksAndGroups(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
import { check, group } from "k6";
export default function () {
  globalThis.r1 = check(5, { "is five": (v) => v === 5, "truthy": 1, "is six": (v) => v === 6 });
  globalThis.r2 = group("outer", () => {
    check(null, { "in outer": true });
    return group("inner", () => { check(1, { "deep": true }, { extra: "yes" }); return 42; });
  });
  try { check(0, { "throws": () => { throw new Error("x"); } }); } catch (e) { globalThis.caught = e.message; }
}`}, "script.js", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	iterate(t, vu)
	vu.Flush()
	if global(vu, "r1") != false || global(vu, "r2") != int64(42) || global(vu, "caught") != "x" {
		t.Fatalf("r1=%v r2=%v caught=%v", global(vu, "r1"), global(vu, "r2"), global(vu, "caught"))
	}

	type key struct{ check, group string }
	got := map[key][]float64{}
	for _, s := range e.out.ByName("checks") {
		c, _ := s.Tags.Get("check")
		g, _ := s.Tags.Get("group")
		got[key{c, g}] = append(got[key{c, g}], s.Value)
		if c == "deep" {
			if x, _ := s.Tags.Get("extra"); x != "yes" {
				t.Fatalf("deep check lacks the call's tags: %v", s.Tags.Map())
			}
		}
	}
	want := map[key][]float64{
		{"is five", ""}: {1, 1}, {"truthy", ""}: {1, 1}, {"is six", ""}: {0, 0},
		{"in outer", "::outer"}: {1, 1}, {"deep", "::outer::inner"}: {1, 1}, {"throws", ""}: {0, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("check samples %v", got)
	}
	for k, v := range want {
		if g := got[k]; len(g) != 2 || g[0] != v[0] || g[1] != v[1] {
			t.Fatalf("check %v: %v, want %v", k, g, v)
		}
	}

	var groupsSeen []string
	for _, s := range e.out.ByName("group_duration") {
		g, _ := s.Tags.Get("group")
		groupsSeen = append(groupsSeen, g)
	}
	if strings.Join(groupsSeen, ",") != "::outer::inner,::outer,::outer::inner,::outer" {
		t.Fatalf("group_duration groups %v", groupsSeen)
	}

	root := e.r.Groups().Root()
	checks := root.Checks()
	if _, fails := checks[2].Counts(); len(checks) != 4 || checks[2].Name != "is six" || fails != 2 || checks[2].ID != checktree.ID("::is six") {
		t.Fatalf("root checks %+v", checks)
	}
	outer := root.Groups()[0]
	deep := outer.Groups()[0].Checks()[0]
	if passes, _ := deep.Counts(); outer.Path != "::outer" || outer.ID != checktree.ID("::outer") || deep.Path != "::outer::inner::deep" || passes != 2 {
		t.Fatalf("outer group %+v", outer)
	}
}

func TestCheckAndGroupErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"check name with ::", `check(1, { "a::b": true })`, "may not contain '::'"},
		{"group name with ::", `group("a::b", () => {})`, "may not contain '::'"},
		{"async check", `check(1, { a: async () => true })`, "check() does not support async functions"},
		{"async group", `group("g", async () => {})`, "group() does not support async functions"},
		{"fail", `fail("custom reason")`, "GoError: custom reason"},
		{"check without checks", `check(5)`, "no checks provided"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLoad(t, map[string]string{
				"script.js": `import { check, group, fail } from "k6";
export default function () { ` + tc.body + ` }`}, "script.js", Config{})
			vu := e.vu(t, 1)
			interrupted, err := outcome(vu.RunIteration(context.Background(), iterationZero))
			var se *ScriptError
			if interrupted || !errors.As(err, &se) || !strings.Contains(se.Message, tc.want) {
				t.Fatalf("interrupted=%v err=%v, want %q", interrupted, err, tc.want)
			}
			// The iteration still counts as complete.
			vu.Flush()
			if n := len(e.out.ByName("iterations")); n != 1 {
				t.Fatalf("%d iterations samples", n)
			}
		})
	}
}

func TestInitContextRestrictions(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"check", `import { check } from "k6"; check(1, { a: true });`, "check() is not allowed in the init context"},
		{"group", `import { group } from "k6"; group("g", () => {});`, "group() is not allowed in the init context"},
		{"metric add", `import { Counter } from "k6/metrics"; new Counter("cc").add(1);`, "Adding to metrics in the init context is not supported"},
		{"exec.vu", `import exec from "k6/execution"; exec.vu.idInTest;`, "getting VU information in the init context is not supported"},
		{"exec.scenario", `import exec from "k6/execution"; exec.scenario.name;`, "getting scenario information in the init context is not supported"},
		{"exec.instance", `import exec from "k6/execution"; exec.instance.vusActive;`, "getting instance information in the init context is not supported"},
		{"exec.test.options", `import exec from "k6/execution"; exec.test.options;`, "getting test options information in the init context is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"script.js": tc.src + "\nexport default function () {}"}, "script.js", Config{})
			var se *ScriptError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tc.want) || se.Line != 1 {
				t.Fatalf("err = %v, want %q at line 1", err, tc.want)
			}
		})
	}

	// And the other way round: what only init may do.
	for _, tc := range []struct{ name, body, want string }{
		{"metric constructor", `new Counter("late")`, "metrics must be declared in the init context"},
		{"new import", `require("k6/x/test")`, `cannot load module "k6/x/test" outside the init context`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLoad(t, map[string]string{"script.js": `import { Counter } from "k6/metrics";
export default function () { ` + tc.body + ` }`}, "script.js", Config{Modules: testModules(newTestModule())})
			err := e.vu(t, 1).RunIteration(context.Background(), iterationZero).Err
			var se *ScriptError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRandomSeed(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `import { randomSeed } from "k6";
export default function () { randomSeed(12); const a = Math.random(); randomSeed(12); globalThis.same = a === Math.random(); }`},
		"script.js", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	if global(vu, "same") != true {
		t.Fatal("randomSeed did not make Math.random repeatable")
	}
}
