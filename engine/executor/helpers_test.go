package executor

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/testsupport/metricstest"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// The scheduler's tests run inside testing/synctest bubbles: time there is virtual and moves on
// only when every goroutine of the test (scheduler, VUs, timers) is blocked, so every event
// happens exactly at its planned offset and a test of a 10 s scenario takes microseconds. The
// test values avoid two unrelated events at the same instant, whose order would be arbitrary.
// realtime_test.go keeps a few tests on the real clock.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// virtual runs f in a synctest bubble (see above).
func virtual(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
}

// rec is one iteration seen by the fake runtime.
type rec struct {
	Scenario string
	VU       execinfo.VUID
	It       execinfo.Iteration
	Start    time.Time
	Outcome  execinfo.Outcome
}

// fakeRuntime is a Go-function stand-in for the JS runtime: body decides what an iteration does.
type fakeRuntime struct {
	body      func(ctx context.Context, r rec) execinfo.Exit
	initDelay time.Duration
	created   atomic.Int64

	mu     sync.Mutex
	recs   []rec
	events []vuEvent
}

// vuEvent is a VU activation (+1) or deactivation (−1).
type vuEvent struct {
	At       time.Time
	VU       uint64
	Scenario string
	Delta    int
}

// eventOffsets returns the times of events with the given delta, relative to start, sorted.
func (f *fakeRuntime) eventOffsets(start time.Time, delta int) []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Duration
	for _, e := range f.events {
		if e.Delta == delta {
			out = append(out, e.At.Sub(start))
		}
	}
	slices.Sort(out)
	return out
}

func (f *fakeRuntime) event(e vuEvent) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

func (f *fakeRuntime) NewVU(ctx context.Context, id execinfo.VUID) (VU, error) {
	if f.initDelay > 0 {
		select {
		case <-time.After(f.initDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.created.Add(1)
	return &fakeVU{f: f, id: id}, nil
}

func (f *fakeRuntime) records() []rec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]rec(nil), f.recs...)
}

func (f *fakeRuntime) count(scenario string, o execinfo.Outcome) int {
	n := 0
	for _, r := range f.records() {
		if (scenario == "" || r.Scenario == scenario) && r.Outcome == o {
			n++
		}
	}
	return n
}

// startOffsets returns when the iterations of a scenario started, relative to start, sorted.
func (f *fakeRuntime) startOffsets(start time.Time, scenario string) []time.Duration {
	var out []time.Duration
	for _, r := range f.records() {
		if r.Scenario == scenario {
			out = append(out, r.Start.Sub(start))
		}
	}
	slices.Sort(out)
	return out
}

type fakeVU struct {
	f  *fakeRuntime
	id execinfo.VUID
}

func (v *fakeVU) Activate(s *execinfo.Scenario) Activation {
	v.f.event(vuEvent{At: time.Now(), VU: v.id.InInstance, Scenario: s.Name, Delta: 1})
	return &fakeActive{v: v, s: s}
}

type fakeActive struct {
	v *fakeVU
	s *execinfo.Scenario
}

func (fa *fakeActive) RunIteration(ctx context.Context, it execinfo.Iteration) execinfo.Exit {
	r := rec{Scenario: fa.s.Name, VU: fa.v.id, It: it, Start: time.Now()}
	res := execinfo.Exit{Outcome: execinfo.Completed}
	if fa.v.f.body != nil {
		res = fa.v.f.body(ctx, r)
	}
	r.Outcome = res.Outcome
	fa.v.f.mu.Lock()
	fa.v.f.recs = append(fa.v.f.recs, r)
	fa.v.f.mu.Unlock()
	return res
}

func (fa *fakeActive) Deactivate() {
	fa.v.f.event(vuEvent{At: time.Now(), VU: fa.v.id.InInstance, Scenario: fa.s.Name, Delta: -1})
}

// sleepBody is an iteration that takes d, or is interrupted when ctx ends first.
func sleepBody(d time.Duration) func(context.Context, rec) execinfo.Exit {
	return func(ctx context.Context, _ rec) execinfo.Exit {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return execinfo.Exit{Outcome: execinfo.Completed}
		case <-ctx.Done():
			return execinfo.Exit{Outcome: execinfo.Interrupted}
		}
	}
}

// harness wires a scheduler to a fake runtime, a sample collector and a log buffer.
type harness struct {
	t   testing.TB
	rt  *fakeRuntime
	col *collector
	log *logBuf
	s   *Scheduler
}

func newHarness(t testing.TB, body func(context.Context, rec) execinfo.Exit, opts Options, scs ...scenario.Config) *harness {
	t.Helper()
	h := &harness{t: t, rt: &fakeRuntime{body: body}, col: &collector{}, log: &logBuf{}}
	opts.Scenarios = scs
	opts.VUs = h.rt
	opts.Samples = h.col
	opts.Logger = slog.New(slog.NewTextHandler(h.log, nil))
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.s = s
	return h
}

// run runs the scheduler and returns how long Run took and its error.
func (h *harness) run() (time.Duration, error) {
	start := time.Now()
	err := h.s.Run(context.Background())
	return time.Since(start), err
}

// runSampling runs the scheduler and calls f at each offset after Run starts, once everything
// due at that instant has happened (synctest.Wait); it must run inside a bubble.
func (h *harness) runSampling(offsets []time.Duration, f func(i int)) (time.Duration, error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for i, off := range offsets {
			time.Sleep(start.Add(off).Sub(time.Now()))
			synctest.Wait()
			f(i)
		}
	}()
	d, err := h.run()
	<-done
	return d, err
}

// start is when the scenario i started.
func (h *harness) start(i int) time.Time { return h.s.scenarios[i].startedAt() }

// equalTimes checks events against their planned offsets, exactly: virtual time has no jitter.
func equalTimes(t *testing.T, what string, got, want []time.Duration) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s at %v, want %v", what, got, want)
	}
}

// ms is a shorthand for lists of offsets.
func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// every returns the offsets from, from+step, … below end.
func every(from, step, end time.Duration) []time.Duration {
	var out []time.Duration
	for d := from; d < end; d += step {
		out = append(out, d)
	}
	return out
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

type errText string

func (e errText) Error() string { return string(e) }

// collector keeps every sample pushed to it.
type collector = metricstest.Samples

// logBuf is a goroutine-safe buffer for log output.
type logBuf = testkit.SyncBuffer

// startOffsetsOfVU returns when a VU started its iterations, relative to start, sorted.
func (f *fakeRuntime) startOffsetsOfVU(start time.Time, vu uint64) []time.Duration {
	var out []time.Duration
	for _, r := range f.records() {
		if r.VU.InInstance == vu {
			out = append(out, r.Start.Sub(start))
		}
	}
	slices.Sort(out)
	return out
}
