package executor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

// segmentRun is what one instance of a segmented test did.
type segmentRun struct {
	vus     int64   // VUs initialised
	iters   int     // iterations run
	globals []int64 // exec.scenario.iterationInTest of each, sorted
	vuIDs   []uint64
}

// runSegments runs the scenario once per segment of seq (each instance in its own bubble, as
// separate processes would) and once unsegmented.
func runSegments(t *testing.T, js, seq string, body time.Duration) (parts []segmentRun, whole segmentRun) {
	t.Helper()
	points := strings.Split(seq, ",")
	runOne := func(seg string) segmentRun {
		var out segmentRun
		virtual(t, func(t *testing.T) {
			opts := Options{}
			if seg != "" {
				opts.Tuple = scenariotest.Tuple(t, seg, seq)
			}
			h := newHarness(t, sleepBody(body), opts, scenariotest.Decode(t, "s", js))
			if _, err := h.run(); err != nil {
				t.Fatal(err)
			}
			out.vus = h.rt.created.Load()
			ids := map[uint64]bool{}
			for _, r := range h.rt.records() {
				out.globals = append(out.globals, r.It.ScenarioInTest)
				ids[r.VU.InTest] = true
			}
			for id := range ids {
				out.vuIDs = append(out.vuIDs, id)
			}
			slices.Sort(out.vuIDs)
			out.iters = len(out.globals)
			slices.Sort(out.globals)
		})
		return out
	}
	for i := 0; i+1 < len(points); i++ {
		parts = append(parts, runOne(points[i]+":"+points[i+1]))
	}
	return parts, runOne("")
}

