package js

import (
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestConsoleFormat: console arguments render as k6's console does (grafana/k6 #5460, #5496),
// not as JSON or function source.
func TestConsoleFormat(t *testing.T) {
	rt := goja.New()
	for _, tc := range []struct{ src, want string }{
		{`"plain"`, `plain`},
		{`42`, `42`},
		{`undefined`, `undefined`},
		{`null`, `null`},
		{`({ foo: "bar" })`, `{ foo: "bar" }`},
		{`({})`, `{}`},
		{`[]`, `[]`},
		{`[1, "a", null, undefined, true]`, `[ 1, "a", null, undefined, true ]`},
		{`({ "two words": 1, n: { m: [2] } })`, `{ "two words": 1, n: { m: [ 2 ] } }`},
		{`(function f() { return 1; })`, `[object Function]`},
		{`({ one: class {}, two: () => 1 })`, `{ one: [object Function], two: [object Function] }`},
		{`new Uint8Array([1, 2, 3])`, `Uint8Array(3) [ 1, 2, 3 ]`},
		{`new Int32Array(0)`, `Int32Array(0) []`},
		{`({ v: new Float64Array([0.5]) })`, `{ v: Float64Array(1) [ 0.5 ] }`},
		{`new Uint8Array([4, 0, 255]).buffer`, `ArrayBuffer { [Uint8Contents]: <04 00 ff>, byteLength: 3 }`},
		{`(() => { const a = { x: 1 }; a.self = a; return a; })()`, `{ x: 1, self: [Circular] }`},
		{`new Error("careful")`, `Error: careful`},
		{`({ e: new TypeError("no") })`, `{ e: TypeError: no }`},
		{`({ s: "say \"hi\"" })`, `{ s: "say \"hi\"" }`},
		{`({ [Symbol.toStringTag]: "MyArray", n: 1 })`, `{ n: 1 }`},
	} {
		v, err := rt.RunString(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := formatConsoleValue(rt, v); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestConsoleFormatDepth: a structure nested deeper than maxFormatDepth is cut, not followed.
func TestConsoleFormatDepth(t *testing.T) {
	rt := goja.New()
	v, err := rt.RunString(`let o = {}; for (let i = 0; i < 100; i++) o = { o }; o`)
	if err != nil {
		t.Fatal(err)
	}
	got := formatConsoleValue(rt, v)
	if len(got) > 400 || !strings.Contains(got, "[Object]") {
		t.Errorf("deep object: %d bytes: %s", len(got), got)
	}
}
