package executor

import (
	"context"
	"github.com/dnecho/dnecho/internal/testkit"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rec is one iteration seen by the fake runtime.
type rec struct {
	Scenario string
	VU       VUID
	It       Iteration
	Start    time.Time
	Outcome  Outcome
}

// fakeRuntime is a Go-function stand-in for the JS runtime: body decides what an iteration does.
type fakeRuntime struct {
	body      func(ctx context.Context, r rec) IterationResult
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

func (f *fakeRuntime) NewVU(ctx context.Context, id VUID) (VU, error) {
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

func (f *fakeRuntime) count(scenario string, o Outcome) int {
	n := 0
	for _, r := range f.records() {
		if (scenario == "" || r.Scenario == scenario) && r.Outcome == o {
			n++
		}
	}
	return n
}

type fakeVU struct {
	f  *fakeRuntime
	id VUID
}

func (v *fakeVU) Activate(a *Activation) ActiveVU {
	v.f.event(vuEvent{At: time.Now(), VU: v.id.InInstance, Scenario: a.Scenario, Delta: 1})
	return &fakeActive{v: v, a: a}
}

type fakeActive struct {
	v *fakeVU
	a *Activation
}

func (fa *fakeActive) RunIteration(ctx context.Context, it Iteration) IterationResult {
	r := rec{Scenario: fa.a.Scenario, VU: fa.v.id, It: it, Start: time.Now()}
	res := IterationResult{Outcome: Completed}
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
	fa.v.f.event(vuEvent{At: time.Now(), VU: fa.v.id.InInstance, Scenario: fa.a.Scenario, Delta: -1})
}

// sleepBody is an iteration that takes d, or is interrupted when ctx ends first.
func sleepBody(d time.Duration) func(context.Context, rec) IterationResult {
	return func(ctx context.Context, _ rec) IterationResult {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return IterationResult{Outcome: Completed}
		case <-ctx.Done():
			return IterationResult{Outcome: Interrupted}
		}
	}
}

// harness wires a scheduler to a fake runtime, a sample collector and a log buffer, with the
// 1 s minimum duration lifted so real-time tests stay short.
type harness struct {
	t   *testing.T
	rt  *fakeRuntime
	col *collector
	log *logBuf
	s   *Scheduler
}

func newHarness(t *testing.T, body func(context.Context, rec) IterationResult, opts Options, scs ...Config) *harness {
	t.Helper()
	h := &harness{t: t, rt: &fakeRuntime{body: body}, col: &collector{}, log: &logBuf{}}
	opts.Scenarios = scs
	opts.VUs = h.rt
	opts.Samples = h.col
	opts.Logger = slog.New(slog.NewTextHandler(h.log, nil))
	opts.minDuration = time.Millisecond
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

func mustDecode(t testing.TB, name, js string) Config {
	t.Helper()
	c, err := DecodeScenario(name, []byte(js))
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return c
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if got < want-tol || got > want+tol {
		t.Errorf("%s = %v, want %v ± %v", what, got, want, tol)
	}
}

// schedTolerance is how late (never early) a real-time scheduling event may be on a loaded CI
// machine running -race; on a quiet machine events are within a millisecond or two.
const schedTolerance = 120 * time.Millisecond

// onTime checks that each event happened at its planned offset: not early (beyond timer
// granularity) and at most schedTolerance late.
func onTime(t *testing.T, what string, got, want []time.Duration) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d events at %v, want %d at %v", what, len(got), got, len(want), want)
		return
	}
	for i := range want {
		if got[i] < want[i]-5*time.Millisecond || got[i] > want[i]+schedTolerance {
			t.Errorf("%s: event %d at %v, want %v (+%v)", what, i, got[i], want[i], schedTolerance)
		}
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

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

type contextT = context.Context

type errText string

func (e errText) Error() string { return string(e) }

// collector keeps every sample pushed to it.
type collector = testkit.Samples

// logBuf is a goroutine-safe buffer for log output.
type logBuf = testkit.SyncBuffer
