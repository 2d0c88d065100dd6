package scenario_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

func TestDeriveScenarios(t *testing.T) {
	sec := func(n int) null.Value[time.Duration] { return null.From(time.Duration(n) * time.Second) }
	stage := func(d null.Value[time.Duration], target int64) scenario.Stage {
		return scenario.Stage{Duration: d, Target: null.From(target)}
	}
	given := []scenario.Config{scenariotest.Decode(t, "mine", `{"executor": "constant-vus", "duration": "1s"}`)}

	cases := []struct {
		name     string
		in       scenario.Shortcuts
		want     string // JSON of the single derived scenario, or "given"
		warnings []string
		err      string
	}{
		{name: "row 1 iterations", in: scenario.Shortcuts{VUs: null.From[int64](2), Iterations: null.From[int64](10), Duration: sec(30)},
			want: `{"executor":"shared-iterations","vus":2,"iterations":10,"maxDuration":"30s"}`},
		{name: "row 1 iterations alone", in: scenario.Shortcuts{Iterations: null.From[int64](3)},
			want: `{"executor":"shared-iterations","vus":null,"iterations":3,"maxDuration":null}`},
		{name: "row 1 + stages", in: scenario.Shortcuts{Iterations: null.From[int64](3), Stages: []scenario.Stage{stage(sec(1), 1)}},
			err: "using `iterations` and `stages` options simultaneously is not allowed"},
		{name: "row 1 + scenarios", in: scenario.Shortcuts{Iterations: null.From[int64](3), Scenarios: given},
			err: "using `iterations` and `scenarios` options simultaneously is not allowed"},
		{name: "row 2 duration", in: scenario.Shortcuts{VUs: null.From[int64](10), Duration: sec(30)},
			want: `{"executor":"constant-vus","vus":10,"duration":"30s"}`},
		{name: "row 2 + stages", in: scenario.Shortcuts{Duration: sec(30), Stages: []scenario.Stage{stage(sec(1), 1)}},
			err: "using `duration` and `stages` options simultaneously is not allowed"},
		{name: "row 2 + empty scenarios", in: scenario.Shortcuts{Duration: sec(30), Scenarios: []scenario.Config{}},
			err: "using `duration` and `scenarios` options simultaneously is not allowed"},
		{name: "row 2 zero duration", in: scenario.Shortcuts{Duration: sec(0)},
			err: "`duration` should be more than 0, for infinite duration use the externally-controlled executor"},
		{name: "row 3 stages", in: scenario.Shortcuts{VUs: null.From[int64](3), Stages: []scenario.Stage{stage(sec(5), 10), stage(null.Value[time.Duration]{}, 7), stage(sec(5), 0)}},
			want: `{"executor":"ramping-vus","startVUs":3,"stages":[{"duration":"5s","target":10},{"duration":"5s","target":0}],"gracefulRampDown":null}`},
		{name: "row 3 stages default startVUs", in: scenario.Shortcuts{Stages: []scenario.Stage{stage(sec(5), 10)}},
			want: `{"executor":"ramping-vus","startVUs":null,"stages":[{"duration":"5s","target":10}],"gracefulRampDown":null}`},
		{name: "row 3 + scenarios", in: scenario.Shortcuts{Stages: []scenario.Stage{stage(sec(5), 10)}, Scenarios: given},
			err: "using `stages` and `scenarios` options simultaneously is not allowed"},
		{name: "row 4 bare vus (v1.x)", in: scenario.Shortcuts{VUs: null.From[int64](5)},
			want:     `{"executor":"per-vu-iterations","vus":1,"iterations":1,"maxDuration":"10m0s"}`,
			warnings: []string{"`vus=5` option will be ignored, it only works in conjunction with `iterations`, `duration`, or `stages`"}},
		{name: "row 4 bare vus with scenarios", in: scenario.Shortcuts{VUs: null.From[int64](5), Scenarios: given}, want: "given",
			warnings: []string{"`vus=5` option will be ignored, it only works in conjunction with `iterations`, `duration`, or `stages`"}},
		{name: "row 5 scenarios", in: scenario.Shortcuts{Scenarios: given}, want: "given"},
		{name: "row 6 nothing", in: scenario.Shortcuts{},
			want: `{"executor":"per-vu-iterations","vus":1,"iterations":1,"maxDuration":"10m0s"}`},
		{name: "row 6 vus=1 is silent", in: scenario.Shortcuts{VUs: null.From[int64](1)},
			want: `{"executor":"per-vu-iterations","vus":1,"iterations":1,"maxDuration":"10m0s"}`},
		{name: "row 6 empty stages and scenarios", in: scenario.Shortcuts{Stages: []scenario.Stage{}, Scenarios: []scenario.Config{}},
			want: `{"executor":"per-vu-iterations","vus":1,"iterations":1,"maxDuration":"10m0s"}`,
			warnings: []string{
				"`stages` was explicitly set to an empty value, running the script with 1 iteration in 1 VU",
				"`scenarios` was explicitly set to an empty value, running the script with 1 iteration in 1 VU"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scs, warns, err := scenario.DeriveScenarios(c.in)
			if c.err != "" {
				if err == nil || err.Error() != c.err || !scenario.IsConfigError(err) {
					t.Fatalf("err = %v, want ConfigError %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(warns, "|") != strings.Join(c.warnings, "|") {
				t.Errorf("warnings = %q, want %q", warns, c.warnings)
			}
			if c.want == "given" {
				if len(scs) != 1 || scs[0] != given[0] {
					t.Errorf("scenarios = %v, want the given ones", scs)
				}
				return
			}
			if len(scs) != 1 || scs[0].Base().Name != "default" {
				t.Fatalf("scenarios = %v", scs)
			}
			got, _ := json.Marshal(scs[0])
			// Only compare the executor-specific keys; the base keys are all null here.
			want := strings.TrimSuffix(`{"executor":`+strings.TrimPrefix(c.want, `{"executor":`), "}")
			gotTrim := strings.Replace(string(got), `"startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,`, "", 1)
			if !strings.HasPrefix(gotTrim, want) {
				t.Errorf("derived = %s\n   want = %s", gotTrim, c.want)
			}
		})
	}
}
