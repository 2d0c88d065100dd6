package executor

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// TestStartTimeAndVUReuse: a later scenario starts at its startTime, reuses the VUs of an
// earlier one, and `__ITER` keeps counting across scenarios.
func TestStartTimeAndVUReuse(t *testing.T) {
	a := mustDecode(t, "a", `{"executor": "per-vu-iterations", "vus": 2, "iterations": 2, "maxDuration": "200ms", "gracefulStop": "0s"}`)
	b := mustDecode(t, "b", `{"executor": "shared-iterations", "vus": 2, "iterations": 6, "startTime": "300ms", "exec": "other"}`)
	h := newHarness(t, sleepBody(time.Millisecond), Options{}, a, b)
	if h.s.Requirements().PlannedVUs != 2 {
		t.Fatalf("planned VUs = %d, want 2 (scenarios do not overlap)", h.s.Requirements().PlannedVUs)
	}
	var waiting ScenarioProgress
	runStart := time.Now()
	if _, err := h.runSampling([]time.Duration{100 * time.Millisecond}, func(int) { waiting = h.s.Progress()[1] }); err != nil {
		t.Fatal(err)
	}
	if waiting.Status != StatusWaiting || waiting.Status.Mark() != "•" {
		t.Errorf("b before its startTime: %v", waiting.Status)
	}
	if n := h.rt.created.Load(); n != 2 {
		t.Errorf("initialised %d VUs, want 2 shared by both scenarios", n)
	}
	recs := h.rt.records()
	sort.Slice(recs, func(i, j int) bool { return recs[i].Start.Before(recs[j].Start) })
	iters := map[uint64][]int64{}
	for _, r := range recs {
		if r.Scenario == "b" && r.Start.Sub(runStart) < 300*time.Millisecond {
			t.Errorf("b iteration started at +%v, before its startTime", r.Start.Sub(runStart))
		}
		iters[r.VU.InInstance] = append(iters[r.VU.InInstance], r.It.VUInInstance)
	}
	for vu, seq := range iters {
		for i, n := range seq {
			if n != int64(i) {
				t.Errorf("VU %d __ITER sequence %v, want 0,1,2,… across scenarios", vu, seq)
				break
			}
		}
	}
	if h.rt.count("b", Completed) != 6 || h.rt.count("a", Completed) != 4 {
		t.Errorf("a=%d b=%d completed", h.rt.count("a", Completed), h.rt.count("b", Completed))
	}
	for _, p := range h.s.Progress() {
		if p.Status != StatusDone {
			t.Errorf("%s ended %v", p.Name, p.Status)
		}
	}
}

func TestActivationFields(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "shared-iterations", "vus": 1, "iterations": 2, "exec": "fn",
	  "env": {"K": "V"}, "tags": {"team": "x"}}`)
	var mu sync.Mutex
	var seen []*Activation
	var progress []float64
	rt := &fakeRuntime{}
	h := newHarness(t, nil, Options{}, sc)
	h.rt = rt
	h.s.pool.factory = VUFactoryFunc(func(ctx context.Context, id VUID) (VU, error) {
		return activationSpy{fakeVU: &fakeVU{f: rt, id: id}, seen: func(a *Activation) {
			mu.Lock()
			seen = append(seen, a)
			mu.Unlock()
		}}, nil
	})
	rt.body = func(_ context.Context, r rec) IterationResult {
		mu.Lock()
		progress = append(progress, seen[0].Progress())
		mu.Unlock()
		return IterationResult{}
	}
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	a := seen[0]
	if a.Scenario != "s" || a.Executor != SharedIterations || a.Exec != "fn" || a.Env["K"] != "V" {
		t.Errorf("activation = %+v", a)
	}
	if v, _ := a.Tags.Get("team"); v != "x" || a.StartTime().IsZero() {
		t.Errorf("activation tags %v, start %v", a.Tags.Map(), a.StartTime())
	}
	if in := a.Instance(); in.IterationsCompleted != 2 || in.VUsInitialized != 1 {
		t.Errorf("instance via activation = %+v", in)
	}
	if !slices.Equal(progress, []float64{0, 0.5}) {
		t.Errorf("exec.scenario.progress seen by iterations = %v", progress)
	}
}

type activationSpy struct {
	*fakeVU
	seen func(*Activation)
}

func (s activationSpy) Activate(a *Activation) ActiveVU {
	s.seen(a)
	return s.fakeVU.Activate(a)
}

func TestStopGracefulLetsIterationsFinish(t *testing.T) {
	run := mustDecode(t, "run", `{"executor": "constant-vus", "vus": 2, "duration": "10s", "gracefulStop": "1s"}`)
	later := mustDecode(t, "later", `{"executor": "constant-vus", "duration": "1s", "startTime": "5s"}`)
	h := newHarness(t, sleepBody(400*time.Millisecond), Options{}, run, later)
	took, err := h.runSampling([]time.Duration{100 * time.Millisecond}, func(int) { h.s.Stop(false) })
	if err != nil {
		t.Fatal(err)
	}
	onTime(t, "run", []time.Duration{took}, ms(400))
	if h.rt.count("run", Completed) != 2 || h.rt.count("run", Interrupted) != 0 {
		t.Errorf("completed %d, interrupted %d; want the 2 running iterations to finish",
			h.rt.count("run", Completed), h.rt.count("run", Interrupted))
	}
	for _, p := range h.s.Progress() {
		if p.Status != StatusInterrupted {
			t.Errorf("%s: %v, want interrupted", p.Name, p.Status)
		}
	}
	if h.rt.count("later", Completed) != 0 {
		t.Error("a scenario that had not started must not start after Stop")
	}
}

func TestStopGracefulThenInterrupt(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "constant-vus", "vus": 2, "duration": "10s", "gracefulStop": "200ms"}`)
	h := newHarness(t, sleepBody(5*time.Second), Options{}, sc)
	took, err := h.runSampling([]time.Duration{100 * time.Millisecond}, func(int) { h.s.Stop(false) })
	if err != nil {
		t.Fatal(err)
	}
	onTime(t, "run", []time.Duration{took}, ms(300))
	if in := h.s.Instance(); in.IterationsInterrupted != 2 {
		t.Errorf("instance = %+v", in)
	}
}