// TestSegmentWorkedValues: per-instance VUs and iterations of k6's worked examples (docs/k6-compat.md,
// "Execution segments"), for every executor; together the instances do exactly what one would,
// with iteration and VU numbers unique across them.
func TestSegmentWorkedValues(t *testing.T) {
	const thirds, quarters = "0,1/3,2/3,1", "0,1/4,2/4,3/4,1"
	cases := []struct {
		name, js, seq string
		body          time.Duration
		vus           []int64
		iters         []int     // nil: only the sum is checked against the whole run
		firstGlobals  [][]int64 // leading exec.scenario.iterationInTest per instance
		// looping: each instance numbers its own iterations along its stripe, so the numbers are
		// unique but leave gaps; otherwise they are exactly those of one instance.
		looping bool
	}{
		{name: "constant-vus", seq: thirds, body: 300 * time.Millisecond,
			js:  `{"executor": "constant-vus", "vus": 10, "duration": "10s"}`,
			vus: []int64{4, 3, 3}, iters: []int{136, 102, 102}, looping: true},
		{name: "shared-iterations", seq: thirds, body: time.Millisecond,
			js:  `{"executor": "shared-iterations", "vus": 10, "iterations": 100}`,
			vus: []int64{4, 3, 3}, iters: []int{40, 30, 30},
			firstGlobals: [][]int64{{0, 3, 5, 8, 10, 13}, {1, 4, 7, 11, 14}, {2, 6, 9, 12, 16}}},
		{name: "per-vu-iterations", seq: thirds, body: time.Millisecond,
			js:  `{"executor": "per-vu-iterations", "vus": 10, "iterations": 5}`,
			vus: []int64{4, 3, 3}, iters: []int{20, 15, 15}, looping: true},
		{name: "ramping-vus", seq: thirds, body: 333 * time.Millisecond,
			js:  `{"executor": "ramping-vus", "startVUs": 0, "stages": [{"duration": "10s", "target": 10}, {"duration": "5s", "target": 10}, {"duration": "10s", "target": 0}], "gracefulRampDown": "0s"}`,
			vus: []int64{4, 3, 3}, looping: true},
		{name: "constant-arrival-rate", seq: thirds, body: time.Millisecond,
			js:  `{"executor": "constant-arrival-rate", "rate": 100, "duration": "60s", "preAllocatedVUs": 10}`,
			vus: []int64{4, 3, 3}, iters: []int{2400, 1800, 1800}},
		{name: "constant-arrival-rate maxVUs 30", seq: thirds, body: time.Millisecond,
			js:  `{"executor": "constant-arrival-rate", "rate": 100, "duration": "60s", "preAllocatedVUs": 30}`,
			vus: []int64{10, 10, 10}, iters: []int{2000, 2000, 2000},
			firstGlobals: [][]int64{{0, 3, 6}, {1, 4, 7}, {2, 5, 8}}},
		{name: "ramping-arrival-rate", seq: thirds, body: time.Millisecond,
			js:  `{"executor": "ramping-arrival-rate", "startRate": 0, "stages": [{"duration": "10s", "target": 100}], "preAllocatedVUs": 10}`,
			vus: []int64{4, 3, 3}, iters: []int{200, 150, 149}}, // iteration i is due when i+1 have arrived
		{name: "constant-vus parallelism 4", seq: quarters, body: 400 * time.Millisecond,
			js:  `{"executor": "constant-vus", "vus": 10, "duration": "3s"}`,
			vus: []int64{3, 3, 2, 2}, iters: []int{24, 24, 16, 16}, looping: true},
		{name: "per-vu-iterations parallelism 4", seq: quarters, body: time.Millisecond,
			js:  `{"executor": "per-vu-iterations", "vus": 7, "iterations": 2}`,
			vus: []int64{2, 2, 2, 1}, iters: []int{4, 4, 4, 2}, looping: true},
		// maxVUs 2 on 4 instances: two instances drop out, the others run half each.
		{name: "constant-arrival-rate parallelism 4 maxVUs 2", seq: quarters, body: time.Millisecond,
			js:  `{"executor": "constant-arrival-rate", "rate": 10, "duration": "2s", "preAllocatedVUs": 2}`,
			vus: []int64{1, 1, 0, 0}, iters: []int{10, 10, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts, whole := runSegments(t, c.js, c.seq, c.body)
			var vus []int64
			var iters []int
			var all []int64
			var ids []uint64
			for _, p := range parts {
				vus = append(vus, p.vus)
				iters = append(iters, p.iters)
				all = append(all, p.globals...)
				ids = append(ids, p.vuIDs...)
			}
			if !slices.Equal(vus, c.vus) {
				t.Errorf("VUs per instance %v, want %v", vus, c.vus)
			}
			if c.iters != nil && !slices.Equal(iters, c.iters) {
				t.Errorf("iterations per instance %v, want %v", iters, c.iters)
			}
			for i, want := range c.firstGlobals {
				if got := parts[i].globals[:min(len(want), len(parts[i].globals))]; !slices.Equal(got, want) {
					t.Errorf("instance %d iterationInTest starts %v, want %v", i, got, want)
				}
			}
			slices.Sort(all)
			switch {
			case len(all) != len(whole.globals):
				t.Errorf("instances ran %d iterations together, one instance %d", len(all), len(whole.globals))
			case c.looping:
				if len(slices.Compact(slices.Clone(all))) != len(all) {
					t.Errorf("iterationInTest not unique across instances: %s", span(all))
				}
			case !slices.Equal(all, whole.globals):
				t.Errorf("instances ran iterations %s together, one instance %s", span(all), span(whole.globals))
			}
			if sum(vus) != whole.vus {
				t.Errorf("instances initialised %d VUs together, one instance %d", sum(vus), whole.vus)
			}
			slices.Sort(ids)
			if len(slices.Compact(slices.Clone(ids))) != len(ids) {
				t.Errorf("VU idInTest not unique across instances: %v", ids)
			}
		})
	}
}

// TestSegmentVUIDs: k6's worked example of VU ids, 10 VUs on three instances.
func TestSegmentVUIDs(t *testing.T) {
	parts, _ := runSegments(t, `{"executor": "constant-vus", "vus": 10, "duration": "1s"}`, "0,1/3,2/3,1", 300*time.Millisecond)
	want := [][]uint64{{1, 4, 7, 10}, {2, 5, 8}, {3, 6, 9}}
	for i, p := range parts {
		if !slices.Equal(p.vuIDs, want[i]) {
			t.Errorf("instance %d VU idInTest %v, want %v", i, p.vuIDs, want[i])
		}
	}
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// span describes a sorted list of iteration numbers briefly for failure messages.
func span(v []int64) string {
	if len(v) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d (%d..%d)", len(v), v[0], v[len(v)-1])
}
