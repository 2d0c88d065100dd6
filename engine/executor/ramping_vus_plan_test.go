package executor

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func fmtSteps[T any](steps []T) string { return fmt.Sprint(steps) }

func TestRampingVUSteps(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	cases := []struct {
		name  string
		start int64
		st    []Stage
		seg   string
		want  []vuStep
	}{
		{"ramp up", 0, stages(4*s, 4), "", []vuStep{{0, 0}, {s, 1}, {2 * s, 2}, {3 * s, 3}}},
		{"ramp down", 4, stages(2*s, 0), "", []vuStep{{0, 4}, {500 * ms, 3}, {s, 2}, {1500 * ms, 1}}},
		{"hold then jump", 2, stages(s, 2, 0*s, 5, s, 5), "", []vuStep{{0, 2}, {s, 5}}},
		{"up and down", 1, stages(s, 3, s, 1), "", []vuStep{{0, 1}, {500 * ms, 2}, {s, 3}, {1500 * ms, 2}}}, // nothing changes at the end
		{"jump at start", 1, stages(0*s, 3, s, 3), "", []vuStep{{0, 3}}},
		// Half of a 0→4 ramp: this instance owns VUs #1 and #3 of the stripe (indexes 0 and 2).
		{"segment", 0, stages(4*s, 4), "0:1/2", []vuStep{{0, 0}, {s, 1}, {3 * s, 2}}},
		{"other half", 0, stages(4*s, 4), "1/2:1", []vuStep{{0, 0}, {2 * s, 1}}},
	}
	for _, c := range cases {
		var et *ExecutionTuple
		if c.seg != "" {
			et = tuple(t, c.seg, "0,1/2,1")
		}
		got := rampingVUSteps(c.start, c.st, et)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: steps = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReserveForRampDown(t *testing.T) {
	s := time.Second
	cases := []struct {
		name                string
		raw                 []vuStep
		rampDown, end, hard time.Duration
		want                []Step
	}{
		{"no ramp down", []vuStep{{0, 2}}, 30 * s, 10 * s, 40 * s,
			[]Step{{At: 0, PlannedVUs: 2}, {At: 40 * s}}},
		{"drop held for gracefulRampDown", []vuStep{{0, 5}, {2 * s, 1}}, 3 * s, 10 * s, 12 * s,
			[]Step{{At: 0, PlannedVUs: 5}, {At: 5 * s, PlannedVUs: 1}, {At: 12 * s}}},
		{"rise inside the window", []vuStep{{0, 5}, {2 * s, 1}, {3 * s, 4}}, 3 * s, 10 * s, 12 * s,
			[]Step{{At: 0, PlannedVUs: 5}, {At: 5 * s, PlannedVUs: 4}, {At: 12 * s}}},
		{"zero ramp down", []vuStep{{0, 3}, {s, 0}, {2 * s, 2}}, 0, 4 * s, 5 * s,
			[]Step{{At: 0, PlannedVUs: 3}, {At: s, PlannedVUs: 0}, {At: 2 * s, PlannedVUs: 2}, {At: 5 * s}}},
		{"window cut by the hard end", []vuStep{{0, 4}, {9 * s, 1}}, 30 * s, 10 * s, 12 * s,
			[]Step{{At: 0, PlannedVUs: 4}, {At: 12 * s}}},
		{"staircase down", []vuStep{{0, 3}, {s, 2}, {2 * s, 1}}, 2 * s, 10 * s, 11 * s,
			[]Step{{At: 0, PlannedVUs: 3}, {At: 3 * s, PlannedVUs: 2}, {At: 4 * s, PlannedVUs: 1}, {At: 11 * s}}},
	}
	for _, c := range cases {
		got := reserveForRampDown(c.raw, c.rampDown, c.end, c.hard)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, fmtSteps(got), fmtSteps(c.want))
		}
	}
}

func TestPlanRequirements(t *testing.T) {
	// a: 3 VUs for 10s+5s; b: starts at 20s with 2 VUs → shares a's VUs.
	a := mustDecode(t, "a", `{"executor": "constant-vus", "vus": 3, "duration": "10s", "gracefulStop": "5s"}`)
	b := mustDecode(t, "b", `{"executor": "per-vu-iterations", "vus": 2, "maxDuration": "10s", "startTime": "20s"}`)
	// c overlaps a: 1→4 arrival-rate VUs.
	c := mustDecode(t, "c", `{"executor": "constant-arrival-rate", "rate": 1, "duration": "5s", "preAllocatedVUs": 1, "maxVUs": 4, "startTime": "12s"}`)
	r := PlanRequirements([]Config{a, b, c}, nil)
	want := []Step{
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
	scs, _, _ := DeriveScenarios(Shortcuts{})
	r = PlanRequirements(scs, nil)
	if r.MaxVUs != 1 || r.TotalDuration != 10*time.Minute+30*time.Second {
		t.Errorf("default requirements = %+v", r)
	}
	// Ramping-vus reserves VUs during ramp-downs.
	rv := mustDecode(t, "r", `{"executor": "ramping-vus", "startVUs": 0, "gracefulRampDown": "1s", "gracefulStop": "2s",
	  "stages": [{"duration": "2s", "target": 2}, {"duration": "2s", "target": 0}]}`)
	if got := fmtSteps(rv.Plan(nil)); got != "[{0s 0 0} {1s 1 0} {2s 2 0} {4s 1 0} {6s 0 0}]" {
		t.Errorf("ramping-vus plan = %s", got)
	}
}
