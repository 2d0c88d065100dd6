package options

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/engine/summary"
)

func mustScript(t *testing.T, js string) Options {
	t.Helper()
	o, err := FromScript([]byte(js))
	if err != nil {
		t.Fatalf("FromScript(%s): %v", js, err)
	}
	return o
}

func mustEnv(t *testing.T, env map[string]string) Options {
	t.Helper()
	o, err := FromEnv(env)
	if err != nil {
		t.Fatalf("FromEnv(%v): %v", env, err)
	}
	return o
}

// describe lists the consolidated scenarios as "name: description".
func describe(c *Consolidated) []string {
	var out []string
	for _, sc := range c.Scenarios {
		out = append(out, sc.Base().Name+": "+sc.Description(nil))
	}
	return out
}

func TestLayeringOrder(t *testing.T) {
	file, err := FromConfigFile([]byte(`{"vus": 2, "tags": {"from": "file"}, "summaryTimeUnit": "s", "out": ["json=x.json"]}`))
	if err != nil {
		t.Fatal(err)
	}
	script := mustScript(t, `{"vus": 3, "tags": {"from": "script", "extra": "1"}, "setupTimeout": "5s", "out": ["csv=ignored"]}`)
	env := mustEnv(t, map[string]string{"K6_VUS": "4", "K6_SETUP_TIMEOUT": "7s"})
	cli := Options{VUs: null.From[int64](5)}

	cases := []struct {
		name   string
		layers Layers
		vus    int64
		tags   map[string]string
		setup  time.Duration
	}{
		{"file only", Layers{ConfigFile: file}, 2, map[string]string{"from": "file"}, DefaultSetupTimeout},
		{"script over file", Layers{ConfigFile: file, Script: script}, 3, map[string]string{"from": "script", "extra": "1"}, 5 * time.Second},
		{"env over script", Layers{ConfigFile: file, Script: script, Env: env}, 4, map[string]string{"from": "script", "extra": "1"}, 7 * time.Second},
		{"cli over env", Layers{ConfigFile: file, Script: script, Env: env, CLI: cli}, 5, map[string]string{"from": "script", "extra": "1"}, 7 * time.Second},
	}
	for _, c := range cases {
		got, err := Consolidate(c.layers)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.VUs.V != c.vus {
			t.Errorf("%s: vus %d, want %d", c.name, got.VUs.V, c.vus)
		}
		if !reflect.DeepEqual(got.Tags, c.tags) {
			t.Errorf("%s: tags %v, want %v (tags replace by layer, they do not merge)", c.name, got.Tags, c.tags)
		}
		if got.SetupTimeoutValue() != c.setup {
			t.Errorf("%s: setupTimeout %s, want %s", c.name, got.SetupTimeoutValue(), c.setup)
		}
		if got.SummaryTimeUnit.V != "s" {
			t.Errorf("%s: summaryTimeUnit %q from the config file was lost", c.name, got.SummaryTimeUnit.V)
		}
		if !reflect.DeepEqual(got.Out, []string{"json=x.json"}) {
			t.Errorf("%s: out %v: a script must not set outputs", c.name, got.Out)
		}
	}
}

