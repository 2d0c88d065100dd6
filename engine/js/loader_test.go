package js

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestImportsESMAndTypeScript(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"main.ts": `
import { double } from "./lib/math";          // no extension, .ts
import greet from "./lib/greet.js";           // default export
import * as cfg from "../shared/config.ts";   // parent directory
import legacy from "./lib/legacy.cjs";        // CommonJS module
import { value } from "./lib/cycle_a.js";
type N = number;
export default function (): void {
  const n: N = double(21);
  globalThis.out = [n, greet("x"), cfg.name, legacy.kind, value()].join("|");
}`,
		"lib/math.ts":         "export function double(n: number): number { return n * 2 }\n",
		"lib/greet.js":        "export default (s) => `hi ${s}`;\n",
		"lib/legacy.cjs":      "module.exports = { kind: 'cjs' };\n",
		"lib/cycle_a.js":      "import { b } from './cycle_b.js';\nexport const a = 'a';\nexport function value() { return a + b(); }\n",
		"lib/cycle_b.js":      "import { a } from './cycle_a.js';\nexport function b() { return 'b' + a; }\n",
		"../shared/config.ts": "export const name: string = 'cfg';\n",
	}, "main.ts", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	if got := global(vu, "out"); got != "42|hi x|cfg|cjs|aba" {
		t.Fatalf("out = %v", got)
	}
}

func TestModulesAreStrictESMButSloppyCommonJS(t *testing.T) {
	_, err := load(t, map[string]string{
		"esm.js": "export default function () {}\nundeclared = 1;\n",
	}, "esm.js", Config{})
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "undeclared") {
		t.Fatalf("ESM assignment to an undeclared variable: err = %v", err)
	}
	e := mustLoad(t, map[string]string{
		"cjs.js": "undeclared = 1;\nconst { check } = require('k6');\nexports.default = function () { check(1, { ok: true }); };\n",
	}, "cjs.js", Config{})
	if !e.r.HasFunction("default") {
		t.Fatal("CommonJS default export not found")
	}
}

func TestOpen(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
import { readData } from "./lib/reader.js";
const text = open("./data.txt");
const bin = open("data.txt", "b");
const fromLib = readData();
export default function () {
  new Uint8Array(bin)[0] = 0; // each open() call gets its own buffer
  globalThis.out = [text, bin.byteLength, bin instanceof ArrayBuffer, fromLib].join("|");
}
export function lateOpen() { open("data.txt"); }`,
		"data.txt":         "hello",
		"lib/reader.js":    `export function readData() { return open("./lib-data.txt"); }`,
		"lib/lib-data.txt": "from lib dir",
	}, "script.js", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	iterate(t, vu)
	if got := global(vu, "out"); got != "hello|5|true|from lib dir" {
		t.Fatalf("out = %v", got)
	}
	opened := 0
	for _, f := range e.r.Files() {
		if strings.HasSuffix(f.Name, ".txt") {
			opened++
		}
	}
	if opened != 2 {
		t.Fatalf("the test opened %d files, want 2", opened)
	}

	if err := vu.Activate(&scenarioLate); err != nil {
		t.Fatal(err)
	}
	err := vu.RunIteration(context.Background(), iterationZero).Err
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "open() is only available in the init context") {
		t.Fatalf("open() outside init: %v", err)
	}
}

// TestOpenOnlyWhatVUZeroOpened: a file first opened by a VU other than 0 is refused (an archive
// holds only what VU 0 opened); one VU 0 opened is read by every VU.
func TestOpenOnlyWhatVUZeroOpened(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
const always = open("./always.txt");
const later = __VU > 0 ? open("./later.txt") : null;
export default function () {}`,
		"always.txt": "a",
		"later.txt":  "b",
	}, "script.js", Config{})
	_, err := e.r.NewVU(context.Background(), 1, 1)
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "weren't previously opened during initialization (__VU==0)") ||
		!strings.Contains(se.Message, "later.txt") {
		t.Fatalf("VU 1 opening later.txt: %v", err)
	}
	for _, f := range e.r.Files() {
		if strings.HasSuffix(f.Name, "later.txt") {
			t.Errorf("%s is among the test's files", f.Name)
		}
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := load(t, map[string]string{"script.js": `open("nope.txt"); export default function () {}`}, "script.js", Config{})
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "nope.txt") || se.Line != 1 {
		t.Fatalf("err = %v", err)
	}
}

func TestImportErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		line            int
	}{
		{"unknown builtin", `import http from "k6/http";`, `unknown module "k6/http"`, 1},
		{"unknown extension", "\nimport x from \"k6/x/nothing\";", `unknown module "k6/x/nothing"`, 2},
		{"remote", `import { textSummary } from "https://jslib.k6.io/k6-summary/0.0.2/index.js";`,
			`cannot load module "https://jslib.k6.io/k6-summary/0.0.2/index.js": remote modules are not available`, 1},
		{"plain http", `import x from "http://example.com/x.js";`, "remote modules must use https://", 1},
		{"missing file", `import x from "./missing.js";`, `cannot find module "./missing.js"`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"script.js": tc.src + "\nexport default function () {}"}, "script.js", Config{})
			var se *ScriptError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if se.Line != tc.line || !strings.HasSuffix(se.File, "script.js") {
				t.Fatalf("position %s:%d, want script.js:%d", se.File, se.Line, tc.line)
			}
			if code, _ := ExitCode(err); code != 107 {
				t.Fatalf("exit code %d", code)
			}
		})
	}
}

