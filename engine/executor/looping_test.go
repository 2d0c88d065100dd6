package executor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

func TestConstantVUs(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "c", `{"executor": "constant-vus", "vus": 3, "duration": "1s"}`)
		h := newHarness(t, sleepBody(90*time.Millisecond), Options{}, sc)
		var mid execinfo.InstanceStats
		var prog ScenarioProgress
		took, err := h.runSampling(ms(500), func(int) {
			mid = h.s.InstanceStats()
			prog = h.s.Progress()[0]
		})
		if err != nil {
			t.Fatal(err)
		}
		if mid.VUsActive != 3 || mid.CurrentTestRunDuration != 500*time.Millisecond {
			t.Errorf("instance at 0.5s = %+v", mid)
		}
		if prog.Status != StatusRunning || prog.Fraction != 0.5 || !slices.Equal(prog.Right, []string{"3 VUs", "0m00.5s/1s"}) {
			t.Errorf("progress at 0.5s = %+v", prog)
		}
		// Each VU starts iterations at 0, 90, …, 990 ms: 12 each. The last ones end at 1080 ms,
		// within the default 30s gracefulStop.
		if n := h.rt.count("c", execinfo.Completed); n != 36 {
			t.Errorf("completed %d iterations, want 36", n)
		}
		if h.rt.count("c", execinfo.Interrupted) != 0 {
			t.Error("no iteration should be interrupted with the default 30s gracefulStop")
		}
		if took != 1080*time.Millisecond {
			t.Errorf("run took %v, want 1.08s", took)
		}
		if p := h.s.Progress()[0]; p.Status != StatusDone || p.Fraction != 1 {
			t.Errorf("final progress = %+v", p)
		}
	})
}

func TestRampingVUsCountsOverTime(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "r", `{"executor": "ramping-vus", "startVUs": 0, "gracefulRampDown": "0s", "gracefulStop": "0s",
		  "stages": [{"duration": "400ms", "target": 4}, {"duration": "400ms", "target": 4}, {"duration": "400ms", "target": 0}]}`)
		// 23 ms iterations never end exactly when a VU joins or leaves.
		h := newHarness(t, sleepBody(23*time.Millisecond), Options{}, sc)
		var mid []string
		var midActive int64
		if _, err := h.runSampling(ms(650), func(int) {
			mid = h.s.Progress()[0].Right
			midActive = h.s.InstanceStats().VUsActive
		}); err != nil {
			t.Fatal(err)
		}
		// One VU joins every 100 ms up to 4, and with gracefulRampDown 0 one leaves at once every
		// 100 ms from 900 ms; the last leaves at the regular end.
		equalTimes(t, "activations", h.rt.eventOffsets(h.start(0), 1), ms(100, 200, 300, 400))
		equalTimes(t, "deactivations", h.rt.eventOffsets(h.start(0), -1), ms(900, 1000, 1100, 1200))
		if midActive != 4 || mid[0] != "4/4 VUs" {
			t.Errorf("at 650ms: %d active, progress %q", midActive, mid)
		}
		if n := h.rt.created.Load(); n != 4 {
			t.Errorf("initialised %d VUs, want 4", n)
		}
	})
}

// TestRampingVUsGracefulRampDown: when the target drops, a VU's running iteration gets
// gracefulRampDown to finish; after that it is interrupted. Until then the VU stays reserved.
func TestRampingVUsGracefulRampDown(t *testing.T) {
	cases := []struct {
		rampDown               string
		completed, interrupted int
		released               int // ms after the start when both VUs go back to the pool
	}{
		{"100ms", 0, 2, 300}, // iterations (0–500 ms) interrupted at 200+100 ms
		{"1s", 2, 0, 1000},   // iterations finish at 500 ms, nothing new starts, VUs held to the end
	}
	for _, c := range cases {
		t.Run(c.rampDown, func(t *testing.T) {
			virtual(t, func(t *testing.T) {
				sc := scenariotest.Decode(t, "r", `{"executor": "ramping-vus", "startVUs": 2, "gracefulRampDown": "`+c.rampDown+`",
				  "stages": [{"duration": "200ms", "target": 2}, {"duration": "0s", "target": 0}, {"duration": "800ms", "target": 0}]}`)
				h := newHarness(t, sleepBody(500*time.Millisecond), Options{}, sc)
				if _, err := h.run(); err != nil {
					t.Fatal(err)
				}
				if got := h.rt.count("r", execinfo.Completed); got != c.completed {
					t.Errorf("completed = %d, want %d", got, c.completed)
				}
				if got := h.rt.count("r", execinfo.Interrupted); got != c.interrupted {
					t.Errorf("interrupted = %d, want %d", got, c.interrupted)
				}
				equalTimes(t, "releases", h.rt.eventOffsets(h.start(0), -1), ms(c.released, c.released))
			})
		})
	}
}

