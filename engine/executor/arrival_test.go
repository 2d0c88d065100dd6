package executor

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

type delays struct {
	mu sync.Mutex
	d  []time.Duration
}

func (d *delays) ObserveStartDelay(_ string, _ time.Time, delay time.Duration) {
	d.mu.Lock()
	d.d = append(d.d, delay)
	d.mu.Unlock()
}

// onSchedule checks that every iteration started exactly when it was due: on virtual time a
// dispatcher that waited for a busy VU, or queued, would show a delay.
func onSchedule(t *testing.T, recs []rec) {
	t.Helper()
	for _, r := range recs {
		if r.It.StartDelay != 0 || !r.Start.Equal(r.It.Scheduled) {
			t.Errorf("iteration %d due at %v started %v late", r.It.ScenarioInInstance, r.It.Scheduled, r.It.StartDelay)
		}
	}
}

func TestConstantArrivalRate(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "a", `{"executor": "constant-arrival-rate", "rate": 20, "timeUnit": "1s", "duration": "1s", "preAllocatedVUs": 10}`)
		obs := &delays{}
		h := newHarness(t, sleepBody(5*time.Millisecond), Options{StartDelay: obs}, sc)
		var right []string
		if _, err := h.runSampling(ms(502), func(int) { right = h.s.Progress()[0].Right }); err != nil {
			t.Fatal(err)
		}
		recs := h.rt.records()
		// Due times are exact: i × timeUnit / rate after the scenario's start.
		equalTimes(t, "iterations", h.rt.startOffsets(h.start(0), "a"), every(0, 50*time.Millisecond, time.Second))
		onSchedule(t, recs)
		if len(obs.d) != len(recs) {
			t.Errorf("observer saw %d delays for %d iterations", len(obs.d), len(recs))
		}
		if d := h.col.Sum("dropped_iterations"); d != 0 {
			t.Errorf("dropped %v iterations with idle VUs available", d)
		}
		if !slices.Equal(right, []string{"01/10 VUs", "0m00.5s/1s", "20.00 iters/s"}) {
			t.Errorf("progress parts at 502ms = %q", right)
		}
	})
}

func TestRampingArrivalRate(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "r", `{"executor": "ramping-arrival-rate", "startRate": 0, "preAllocatedVUs": 2,
		  "stages": [{"duration": "1s", "target": 20}]}`)
		h := newHarness(t, sleepBody(5*time.Millisecond), Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		// N(1s) = 10 iterations' worth; the 10th lands on the end, so 9 start, each when the
		// integral of the rate reaches its number.
		sched := plan.NewRampingSchedule(0, time.Second, []plan.Stage{{Duration: time.Second, Target: 20}})
		var want []time.Duration
		for i := range int64(9) {
			d, _ := sched.Start(i)
			want = append(want, d)
		}
		equalTimes(t, "iterations", h.rt.startOffsets(h.start(0), "r"), want)
		onSchedule(t, h.rt.records())
	})
}

// TestArrivalRateDropsWhenBusy: with the only VU busy, due iterations are dropped, never
// queued, and the cap is logged once.
func TestArrivalRateDropsWhenBusy(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "d", `{"executor": "constant-arrival-rate", "rate": 20, "duration": "1s", "preAllocatedVUs": 1, "gracefulStop": "0s"}`)
		h := newHarness(t, sleepBody(5*time.Second), Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		if n := len(h.rt.records()); n != 1 {
			t.Errorf("started %d iterations, want 1", n)
		}
		if h.rt.count("d", execinfo.Interrupted) != 1 {
			t.Error("the busy iteration must be interrupted at the hard end")
		}
		drops := h.col.ByName("dropped_iterations")
		if len(drops) != 19 {
			t.Errorf("%d dropped samples, want one for each of the 19 later iterations", len(drops))
		}
		for _, s := range drops {
			if v, _ := s.Tags.Get("scenario"); s.Value != 1 || v != "d" {
				t.Errorf("dropped sample %v %v", s.Value, s.Tags.Map())
			}
		}
		if n := strings.Count(h.log.String(), "Insufficient VUs, reached 1 active VUs and cannot initialize more"); n != 1 {
			t.Errorf("insufficient-VUs warning logged %d times:\n%s", n, h.log.String())
		}
	})
}

// TestArrivalRateGrowsVUs: beyond preAllocatedVUs, VUs are added one at a time up to maxVUs.
func TestArrivalRateGrowsVUs(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "g", `{"executor": "constant-arrival-rate", "rate": 20, "duration": "1s", "preAllocatedVUs": 1, "maxVUs": 4}`)
		h := newHarness(t, sleepBody(140*time.Millisecond), Options{}, sc)
		h.rt.initDelay = 10 * time.Millisecond
		var maxActive int64
		if _, err := h.runSampling(every(25*time.Millisecond, 50*time.Millisecond, time.Second), func(int) {
			maxActive = max(maxActive, h.s.InstanceStats().VUsActive)
		}); err != nil {
			t.Fatal(err)
		}
		// An iteration every 50 ms lasting 140 ms needs 3 VUs. The one at 50 ms finds VU 1 busy, is
		// dropped, and VU 2 is initialised (ready at 60 ms); the one at 200 ms finds both busy, is
		// dropped, and VU 3 comes; from then on 3 VUs keep up.
		if n := h.rt.created.Load(); n != 3 || maxActive != 3 {
			t.Errorf("initialised %d VUs, at most %d active; want 3", n, maxActive)
		}
		if started, dropped := len(h.rt.records()), h.col.Sum("dropped_iterations"); started != 18 || dropped != 2 {
			t.Errorf("started %d and dropped %v iterations, want 18 and 2", started, dropped)
		}
		onSchedule(t, h.rt.records())
		if r := h.s.Requirements(); r.MaxVUs != 4 || r.PlannedVUs != 1 {
			t.Errorf("requirements = %+v", r)
		}
	})
}
