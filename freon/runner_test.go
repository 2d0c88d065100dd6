package freon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var errTask = errors.New("task failed")

// done is a task outcome with the given error (success when nil) and a 1 µs latency.
func done(err error) Outcome {
	o := Outcome{Latency: time.Microsecond, Err: err}
	if err != nil {
		o.Label = err.Error()
	}
	return o
}

// idSet records which task ids ran, safely from many workers.
type idSet struct {
	mu  sync.Mutex
	ids map[int]int
}

func (s *idSet) add(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[int]int{}
	}
	s.ids[id]++
}

func mustRun(t *testing.T, ctx context.Context, cfg runConfig, task Task) *Report {
	t.Helper()
	r, err := newRunner(cfg, task)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(ctx)
}

func TestCountModeExact(t *testing.T) {
	for _, threads := range []int{1, 10, 32} {
		t.Run(fmt.Sprint(threads), func(t *testing.T) {
			var seen idSet
			const n = 1000
			res := mustRun(t, context.Background(), runConfig{Threads: threads, NumberOfTests: n},
				func(_ context.Context, id int) Outcome { seen.add(id); return done(nil) })
			if res.Successes != n || res.Failures != 0 || res.Latency.Count != n || !res.Latency.Exact {
				t.Fatalf("result %+v", res)
			}
			// The first worker to draw a value >= n stops them all; others may have drawn one too.
			if res.Attempts < n+1 || res.Attempts > n+int64(threads) {
				t.Errorf("attempts = %d, want %d..%d", res.Attempts, n+1, n+threads)
			}
			if len(seen.ids) != n {
				t.Errorf("%d distinct task ids, want %d", len(seen.ids), n)
			}
			for id, c := range seen.ids {
				if id < 0 || id >= n || c != 1 {
					t.Fatalf("task id %d ran %d times", id, c)
				}
			}
		})
	}
}

func TestStopAtFirstFailure(t *testing.T) {
	// One worker: tasks 0..4 succeed, 5 fails, the next counter value (6) sees the failure.
	res := mustRun(t, context.Background(), runConfig{Threads: 1, NumberOfTests: 100},
		func(_ context.Context, id int) Outcome {
			if id == 5 {
				return done(errTask)
			}
			return done(nil)
		})
	if res.Successes != 5 || res.Failures != 1 || res.Attempts != 7 || res.Latency.Count != 6 {
		t.Errorf("got successes %d failures %d attempts %d timed %d", res.Successes, res.Failures, res.Attempts, res.Latency.Count)
	}

	// Many workers, every task fails: a worker can start a task only before the first failure
	// is recorded, so each runs at most one.
	res = mustRun(t, context.Background(), runConfig{Threads: 8, NumberOfTests: 1000},
		func(context.Context, int) Outcome { return done(errTask) })
	if res.Successes != 0 || res.Failures < 1 || res.Failures > 8 {
		t.Errorf("8 workers, all failing: successes %d failures %d", res.Successes, res.Failures)
	}
}

func TestFailAtEndRunsEverything(t *testing.T) {
	var seen idSet
	var logged atomic.Int64
	res := mustRun(t, context.Background(), runConfig{
		Threads: 4, NumberOfTests: 200, FailAtEnd: true,
		OnError: func(int, error) { logged.Add(1) },
	}, func(_ context.Context, id int) Outcome {
		seen.add(id)
		if id%2 == 1 {
			return done(errTask)
		}
		return done(nil)
	})
	if res.Successes != 100 || res.Failures != 100 || len(seen.ids) != 200 || logged.Load() != 100 {
		t.Errorf("successes %d failures %d ids %d logged %d", res.Successes, res.Failures, len(seen.ids), logged.Load())
	}
	if got := res.failureBreakdown(); len(got) != 1 || got[0] != (labelCount{"task failed", 100}) {
		t.Errorf("breakdown %v", got)
	}
}

// Duration mode stops on time only: with one worker and 1 s tasks on a fake clock, tasks
// start at 0..10 s (elapsed must exceed 10 s to stop), so 11 run, failing or not.
func TestDurationMode(t *testing.T) {
	for _, failAtEnd := range []bool{false, true} {
		for _, fail := range []bool{false, true} {
			clock := newFakeClock()
			res := mustRun(t, context.Background(), runConfig{
				Threads: 1, NumberOfTests: 3, Duration: 10 * time.Second, FailAtEnd: failAtEnd, Clock: clock,
			}, func(_ context.Context, id int) Outcome {
				clock.Advance(time.Second)
				if fail {
					return done(errTask)
				}
				return done(nil)
			})
			if res.Latency.Count != 11 || res.Attempts != 12 || (fail && res.Failures != 11) || (!fail && res.Successes != 11) {
				t.Errorf("failAtEnd=%v fail=%v: %+v", failAtEnd, fail, res)
			}
			if res.End.Sub(res.Start) != 11*time.Second {
				t.Errorf("ran %v", res.End.Sub(res.Start))
			}
		}
	}
}

