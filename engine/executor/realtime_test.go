package executor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

// Smoke tests on the real clock: the virtual-time tests above prove the timing, these prove the
// scheduler also works with real timers and goroutines that run in parallel. They check counts
// and order, never how long something took.

func TestRealClockSharedIterations(t *testing.T) {
	sc := scenariotest.Decode(t, "s", `{"executor": "shared-iterations", "vus": 4, "iterations": 100, "maxDuration": "1m"}`)
	h := newHarness(t, sleepBody(time.Millisecond), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	var seen []int64
	for _, r := range h.rt.records() {
		seen = append(seen, r.It.ScenarioInInstance)
	}
	slices.Sort(seen)
	for i, n := range seen {
		if n != int64(i) || len(seen) != 100 {
			t.Fatalf("iteration numbers %v, want 0..99 once each", seen)
		}
	}
	if in := h.s.InstanceStats(); in.IterationsCompleted != 100 || in.VUsActive != 0 {
		t.Errorf("instance = %+v", in)
	}
}

// TestRealClockStop stops a run once both VUs are inside an iteration that only ends when
// interrupted: the stop must reach them through their context.
func TestRealClockStop(t *testing.T) {
	started := make(chan struct{}, 2)
	body := func(ctx context.Context, _ rec) execinfo.Exit {
		started <- struct{}{}
		<-ctx.Done()
		return execinfo.Exit{Outcome: execinfo.Interrupted}
	}
	sc := scenariotest.Decode(t, "s", `{"executor": "constant-vus", "vus": 2, "duration": "1h", "gracefulStop": "0s"}`)
	h := newHarness(t, body, Options{}, sc)
	done := make(chan error, 1)
	go func() { _, err := h.run(); done <- err }()
	deadline := time.After(time.Minute)
	for range 2 {
		select {
		case <-started:
		case <-deadline:
			t.Fatal("the VUs did not start within a minute")
		}
	}
	h.s.Stop(false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-deadline:
		t.Fatal("Run did not return within a minute of Stop")
	}
	if in := h.s.InstanceStats(); in.IterationsInterrupted != 2 || in.IterationsCompleted != 0 {
		t.Errorf("instance = %+v", in)
	}
}

// TestRealClockArrivalRate runs 200 ms of an arrival rate on real timers (a ramping-arrival-rate
// stage, which has no minimum duration): due times are computed, never measured, so they are
// exact whatever the machine's load.
func TestRealClockArrivalRate(t *testing.T) {
	sc := scenariotest.Decode(t, "a", `{"executor": "ramping-arrival-rate", "startRate": 50, "preAllocatedVUs": 5,
	  "stages": [{"duration": "200ms", "target": 50}]}`)
	h := newHarness(t, sleepBody(time.Millisecond), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	recs := h.rt.records()
	dropped := int(h.col.Sum("dropped_iterations"))
	// 50/s for 200 ms: iterations are due at 20, 40, …, 180 ms (the 10th would be at the end).
	if len(recs) == 0 || len(recs)+dropped > 9 {
		t.Errorf("started %d and dropped %d of 9 iterations", len(recs), dropped)
	}
	for _, r := range recs {
		due := time.Duration(r.It.ScenarioInInstance+1) * 20 * time.Millisecond
		if r.It.Scheduled.Sub(h.start(0)) != due || r.It.StartDelay < 0 {
			t.Errorf("iteration %d due at %v (want %v), started %v late", r.It.ScenarioInInstance,
				r.It.Scheduled.Sub(h.start(0)), due, r.It.StartDelay)
		}
	}
}
