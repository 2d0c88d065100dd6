package freon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Task runs one test step, for example one Echo. taskID is the attempt counter modulo
// NumberOfTests, as freon passes it.
type Task func(ctx context.Context, taskID int) Outcome

// Outcome is what one task reports. The runner records Latency as the task measured it: the
// task, not the runner, knows which interval the tool's timer covers (for dn-echo, see package
// ozone/echo).
type Outcome struct {
	Latency time.Duration
	// Err is nil for a successful task.
	Err error
	// Label names a failure for the breakdown (for example an Ozone result); "" for none.
	Label string
	// Interrupted says the task failed because the run was cancelled: it is counted as
	// interrupted, not as a failure or a sample.
	Interrupted bool
	// Server, when not "", names the server that answered, whose tasks' latencies are also
	// summarised apart (Report.Servers): for dn-echo, the DataNode that answered. The runner does not interpret it.
	Server string
	// Parts, when set, go to the servers instead of the task's Server and Latency: a task made of
	// several parts (for dn-echo, attempts on several DataNodes) counts each under its own server,
	// with its own latency and outcome.
	Parts []Part
}

// Part is one part of a task, as Outcome.Parts books it under a server.
type Part struct {
	Server  string
	Latency time.Duration
	Failed  bool
}

// Clock is the runner's time source; tests inject a fake one.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// SystemClock is the real, monotonic clock.
var SystemClock Clock = systemClock{}

// runConfig is what the runner needs from the options, validated (see Options.RunConfig).
type runConfig struct {
	Threads       int
	NumberOfTests int64
	// Duration > 0 selects duration mode: workers stop once more than Duration has passed.
	Duration  time.Duration
	FailAtEnd bool
	// ExactSampleCap bounds the latencies kept individually; 0 means DefaultExactSampleCap.
	// Count mode with NumberOfTests <= the cap never falls back to the histogram.
	ExactSampleCap int
	// Clock defaults to SystemClock.
	Clock Clock
	// OnError is called from the worker goroutine after each failed task (freon logs
	// "Error on executing task <id>" there). It must be safe for concurrent use.
	OnError func(taskID int, err error)
	// Rate selects the open loop (openloop.go) when set; the Clock must then be a Sleeper.
	Rate Rate
}

// taskRunner executes a Task with freon's BaseFreonGenerator semantics (Ozone: hadoop-ozone/freon/
// src/main/java/org/apache/hadoop/ozone/freon/BaseFreonGenerator.java): Threads closed-loop
// workers share one attempt counter; in count mode a worker stops when its counter value
// reaches NumberOfTests or, without FailAtEnd, once any task has failed; in duration mode
// workers stop only when the duration is over, failures or not. Every task's latency is
// recorded, failed ones included. In count mode at most NumberOfTests workers start: freon's
// extra threads would only find the counter exhausted.
//
// Without FailAtEnd freon's main thread stops waiting at the first failure even in duration
// mode: it then terminates the progress bar (ProgressBar.Terminate) but still waits for the
// workers. A caller reproduces that by watching Failures while Run is in progress.
//
// With a Rate the workers run dnecho's open loop instead (openWorker): calls start on a
// schedule, not when a worker becomes free.
type taskRunner struct {
	cfg  runConfig
	task Task

	attempts  atomic.Int64
	failures  atomic.Int64
	completed atomic.Bool // a worker hit the stop rule, or the context ended
	cancelled atomic.Bool
	started   atomic.Int64 // run start in Unix ns, for progress; 0 before Run
	start     time.Time
	workers   int // goroutines Run starts
	limit     int // exact latencies each worker keeps
	recs      []*recorder
	once      sync.Once

	// The open loop's: its clock's Sleep, the workers' start delays, the calls begun.
	sleeper Sleeper
	delays  []*delayRecorder
	begun   atomic.Int64
}

// newRunner checks cfg and prepares a runner; Run starts it.
func newRunner(cfg runConfig, task Task) (*taskRunner, error) {
	switch {
	case task == nil:
		return nil, errors.New("freon: runner needs a task")
	case cfg.Threads < 1 || cfg.Threads > MaxThreads:
		return nil, fmt.Errorf("freon: threads must be within 1..%d, got %d", MaxThreads, cfg.Threads)
	case cfg.NumberOfTests < 1:
		return nil, errors.New(MsgInvalidTestNo)
	case cfg.Duration < 0:
		return nil, errors.New(MsgInvalidDuration)
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock
	}
	if cfg.ExactSampleCap <= 0 {
		cfg.ExactSampleCap = defaultExactSampleCap
	}
	workers := cfg.Threads
	if cfg.Duration <= 0 {
		workers = int(min(int64(workers), cfg.NumberOfTests))
	}
	limit := 0 // count mode within the cap: exact, memory bounded by -n
	if cfg.Duration > 0 || cfg.NumberOfTests > int64(cfg.ExactSampleCap) {
		limit = max(1, cfg.ExactSampleCap/workers)
	}
	r := &taskRunner{cfg: cfg, task: task, workers: workers, limit: limit}
	if cfg.Rate.Open() {
		s, ok := cfg.Clock.(Sleeper)
		if !ok {
			return nil, errors.New("freon: the open loop needs a Clock that is a Sleeper")
		}
		r.sleeper = s
	}
	return r, nil
}

// Run executes the test and returns its result; call it once. Cancelling ctx (Ctrl-C) stops
// new tasks from starting and is passed to the tasks in flight; Run waits for them, so a
// report can always be printed. A task that fails after cancellation is counted as
// Interrupted rather than as a failure or a sample: like a JVM exiting mid-call, the abort
// says nothing about the DataNode.
func (r *taskRunner) Run(ctx context.Context) *Report {
	var res *Report
	r.once.Do(func() { res = r.run(ctx) })
	return res
}