func TestShortcutWipesLowerLayers(t *testing.T) {
	script := mustScript(t, `{"scenarios": {"s1": {"executor": "per-vu-iterations", "vus": 2, "iterations": 3}}, "iterations": 9}`)
	cases := []struct {
		name    string
		layers  Layers
		want    []string
		warning string
	}{
		{
			name:   "script scenarios and iterations conflict",
			layers: Layers{Script: script},
		},
		{
			name:    "cli duration replaces script scenarios",
			layers:  Layers{Script: mustScript(t, `{"scenarios": {"s1": {"executor": "per-vu-iterations", "vus": 2, "iterations": 3}}}`), CLI: Options{Duration: null.From(3 * time.Second)}},
			want:    []string{"default: 1 looping VUs for 3s (gracefulStop: 30s)"},
			warning: `"cli" level configuration overrode scenarios configuration entirely`,
		},
		{
			name:    "env iterations replace script scenarios, script vus stay",
			layers:  Layers{Script: mustScript(t, `{"vus": 2, "scenarios": {"s1": {"executor": "constant-vus", "duration": "1s"}}}`), Env: mustEnv(t, map[string]string{"K6_ITERATIONS": "10"})},
			want:    []string{"default: 10 iterations shared among 2 VUs (maxDuration: 10m0s, gracefulStop: 30s)"},
			warning: `"env" level configuration overrode scenarios configuration entirely`,
		},
		{
			name:   "cli iterations replace script duration without a conflict",
			layers: Layers{Script: mustScript(t, `{"duration": "1m"}`), CLI: Options{Iterations: null.From[int64](4)}},
			want:   []string{"default: 4 iterations shared among 1 VUs (maxDuration: 10m0s, gracefulStop: 30s)"},
		},
		{
			name:   "cli stages",
			layers: Layers{CLI: Options{Stages: mustStages(t, "1s:2", "2s:0")}},
			want:   []string{"default: Up to 2 looping VUs for 3s over 2 stages (gracefulRampDown: 30s, gracefulStop: 30s)"},
		},
		{
			name:   "nothing",
			layers: Layers{},
			want:   []string{"default: 1 iterations for each of 1 VUs (maxDuration: 10m0s, gracefulStop: 30s)"},
		},
	}
	for _, c := range cases {
		got, err := Consolidate(c.layers)
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), "simultaneously is not allowed") {
				t.Errorf("%s: error %v, want a conflict", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := describe(got); !reflect.DeepEqual(d, c.want) {
			t.Errorf("%s: scenarios %q, want %q", c.name, d, c.want)
		}
		hasWarning := false
		for _, w := range got.Warnings {
			hasWarning = hasWarning || w == c.warning
		}
		if c.warning != "" && !hasWarning {
			t.Errorf("%s: warnings %q lack %q", c.name, got.Warnings, c.warning)
		}
		if c.warning == "" && len(got.Warnings) > 0 {
			t.Errorf("%s: unexpected warnings %q", c.name, got.Warnings)
		}
	}
}

func mustStages(t *testing.T, s ...string) []scenario.Stage {
	t.Helper()
	st, err := ParseStages(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestInvalidOptionsNameTheOption(t *testing.T) {
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		{"script vus type", func() error { _, err := FromScript([]byte(`{"vus": "many"}`)); return err }, "vus"},
		{"script duration", func() error { _, err := FromScript([]byte(`{"duration": "forever"}`)); return err }, "duration"},
		{"script thresholds", func() error { _, err := FromScript([]byte(`{"thresholds": {"x": 5}}`)); return err }, "thresholds"},
		{"script tags", func() error { _, err := FromScript([]byte(`{"tags": {"a": [1]}}`)); return err }, "tags"},
		{"script scenarios", func() error { _, err := FromScript([]byte(`{"scenarios": []}`)); return err }, "scenarios"},
		{"env vus", func() error { _, err := FromEnv(map[string]string{"K6_VUS": "x"}); return err }, "K6_VUS"},
		{"env stages", func() error { _, err := FromEnv(map[string]string{"K6_STAGES": "1s:x"}); return err }, "K6_STAGES"},
		{"env bool", func() error { _, err := FromEnv(map[string]string{"K6_NO_SETUP": "maybe"}); return err }, "K6_NO_SETUP"},
		{"summary mode", func() error { return consolidateErr(Options{SummaryMode: null.From("loud")}) }, "summaryMode"},
		{"trend stats", func() error { return consolidateErr(Options{SummaryTrendStats: []string{"avg", "p(200)"}}) }, "summaryTrendStats"},
		{"time unit", func() error { return consolidateErr(Options{SummaryTimeUnit: null.From("h")}) }, "summaryTimeUnit"},
		{"system tags", func() error { return consolidateErr(Options{SystemTags: []string{"scenario", "colour"}}) }, "systemTags"},
		{"setup timeout", func() error { return consolidateErr(Options{SetupTimeout: null.From(-time.Second)}) }, "setupTimeout"},
		{"scenario option", func() error {
			return consolidateErr(mustScript(t, `{"scenarios": {"s": {"executor": "constant-vus", "vus": 1, "duration": "1s", "bogus": 1}}}`))
		}, "bogus"},
		{"executor value", func() error {
			return consolidateErr(mustScript(t, `{"scenarios": {"s": {"executor": "shared-iterations", "vus": 3, "iterations": 2}}}`))
		}, "iterations (2) can't be less than the number of VUs (3)"},
		{"zero duration", func() error { return consolidateErr(Options{Duration: null.From(time.Duration(0))}) }, "duration"},
	}
	for _, c := range cases {
		err := c.do()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q does not name %q", c.name, err, c.want)
		}
		var oe *Error
		var ce *scenario.ConfigError
		if !errors.As(err, &oe) && !errors.As(err, &ce) {
			t.Errorf("%s: %T is neither *options.Error nor *scenario.ConfigError (exit 104)", c.name, err)
		}
	}
}

