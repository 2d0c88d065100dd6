package scenario_test

import (
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

// TestValidationMessages checks every validation rule of the executors and its k6 wording.
func TestValidationMessages(t *testing.T) {
	cases := []struct {
		name, js string
		want     []string // each problem; nil = valid
	}{
		// Common options.
		{"ok", `{"executor": "constant-vus", "duration": "1s"}`, nil},
		{"bad name!", `{"executor": "constant-vus", "duration": "1s"}`,
			[]string{"the scenario name should contain only numbers, latin letters, underscores, and dashes"}},
		{"s", `{"executor": "constant-vus", "duration": "1s", "exec": ""}`, []string{"exec value cannot be empty"}},
		{"s", `{"executor": "constant-vus", "duration": "1s", "startTime": "-1s"}`, []string{"the startTime can't be negative"}},
		{"s", `{"executor": "constant-vus", "duration": "1s", "gracefulStop": -1}`, []string{"the gracefulStop timeout can't be negative"}},
		// shared-iterations
		{"s", `{"executor": "shared-iterations"}`, nil},
		{"s", `{"executor": "shared-iterations", "vus": 0, "iterations": 0}`, []string{"the number of VUs must be more than 0"}},
		{"s", `{"executor": "shared-iterations", "vus": 5, "iterations": 3}`,
			[]string{"the number of iterations (3) can't be less than the number of VUs (5)"}},
		{"s", `{"executor": "shared-iterations", "maxDuration": "500ms"}`, []string{"the maxDuration must be at least 1s, but is 500ms"}},
		// per-vu-iterations
		{"s", `{"executor": "per-vu-iterations"}`, nil},
		{"s", `{"executor": "per-vu-iterations", "vus": -1, "iterations": 0, "maxDuration": "0s"}`, []string{
			"the number of VUs must be more than 0", "the number of iterations must be more than 0",
			"the maxDuration must be at least 1s, but is 0s"}},
		// constant-vus
		{"s", `{"executor": "constant-vus"}`, []string{"the duration is unspecified"}},
		{"s", `{"executor": "constant-vus", "vus": 0, "duration": 999}`, []string{
			"the number of VUs must be more than 0", "the duration must be at least 1s, but is 999ms"}},
		// ramping-vus
		{"s", `{"executor": "ramping-vus", "stages": [{"duration": "1s", "target": 1}]}`, nil},
		{"s", `{"executor": "ramping-vus"}`, []string{"at least one stage has to be specified"}},
		{"s", `{"executor": "ramping-vus", "startVUs": -1, "stages": [{"duration": "1s", "target": 0}]}`, []string{
			"the number of start VUs can't be negative",
			"either startVUs or one of the stages' target values must be greater than 0"}},
		{"s", `{"executor": "ramping-vus", "stages": [{"target": 1}, {"duration": "-1s"}, {"duration": "1s", "target": -2}]}`, []string{
			"stage 1 doesn't have a duration", "the duration for stage 2 can't be negative",
			"stage 2 doesn't have a target", "the target for stage 3 can't be negative"}},
		{"s", `{"executor": "ramping-vus", "startVUs": 100000001, "stages": [{"duration": "1s", "target": 100000002}]}`, []string{
			"the startVUs exceed max limit of 100000000", "target for stage 1 exceeds max limit of 100000000"}},
		{"s", `{"executor": "ramping-vus", "gracefulRampDown": "-1s", "stages": [{"duration": "1s", "target": 1}]}`,
			[]string{"the gracefulRampDown timeout can't be negative"}},
		// constant-arrival-rate
		{"s", `{"executor": "constant-arrival-rate", "rate": 1, "duration": "1s", "preAllocatedVUs": 0}`, nil},
		{"s", `{"executor": "constant-arrival-rate"}`, []string{
			"the iteration rate isn't specified", "the duration is unspecified", "the number of preAllocatedVUs isn't specified"}},
		{"s", `{"executor": "constant-arrival-rate", "rate": 0, "timeUnit": "0s", "duration": "10ms", "preAllocatedVUs": -1}`, []string{
			"the iteration rate must be more than 0", "the timeUnit must be more than 0",
			"the duration must be at least 1s, but is 10ms", "the number of preAllocatedVUs can't be negative"}},
		{"s", `{"executor": "constant-arrival-rate", "rate": 1, "duration": "1s", "preAllocatedVUs": 5, "maxVUs": 4}`,
			[]string{"maxVUs can't be less than preAllocatedVUs"}},
		// ramping-arrival-rate
		{"s", `{"executor": "ramping-arrival-rate", "stages": [{"duration": "1s", "target": 1}], "preAllocatedVUs": 1}`, nil},
		{"s", `{"executor": "ramping-arrival-rate", "startRate": -1, "timeUnit": "-1s", "preAllocatedVUs": 2, "maxVUs": 1}`, []string{
			"the startRate value can't be negative", "the timeUnit must be more than 0",
			"at least one stage has to be specified", "maxVUs can't be less than preAllocatedVUs"}},
	}
	for _, c := range cases {
		sc := scenariotest.Decode(t, c.name, c.js)
		err := scenario.ValidateScenarios([]scenario.Config{sc})
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: unexpected error %v", c.js, err)
			}
			continue
		}
		want := "scenario " + c.name + " has configuration errors: " + strings.Join(c.want, ", ")
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got: %v\nwant: %s", c.js, err, want)
		}
		if !scenario.IsConfigError(err) {
			t.Errorf("%s: %T is not a *ConfigError", c.js, err)
		}
	}
}

func TestValidateDuplicateAndExecs(t *testing.T) {
	a := scenariotest.Decode(t, "a", `{"executor": "shared-iterations", "exec": "foo"}`)
	b := scenariotest.Decode(t, "a", `{"executor": "shared-iterations"}`)
	if err := scenario.ValidateScenarios([]scenario.Config{a, b}); err == nil || !strings.Contains(err.Error(), "defined more than once") {
		t.Errorf("duplicate names: %v", err)
	}
	exports := map[string]bool{"default": true}
	err := scenario.CheckExecs([]scenario.Config{a, b}, func(n string) bool { return exports[n] })
	if err == nil || err.Error() != "executor a: function 'foo' not found in exports" || !scenario.IsConfigError(err) {
		t.Errorf("CheckExecs = %v", err)
	}
}
