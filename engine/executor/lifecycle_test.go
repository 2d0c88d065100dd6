package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

// TestStartTimeAndVUReuse: a later scenario starts at its startTime, reuses the VUs of an
// earlier one, and `__ITER` keeps counting across scenarios.
func TestStartTimeAndVUReuse(t *testing.T) {
	virtual(t, func(t *testing.T) {
		a := scenariotest.Decode(t, "a", `{"executor": "per-vu-iterations", "vus": 2, "iterations": 2, "maxDuration": "2s", "gracefulStop": "0s"}`)
		b := scenariotest.Decode(t, "b", `{"executor": "shared-iterations", "vus": 2, "iterations": 6, "startTime": "3s", "exec": "other"}`)
		h := newHarness(t, sleepBody(10*time.Millisecond), Options{}, a, b)
		if h.s.Requirements().PlannedVUs != 2 {
			t.Fatalf("planned VUs = %d, want 2 (scenarios do not overlap)", h.s.Requirements().PlannedVUs)
		}
		var waiting ScenarioProgress
		runStart := time.Now()
		if _, err := h.runSampling(ms(1000), func(int) { waiting = h.s.Progress()[1] }); err != nil {
			t.Fatal(err)
		}
		if waiting.Status != StatusWaiting || waiting.Status.Mark() != "•" {
			t.Errorf("b before its startTime: %v", waiting.Status)
		}
		if n := h.rt.created.Load(); n != 2 {
			t.Errorf("initialised %d VUs, want 2 shared by both scenarios", n)
		}
		equalTimes(t, "a's iterations", h.rt.startOffsets(runStart, "a"), ms(0, 0, 10, 10))
		equalTimes(t, "b's iterations", h.rt.startOffsets(runStart, "b"), ms(3000, 3000, 3010, 3010, 3020, 3020))
		iters := map[uint64][]int64{}
		recs := h.rt.records()
		slices.SortStableFunc(recs, func(x, y rec) int { return x.Start.Compare(y.Start) })
		for _, r := range recs {
			iters[r.VU.InInstance] = append(iters[r.VU.InInstance], r.It.VUInInstance)
		}
		for vu, seq := range iters {
			if !slices.Equal(seq, []int64{0, 1, 2, 3, 4}) {
				t.Errorf("VU %d __ITER sequence %v, want 0,1,2,3,4 across scenarios", vu, seq)
			}
		}
		for _, p := range h.s.Progress() {
			if p.Status != StatusDone {
				t.Errorf("%s ended %v", p.Name, p.Status)
			}
		}
	})
}

// TestActivationFields: every VU of a scenario gets the same description, whose live state
// (start time, progress) follows the run.
func TestActivationFields(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "s", `{"executor": "shared-iterations", "vus": 1, "iterations": 2, "exec": "fn",
		  "env": {"K": "V"}, "tags": {"team": "x"}}`)
		var mu sync.Mutex
		var seen []*execinfo.Scenario
		var progress []float64
		h := newHarness(t, nil, Options{}, sc)
		rt := h.rt
		h.s.pool.factory = VUFactoryFunc(func(ctx context.Context, id execinfo.VUID) (VU, error) {
			return activationSpy{fakeVU: &fakeVU{f: rt, id: id}, seen: func(s *execinfo.Scenario) {
				mu.Lock()
				seen = append(seen, s)
				mu.Unlock()
			}}, nil
		})
		rt.body = func(_ context.Context, r rec) execinfo.Exit {
			mu.Lock()
			progress = append(progress, seen[0].Progress())
			mu.Unlock()
			return execinfo.Exit{}
		}
		start := time.Now()
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		a := seen[0]
		if a.Name != "s" || a.Executor != string(scenario.SharedIterations) || a.Exec != "fn" || a.Env["K"] != "V" || a.Tags["team"] != "x" {
			t.Errorf("activation = %+v", a)
		}
		if !a.StartTime().Equal(start) {
			t.Errorf("activation start %v, want %v", a.StartTime(), start)
		}
		if in := h.s.InstanceStats(); in.IterationsCompleted != 2 || in.VUsInitialized != 1 {
			t.Errorf("instance = %+v", in)
		}
		if !slices.Equal(progress, []float64{0, 0.5}) {
			t.Errorf("exec.scenario.progress seen by iterations = %v", progress)
		}
	})
}

type activationSpy struct {
	*fakeVU
	seen func(*execinfo.Scenario)
}

func (s activationSpy) Activate(sc *execinfo.Scenario) Activation {
	s.seen(sc)
	return s.fakeVU.Activate(sc)
}

