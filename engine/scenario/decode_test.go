package scenario

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseScenariosAllExecutors(t *testing.T) {
	js := `{
	  "z": {"executor": "shared-iterations", "vus": 2, "iterations": 10, "maxDuration": "1m", "exec": "fn",
	        "env": {"A": "1"}, "tags": {"t": "v"}, "gracefulStop": 5000},
	  "b": {"executor": "per-vu-iterations", "startTime": "10s", "vus": 3, "iterations": 4},
	  "a": {"executor": "constant-vus", "startTime": "10s", "vus": 5, "duration": "1d"},
	  "r": {"executor": "ramping-vus", "startVUs": 0, "stages": [{"duration": "10s", "target": 5}], "gracefulRampDown": "0s"},
	  "c": {"executor": "constant-arrival-rate", "rate": 10, "timeUnit": "1m", "duration": "30s", "preAllocatedVUs": 2, "maxVUs": 4,
	        "options": {"browser": {"type": "chromium"}}},
	  "q": {"executor": "ramping-arrival-rate", "startRate": 1, "stages": [{"target": 5, "duration": "5s"}], "preAllocatedVUs": 1}
	}`
	scs, err := ParseScenarios([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range scs {
		order = append(order, c.Base().Name)
	}
	// Sorted by startTime, then name.
	if got := strings.Join(order, ","); got != "c,q,r,z,a,b" {
		t.Errorf("order = %s", got)
	}
	z := scs[3].(*SharedIterationsConfig)
	if z.vus() != 2 || z.iterations() != 10 || z.maxDuration() != time.Minute || z.ExecName() != "fn" ||
		z.Env["A"] != "1" || z.Tags["t"] != "v" || z.GracefulStopValue() != 5*time.Second || z.Executor != SharedIterations {
		t.Errorf("shared-iterations decoded wrongly: %+v", z)
	}
	a := scs[4].(*ConstantVUsConfig)
	if a.Duration.V != 24*time.Hour || a.StartOffset() != 10*time.Second || a.ExecName() != "default" {
		t.Errorf("constant-vus decoded wrongly: %+v", a)
	}
	c := scs[0].(*ConstantArrivalRateConfig)
	if c.timeUnit() != time.Minute || c.pre() != 2 || c.maxVUs() != 4 || !strings.Contains(string(c.Options), "chromium") {
		t.Errorf("constant-arrival-rate decoded wrongly: %+v", c)
	}
	q := scs[1].(*RampingArrivalRateConfig)
	if q.maxVUs() != 1 || q.Stages[0].Target.V != 5 || q.timeUnit() != time.Second {
		t.Errorf("ramping-arrival-rate decoded wrongly: %+v", q)
	}
	if err := ValidateScenarios(scs); err != nil {
		t.Errorf("valid scenarios rejected: %v", err)
	}
	// The JSON form round-trips (exec.test.options, inspect).
	out, err := json.Marshal(q)
	if err != nil || !containsAll(string(out), `"executor":"ramping-arrival-rate"`, `"preAllocatedVUs":1`, `"maxVUs":null`, `"stages":[{"duration":"5s","target":5}]`) {
		t.Errorf("marshal = %s, %v", out, err)
	}
	back, err := DecodeScenario("q", out)
	if err != nil || back.(*RampingArrivalRateConfig).StartRate.V != 1 {
		t.Errorf("round trip: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ js, want string }{
		{`{"s": {"vus": 1}}`, "scenario 's' doesn't have a specified executor type"},
		{`{"s": {"executor": ""}}`, "scenario 's' doesn't have a specified executor type"},
		{`{"s": {"executor": "externally-controlled"}}`, "scenario 's': unknown executor type 'externally-controlled'"},
		{`{"s": {"executor": "constant-vus", "duration": "1s", "iterations": 3}}`,
			`scenario 's': unknown option "iterations" for executor constant-vus (allowed: executor, duration, env, exec, gracefulStop, options, startTime, tags, vus)`},
		{`{"s": {"executor": "constant-vus", "vus": "ten"}}`, `scenario 's': option "vus": expected an integer, got the string "ten"`},
		{`{"s": {"executor": "constant-vus", "vus": 1.5}}`, `scenario 's': option "vus": expected an integer, got 1.5`},
		{`{"s": {"executor": "constant-vus", "duration": "soon"}}`, `scenario 's': option "duration": time: invalid duration "soon"`},
		{`{"s": {"executor": "constant-vus", "env": {"A": 1}}}`, `scenario 's': option "env": expected a string, got a JSON number`},
		{`{"s": {"executor": "ramping-vus", "stages": [{"duration": "1s", "target": 1, "vus": 2}]}}`,
			`scenario 's': option "stages": unknown stage option "vus" (allowed: duration, target)`},
		{`{"s": {"executor": 5}}`, `scenario 's': option "executor": expected a string, got 5`},
		{`{"s": 5}`, `scenario 's': a scenario must be an object`},
		{`[1]`, `scenarios must be an object`},
	}
	for _, c := range cases {
		_, err := ParseScenarios([]byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseScenarios(%s) error = %v, want %q", c.js, err, c.want)
			continue
		}
		if !IsConfigError(err) {
			t.Errorf("ParseScenarios(%s): %T is not a *ConfigError", c.js, err)
		}
	}
	if scs, err := ParseScenarios([]byte("null")); err != nil || scs != nil {
		t.Errorf("null scenarios = %v, %v", scs, err)
	}
}