func TestSyntaxErrorPositions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		main  string
		file  string
		line  int
		col   int
	}{
		{"js", map[string]string{"a.js": "export default function () {\n  let x = ;\n}\n"}, "a.js", "a.js", 2, 11},
		{"ts after types", map[string]string{"a.ts": "interface A {\n  x: number\n}\nconst a: A = { x: 1 };\nconst b = a.x +* 2;\n"}, "a.ts", "a.ts", 5, 16},
		{"imported ts", map[string]string{
			"main.js": "import { f } from './lib.ts';\nexport default f;\n",
			"lib.ts":  "export function f(): void {\n\n  return )\n}\n",
		}, "main.js", "lib.ts", 3, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc.files, tc.main, Config{})
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *ScriptError", err, err)
			}
			if !strings.HasSuffix(se.File, "/"+tc.file) || se.Line != tc.line || se.Column != tc.col {
				t.Fatalf("at %s:%d:%d, want %s:%d:%d (%v)", se.File, se.Line, se.Column, tc.file, tc.line, tc.col, se)
			}
			if se.Kind != KindSyntax || !strings.HasPrefix(se.Message, "SyntaxError: ") {
				t.Fatalf("kind %q message %q", se.Kind, se.Message)
			}
		})
	}
}

func TestRuntimeErrorPositions(t *testing.T) {
	files := map[string]string{
		"main.ts": `import { explode } from "./lib.ts";
interface Opts { n: number }
const o: Opts = { n: 1 };
export default function (): void {
  const v: number = o.n;
  explode(v);
}`,
		"lib.ts": `type T = string;
// comment line
export function explode(n: number): T {
  if (n > 0) {
    throw new Error("kaboom " + n);
  }
  return "";
}`,
	}
	e := mustLoad(t, files, "main.ts", Config{})
	vu := e.vu(t, 1)
	err := vu.RunIteration(context.Background(), iterationZero).Err
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasSuffix(se.File, "/lib.ts") || se.Line != 5 || se.Column != 11 || se.Message != "Error: kaboom 1" {
		t.Fatalf("at %s:%d:%d %q", se.File, se.Line, se.Column, se.Message)
	}
	if !strings.Contains(se.Stack, "at default (") || !strings.HasSuffix(strings.Split(se.Stack, "\n")[1], "/main.ts:6:3)") {
		t.Fatalf("stack lacks the caller frame 'default' at main.ts:6:3:\n%s", se.Stack)
	}
	// The exception is logged with its stack at ERROR.
	if log := e.log.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "kaboom 1") || !strings.Contains(log, "lib.ts:5:11") {
		t.Fatalf("log = %s", log)
	}

	// An exception in the init context fails Load with the init position.
	_, err = load(t, map[string]string{"s.js": "\n\nconst x = null;\nx.y = 1;\nexport default function () {}"}, "s.js", Config{})
	if !errors.As(err, &se) || se.Line != 4 || !strings.Contains(se.Message, "TypeError") {
		t.Fatalf("init exception: %v", err)
	}
}

// TestStackOverflow: runaway recursion is reported as k6 and V8 report it, positioned at the
// recursive call with the innermost frames, in an iteration and in the init context (goja's own
// error printed only " at f (...)"). A run of one frame is one line and a count.
func TestStackOverflow(t *testing.T) {
	src := "function f(n) {\n  return f(n + 1) + 1;\n}\nfunction g(n) {\n  return h(n) + 1;\n}\nfunction h(n) {\n  return g(n) + 1;\n}\n"
	for _, tc := range []struct {
		name, src string
		stack     []string // prefixes of the stack's lines
	}{
		{"iteration", src + "export default function () { f(0); }\n",
			[]string{"\tat f (", "\t... the same frame 9999 more times", "\tat default ("}},
		{"init", src + "f(0);\nexport default function () {}\n",
			[]string{"\tat f (", "\t... the same frame 9999 more times", "\tat <anonymous> ("}},
		{"mutual recursion", src + "export default function () { g(0); }\n",
			append(slices.Repeat([]string{"\tat "}, 10), "\t... 9991 more frames")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := load(t, map[string]string{"s.js": tc.src}, "s.js", Config{})
			if err == nil {
				err = e.vu(t, 1).RunIteration(context.Background(), iterationZero).Err
			}
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *ScriptError", err)
			}
			if se.Message != "RangeError: Maximum call stack size exceeded" || !strings.HasSuffix(se.File, "/s.js") || se.Line == 0 {
				t.Fatalf("at %s:%d:%d %q", se.File, se.Line, se.Column, se.Message)
			}
			lines := strings.Split(se.Stack, "\n")
			ok := len(lines) == len(tc.stack)
			for i := 0; ok && i < len(lines); i++ {
				ok = strings.HasPrefix(lines[i], tc.stack[i])
			}
			if !ok {
				t.Fatalf("stack, want lines starting %q:\n%s", tc.stack, se.Stack)
			}
		})
	}
}
