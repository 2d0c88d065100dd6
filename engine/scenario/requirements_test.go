package scenario_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

func TestRequirements(t *testing.T) {
	// a: 3 VUs for 10s+5s; b: starts at 20s with 2 VUs → shares a's VUs.
	a := scenariotest.Decode(t, "a", `{"executor": "constant-vus", "vus": 3, "duration": "10s", "gracefulStop": "5s"}`)
	b := scenariotest.Decode(t, "b", `{"executor": "per-vu-iterations", "vus": 2, "maxDuration": "10s", "startTime": "20s"}`)
	// c overlaps a: 1→4 arrival-rate VUs.
	c := scenariotest.Decode(t, "c", `{"executor": "constant-arrival-rate", "rate": 1, "duration": "5s", "preAllocatedVUs": 1, "maxVUs": 4, "startTime": "12s"}`)
	r := scenario.Requirements([]scenario.Config{a, b, c}, nil)
	want := []plan.Step{
		{At: 0, PlannedVUs: 3},
		{At: 12 * time.Second, PlannedVUs: 4, UnplannedVUs: 3},
		{At: 15 * time.Second, PlannedVUs: 1, UnplannedVUs: 3},
		{At: 20 * time.Second, PlannedVUs: 3, UnplannedVUs: 3},
		{At: 47 * time.Second, PlannedVUs: 2},
		{At: 60 * time.Second},
	}
	if !slices.Equal(r.Steps, want) {
		t.Errorf("steps = %v\nwant    %v", r.Steps, want)
	}
	if r.PlannedVUs != 4 || r.MaxVUs != 7 || r.TotalDuration != 60*time.Second {
		t.Errorf("requirements = %+v", r)
	}
	// The default scenario: 1 VU, 10m30s (the k6 banner's "max duration (incl. graceful stop)").
	scs, _, _ := scenario.DeriveScenarios(scenario.Shortcuts{})
	r = scenario.Requirements(scs, nil)
	if r.MaxVUs != 1 || r.TotalDuration != 10*time.Minute+30*time.Second {
		t.Errorf("default requirements = %+v", r)
	}
	// Ramping-vus reserves VUs during ramp-downs.
	rv := scenariotest.Decode(t, "r", `{"executor": "ramping-vus", "startVUs": 0, "gracefulRampDown": "1s", "gracefulStop": "2s",
	  "stages": [{"duration": "2s", "target": 2}, {"duration": "2s", "target": 0}]}`)
	if got := fmt.Sprint(rv.Plan(nil)); got != "[{0s 0 0} {1s 1 0} {2s 2 0} {4s 1 0} {6s 0 0}]" {
		t.Errorf("ramping-vus plan = %s", got)
	}
	// A ramp that ends rising counts its last target, as k6's maxVUs does: 1→10 plans 10 VUs
	// although the 10th VU's step falls on the end of the stage.
	up := scenariotest.Decode(t, "u", `{"executor": "ramping-vus", "startVUs": 1, "stages": [{"duration": "10s", "target": 10}]}`)
	if r := scenario.Requirements([]scenario.Config{up}, nil); r.MaxVUs != 10 {
		t.Errorf("1→10 ramp: max VUs = %d, want 10", r.MaxVUs)
	}
}
