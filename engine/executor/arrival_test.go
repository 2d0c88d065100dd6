package executor

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Start-lateness tolerances for a loaded 2-core CI box running -race with parallel tests: the
// median must stay small (a dispatcher that waited for busy VUs would be ~50 ms late at 20/s),
// and no single start may lag badly (a stall of the whole process delays a few). A quiet
// machine sees well under 1 ms.
const (
	lateMedian = 20 * time.Millisecond
	lateMax    = 250 * time.Millisecond
)

// checkLateness applies the tolerances to the start delays of recs.
func checkLateness(t *testing.T, recs []rec) {
	t.Helper()
	var ds []time.Duration
	for _, r := range recs {
		if r.It.StartDelay < 0 || r.It.StartDelay > lateMax {
			t.Errorf("iteration %d started %v late (max %v)", r.It.InScenario, r.It.StartDelay, lateMax)
		}
		ds = append(ds, r.It.StartDelay)
	}
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	if med := ds[len(ds)/2]; med > lateMedian {
		t.Errorf("median start delay %v > %v", med, lateMedian)
	}
}

type delays struct {
	mu sync.Mutex
	d  []time.Duration
}

func (d *delays) ObserveStartDelay(_ string, _ time.Time, delay time.Duration) {
	d.mu.Lock()
	d.d = append(d.d, delay)
	d.mu.Unlock()
}

func TestConstantArrivalRate(t *testing.T) {
	sc := mustDecode(t, "a", `{"executor": "constant-arrival-rate", "rate": 20, "timeUnit": "1s", "duration": "1s", "preAllocatedVUs": 10}`)
	obs := &delays{}
	h := newHarness(t, sleepBody(5*time.Millisecond), Options{StartDelay: obs}, sc)
	var right []string
	if _, err := h.runSampling([]time.Duration{500 * time.Millisecond}, func(int) { right = h.s.Progress()[0].Right }); err != nil {
		t.Fatal(err)
	}
	recs := h.rt.records()
	within(t, "started iterations", float64(len(recs)), 20, 1)
	start := h.s.scenarios[0].startedAt()
	for _, r := range recs {
		// Due times are exact: i × timeUnit / rate after the scenario's start.
		if off := r.It.Scheduled.Sub(start); off != time.Duration(r.It.InScenario)*50*time.Millisecond {
			t.Errorf("iteration %d due at +%v", r.It.InScenario, off)
		}
	}
	checkLateness(t, recs)
	if len(obs.d) != len(recs) {
		t.Errorf("observer saw %d delays for %d iterations", len(obs.d), len(recs))
	}
	// 10 VUs for 5 ms iterations every 50 ms: even a catch-up burst after a stall finds one idle.
	if d := h.col.Sum("dropped_iterations"); d != 0 {
		t.Errorf("dropped %v iterations with idle VUs available", d)
	}
	if len(right) != 3 || !strings.HasSuffix(right[0], "/10 VUs") || right[2] != "20.00 iters/s" {
		t.Errorf("progress parts = %q", right)
	}
}

func TestRampingArrivalRate(t *testing.T) {
	sc := mustDecode(t, "r", `{"executor": "ramping-arrival-rate", "startRate": 0, "preAllocatedVUs": 2,
	  "stages": [{"duration": "1s", "target": 20}]}`)
	h := newHarness(t, sleepBody(5*time.Millisecond), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	recs := h.rt.records()
	// N(1s) = 10 iterations' worth; the 10th lands on the end, so 9 start.
	within(t, "started iterations", float64(len(recs)), 9, 1)
	sched := NewRampingSchedule(0, time.Second, stages(time.Second, 20))
	start := h.s.scenarios[0].startedAt()
	for _, r := range recs {
		want, _ := sched.Start(r.It.InTest)
		if off := r.It.Scheduled.Sub(start); off != want {
			t.Errorf("iteration %d due at +%v, want +%v", r.It.InScenario, off, want)
		}
	}
	checkLateness(t, recs)
}

// TestArrivalRateDropsWhenBusy: with the only VU busy, due iterations are dropped, never
// queued, and the cap is logged once (§4).
func TestArrivalRateDropsWhenBusy(t *testing.T) {
	sc := mustDecode(t, "d", `{"executor": "constant-arrival-rate", "rate": 20, "duration": "1s", "preAllocatedVUs": 1, "gracefulStop": "0s"}`)
	h := newHarness(t, sleepBody(5*time.Second), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	if n := len(h.rt.records()); n != 1 {
		t.Errorf("started %d iterations, want 1", n)
	}
	if h.rt.count("d", Interrupted) != 1 {
		t.Error("the busy iteration must be interrupted at the hard end")
	}
	drops := h.col.ByName("dropped_iterations")
	within(t, "dropped samples", float64(len(drops)), 19, 1)
	for _, s := range drops {
		if v, _ := s.Tags.Get("scenario"); s.Value != 1 || v != "d" {
			t.Errorf("dropped sample %v %v", s.Value, s.Tags.Map())
		}
	}
	if n := strings.Count(h.log.String(), "Insufficient VUs, reached 1 active VUs and cannot initialize more"); n != 1 {
		t.Errorf("insufficient-VUs warning logged %d times:\n%s", n, h.log.String())
	}
}

// TestArrivalRateGrowsVUs: beyond preAllocatedVUs, VUs are added one at a time up to maxVUs.
func TestArrivalRateGrowsVUs(t *testing.T) {
	sc := mustDecode(t, "g", `{"executor": "constant-arrival-rate", "rate": 20, "duration": "1s", "preAllocatedVUs": 1, "maxVUs": 4}`)
	h := newHarness(t, sleepBody(140*time.Millisecond), Options{}, sc)
	h.rt.initDelay = 10 * time.Millisecond
	var maxActive int64
	offsets := make([]time.Duration, 19)
	for i := range offsets {
		offsets[i] = time.Duration(i+1) * 50 * time.Millisecond
	}
	if _, err := h.runSampling(offsets, func(int) { maxActive = max(maxActive, h.s.Instance().VUsActive) }); err != nil {
		t.Fatal(err)
	}
	created := h.rt.created.Load()
	if created < 2 || created > 4 {
		t.Errorf("initialised %d VUs, want growth from 1 up to at most 4", created)
	}
	if maxActive > 4 {
		t.Errorf("%d VUs active, more than maxVUs", maxActive)
	}
	started, dropped := len(h.rt.records()), int(h.col.Sum("dropped_iterations"))
	within(t, "started + dropped", float64(started+dropped), 20, 1)
	if dropped == 0 {
		t.Error("the iteration that triggered growth should have been dropped")
	}
	if h.s.Requirements().MaxVUs != 4 || h.s.Requirements().PlannedVUs != 1 {
		t.Errorf("requirements = %+v", h.s.Requirements())
	}
}
