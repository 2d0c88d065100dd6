package eventloop

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// errRejected is what the test loops make of an unhandled rejection.
var errRejected = errors.New("unhandled rejection")

// newTestLoop is a loop on a fresh runtime whose unhandled rejections are errRejected.
func newTestLoop() *Loop {
	return New(goja.New(), func(goja.Value) error { return errRejected }, nil)
}

// scriptLoop is a loop with the timer functions as globals and a global ran(name) that records
// the order of calls; warnings are kept.
type scriptLoop struct {
	*Loop
	rt    *goja.Runtime
	ran   []string
	warns []string
}

func newScriptLoop(t *testing.T) *scriptLoop {
	t.Helper()
	s := &scriptLoop{rt: goja.New()}
	s.Loop = New(s.rt, func(v goja.Value) error { return errors.New("rejected: " + v.String()) },
		func(msg string) { s.warns = append(s.warns, msg) })
	for name, fn := range s.TimerFunctions() {
		if err := s.rt.Set(name, fn); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.rt.Set("ran", func(name string) { s.ran = append(s.ran, name) }); err != nil {
		t.Fatal(err)
	}
	return s
}

// script runs src as the call's first task.
func (s *scriptLoop) script(ctx context.Context, src string) error {
	return s.Run(ctx, func() error {
		_, err := s.rt.RunString(src)
		return err
	})
}

// TestTimerOrder: timers run earliest first and, due at the same time, in the order they were
// set; promise reactions a timer starts run before the next timer; an interval reschedules
// before its function runs, so that the function can clear it; arguments reach the callback.
func TestTimerOrder(t *testing.T) {
	s := newScriptLoop(t)
	err := s.script(context.Background(), `
setTimeout(() => ran("late"), 5);
setTimeout((a, b) => ran("zero-1" + a + b), 0, ":", "x");
setTimeout(() => { ran("zero-2"); Promise.resolve().then(() => ran("micro")); });
setTimeout(() => ran("zero-3"), -1);
const cleared = setTimeout(() => ran("cleared"), 0);
clearTimeout(cleared);
let n = 0;
const id = setInterval(() => { n++; ran("tick" + n); if (n === 3) clearInterval(id); }, 1);
ran("sync");`)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.ran, " ")
	// The interval's ticks interleave with "late" by the clock; the rest is fixed.
	var fixed, ticks []string
	for _, r := range s.ran {
		if strings.HasPrefix(r, "tick") {
			ticks = append(ticks, r)
		} else {
			fixed = append(fixed, r)
		}
	}
	if f := strings.Join(fixed, " "); f != "sync zero-1:x zero-2 micro zero-3 late" {
		t.Errorf("ran %s", got)
	}
	if tk := strings.Join(ticks, " "); tk != "tick1 tick2 tick3" {
		t.Errorf("interval ran %s", got)
	}
	if len(s.warns) != 0 {
		t.Errorf("warnings of a call that settled: %q", s.warns)
	}
}

// TestInterruptedTimersWarn: a call whose context ends drops its timers with k6's warning, one
// per pending timer by id, and none of them runs in the next call.
func TestInterruptedTimersWarn(t *testing.T) {
	s := newScriptLoop(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.rt.Set("stop", cancel); err != nil {
		t.Fatal(err)
	}
	err := s.script(ctx, `
setTimeout(() => ran("timeout"), 60000);
setInterval(() => ran("interval"), 60000);
clearTimeout(setTimeout(() => ran("cleared"), 60000));
stop();`)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("run: %v, want ErrInterrupted", err)
	}
	want := []string{
		"setTimeout 1 was stopped because the VU iteration was interrupted",
		"setInterval 2 was stopped because the VU iteration was interrupted",
	}
	if strings.Join(s.warns, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want %q", s.warns, want)
	}
	if err := s.script(context.Background(), `ran("next")`); err != nil || strings.Join(s.ran, " ") != "next" {
		t.Errorf("next call: %v, ran %q", err, s.ran)
	}
}

// TestTimerCallbackErrorEndsTheCall: a timer that throws fails the call and drops the other
// timers, without a warning (the call was not interrupted).
func TestTimerCallbackErrorEndsTheCall(t *testing.T) {
	s := newScriptLoop(t)
	err := s.script(context.Background(), `
setTimeout(() => { throw new Error("in timer"); }, 0);
setTimeout(() => ran("after"), 0);`)
	var ex *goja.Exception
	if !errors.As(err, &ex) || !strings.Contains(ex.Error(), "in timer") {
		t.Fatalf("run: %v, want the timer's exception", err)
	}
	if len(s.ran) != 0 || len(s.warns) != 0 {
		t.Errorf("ran %q, warnings %q", s.ran, s.warns)
	}
}

// TestUnhandledRejection: a promise rejected with no handler fails the call with the error New's
// rejection makes of its value; one that gets a handler later in the same task does not.
func TestUnhandledRejection(t *testing.T) {
	s := newScriptLoop(t)
	err := s.script(context.Background(), `Promise.reject("nobody"); ran("after")`)
	if err == nil || err.Error() != "rejected: nobody" {
		t.Fatalf("run: %v, want rejected: nobody", err)
	}
	err = s.script(context.Background(), `const p = Promise.reject("late"); p.catch(() => ran("handled"));`)
	if err != nil || strings.Join(s.ran, " ") != "after handled" {
		t.Fatalf("run: %v, ran %q", err, s.ran)
	}
}

func TestTimerDelay(t *testing.T) {
	rt := goja.New()
	for _, tc := range []struct {
		in   goja.Value
		want time.Duration
	}{
		{goja.Undefined(), 0},
		{rt.ToValue("soon"), 0},
		{rt.ToValue(-5), 0},
		{rt.ToValue(math.NaN()), 0},
		{rt.ToValue(1.5), 1500 * time.Microsecond},
		{rt.ToValue("20"), 20 * time.Millisecond},
		{rt.ToValue(1e12), math.MaxInt32 * time.Millisecond},
	} {
		if got := timerDelay(tc.in); got != tc.want {
			t.Errorf("timerDelay(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// BenchmarkLoopSyncTask is what the event loop adds to a synchronous iteration: one task that
// queues nothing.
func BenchmarkLoopSyncTask(b *testing.B) {
	l := newTestLoop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	task := func() error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Run(ctx, task); err != nil {
			b.Fatal(err)
		}
	}
}