func consolidateErr(cli Options) error {
	_, err := Consolidate(Layers{CLI: cli})
	return err
}

func TestEnvLayer(t *testing.T) {
	o := mustEnv(t, map[string]string{
		"K6_DURATION": "1m30s", "K6_STAGES": "10s:5,20s:0", "K6_TAGS": "a=1,b=2",
		"K6_SYSTEM_TAGS": "scenario, vu", "K6_SUMMARY_TREND_STATS": "avg,p(99)", "K6_OUT": "json=a.json,csv=b.csv",
		"K6_NO_THRESHOLDS": "true", "NO_COLOR": "", "K6_ITERATIONS": "", // empty: unset
	})
	if o.Duration.V != 90*time.Second || len(o.Stages) != 2 || o.Stages[0].Target.V != 5 {
		t.Errorf("duration %v stages %+v", o.Duration, o.Stages)
	}
	if !reflect.DeepEqual(o.Tags, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("tags %v", o.Tags)
	}
	if !reflect.DeepEqual(o.SystemTags, []string{"scenario", "vu"}) || !reflect.DeepEqual(o.Out, []string{"json=a.json", "csv=b.csv"}) {
		t.Errorf("system tags %v out %v", o.SystemTags, o.Out)
	}
	if !o.NoThresholds.V || !o.NoColor.V || o.Iterations.Valid {
		t.Errorf("noThresholds %v noColor %v iterations %v", o.NoThresholds, o.NoColor, o.Iterations)
	}
}

func TestParsers(t *testing.T) {
	st, err := ParseStage("1m:10")
	if err != nil || st.Duration.V != time.Minute || st.Target.V != 10 {
		t.Errorf("ParseStage: %+v %v", st, err)
	}
	if st, err := ParseStage("30s"); err != nil || st.Target.Valid {
		t.Errorf("ParseStage without target: %+v %v (the target must stay unset)", st, err)
	}
	for _, bad := range []string{"x:1", "1s:y"} {
		if _, err := ParseStage(bad); err == nil {
			t.Errorf("ParseStage(%q) accepted", bad)
		}
	}
	if k, v, err := ParseEnvVar("MY_VAR=a=b"); err != nil || k != "MY_VAR" || v != "a=b" {
		t.Errorf("ParseEnvVar: %q %q %v", k, v, err)
	}
	for _, bad := range []string{"1X=2", "A-B=1", "=x", "a b=1"} {
		if _, _, err := ParseEnvVar(bad); err == nil {
			t.Errorf("ParseEnvVar(%q) accepted", bad)
		}
	}
	if _, err := ParseTags([]string{"novalue"}); err == nil {
		t.Error("ParseTags accepted a tag without =")
	}
	if got := SplitList(" a, ,b ,"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("SplitList: %q", got)
	}
}

