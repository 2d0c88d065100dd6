package js

import (
	"errors"
	"strings"
	"testing"

	jsmetrics "github.com/dnecho/dnecho/engine/js/modules/metrics"
	"github.com/dnecho/dnecho/engine/metrics"
)

func TestCustomMetrics(t *testing.T) {
	e := mustLoad(t, map[string]string{
		"script.js": `
import { Counter, Gauge, Rate, Trend } from "k6/metrics";
const c = new Counter("my_counter");
const g = new Gauge("my_gauge");
const r = new Rate("my_rate");
const tr = new Trend("my_trend", true);
const again = new Counter("my_counter"); // same name and type: the same metric
export default function () {
  globalThis.names = [c.name, g.name, r.name, tr.name, again.name].join(",");
  try { c.name = "renamed"; } catch (e) { globalThis.readOnly = e instanceof TypeError && c.name === "my_counter"; }
  globalThis.results = [
    c.add(2, { tag: "a", n: 1, b: true }),
    g.add("7"),        // numeric string
    r.add(true), r.add(false), r.add(0), r.add(3),
    tr.add(12.5),
    c.add(null), c.add(undefined), c.add(NaN), c.add("abc"),
    again.add(1, { bad: { nested: 1 }, arr: [1], good: "x" }),
  ];
}`}, "script.js", Config{})
	for name, want := range map[string]struct {
		typ      metrics.MetricType
		contains metrics.ValueType
	}{
		"my_counter": {metrics.Counter, metrics.Default}, "my_gauge": {metrics.Gauge, metrics.Default},
		"my_rate": {metrics.Rate, metrics.Default}, "my_trend": {metrics.Trend, metrics.Time},
	} {
		m := e.r.Registry().Get(name)
		if m == nil || m.Type != want.typ || m.Contains != want.contains {
			t.Fatalf("%s registered as %+v", name, m)
		}
	}
	vu := e.vu(t, 1)
	iterate(t, vu)
	vu.Flush()
	if got := global(vu, "names"); got != "my_counter,my_gauge,my_rate,my_trend,my_counter" {
		t.Fatalf("names %v", got)
	}
	if global(vu, "readOnly") != true {
		t.Fatal("metric name is writable")
	}
	res := global(vu, "results").([]any)
	wantRes := []any{true, true, true, true, true, true, true, false, false, false, false, true}
	for i := range wantRes {
		if res[i] != wantRes[i] {
			t.Fatalf("add results %v, want %v", res, wantRes)
		}
	}
	values := func(name string) (out []float64) {
		for _, s := range e.out.ByName(name) {
			out = append(out, s.Value)
		}
		return out
	}
	if v := values("my_rate"); len(v) != 4 || v[0] != 1 || v[1] != 0 || v[2] != 0 || v[3] != 3 {
		t.Fatalf("rate values %v", v)
	}
	if v := values("my_gauge"); len(v) != 1 || v[0] != 7 {
		t.Fatalf("gauge values %v", v)
	}
	counter := e.out.ByName("my_counter")
	if len(counter) != 2 {
		t.Fatalf("counter samples %d", len(counter))
	}
	if m := counter[0].Tags.Map(); m["tag"] != "a" || m["n"] != "1" || m["b"] != "true" || m["scenario"] != "default" {
		t.Fatalf("tags %v", m)
	}
	if m := counter[1].Tags.Map(); m["good"] != "x" || m["bad"] != "" || m["arr"] != "" {
		t.Fatalf("object tag values should be dropped: %v", m)
	}
	log := e.log.String()
	for _, w := range []string{"my_counter.add() was given null", "my_counter.add() was given undefined",
		`was given \"NaN\"`, `tag \"bad\" is not a string`, "level=WARN"} {
		if !strings.Contains(log, w) {
			t.Fatalf("log lacks %q:\n%s", w, log)
		}
	}
}

func TestCustomMetricErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"type clash", `new Counter("dup"); new Trend("dup");`, `metric "dup" already exists`},
		{"bad name", `new Counter("bad-name");`, `invalid metric name "bad-name"`},
		{"without new", `import * as m from "k6/metrics"; m.Counter("abc");`, "Counter must be called with new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"script.js": `import { Counter, Trend } from "k6/metrics";` + tc.src +
				"\nexport default function () {}"}, "script.js", Config{})
			var se *ScriptError
			if !errors.As(err, &se) || !strings.Contains(se.Message, tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if jsmetrics.MsgDeclareInInit != "metrics must be declared in the init context" {
		t.Fatal("message changed")
	}
}

func TestThrowOption(t *testing.T) {
	e := mustLoad(t, map[string]string{"script.js": `import { Counter } from "k6/metrics";
const c = new Counter("thrown");
export default function () { c.add(null); }`}, "script.js", Config{})
	e.r.Configure(RunOptions{Throw: true})
	err := e.vu(t, 1).RunIteration(t.Context(), iterationZero).Err
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "thrown.add() was given null") {
		t.Fatalf("err = %v", err)
	}
}
