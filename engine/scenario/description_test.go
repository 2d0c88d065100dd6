package scenario_test

import (
	"testing"

	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
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
		sc := scenariotest.Decode(t, "s", c.js)
		var et *plan.ExecutionTuple
		if c.seg != "" {
			et = scenariotest.Tuple(t, c.seg, "0,1/4,1/2,3/4,1")
		}
		if got := sc.Description(et); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.js, got, c.want)
		}
	}
}