func TestDurationModeRealClock(t *testing.T) {
	res := mustRun(t, context.Background(), runConfig{Threads: 4, NumberOfTests: 10, Duration: 50 * time.Millisecond},
		func(context.Context, int) Outcome { time.Sleep(time.Millisecond); return done(nil) })
	if el := res.End.Sub(res.Start); el < 50*time.Millisecond || res.Successes == 0 {
		t.Errorf("elapsed %v, successes %d", el, res.Successes)
	}
}

func TestCancellationStillReports(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran atomic.Int64
	res := mustRun(t, ctx, runConfig{Threads: 4, NumberOfTests: 1_000_000}, func(ctx context.Context, _ int) Outcome {
		if ran.Add(1) > 20 {
			cancel()
			<-ctx.Done() // an in-flight call aborted by Ctrl-C
			return Outcome{Err: ctx.Err(), Interrupted: true}
		}
		return done(nil)
	})
	if !res.Cancelled || res.Successes < 20 || res.Failures != 0 || res.Interrupted < 1 || res.Interrupted > 4 {
		t.Errorf("result %+v", res)
	}
	var buf bytes.Buffer
	if err := writeConsoleReport(&buf, res.End, res.reportAt(res.End), consoleOptions{}); err != nil || buf.Len() == 0 {
		t.Errorf("no report after cancellation: %v", err)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := mustRun(t, ctx, runConfig{Threads: 4, NumberOfTests: 10}, func(context.Context, int) Outcome {
		t.Error("task ran after cancellation")
		return done(nil)
	})
	if !res.Cancelled || res.Latency.Count != 0 {
		t.Errorf("result %+v", res)
	}
}

// The task's own latencies are recorded (not the runner's clock): 1..100 ms, so the
// percentiles are known, whatever the wall clock says.
func TestExactPercentiles(t *testing.T) {
	res := mustRun(t, context.Background(), runConfig{Threads: 3, NumberOfTests: 100},
		func(_ context.Context, id int) Outcome {
			return Outcome{Latency: time.Duration(id+1) * time.Millisecond}
		})
	l := res.Latency
	near := func(ns, ms float64) bool { return math.Abs(ns/1e6-ms) < 1e-6 }
	if l.Min != 1e6 || l.Max != 100e6 || !near(l.Mean, 50.5) || !near(l.Median, 50.5) || !near(l.P75, 75.75) ||
		!near(l.P95, 95.95) || !near(l.P98, 98.98) || !near(l.P99, 99.99) || !near(l.P999, 100) || !l.Exact {
		t.Errorf("stats %+v", l)
	}
}

func TestSampleCapFallback(t *testing.T) {
	res := mustRun(t, context.Background(), runConfig{Threads: 2, NumberOfTests: 500, ExactSampleCap: 100},
		func(context.Context, int) Outcome { return done(nil) })
	if res.Latency.Exact || res.SampleCap != 100 || res.Latency.Count != 500 {
		t.Errorf("result %+v", res)
	}
	if rep := res.reportAt(res.End); rep.Note == "" {
		t.Error("approximate percentiles must be announced")
	}
}

func TestProgressValues(t *testing.T) {
	clock := newFakeClock()
	r, err := newRunner(runConfig{Threads: 1, NumberOfTests: 5, Duration: 3 * time.Second, Clock: clock},
		func(context.Context, int) Outcome { clock.Advance(time.Second); return done(nil) })
	if err != nil {
		t.Fatal(err)
	}
	if r.progressMax() != 3 || r.progressValue() != 0 {
		t.Errorf("before run: max %d value %d", r.progressMax(), r.progressValue())
	}
	r.Run(context.Background())
	if r.progressValue() != 4 || r.completedTasks() != 4 || r.Failures() != 0 {
		t.Errorf("after run: value %d completed %d", r.progressValue(), r.completedTasks())
	}
}

func TestNewRunnerRejects(t *testing.T) {
	ok := func(context.Context, int) Outcome { return done(nil) }
	for _, tt := range []struct {
		cfg  runConfig
		task Task
	}{
		{runConfig{Threads: 0, NumberOfTests: 1}, ok},
		{runConfig{Threads: MaxThreads + 1, NumberOfTests: 1}, ok},
		{runConfig{Threads: 1, NumberOfTests: 0}, ok},
		{runConfig{Threads: 1, NumberOfTests: 1, Duration: -1}, ok},
		{runConfig{Threads: 1, NumberOfTests: 1}, nil},
	} {
		if _, err := newRunner(tt.cfg, tt.task); err == nil {
			t.Errorf("NewRunner(%+v) accepted", tt.cfg)
		}
	}
}