func TestStopHard(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "constant-vus", "vus": 2, "duration": "10s"}`)
	h := newHarness(t, sleepBody(5*time.Second), Options{}, sc)
	took, err := h.runSampling([]time.Duration{100 * time.Millisecond, 150 * time.Millisecond}, func(i int) { h.s.Stop(i == 1) })
	if err != nil {
		t.Fatal(err)
	}
	onTime(t, "run", []time.Duration{took}, ms(150))
	if in := h.s.Instance(); in.IterationsInterrupted != 2 {
		t.Errorf("instance = %+v", in)
	}
}

func TestAbortFromIteration(t *testing.T) {
	boom := errors.New("test aborted: enough")
	sc := mustDecode(t, "s", `{"executor": "shared-iterations", "vus": 1, "iterations": 10}`)
	h := newHarness(t, func(_ context.Context, r rec) IterationResult {
		if r.It.InScenario == 3 {
			return IterationResult{Outcome: Aborted, Err: boom}
		}
		return IterationResult{}
	}, Options{}, sc)
	_, err := h.run()
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the abort error", err)
	}
	if in := h.s.Instance(); in.IterationsCompleted != 3 || in.IterationsInterrupted != 1 {
		t.Errorf("instance = %+v", in)
	}
	if p := h.s.Progress()[0]; p.Status != StatusInterrupted {
		t.Errorf("status = %v", p.Status)
	}
}

func TestAbortFromOutsideAndCtxCancel(t *testing.T) {
	t.Run("abort", func(t *testing.T) {
		sc := mustDecode(t, "s", `{"executor": "constant-vus", "duration": "10s"}`)
		h := newHarness(t, sleepBody(time.Second), Options{}, sc)
		cause := errors.New("thresholds crossed")
		took, err := h.runSampling([]time.Duration{50 * time.Millisecond}, func(int) { h.s.Abort(cause); h.s.Abort(errors.New("second")) })
		if !errors.Is(err, cause) || took > time.Second {
			t.Errorf("Run = %v after %v", err, took)
		}
	})
	t.Run("ctx", func(t *testing.T) {
		sc := mustDecode(t, "s", `{"executor": "constant-vus", "duration": "10s"}`)
		h := newHarness(t, sleepBody(time.Second), Options{}, sc)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if err := h.s.Run(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run = %v", err)
		}
		if err := h.s.Run(context.Background()); err == nil {
			t.Error("a second Run must fail")
		}
	})
}

func TestGauges(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "constant-vus", "vus": 2, "duration": "1100ms"}`)
	h := newHarness(t, sleepBody(50*time.Millisecond), Options{RunTags: metrics.NewTags(map[string]string{"run": "x"})}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	vus, vusMax := h.col.ByName("vus"), h.col.ByName("vus_max")
	// One sample per second while the scenario runs (at 1s here): none at the start, when no VU is
	// active yet, nor after the end, when all are released — those would pin the gauges' last value
	// and minimum to 0.
	if len(vus) != 1 || len(vusMax) != 1 {
		t.Fatalf("%d vus and %d vus_max samples, want 1 each", len(vus), len(vusMax))
	}
	if vus[0].Value != 2 || vusMax[0].Value != 2 {
		t.Errorf("at 1s: vus=%v vus_max=%v", vus[0].Value, vusMax[0].Value)
	}
	if v, _ := vus[0].Tags.Get("run"); v != "x" {
		t.Errorf("gauge tags = %v", vus[0].Tags.Map())
	}
}

// TestSegmentedInstances runs two half-instances side by side: together they must do exactly
// what one instance would, with globally unique iteration numbers (§5.2).
func TestSegmentedInstances(t *testing.T) {
	cases := []struct {
		name, js string
		want     int
	}{
		{"shared", `{"executor": "shared-iterations", "vus": 2, "iterations": 10}`, 10},
		{"arrival", `{"executor": "constant-arrival-rate", "rate": 20, "duration": "500ms", "preAllocatedVUs": 4}`, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var all []int64
			var due []time.Duration
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, seg := range []string{"0:1/2", "1/2:1"} {
				h := newHarness(t, sleepBody(time.Millisecond), Options{Tuple: tuple(t, seg, "0,1/2,1")}, mustDecode(t, "s", c.js))
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := h.run(); err != nil {
						t.Error(err)
					}
					start := h.s.scenarios[0].startedAt()
					mu.Lock()
					defer mu.Unlock()
					for _, r := range h.rt.records() {
						all = append(all, r.It.InTest)
						if !r.It.Scheduled.IsZero() {
							due = append(due, r.It.Scheduled.Sub(start)-time.Duration(r.It.InTest)*50*time.Millisecond)
						}
					}
				}()
			}
			wg.Wait()
			slices.Sort(all)
			if len(all) != c.want {
				t.Fatalf("%d iterations in all, want %d: %v", len(all), c.want, all)
			}
			for i, g := range all {
				if g != int64(i) {
					t.Fatalf("global iteration numbers %v, want 0..%d once each", all, c.want-1)
				}
			}
			for _, d := range due {
				if d != 0 {
					t.Errorf("an instance scheduled a global iteration off its global time by %v", d)
				}
			}
		})
	}
}
