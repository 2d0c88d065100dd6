package plan

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
		want  []VUStep
	}{
		{"ramp up", 0, stages(4*s, 4), "", []VUStep{{0, 0}, {s, 1}, {2 * s, 2}, {3 * s, 3}}},
		{"ramp down", 4, stages(2*s, 0), "", []VUStep{{0, 4}, {500 * ms, 3}, {s, 2}, {1500 * ms, 1}}},
		{"hold then jump", 2, stages(s, 2, 0*s, 5, s, 5), "", []VUStep{{0, 2}, {s, 5}}},
		{"up and down", 1, stages(s, 3, s, 1), "", []VUStep{{0, 1}, {500 * ms, 2}, {s, 3}, {1500 * ms, 2}}}, // nothing changes at the end
		{"jump at start", 1, stages(0*s, 3, s, 3), "", []VUStep{{0, 3}}},
		// Half of a 0→4 ramp: this instance owns VUs #1 and #3 of the stripe (indexes 0 and 2).
		{"segment", 0, stages(4*s, 4), "0:1/2", []VUStep{{0, 0}, {s, 1}, {3 * s, 2}}},
		{"other half", 0, stages(4*s, 4), "1/2:1", []VUStep{{0, 0}, {2 * s, 1}}},
	}
	for _, c := range cases {
		var et *ExecutionTuple
		if c.seg != "" {
			et = tuple(t, c.seg, "0,1/2,1")
		}
		got := RampingVUSteps(c.start, c.st, et)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: steps = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReserveForRampDown(t *testing.T) {
	s := time.Second
	cases := []struct {
		name                string
		raw                 []VUStep
		rampDown, end, hard time.Duration
		want                []Step
	}{
		{"no ramp down", []VUStep{{0, 2}}, 30 * s, 10 * s, 40 * s,
			[]Step{{At: 0, PlannedVUs: 2}, {At: 40 * s}}},
		{"drop held for gracefulRampDown", []VUStep{{0, 5}, {2 * s, 1}}, 3 * s, 10 * s, 12 * s,
			[]Step{{At: 0, PlannedVUs: 5}, {At: 5 * s, PlannedVUs: 1}, {At: 12 * s}}},
		{"rise inside the window", []VUStep{{0, 5}, {2 * s, 1}, {3 * s, 4}}, 3 * s, 10 * s, 12 * s,
			[]Step{{At: 0, PlannedVUs: 5}, {At: 5 * s, PlannedVUs: 4}, {At: 12 * s}}},
		{"zero ramp down", []VUStep{{0, 3}, {s, 0}, {2 * s, 2}}, 0, 4 * s, 5 * s,
			[]Step{{At: 0, PlannedVUs: 3}, {At: s, PlannedVUs: 0}, {At: 2 * s, PlannedVUs: 2}, {At: 5 * s}}},
		{"window cut by the hard end", []VUStep{{0, 4}, {9 * s, 1}}, 30 * s, 10 * s, 12 * s,
			[]Step{{At: 0, PlannedVUs: 4}, {At: 12 * s}}},
		{"staircase down", []VUStep{{0, 3}, {s, 2}, {2 * s, 1}}, 2 * s, 10 * s, 11 * s,
			[]Step{{At: 0, PlannedVUs: 3}, {At: 3 * s, PlannedVUs: 2}, {At: 4 * s, PlannedVUs: 1}, {At: 11 * s}}},
	}
	for _, c := range cases {
		got := ReserveForRampDown(c.raw, c.rampDown, c.end, c.hard)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, fmtSteps(got), fmtSteps(c.want))
		}
	}
}

func TestCombine(t *testing.T) {
	s := time.Second
	// a: 3 VUs for 10s+5s; b: starts at 20s with 2 VUs, so it shares a's VUs; c overlaps a with
	// 1→4 arrival-rate VUs.
	a := []Step{{At: 0, PlannedVUs: 3}, {At: 15 * s}}
	b := Shift([]Step{{At: 0, PlannedVUs: 2}, {At: 40 * s}}, 20*s)
	c := Shift([]Step{{At: 0, PlannedVUs: 1, UnplannedVUs: 3}, {At: 35 * s}}, 12*s)
	r := Combine(a, b, c)
	want := []Step{
		{At: 0, PlannedVUs: 3},
		{At: 12 * s, PlannedVUs: 4, UnplannedVUs: 3},
		{At: 15 * s, PlannedVUs: 1, UnplannedVUs: 3},
		{At: 20 * s, PlannedVUs: 3, UnplannedVUs: 3},
		{At: 47 * s, PlannedVUs: 2},
		{At: 60 * s},
	}
	if !slices.Equal(r.Steps, want) {
		t.Errorf("steps = %v\nwant    %v", r.Steps, want)
	}
	if r.PlannedVUs != 4 || r.MaxVUs != 7 || r.TotalDuration != 60*s {
		t.Errorf("requirements = %+v", r)
	}
	if r := Combine(); r.MaxVUs != 0 || r.TotalDuration != 0 || r.Steps != nil {
		t.Errorf("no scenarios: %+v", r)
	}
}