func TestGracefulStopInterrupts(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "c", `{"executor": "constant-vus", "vus": 2, "duration": "1s", "gracefulStop": "300ms"}`)
		h := newHarness(t, sleepBody(2*time.Second), Options{}, sc)
		var status Status
		took, err := h.runSampling(ms(1150), func(int) { status = h.s.Progress()[0].Status })
		if err != nil {
			t.Fatal(err)
		}
		if status != StatusStopping {
			t.Errorf("status during gracefulStop = %v", status)
		}
		in := h.s.InstanceStats()
		if in.IterationsInterrupted != 2 || in.IterationsCompleted != 0 {
			t.Errorf("instance = %+v, want 2 interrupted", in)
		}
		if took != 1300*time.Millisecond {
			t.Errorf("run took %v, want duration + gracefulStop = 1.3s", took)
		}
	})
}

// TestRampingVUsResumeWithinRampDown: a VU ramped down and wanted again before its
// gracefulRampDown ends resumes in place; it is neither replaced nor re-activated.
func TestRampingVUsResumeWithinRampDown(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "r", `{"executor": "ramping-vus", "startVUs": 2, "gracefulRampDown": "1s",
		  "stages": [{"duration": "150ms", "target": 2}, {"duration": "0s", "target": 1}, {"duration": "300ms", "target": 1},
		             {"duration": "0s", "target": 2}, {"duration": "200ms", "target": 2}]}`)
		h := newHarness(t, sleepBody(45*time.Millisecond), Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		start := h.start(0)
		equalTimes(t, "activations", h.rt.eventOffsets(start, 1), ms(0, 0))
		// The regular end is at 650 ms; the iterations started at 630 ms end at 675 ms.
		equalTimes(t, "deactivations", h.rt.eventOffsets(start, -1), ms(675, 675))
		// One VU loops throughout; the other finishes the iteration it was running at 150 ms, starts
		// none until 450 ms, then loops again.
		looping := every(0, 45*time.Millisecond, 650*time.Millisecond)
		paused := append(ms(0, 45, 90, 135), every(450*time.Millisecond, 45*time.Millisecond, 650*time.Millisecond)...)
		a, b := h.rt.startOffsetsOfVU(start, 1), h.rt.startOffsetsOfVU(start, 2)
		if !(slices.Equal(a, looping) && slices.Equal(b, paused)) && !(slices.Equal(a, paused) && slices.Equal(b, looping)) {
			t.Errorf("iteration starts of VU 1 %v and VU 2 %v;\nwant one %v and the other %v", a, b, looping, paused)
		}
	})
}

// TestNoIterationAfterTheRegularEnd: once the regular end has passed, a VU starts no iteration,
// even while the deadline's timer has not run yet (a busy machine runs it late) and the regular
// context still says it is alive.
func TestNoIterationAfterTheRegularEnd(t *testing.T) {
	cases := []struct {
		name string
		end  time.Duration // from now
		want bool
	}{
		{"before the end", time.Hour, true},
		{"past the end, the timer late", -time.Millisecond, false},
	}
	for _, c := range cases {
		alive, cancel := context.WithCancel(context.Background())
		sc := &scenarioRun{regularCtx: alive, hardCtx: alive, regularEnd: time.Now().Add(c.end)}
		if got := sc.starting(); got != c.want {
			t.Errorf("%s: starting() = %v, want %v", c.name, got, c.want)
		}
		cancel()
		if sc.starting() {
			t.Errorf("%s: starting() after the context ended", c.name)
		}
	}
}
