package freon

import (
	"context"
	"fmt"
	"time"

	"github.com/dnecho/dnecho/internal/quantile"
)

// LateStartThreshold is how far after its due time a call of the open loop may start and still
// count as on time. Every start delay is kept (for the p99 the report prints), with the meaning
// `dnecho run` gives dnecho_iteration_start_delay (engine/executor/iteration.go): the time the
// call began minus the time it was due. A count needs a cut-off, and a Go timer on an idle Linux
// machine wakes well within 1 ms, while dnecho's calls take about that long: a start later than
// this is as late as a whole call, so the generator, not the timer, held it back.
const LateStartThreshold = time.Millisecond

// delayExactLimit is how many start delays a worker keeps exactly before its store moves to a
// histogram (3 significant digits: plenty for the p99 the report prints in 0.1 ms).
const delayExactLimit = 1024

// Sleeper is a Clock that can wait. The open loop waits for each call's due time through the
// runner's Clock, so a fake clock drives its schedule in tests; SystemClock is a Sleeper.
type Sleeper interface {
	// Sleep returns once d has passed on the clock (at once when d ≤ 0), or earlier with
	// ctx's error.
	Sleep(ctx context.Context, d time.Duration) error
}

// Sleep implements Sleeper with a real timer.
func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Loop says which loop a run used and, for the open loop, how well it kept to its schedule.
type Loop struct {
	// Threads is -t: the workers of the closed loop, the most calls in flight of the open one.
	Threads int
	// Rate is the open loop's pace; the zero Rate for the closed loop.
	Rate Rate
	// StartDelay holds how late every started call began after its due time (open loop).
	StartDelay LatencyStats
	// LateStarts counts the calls that began more than LateStartThreshold after their due time.
	LateStarts int64
	// NotStarted counts the calls a duration run had due before its end that never started,
	// because no worker was free before the end (not counted after Ctrl-C).
	NotStarted int64
}

// String is the report's "Loop:" line, without the label.
func (l Loop) String() string {
	if !l.Rate.Open() {
		return fmt.Sprintf("closed (%s)", plural(int64(l.Threads), "thread"))
	}
	s := fmt.Sprintf("open, %s, up to %s; %s (more than %s after their due time), p99 start delay %s",
		l.Rate, plural(int64(l.Threads), "thread"), plural(l.LateStarts, "late start"), LateStartThreshold,
		formatMillis(l.StartDelay.P99))
	if l.NotStarted > 0 {
		s += fmt.Sprintf("; %d calls due before the end never started", l.NotStarted)
	}
	return s
}

// plural is "1 thread", "2 threads".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// formatMillis prints nanoseconds as milliseconds with one decimal, "1.2 ms".
func formatMillis(ns float64) string {
	return fmt.Sprintf("%.1f ms", ns/1e6)
}

// delayRecorder keeps one open-loop worker's start delays; only that worker writes it.
type delayRecorder struct {
	store *quantile.Store
	mom   moments
	late  int64
}

func newDelayRecorder() *delayRecorder {
	return &delayRecorder{store: quantile.New(delayExactLimit, 1)}
}

func (d *delayRecorder) add(delay time.Duration) {
	d.store.Add(float64(delay))
	d.mom.add(int64(delay))
	if delay > LateStartThreshold {
		d.late++
	}
}

// mergeDelays combines the workers' start delays once they have stopped.
func mergeDelays(ds []*delayRecorder) (LatencyStats, int64) {
	var (
		mom    moments
		late   int64
		stores = make([]*quantile.Store, 0, len(ds))
	)
	for _, d := range ds {
		mom.merge(d.mom)
		late += d.late
		stores = append(stores, d.store)
	}
	u := quantile.Merge(stores...)
	stats := mom.stats()
	stats.Exact = u.Exact()
	stats.setQuantiles(dropwizardQuantiles(u))
	return stats, late
}

// openWorker is the open loop's worker: take the next call of the schedule, wait until it is
// due (not at all when it is overdue: every worker was busy), run it, and record as its latency
// the task's own plus how late it started, so that a call held up by a stalled DataNode's
// earlier calls counts from when it should have started (no coordinated omission). The stop
// rules are the closed loop's, with the schedule's end as the duration's: a call due at or after
// --duration is not taken, and none starts once the duration is over. Reaching the end of the
// schedule does not stop the other workers: they hold earlier calls, which still start.
func (r *taskRunner) openWorker(ctx context.Context, rec *recorder, delays *delayRecorder) (interrupted int64) {
	n := r.cfg.NumberOfTests
	for !r.completed.Load() {
		counter := r.attempts.Add(1) - 1
		if r.scheduleOver(counter) || r.stopOnFailure() {
			break
		}
		wait, _ := r.cfg.Rate.Pace(r.cfg.Clock.Now().Sub(r.start), counter)
		if r.sleeper.Sleep(ctx, wait) != nil {
			// Cancelled. The AfterFunc in run marks the run stopped too, but on a goroutine of
			// its own that may not have run before the result is read.
			r.cancelled.Store(true)
			r.completed.Store(true)
			break
		}
		now := r.cfg.Clock.Now()
		if r.cancelled.Load() || r.stopOnFailure() {
			break
		}
		if r.cfg.Duration > 0 && now.Sub(r.start) > r.cfg.Duration {
			r.completed.Store(true) // every call left is overdue past the end too
			break
		}
		_, late := r.cfg.Rate.Pace(now.Sub(r.start), counter)
		r.begun.Add(1)
		delays.add(late)
		taskID := int(counter % n)
		out := r.task(ctx, taskID)
		if r.finish(ctx, rec, taskID, out, out.Latency+late) {
			interrupted++
		}
	}
	return interrupted
}

// scheduleOver says whether counter is past the open loop's schedule: -n calls in count mode,
// the calls due before --duration in duration mode.
func (r *taskRunner) scheduleOver(counter int64) bool {
	if r.cfg.Duration > 0 {
		return r.cfg.Rate.Due(counter) >= r.cfg.Duration
	}
	return counter >= r.cfg.NumberOfTests
}

// stopOnFailure is freon's count-mode rule without --fail-at-end: no task starts after a failure.
func (r *taskRunner) stopOnFailure() bool {
	return r.cfg.Duration <= 0 && !r.cfg.FailAtEnd && r.failures.Load() > 0
}

// loop is the Loop of the finished run.
func (r *taskRunner) loop() Loop {
	l := Loop{Threads: r.cfg.Threads, Rate: r.cfg.Rate}
	if !r.cfg.Rate.Open() {
		return l
	}
	l.StartDelay, l.LateStarts = mergeDelays(r.delays)
	if r.cfg.Duration > 0 && !r.cancelled.Load() {
		l.NotStarted = max(0, r.cfg.Rate.dueBefore(r.cfg.Duration)-r.begun.Load())
	}
	return l
}
