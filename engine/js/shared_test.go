package js

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/dnecho/dnecho/engine/js/modules/data"
)

func TestSharedArrayBuiltOnceAndReadOnly(t *testing.T) {
	mod := newTestModule()
	e := mustLoad(t, map[string]string{
		"data.json": `[{"user": "ann", "tags": ["a"]}, {"user": "bob", "tags": []}, {"user": "cy", "tags": ["c", "d"]}]`,
		"script.js": `
import { SharedArray } from "k6/data";
import { record } from "k6/x/test";
const users = new SharedArray("users", function () {
  record("built in VU " + __VU);
  return JSON.parse(open("./data.json"));
});
const odd = new SharedArray("odd", () => [1, "two", null, undefined, () => 3]);
export default function () {
  const names = [];
  for (const u of users) names.push(u.user);
  const errs = [];
  for (const f of [() => { users[0] = 1; }, () => { users[0].user = "x"; }, () => { users[2].tags.push("e"); }, () => { users.length = 0; }]) {
    try { f(); errs.push("no error"); } catch (e) { errs.push(e.name + ": " + e.message); }
  }
  globalThis.out = {
    length: users.length, names: names.join(), last: users[users.length - 1].tags.join(), outside: users[9],
    fresh: users[0] !== users[0], mapped: users.map((u) => u.tags.length).join(), odd: JSON.stringify(Array.from(odd)),
    frozen: Object.isFrozen(users[2].tags), errs,
  };
}`}, "script.js", Config{Modules: testModules(mod)})
	var wg sync.WaitGroup
	vus := make([]*VU, 8)
	for i := range vus {
		wg.Go(func() { vus[i] = e.vu(t, uint64(i+1)) })
	}
	wg.Wait()
	iterate(t, vus[7])
	if got := mod.log(); len(got) != 1 || got[0] != "built in VU 0" {
		t.Fatalf("the array was built %d times: %v", len(got), got)
	}
	out := global(vus[7], "out").(map[string]any)
	want := map[string]any{
		"length": int64(3), "names": "ann,bob,cy", "last": "c,d", "outside": nil, "fresh": true,
		"mapped": "1,0,2", "odd": `[1,"two",null,null,null]`, "frozen": true,
	}
	for k, w := range want {
		if out[k] != w {
			t.Errorf("%s: %v, want %v", k, out[k], w)
		}
	}
	for i, err := range out["errs"].([]any) {
		if !strings.HasPrefix(err.(string), "TypeError") {
			t.Errorf("write %d: %v, want a TypeError", i, err)
		}
	}
	if s := out["errs"].([]any)[0].(string); !strings.Contains(s, data.MsgImmutable) {
		t.Errorf("index write: %s", s)
	}
}

func TestSharedArrayErrors(t *testing.T) {
	for _, tc := range []struct{ name, code, want string }{
		{"empty name", `new SharedArray("", () => [])`, data.MsgEmptyName},
		{"not a function", `new SharedArray("a", [1, 2])`, data.MsgNotFunc},
		{"async function", `new SharedArray("a", async () => [1])`, data.MsgAsyncFn},
		{"not an array", `new SharedArray("a", () => ({ length: 1 }))`, data.MsgNotArray},
		{"throwing function", `new SharedArray("a", () => { throw new Error("no data"); })`, "Error: no data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"script.js": `import { SharedArray } from "k6/data";
` + tc.code + `;
export default function () {}`}, "script.js", Config{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	e := mustLoad(t, map[string]string{"script.js": `import { SharedArray } from "k6/data";
export default function () { new SharedArray("late", () => []); }`}, "script.js", Config{})
	vu := e.vu(t, 1)
	if err := vu.RunIteration(context.Background(), iterationZero).Err; err == nil || !strings.Contains(err.Error(), data.MsgNotInInit) {
		t.Fatalf("err %v, want %q", err, data.MsgNotInInit)
	}
}
