package executor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/testsupport/scenariotest"
)

func TestSharedIterationsSplit(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "s", `{"executor": "shared-iterations", "vus": 4, "iterations": 100, "maxDuration": "10s"}`)
		h := newHarness(t, sleepBody(time.Millisecond), Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		recs := h.rt.records()
		if len(recs) != 100 || h.rt.count("s", execinfo.Completed) != 100 {
			t.Fatalf("%d iterations, %d completed; want exactly 100", len(recs), h.rt.count("s", execinfo.Completed))
		}
		perVU := map[uint64][]int64{}
		var seen []int64
		for _, r := range recs {
			perVU[r.VU.InInstance] = append(perVU[r.VU.InInstance], r.It.VUInScenario)
			seen = append(seen, r.It.ScenarioInInstance)
			if r.It.ScenarioInTest != r.It.ScenarioInInstance {
				t.Errorf("unsegmented run: ScenarioInTest %d != ScenarioInInstance %d", r.It.ScenarioInTest, r.It.ScenarioInInstance)
			}
		}
		slices.Sort(seen)
		for i, n := range seen {
			if n != int64(i) {
				t.Fatalf("iteration numbers are not 0..99 exactly once: %v", seen)
			}
		}
		// VUs of equal speed share the iterations equally, each counting its own 0, 1, 2, …
		for id := uint64(1); id <= 4; id++ {
			its := perVU[id]
			if len(its) != 25 || its[0] != 0 || its[24] != 24 {
				t.Errorf("VU %d iterationInScenario sequence %v, want 0..24", id, its)
			}
		}
		if d := h.col.ByName("dropped_iterations"); len(d) != 0 {
			t.Errorf("dropped_iterations = %v, want none", d)
		}
		in := h.s.InstanceStats()
		if in.IterationsCompleted != 100 || in.IterationsInterrupted != 0 || in.VUsInitialized != 4 || in.VUsActive != 0 ||
			in.CurrentTestRunDuration != 25*time.Millisecond {
			t.Errorf("instance stats = %+v", in)
		}
		p := h.s.Progress()[0]
		if p.Status != StatusDone || p.Fraction != 1 || p.Right[0] != "4 VUs" || p.Right[2] != "100/100 shared iters" {
			t.Errorf("progress = %+v", p)
		}
	})
}

func TestSharedIterationsMaxDurationDrops(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "s", `{"executor": "shared-iterations", "vus": 2, "iterations": 50, "maxDuration": "1s", "gracefulStop": "0s"}`)
		h := newHarness(t, sleepBody(300*time.Millisecond), Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		// Each VU starts at 0, 300, 600 and 900 ms; the last two are interrupted at 1 s.
		equalTimes(t, "iterations", h.rt.startOffsets(h.start(0), "s"), ms(0, 0, 300, 300, 600, 600, 900, 900))
		if n := h.rt.count("s", execinfo.Interrupted); n != 2 {
			t.Errorf("%d iterations interrupted at maxDuration, want 2", n)
		}
		d := h.col.ByName("dropped_iterations")
		if len(d) != 1 || d[0].Value != 42 {
			t.Fatalf("dropped_iterations = %v, want one sample of 42", d)
		}
		if v, _ := d[0].Tags.Get("scenario"); v != "s" {
			t.Errorf("dropped tags = %v", d[0].Tags.Map())
		}
		if p := h.s.Progress()[0]; p.Status != StatusInterrupted {
			t.Errorf("status = %v, want interrupted (work left)", p.Status)
		}
	})
}

func TestPerVUIterationsExact(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "p", `{"executor": "per-vu-iterations", "vus": 3, "iterations": 5}`)
		h := newHarness(t, sleepBody(time.Millisecond), Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		perVU := map[uint64]int{}
		for _, r := range h.rt.records() {
			perVU[r.VU.InInstance]++
		}
		if len(perVU) != 3 || perVU[1] != 5 || perVU[2] != 5 || perVU[3] != 5 {
			t.Errorf("per VU = %v, want 5 each for VUs 1-3", perVU)
		}
		if p := h.s.Progress()[0]; p.Right[2] != "15/15 iters, 5 per VU" || p.Status != StatusDone {
			t.Errorf("progress = %+v", p)
		}
	})
}

func TestPerVUIterationsDropsPerVU(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "p", `{"executor": "per-vu-iterations", "vus": 2, "iterations": 10, "maxDuration": "1s", "gracefulStop": "0s"}`)
		h := newHarness(t, sleepBody(300*time.Millisecond), Options{VUTag: true}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		// Each VU starts 4 iterations (0, 300, 600, 900 ms) and drops the other 6.
		d := h.col.ByName("dropped_iterations")
		if len(d) != 2 {
			t.Fatalf("dropped samples = %v, want one per VU", d)
		}
		var vus []string
		for _, s := range d {
			vu, _ := s.Tags.Get("vu")
			vus = append(vus, vu)
			if s.Value != 6 {
				t.Errorf("dropped sample %v (tags %v), want 6", s.Value, s.Tags.Map())
			}
		}
		if slices.Sort(vus); !slices.Equal(vus, []string{"1", "2"}) {
			t.Errorf("dropped samples tagged with VUs %v", vus)
		}
	})
}

func TestScriptExceptionCountsAsComplete(t *testing.T) {
	virtual(t, func(t *testing.T) {
		sc := scenariotest.Decode(t, "s", `{"executor": "shared-iterations", "vus": 1, "iterations": 3}`)
		h := newHarness(t, func(_ context.Context, r rec) execinfo.Exit {
			if r.It.ScenarioInInstance == 1 {
				return execinfo.Exit{Outcome: execinfo.Failed, Err: errText("ReferenceError: x is not defined")}
			}
			return execinfo.Exit{}
		}, Options{}, sc)
		if _, err := h.run(); err != nil {
			t.Fatal(err)
		}
		if in := h.s.InstanceStats(); in.IterationsCompleted != 3 || in.IterationsInterrupted != 0 {
			t.Errorf("instance = %+v", in)
		}
		if l := h.log.String(); !containsAll(l, "level=ERROR", "ReferenceError: x is not defined", "scenario=s") {
			t.Errorf("log = %s", l)
		}
	})
}
