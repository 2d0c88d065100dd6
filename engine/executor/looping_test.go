package executor

import (
	"testing"
	"time"
)

// sampleAt runs f at each offset after Run starts (while Run runs in the test goroutine).
func (h *harness) runSampling(offsets []time.Duration, f func(i int)) (time.Duration, error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for i, off := range offsets {
			time.Sleep(time.Until(start.Add(off)))
			f(i)
		}
	}()
	d, err := h.run()
	<-done
	return d, err
}

func TestConstantVUs(t *testing.T) {
	sc := mustDecode(t, "c", `{"executor": "constant-vus", "vus": 3, "duration": "1s"}`)
	h := newHarness(t, sleepBody(100*time.Millisecond), Options{}, sc)
	var mid InstanceStats
	var prog ScenarioProgress
	took, err := h.runSampling([]time.Duration{500 * time.Millisecond}, func(int) {
		mid = h.s.Instance()
		prog = h.s.Progress()[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	if mid.VUsActive != 3 {
		t.Errorf("active VUs at 0.5s = %d, want 3", mid.VUsActive)
	}
	if prog.Status != StatusRunning || prog.Right[0] != "3 VUs" || prog.Right[1][len(prog.Right[1])-3:] != "/1s" {
		t.Errorf("progress at 0.5s = %+v", prog)
	}
	if f, late := prog.Fraction, schedTolerance.Seconds(); f < 0.49 || f > 0.51+late {
		t.Errorf("fraction at 0.5s = %v", f)
	}
	// Each VU starts iterations at 0, 0.1, …, 0.9 s: 30 in all (scheduling noise: ±3).
	within(t, "completed", float64(h.rt.count("c", Completed)), 30, 4)
	if h.rt.count("c", Interrupted) != 0 {
		t.Error("no iteration should be interrupted with the default 30s gracefulStop")
	}
	// The last iterations start just before 1 s and take 100 ms.
	if took < time.Second || took > 1100*time.Millisecond+schedTolerance {
		t.Errorf("run took %v", took)
	}
	if p := h.s.Progress()[0]; p.Status != StatusDone || p.Fraction != 1 {
		t.Errorf("final progress = %+v", p)
	}
}

func TestRampingVUsCountsOverTime(t *testing.T) {
	sc := mustDecode(t, "r", `{"executor": "ramping-vus", "startVUs": 0, "gracefulRampDown": "0s", "gracefulStop": "0s",
	  "stages": [{"duration": "400ms", "target": 4}, {"duration": "400ms", "target": 4}, {"duration": "400ms", "target": 0}]}`)
	h := newHarness(t, sleepBody(20*time.Millisecond), Options{}, sc)
	var mid []string
	var midActive int64
	if _, err := h.runSampling(ms(650), func(int) {
		mid = h.s.Progress()[0].Right
		midActive = h.s.Instance().VUsActive
	}); err != nil {
		t.Fatal(err)
	}
	start := h.s.scenarios[0].startedAt()
	// One VU joins every 100 ms up to 4, and with gracefulRampDown 0 one leaves at once every
	// 100 ms from 900 ms; the last leaves at the regular end.
	onTime(t, "activations", h.rt.eventOffsets(start, 1), ms(100, 200, 300, 400))
	onTime(t, "deactivations", h.rt.eventOffsets(start, -1), ms(900, 1000, 1100, 1200))
	if midActive != 4 || mid[0] != "4/4 VUs" {
		t.Errorf("at 650ms: %d active, progress %q", midActive, mid)
	}
	if n := h.rt.created.Load(); n != 4 {
		t.Errorf("initialised %d VUs, want 4", n)
	}
}

// TestRampingVUsGracefulRampDown: when the target drops, a VU's running iteration gets
// gracefulRampDown to finish; after that it is interrupted (§3.3 rule 5). Until then the VU
// stays reserved.
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
			sc := mustDecode(t, "r", `{"executor": "ramping-vus", "startVUs": 2, "gracefulRampDown": "`+c.rampDown+`",
			  "stages": [{"duration": "200ms", "target": 2}, {"duration": "0s", "target": 0}, {"duration": "800ms", "target": 0}]}`)
			h := newHarness(t, sleepBody(500*time.Millisecond), Options{}, sc)
			if _, err := h.run(); err != nil {
				t.Fatal(err)
			}
			if got := h.rt.count("r", Completed); got != c.completed {
				t.Errorf("completed = %d, want %d", got, c.completed)
			}
			if got := h.rt.count("r", Interrupted); got != c.interrupted {
				t.Errorf("interrupted = %d, want %d", got, c.interrupted)
			}
			onTime(t, "releases", h.rt.eventOffsets(h.s.scenarios[0].startedAt(), -1), ms(c.released, c.released))
		})
	}
}

func TestGracefulStopInterrupts(t *testing.T) {
	sc := mustDecode(t, "c", `{"executor": "constant-vus", "vus": 2, "duration": "200ms", "gracefulStop": "300ms"}`)
	h := newHarness(t, sleepBody(time.Second), Options{}, sc)
	var status Status
	took, err := h.runSampling(ms(350), func(int) { status = h.s.Progress()[0].Status })
	if err != nil {
		t.Fatal(err)
	}
	if status != StatusStopping {
		t.Errorf("status during gracefulStop = %v", status)
	}
	in := h.s.Instance()
	if in.IterationsInterrupted != 2 || in.IterationsCompleted != 0 {
		t.Errorf("instance = %+v, want 2 interrupted", in)
	}
	onTime(t, "run", []time.Duration{took}, ms(500))
}

// TestRampingVUsResumeWithinRampDown: a VU ramped down and wanted again before its
// gracefulRampDown ends resumes in place; it is neither replaced nor re-activated.
func TestRampingVUsResumeWithinRampDown(t *testing.T) {
	sc := mustDecode(t, "r", `{"executor": "ramping-vus", "startVUs": 2, "gracefulRampDown": "1s",
	  "stages": [{"duration": "150ms", "target": 2}, {"duration": "0s", "target": 1}, {"duration": "300ms", "target": 1},
	             {"duration": "0s", "target": 2}, {"duration": "200ms", "target": 2}]}`)
	h := newHarness(t, sleepBody(20*time.Millisecond), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	start := h.s.scenarios[0].startedAt()
	onTime(t, "activations", h.rt.eventOffsets(start, 1), ms(0, 0))
	onTime(t, "deactivations", h.rt.eventOffsets(start, -1), ms(650, 650))
	// One VU pauses from 150 ms (the step may apply up to schedTolerance late) to 450 ms, then
	// loops again; the other loops throughout.
	type phases struct{ before, paused, after int }
	per := map[uint64]*phases{1: {}, 2: {}}
	for _, r := range h.rt.records() {
		p := per[r.VU.InInstance]
		switch off := r.Start.Sub(start); {
		case off < 150*time.Millisecond:
			p.before++
		case off < 150*time.Millisecond+schedTolerance:
			// the ramp-down may not have applied yet on a slow machine
		case off < 450*time.Millisecond-5*time.Millisecond:
			p.paused++
		default:
			p.after++
		}
	}
	a, b := *per[1], *per[2]
	if a.paused > 0 == (b.paused > 0) || a.before == 0 || b.before == 0 || a.after == 0 || b.after == 0 {
		t.Errorf("VU iterations (before, during, after the ramp-down): %+v %+v", a, b)
	}
}