func (r *taskRunner) run(ctx context.Context) *Report {
	r.recs = make([]*recorder, r.workers)
	for i := range r.recs {
		r.recs[i] = newRecorder(r.limit, serverLimit(r.workers))
	}
	if r.cfg.Rate.Open() {
		r.delays = make([]*delayRecorder, r.workers)
		for i := range r.delays {
			r.delays[i] = newDelayRecorder()
		}
	}
	r.start = r.cfg.Clock.Now()
	r.started.Store(r.start.UnixNano())
	if ctx.Err() != nil { // AfterFunc would run asynchronously; stop before any task starts
		r.cancelled.Store(true)
		r.completed.Store(true)
	}
	// Workers read an atomic flag instead of ctx.Err() on every task: no shared lock.
	stopWatch := context.AfterFunc(ctx, func() {
		r.cancelled.Store(true)
		r.completed.Store(true)
	})
	defer stopWatch()
	var wg sync.WaitGroup
	interrupted := make([]int64, len(r.recs))
	for i, rec := range r.recs {
		if r.cfg.Rate.Open() {
			wg.Go(func() { interrupted[i] = r.openWorker(ctx, rec, r.delays[i]) })
			continue
		}
		wg.Go(func() { interrupted[i] = r.worker(ctx, rec) })
	}
	wg.Wait()
	end := r.cfg.Clock.Now()
	return r.result(end, interrupted)
}

// worker is BaseFreonGenerator.runTaskLoop: take a counter value, apply the stop rule,
// run and time the task.
func (r *taskRunner) worker(ctx context.Context, rec *recorder) (interrupted int64) {
	n := r.cfg.NumberOfTests
	for !r.completed.Load() {
		counter := r.attempts.Add(1) - 1
		if r.cfg.Duration > 0 {
			if r.cfg.Clock.Now().Sub(r.start) > r.cfg.Duration {
				r.completed.Store(true)
				break
			}
		} else if counter >= n || (!r.cfg.FailAtEnd && r.failures.Load() > 0) {
			r.completed.Store(true)
			break
		}
		taskID := int(counter % n)
		out := r.task(ctx, taskID)
		if r.finish(ctx, rec, taskID, out, out.Latency) {
			interrupted++
		}
	}
	return interrupted
}

// finish books one task's outcome with the given latency; true when it was interrupted (then
// it is neither a sample nor a failure).
func (r *taskRunner) finish(ctx context.Context, rec *recorder, taskID int, out Outcome, latency time.Duration) bool {
	// ctx.Err is read only on failure: AfterFunc may not have set the flag yet.
	if out.Err != nil && (out.Interrupted || r.cancelled.Load() || ctx.Err() != nil) {
		r.cancelled.Store(true)
		r.completed.Store(true)
		return true
	}
	rec.record(latency, r.cfg.Clock.Now().Sub(r.start))
	for _, p := range out.Parts {
		rec.servers.add(p.Server, p.Latency, p.Failed)
	}
	if out.Server != "" && out.Parts == nil {
		rec.servers.add(out.Server, out.Latency, out.Err != nil)
	}
	if out.Err != nil {
		r.failures.Add(1)
		if out.Label != "" {
			rec.fail(out.Label)
		}
		if r.cfg.OnError != nil {
			r.cfg.OnError(taskID, out.Err)
		}
	}
	return false
}

// completedTasks returns how many tasks have finished (succeeded or failed) so far. It is safe to call
// concurrently with Run (the recorders are made before Run is visible to other goroutines through
// started).
func (r *taskRunner) completedTasks() int64 {
	if r.started.Load() == 0 {
		return 0
	}
	var n int64
	for _, rec := range r.recs {
		n += rec.done.Load()
	}
	return n
}

// Failures returns how many tasks have failed so far.
func (r *taskRunner) Failures() int64 {
	return r.failures.Load()
}

// progressMax is freon's progress-bar maximum: NumberOfTests in count mode, the duration
// in whole seconds in duration mode.
func (r *taskRunner) progressMax() int64 {
	if r.cfg.Duration > 0 {
		return int64(r.cfg.Duration / time.Second)
	}
	return r.cfg.NumberOfTests
}

// progressValue is freon's progress-bar value: finished tasks in count mode, whole seconds
// since the start in duration mode. Safe to call concurrently with Run.
func (r *taskRunner) progressValue() int64 {
	if r.cfg.Duration <= 0 {
		return r.completedTasks()
	}
	start := r.started.Load()
	if start == 0 {
		return 0
	}
	return int64(r.cfg.Clock.Now().Sub(time.Unix(0, start)) / time.Second)
}

func (r *taskRunner) result(end time.Time, interrupted []int64) *Report {
	stats, perTick, failed := mergeRecorders(r.recs)
	res := &Report{
		Start: r.start, End: end,
		Attempts:      r.attempts.Load(),
		Failures:      r.failures.Load(),
		Cancelled:     r.cancelled.Load(),
		NumberOfTests: r.cfg.NumberOfTests,
		Latency:       stats,
		perTick:       perTick,
		Loop:          r.loop(),
		Servers:       mergeServers(r.recs),
	}
	res.Successes = stats.Count - res.Failures
	for _, n := range interrupted {
		res.Interrupted += n
	}
	if len(failed) > 0 {
		res.FailuresByLabel = failed
	}
	if !stats.Exact {
		res.SampleCap = r.cfg.ExactSampleCap
	}
	return res
}
