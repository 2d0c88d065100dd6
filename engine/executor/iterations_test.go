package executor

import (
	"slices"
	"testing"
	"time"
)

// Real-time tests of the iteration-based executors. Iterations are short, so the only timing
// assumption is that a few milliseconds of work finish well inside a 10 s maxDuration.

func TestSharedIterationsSplit(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "shared-iterations", "vus": 4, "iterations": 100, "maxDuration": "10s"}`)
	h := newHarness(t, sleepBody(time.Millisecond), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	recs := h.rt.records()
	if len(recs) != 100 || h.rt.count("s", Completed) != 100 {
		t.Fatalf("%d iterations, %d completed; want exactly 100", len(recs), h.rt.count("s", Completed))
	}
	perVU := map[uint64][]int64{}
	var seen []int64
	for _, r := range recs {
		perVU[r.VU.InInstance] = append(perVU[r.VU.InInstance], r.It.VUInScenario)
		seen = append(seen, r.It.InScenario)
		if r.It.InTest != r.It.InScenario {
			t.Errorf("unsegmented run: InTest %d != InScenario %d", r.It.InTest, r.It.InScenario)
		}
	}
	slices.Sort(seen)
	for i, n := range seen {
		if n != int64(i) {
			t.Fatalf("iteration numbers are not 0..99 exactly once: %v", seen)
		}
	}
	total := 0
	for id, its := range perVU {
		if id < 1 || id > 4 {
			t.Errorf("VU id %d outside 1..4", id)
		}
		for i, n := range its { // each VU counts its own iterations 0, 1, 2, …
			if n != int64(i) {
				t.Errorf("VU %d iterationInScenario sequence %v", id, its)
				break
			}
		}
		total += len(its)
	}
	if total != 100 || len(perVU) != 4 {
		t.Errorf("split over %d VUs summing to %d", len(perVU), total)
	}
	if d := h.col.ByName("dropped_iterations"); len(d) != 0 {
		t.Errorf("dropped_iterations = %v, want none", d)
	}
	in := h.s.Instance()
	if in.IterationsCompleted != 100 || in.IterationsInterrupted != 0 || in.VUsInitialized != 4 || in.VUsActive != 0 {
		t.Errorf("instance stats = %+v", in)
	}
	p := h.s.Progress()[0]
	if p.Status != StatusDone || p.Fraction != 1 || p.Right[0] != "4 VUs" || p.Right[2] != "100/100 shared iters" {
		t.Errorf("progress = %+v", p)
	}
}

func TestSharedIterationsMaxDurationDrops(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "shared-iterations", "vus": 2, "iterations": 50, "maxDuration": "300ms", "gracefulStop": "0s"}`)
	h := newHarness(t, sleepBody(100*time.Millisecond), Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	started := len(h.rt.records())
	within(t, "started iterations", float64(started), 6, 2)
	d := h.col.ByName("dropped_iterations")
	if len(d) != 1 || d[0].Value != float64(50-started) {
		t.Fatalf("dropped_iterations = %v, want one sample of %d", d, 50-started)
	}
	if v, _ := d[0].Tags.Get("scenario"); v != "s" {
		t.Errorf("dropped tags = %v", d[0].Tags.Map())
	}
	if p := h.s.Progress()[0]; p.Status != StatusInterrupted {
		t.Errorf("status = %v, want interrupted (work left)", p.Status)
	}
}

func TestPerVUIterationsExact(t *testing.T) {
	sc := mustDecode(t, "p", `{"executor": "per-vu-iterations", "vus": 3, "iterations": 5}`)
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
}

func TestPerVUIterationsDropsPerVU(t *testing.T) {
	sc := mustDecode(t, "p", `{"executor": "per-vu-iterations", "vus": 2, "iterations": 10, "maxDuration": "250ms", "gracefulStop": "0s"}`)
	h := newHarness(t, sleepBody(100*time.Millisecond), Options{VUTag: true}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	started := map[string]int{}
	for _, r := range h.rt.records() {
		started[string(rune('0'+r.VU.InInstance))]++
	}
	d := h.col.ByName("dropped_iterations")
	if len(d) != 2 {
		t.Fatalf("dropped samples = %v, want one per VU", d)
	}
	for _, s := range d {
		vu, ok := s.Tags.Get("vu")
		if !ok || s.Value != float64(10-started[vu]) {
			t.Errorf("dropped sample %v (tags %v), VU started %d", s.Value, s.Tags.Map(), started[vu])
		}
	}
}

func TestScriptExceptionCountsAsComplete(t *testing.T) {
	sc := mustDecode(t, "s", `{"executor": "shared-iterations", "vus": 1, "iterations": 3}`)
	h := newHarness(t, func(_ contextT, r rec) IterationResult {
		if r.It.InScenario == 1 {
			return IterationResult{Outcome: Failed, Err: errText("ReferenceError: x is not defined")}
		}
		return IterationResult{}
	}, Options{}, sc)
	if _, err := h.run(); err != nil {
		t.Fatal(err)
	}
	if in := h.s.Instance(); in.IterationsCompleted != 3 || in.IterationsInterrupted != 0 {
		t.Errorf("instance = %+v", in)
	}
	if l := h.log.String(); !containsAll(l, "level=ERROR", "ReferenceError: x is not defined", "scenario=s") {
		t.Errorf("log = %s", l)
	}
}