func TestStopGracefulLetsIterationsFinish(t *testing.T) {
	virtual(t, func(t *testing.T) {
		run := scenariotest.Decode(t, "run", `{"executor": "constant-vus", "vus": 2, "duration": "10s", "gracefulStop": "1s"}`)
		later := scenariotest.Decode(t, "later", `{"executor": "constant-vus", "duration": "1s", "startTime": "5s"}`)
		h := newHarness(t, sleepBody(400*time.Millisecond), Options{}, run, later)
		took, err := h.runSampling(ms(100), func(int) { h.s.Stop(false) })
		if err != nil {
			t.Fatal(err)
		}
		if took != 400*time.Millisecond {
			t.Errorf("Run took %v, want 400ms: the running iterations finish, no new one starts", took)
		}
		if h.rt.count("run", execinfo.Completed) != 2 || h.rt.count("run", execinfo.Interrupted) != 0 {
			t.Errorf("completed %d, interrupted %d; want the 2 running iterations to finish",
				h.rt.count("run", execinfo.Completed), h.rt.count("run", execinfo.Interrupted))
		}
		for _, p := range h.s.Progress() {
			if p.Status != StatusInterrupted {
				t.Errorf("%s: %v, want interrupted", p.Name, p.Status)
			}
		}
		if h.rt.count("later", execinfo.Completed) != 0 {
			t.Error("a scenario that had not started must not start after Stop")
		}
	})
}

func TestStopGracefulThenInterrupt(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "s", `{"executor": "constant-vus", "vus": 2, "duration": "10s", "gracefulStop": "200ms"}`)
		h := newHarness(t, sleepBody(5*time.Second), Options{}, sc)
		took, err := h.runSampling(ms(100), func(int) { h.s.Stop(false) })
		if err != nil {
			t.Fatal(err)
		}
		if took != 300*time.Millisecond {
			t.Errorf("Run took %v, want 300ms (stop at 100ms + gracefulStop)", took)
		}
		if in := h.s.InstanceStats(); in.IterationsInterrupted != 2 {
			t.Errorf("instance = %+v", in)
		}
	})
}

func TestStopHard(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "s", `{"executor": "constant-vus", "vus": 2, "duration": "10s"}`)
		h := newHarness(t, sleepBody(5*time.Second), Options{}, sc)
		took, err := h.runSampling(ms(100, 150), func(i int) { h.s.Stop(i == 1) })
		if err != nil {
			t.Fatal(err)
		}
		if took != 150*time.Millisecond {
			t.Errorf("Run took %v, want 150ms (the hard stop)", took)
		}
		if in := h.s.InstanceStats(); in.IterationsInterrupted != 2 {
			t.Errorf("instance = %+v", in)
		}
	})
}

func TestAbortFromIteration(t *testing.T) {
	virtual(t, func(t *testing.T) {
		boom := errors.New("test aborted: enough")
		sc := scenariotest.Decode(t, "s", `{"executor": "shared-iterations", "vus": 1, "iterations": 10}`)
		h := newHarness(t, func(_ context.Context, r rec) execinfo.Exit {
			if r.It.ScenarioInInstance == 3 {
				return execinfo.Exit{Outcome: execinfo.Aborted, Err: boom}
			}
			return execinfo.Exit{}
		}, Options{}, sc)
		_, err := h.run()
		if !errors.Is(err, boom) {
			t.Fatalf("Run = %v, want the abort error", err)
		}
		if in := h.s.InstanceStats(); in.IterationsCompleted != 3 || in.IterationsInterrupted != 1 {
			t.Errorf("instance = %+v", in)
		}
		if p := h.s.Progress()[0]; p.Status != StatusInterrupted {
			t.Errorf("status = %v", p.Status)
		}
	})
}

