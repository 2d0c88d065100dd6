package executor

import (
	"testing"
	"time"
)

func TestDescriptions(t *testing.T) {
	cases := []struct{ js, seg, want string }{
		{`{"executor": "shared-iterations", "vus": 10, "iterations": 100}`, "",
			"100 iterations shared among 10 VUs (maxDuration: 10m0s, gracefulStop: 30s)"},
		// Re-segmented by vus (3,3,2,2 of 10): iterations follow the VU shares.
		{`{"executor": "shared-iterations", "vus": 10, "iterations": 100}`, "0:1/4",
			"30 iterations shared among 3 VUs (maxDuration: 10m0s, gracefulStop: 30s)"},
		{`{"executor": "per-vu-iterations", "vus": 4, "iterations": 3, "maxDuration": "1m", "exec": "fn", "startTime": "5s", "gracefulStop": 0}`, "",
			"3 iterations for each of 4 VUs (maxDuration: 1m0s, exec: fn, startTime: 5s)"},
		{`{"executor": "per-vu-iterations", "vus": 4, "iterations": 3}`, "0:1/4",
			"3 iterations for each of 1 VUs (maxDuration: 10m0s, gracefulStop: 30s)"},
		{`{"executor": "constant-vus", "vus": 10, "duration": "30s"}`, "",
			"10 looping VUs for 30s (gracefulStop: 30s)"},
		{`{"executor": "constant-vus", "vus": 10, "duration": "1d", "gracefulStop": "0s"}`, "",
			"10 looping VUs for 24h0m0s"},
		{`{"executor": "ramping-vus", "stages": [{"duration": "1m", "target": 20}, {"duration": "30s", "target": 0}]}`, "",
			"Up to 20 looping VUs for 1m30s over 2 stages (gracefulRampDown: 30s, gracefulStop: 30s)"},
		{`{"executor": "constant-arrival-rate", "rate": 30, "duration": "1m", "preAllocatedVUs": 5}`, "",
			"30.00 iterations/s for 1m0s (maxVUs: 5, gracefulStop: 30s)"},
		{`{"executor": "constant-arrival-rate", "rate": 1, "timeUnit": "1m", "duration": "1m", "preAllocatedVUs": 5, "maxVUs": 50}`, "",
			"0.02 iterations/s for 1m0s (maxVUs: 5-50, gracefulStop: 30s)"},
		// Four instances, maxVUs 2: this one now runs half of the rate with one VU.
		{`{"executor": "constant-arrival-rate", "rate": 10, "duration": "1m", "preAllocatedVUs": 2}`, "0:1/4",
			"5.00 iterations/s for 1m0s (maxVUs: 1, gracefulStop: 30s)"},
		{`{"executor": "ramping-arrival-rate", "startRate": 5, "stages": [{"duration": "10s", "target": 50}, {"duration": "10s", "target": 10}], "preAllocatedVUs": 10, "maxVUs": 20}`, "",
			"Up to 50.00 iterations/s for 20s over 2 stages (maxVUs: 10-20, gracefulStop: 30s)"},
	}
	for _, c := range cases {
		sc := mustDecode(t, "s", c.js)
		var et *ExecutionTuple
		if c.seg != "" {
			et = tuple(t, c.seg, "0,1/4,1/2,3/4,1")
		}
		if got := sc.Description(et); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.js, got, c.want)
		}
	}
}

func TestFixedLengthDuration(t *testing.T) {
	cases := []struct {
		d, max time.Duration
		want   string
	}{
		{5 * time.Second, 30 * time.Second, "0m05.0s"},
		{5*time.Second + 49*time.Millisecond, 10 * time.Minute, "0m05.0s"},
		{83*time.Second + 420*time.Millisecond, time.Minute, "1m23.4s"},
		{90 * time.Second, 2 * time.Hour, "0h01m30.0s"},
		{26 * time.Hour, 48 * time.Hour, "1d02h00m00.0s"},
		{2 * time.Hour, time.Minute, "2h00m00.0s"}, // grows rather than lies
		{-time.Second, time.Minute, "-0m01.0s"},
	}
	for _, c := range cases {
		if got := FixedLengthDuration(c.d, c.max); got != c.want {
			t.Errorf("FixedLengthDuration(%v, %v) = %q, want %q", c.d, c.max, got, c.want)
		}
	}
	if got := padCount(50, 100); got != "050/100" {
		t.Errorf("padCount = %q", got)
	}
	marks := ""
	for _, s := range []Status{StatusRunning, StatusWaiting, StatusStopping, StatusInterrupted, StatusDone} {
		marks += s.Mark()
	}
	if marks != " •↓✗✓" {
		t.Errorf("marks = %q", marks)
	}
}
