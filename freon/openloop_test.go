package freon

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// Sleep makes fakeClock a Sleeper: waiting advances virtual time, so an open loop with one
// worker runs its schedule exactly, in no real time.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.Advance(d)
	}
	return ctx.Err()
}

// A worker held by one 100 ms call (a DataNode stall): the closed loop records one slow call,
// the open loop also the ten calls that fell due behind it, each from its due time. At 100/s with
// 1 ms calls, call 5 runs from 50 to 150 ms; call k (6..15), due at 10k ms, starts when call
// k−1 ends, at 144+k ms, so 144−9k ms late, and takes 1 ms; call 16 is due at 160 ms, on time.
func TestOpenLoopCountsFromDueTime(t *testing.T) {
	ms := time.Millisecond
	for _, open := range []bool{false, true} {
		clock := newFakeClock()
		cfg := runConfig{Threads: 1, NumberOfTests: 20, Clock: clock}
		if open {
			cfg.Rate = Rate{100, time.Second}
		}
		res := mustRun(t, context.Background(), cfg, func(_ context.Context, id int) Outcome {
			d := ms
			if id == 5 {
				d = 100 * ms
			}
			clock.Advance(d)
			return Outcome{Latency: d}
		})
		l := res.Latency
		if !open {
			if l.Count != 20 || l.Max != int64(100*ms) || l.Mean != float64(119*ms)/20 || res.Loop.String() != "closed (1 thread)" {
				t.Errorf("closed loop: %+v, loop %q", l, res.Loop)
			}
			continue
		}
		// 9 on-time calls of 1 ms, the 100 ms one, and 91, 82, ..., 10 ms behind it.
		if l.Count != 20 || l.Max != int64(100*ms) || l.Mean != float64(614*ms)/20 {
			t.Errorf("open loop latencies %+v", l)
		}
		lp := res.Loop
		if lp.LateStarts != 10 || lp.StartDelay.Count != 20 || lp.StartDelay.Max != int64(90*ms) || lp.StartDelay.Min != 0 {
			t.Errorf("open loop start delays: %d late, %+v", lp.LateStarts, lp.StartDelay)
		}
		if got := res.End.Sub(res.Start); got != 191*ms { // call 19, due at 190 ms, on time
			t.Errorf("open loop ran %v, want 191ms", got)
		}
		if res.Attempts != 21 {
			t.Errorf("attempts %d, want 21", res.Attempts)
		}
	}
}

// Duration mode takes the calls due before the end; one the workers cannot start before the end
// is counted, not run late after it.
func TestOpenLoopDuration(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name              string
		first             time.Duration // how long call 0 takes
		count, notStarted int64
		late              int64
		wantLoop          string
	}{
		{"on time", ms, 10, 0, 0, "open, 10/s, up to 1 thread; 0 late starts (more than 1ms after their due time), p99 start delay 0.0 ms"},
		{"behind", 950 * ms, 10, 0, 9, ""}, // calls 1..9 start late, all before the end
		{"past the end", 2 * time.Second, 1, 9, 0, "; 9 calls due before the end never started"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			first := true
			res := mustRun(t, context.Background(), runConfig{
				Threads: 1, NumberOfTests: 3, Duration: time.Second, Rate: Rate{10, time.Second}, Clock: clock,
			}, func(_ context.Context, id int) Outcome {
				d := ms
				if first {
					d, first = tt.first, false
				}
				clock.Advance(d)
				return Outcome{Latency: d}
			})
			if res.Latency.Count != tt.count || res.Loop.NotStarted != tt.notStarted || res.Loop.LateStarts != tt.late {
				t.Errorf("count %d not started %d late %d; want %d, %d, %d",
					res.Latency.Count, res.Loop.NotStarted, res.Loop.LateStarts, tt.count, tt.notStarted, tt.late)
			}
			if s := res.Loop.String(); !strings.Contains(s, tt.wantLoop) {
				t.Errorf("loop %q lacks %q", s, tt.wantLoop)
			}
		})
	}
}

// Without --fail-at-end no call starts after a failure, as in the closed loop; with it, all do.
func TestOpenLoopStopsAtFailure(t *testing.T) {
	for _, failAtEnd := range []bool{false, true} {
		clock := newFakeClock()
		res := mustRun(t, context.Background(), runConfig{
			Threads: 1, NumberOfTests: 10, FailAtEnd: failAtEnd, Rate: Rate{100, time.Second}, Clock: clock,
		}, func(_ context.Context, id int) Outcome {
			clock.Advance(time.Millisecond)
			if id == 2 {
				return done(errTask)
			}
			return done(nil)
		})
		want := int64(3)
		if failAtEnd {
			want = 10
		}
		if res.Latency.Count != want || res.Failures != 1 {
			t.Errorf("failAtEnd=%v: %d calls, %d failures; want %d, 1", failAtEnd, res.Latency.Count, res.Failures, want)
		}
	}
}