func TestAbortFromOutsideAndCtxCancel(t *testing.T) {
	t.Run("abort", func(t *testing.T) {
		virtual(t, func(t *testing.T) {
			sc := scenariotest.Decode(t, "s", `{"executor": "constant-vus", "duration": "10s"}`)
			h := newHarness(t, sleepBody(time.Second), Options{}, sc)
			cause := errors.New("thresholds crossed")
			took, err := h.runSampling(ms(50), func(int) { h.s.Abort(cause); h.s.Abort(errors.New("second")) })
			if !errors.Is(err, cause) || took != 50*time.Millisecond {
				t.Errorf("Run = %v after %v, want the first cause at once", err, took)
			}
		})
	})
	t.Run("ctx", func(t *testing.T) {
		virtual(t, func(t *testing.T) {
			sc := scenariotest.Decode(t, "s", `{"executor": "constant-vus", "duration": "10s"}`)
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
	})
}

// TestGauges: vus and vus_max get a sample at the start (once the scenarios starting with the
// run have activated their VUs), one every second, and one at the end with the most VUs active
// since the sample before; so a run shorter than a second has them too.
func TestGauges(t *testing.T) {
	type point struct {
		at          time.Duration
		vus, vusMax float64
	}
	cases := []struct {
		name string
		body func(context.Context, rec) execinfo.Exit
		scs  []string
		want []point
	}{
		{"shorter than a second", nil, []string{`{"executor": "shared-iterations", "vus": 2, "iterations": 10}`},
			[]point{{0, 2, 2}, {0, 2, 2}}},
		{"constant", sleepBody(40 * time.Millisecond), []string{`{"executor": "constant-vus", "vus": 2, "duration": "2500ms"}`},
			[]point{{0, 2, 2}, {time.Second, 2, 2}, {2 * time.Second, 2, 2}, {2520 * time.Millisecond, 2, 2}}},
		{"ramp from 0", sleepBody(350 * time.Millisecond), []string{`{"executor": "ramping-vus", "startVUs": 0,
			"stages": [{"duration": "900ms", "target": 3}, {"duration": "600ms", "target": 3}]}`},
			[]point{{0, 0, 3}, {time.Second, 3, 3}, {1700 * time.Millisecond, 3, 3}}},
		{"arrival rate", sleepBody(30 * time.Millisecond), []string{`{"executor": "constant-arrival-rate", "rate": 10,
			"duration": "1500ms", "preAllocatedVUs": 3}`},
			[]point{{0, 3, 3}, {time.Second, 3, 3}, {1500 * time.Millisecond, 3, 3}}},
		{"two scenarios, one later", sleepBody(700 * time.Millisecond), []string{
			`{"executor": "per-vu-iterations", "vus": 2, "iterations": 1}`,
			`{"executor": "per-vu-iterations", "vus": 3, "iterations": 1, "startTime": "1200ms"}`},
			[]point{{0, 2, 5}, {time.Second, 0, 5}, {1900 * time.Millisecond, 3, 5}}}, // 5 planned: s0 may overlap s1
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			virtual(t, func(t *testing.T) {
				var scs []scenario.Config
				for i, js := range c.scs {
					scs = append(scs, scenariotest.Decode(t, fmt.Sprintf("s%d", i), js))
				}
				h := newHarness(t, c.body, Options{RunTags: metrics.NewTags(map[string]string{"run": "x"})}, scs...)
				start := time.Now()
				if _, err := h.run(); err != nil {
					t.Fatal(err)
				}
				vus, vusMax := h.col.ByName("vus"), h.col.ByName("vus_max")
				var got []point
				for i := range min(len(vus), len(vusMax)) {
					got = append(got, point{vus[i].Time.Sub(start), vus[i].Value, vusMax[i].Value})
				}
				if !slices.Equal(got, c.want) || len(vus) != len(vusMax) {
					t.Errorf("(offset, vus, vus_max) = %v (%d vus_max samples), want %v", got, len(vusMax), c.want)
				}
				for _, s := range vus {
					if v, _ := s.Tags.Get("run"); v != "x" {
						t.Errorf("gauge tags = %v", s.Tags.Map())
					}
				}
			})
		})
	}
}

// TestSegmentedInstances runs two half-instances side by side: together they must do exactly
// what one instance would, with globally unique iteration numbers, each global iteration due at
// its global time.
func TestSegmentedInstances(t *testing.T) {
	cases := []struct {
		name, js string
		want     int
	}{
		{"shared", `{"executor": "shared-iterations", "vus": 2, "iterations": 10}`, 10},
		{"arrival", `{"executor": "constant-arrival-rate", "rate": 20, "duration": "1s", "preAllocatedVUs": 4}`, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			virtual(t, func(t *testing.T) {
				var all []int64
				var wg sync.WaitGroup
				var mu sync.Mutex
				for _, seg := range []string{"0:1/2", "1/2:1"} {
					h := newHarness(t, sleepBody(time.Millisecond), Options{Tuple: scenariotest.Tuple(t, seg, "0,1/2,1")}, scenariotest.Decode(t, "s", c.js))
					wg.Go(func() {
						if _, err := h.run(); err != nil {
							t.Error(err)
						}
						mu.Lock()
						defer mu.Unlock()
						for _, r := range h.rt.records() {
							all = append(all, r.It.ScenarioInTest)
							due := time.Duration(r.It.ScenarioInTest) * 50 * time.Millisecond
							if !r.It.Scheduled.IsZero() && r.It.Scheduled.Sub(h.start(0)) != due {
								t.Errorf("%s: global iteration %d due at %v, want %v", seg, r.It.ScenarioInTest,
									r.It.Scheduled.Sub(h.start(0)), due)
							}
						}
					})
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
			})
		})
	}
}