func TestTestOptionsJSON(t *testing.T) {
	c, err := Consolidate(Layers{
		Script: mustScript(t, `{"vus": 2, "duration": "5s", "tags": {"t": "v"}, "thresholds": {"iterations": ["count>1", {"threshold": "rate>0", "abortOnFail": true}]}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.TestOptionsJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"vus", "duration", "iterations", "stages", "out"} {
		if _, ok := m[k]; ok {
			t.Errorf("exec.test.options has %q: %s", k, raw)
		}
	}
	var sc map[string]map[string]any
	if err := json.Unmarshal(m["scenarios"], &sc); err != nil || sc["default"]["executor"] != "constant-vus" {
		t.Errorf("scenarios %s (%v)", m["scenarios"], err)
	}
	if string(m["tags"]) != `{"t":"v"}` || !strings.Contains(string(m["thresholds"]), `"abortOnFail":true`) {
		t.Errorf("tags %s thresholds %s", m["tags"], m["thresholds"])
	}
}

func TestSummaryAndSystemTags(t *testing.T) {
	c, err := Consolidate(Layers{CLI: Options{SummaryMode: null.From("disabled"), SystemTags: []string{"vu"}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.SummaryModeValue() != summary.Disabled {
		t.Errorf("summary mode %v", c.SummaryModeValue())
	}
	if !c.SystemTagEnabled("vu") || c.SystemTagEnabled("scenario") {
		t.Errorf("system tags %v", c.EnabledSystemTags())
	}
	d, err := Consolidate(Layers{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.SystemTagEnabled("scenario") || d.SystemTagEnabled("vu") || d.SummaryModeValue() != summary.Compact {
		t.Errorf("defaults: tags %v mode %v", d.EnabledSystemTags(), d.SummaryModeValue())
	}
}

// TestK6ListAndTagForms: K6_TAGS in k6's name:value form (and name=value), quoted list items
// as k6's CSV-read list flags take them (`""` is no item), and durations that need a unit.
func TestK6ListAndTagForms(t *testing.T) {
	o := mustEnv(t, map[string]string{"K6_TAGS": "team:ozone, url=http://x:1/a", "K6_SYSTEM_TAGS": `""`})
	if !reflect.DeepEqual(o.Tags, map[string]string{"team": "ozone", "url": "http://x:1/a"}) {
		t.Errorf("K6_TAGS: %v", o.Tags)
	}
	if o.SystemTags == nil || len(o.SystemTags) != 0 {
		t.Errorf(`K6_SYSTEM_TAGS="": %#v, want an empty (not unset) list`, o.SystemTags)
	}
	for in, want := range map[string][]string{`""`: {}, `"a,b", c`: {"a,b", "c"}, ` a, ,b ,`: {"a", "b"}, `x"y,z`: {`x"y`, "z"}} {
		if got := SplitList(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitList(%s) = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"novalue", ":v", "=v"} {
		if _, err := ParseEnvTags(bad); err == nil {
			t.Errorf("ParseEnvTags(%q) accepted", bad)
		}
	}
	for _, env := range []map[string]string{{"K6_DURATION": "1000"}, {"K6_STAGES": "10:5"}} {
		if _, err := FromEnv(env); err == nil || !strings.Contains(err.Error(), "missing unit") {
			t.Errorf("%v: %v, want a missing unit", env, err)
		}
	}
}

// TestTestOptionsPaused: exec.test.options has paused.
func TestTestOptionsPaused(t *testing.T) {
	c, err := Consolidate(Layers{Script: mustScript(t, `{"paused": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.TestOptionsJSON()
	if err != nil || !strings.Contains(string(raw), `"paused":true`) {
		t.Errorf("exec.test.options %s (%v): no paused", raw, err)
	}
}