// Ctrl-C while a worker waits for a due time ends the run at once with what ran.
func TestOpenLoopCancelWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	res := mustRun(t, ctx, runConfig{Threads: 2, NumberOfTests: 100, Rate: Rate{1, time.Minute}},
		func(context.Context, int) Outcome {
			cancel() // the next call is due a minute later
			return done(nil)
		})
	if !res.Cancelled || res.Latency.Count != 1 || res.Loop.NotStarted != 0 {
		t.Errorf("result %+v", res)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("cancelled run took %v", took)
	}
}

// On the real clock the schedule holds however fast the calls are: 100 calls at 2000/s take at
// least the 49.5 ms until the last is due.
func TestOpenLoopRealClock(t *testing.T) {
	res := mustRun(t, context.Background(), runConfig{Threads: 4, NumberOfTests: 100, Rate: Rate{2000, time.Second}},
		func(context.Context, int) Outcome { return done(nil) })
	if el := res.End.Sub(res.Start); el < 49500*time.Microsecond || res.Successes != 100 {
		t.Errorf("elapsed %v, successes %d", el, res.Successes)
	}
	if res.Loop.StartDelay.Count != 100 || !strings.HasPrefix(res.Loop.String(), "open, 2000/s, up to 4 threads; ") {
		t.Errorf("loop %+v", res.Loop)
	}
}

func TestOpenLoopNeedsSleeper(t *testing.T) {
	_, err := newRunner(runConfig{Threads: 1, NumberOfTests: 1, Rate: Rate{1, time.Second}, Clock: nowOnly{}},
		func(context.Context, int) Outcome { return done(nil) })
	if err == nil {
		t.Error("an open loop accepted a clock that cannot sleep")
	}
}

type nowOnly struct{}

func (nowOnly) Now() time.Time { return time.Time{} }

// The open loop's console report starts with its "Loop:" line; the closed loop's is Java's,
// unchanged, and both log the line on the report thread.
func TestLoopLineInReports(t *testing.T) {
	for _, rate := range []string{"", "200/s"} {
		var out, log bytes.Buffer
		g := Generator{
			Options: Options{NumberOfTests: 5, Threads: 2, Rate: rate}, Interactive: true,
			Out: &out, Log: NewLogWriter(&log, nil),
			Task: func(context.Context, int) Outcome { return done(nil) },
		}
		if _, err := g.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		// The report follows the progress bar's last draw, which ends with "|  " and a newline.
		all := out.String()
		report := all[strings.LastIndex(all, "|  \n")+4:]
		first, _, _ := strings.Cut(report, "\n")
		open := rate != ""
		if open != strings.HasPrefix(first, "Loop: open, 200/s, up to 2 threads; ") || (!open && strings.Contains(report, "Loop")) {
			t.Errorf("rate %q: console report begins %q", rate, first)
		}
		want := "[shutdown-hook-0] INFO dnecho.freon: Loop: closed (2 threads)\n"
		if open {
			want = "[shutdown-hook-0] INFO dnecho.freon: Loop: open, 200/s, up to 2 threads; "
		}
		if !strings.Contains(log.String(), want) {
			t.Errorf("rate %q: log lacks %q:\n%s", rate, want, log.String())
		}
	}
}

func TestLoopString(t *testing.T) {
	delay := LatencyStats{P99: 1.25e6}
	for _, tt := range []struct {
		loop Loop
		want string
	}{
		{Loop{Threads: 32}, "closed (32 threads)"},
		{Loop{Threads: 1}, "closed (1 thread)"},
		{Loop{Threads: 32, Rate: Rate{500, time.Second}, LateStarts: 12, StartDelay: delay},
			"open, 500/s, up to 32 threads; 12 late starts (more than 1ms after their due time), p99 start delay 1.2 ms"},
		{Loop{Threads: 1, Rate: Rate{30, time.Minute}, LateStarts: 1, NotStarted: 3},
			"open, 30/m, up to 1 thread; 1 late start (more than 1ms after their due time), p99 start delay 0.0 ms; " +
				"3 calls due before the end never started"},
	} {
		if got := tt.loop.String(); got != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.loop, got, tt.want)
		}
	}
}
