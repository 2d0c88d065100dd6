package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
)

// Options configures a Scheduler.
type Options struct {
	// Scenarios to run; New validates them. Required.
	Scenarios []scenario.Config
	// VUs creates initialised VUs. Required.
	VUs VUFactory
	// Samples receives the scheduler's samples: vus and vus_max every second, dropped_iterations.
	// Nil discards them.
	Samples metrics.Pusher
	// Registry is where vus, vus_max and dropped_iterations are registered; nil uses a private one.
	Registry *metrics.Registry
	// RunTags are added to every sample the scheduler emits.
	RunTags *metrics.Tags
	// Logger receives the scheduler's warnings and script exceptions; nil discards them.
	Logger *slog.Logger
	// Tuple is this instance's execution segment; nil runs the whole test.
	Tuple *plan.ExecutionTuple
	// StartDelay, if set, is told how late each arrival-rate iteration started.
	StartDelay StartDelayObserver
	// VUTag says the `vu` system tag is enabled: per-vu-iterations then tags its
	// dropped_iterations samples with the VU id.
	VUTag bool
}

// Scheduler runs all scenarios of a test, each at its startTime, on a shared pool of VUs.
//
// Use: New, then Init (initialise the planned VUs; run setup() after it), then Run. Stop and
// Abort may be called from any goroutine at any time; Progress and InstanceStats may be read
// concurrently for a progress display.
type Scheduler struct {
	opts      Options
	log       *slog.Logger
	pool      *vuPool
	req       plan.Requirements
	scenarios []*scenarioRun
	m         builtinMetrics

	initOnce sync.Once
	initErr  error

	stopping chan struct{} // closed by the first Stop or Abort
	stopOnce sync.Once

	mu            sync.Mutex
	started       bool
	runStart      time.Time
	runEnd        time.Time
	cancelRun     context.CancelFunc
	stopRequested bool
	hardStop      bool
	abortErr      error

	active      atomic.Int64
	completed   atomic.Int64
	interrupted atomic.Int64

	// startsPending counts the scenarios starting with the run that have not yet marked their
	// start; the last one pushes the start sample of vus and vus_max (emit.go).
	startsPending atomic.Int64
	gaugeMu       sync.Mutex
	peakActive    int64 // the most active VUs since the last gauge sample
}

// New checks the options and plans the run. It returns a *scenario.ConfigError for invalid
// scenarios.
func New(o Options) (*Scheduler, error) {
	if len(o.Scenarios) == 0 {
		return nil, &scenario.ConfigError{Errs: []error{errors.New("no scenarios to run")}}
	}
	if o.VUs == nil {
		return nil, errors.New("executor: Options.VUs is required")
	}
	if err := scenario.ValidateScenarios(o.Scenarios); err != nil {
		return nil, err
	}
	if o.Samples == nil {
		o.Samples = metrics.PusherFunc(func([]metrics.Sample) {})
	}
	if o.Registry == nil {
		o.Registry = metrics.NewRegistry()
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := registerBuiltins(o.Registry)
	if err != nil {
		return nil, err
	}
	scs := append([]scenario.Config(nil), o.Scenarios...)
	scenario.SortScenarios(scs)
	s := &Scheduler{
		opts:     o,
		log:      log,
		pool:     newVUPool(o.VUs, o.Tuple),
		req:      scenario.Requirements(scs, o.Tuple),
		m:        m,
		stopping: make(chan struct{}),
	}
	for _, c := range scs {
		sc, err := newScenarioRun(s, c)
		if err != nil {
			return nil, err
		}
		s.scenarios = append(s.scenarios, sc)
	}
	return s, nil
}

// Requirements returns the combined plan: VUs to pre-initialise, max VUs, max duration.
func (s *Scheduler) Requirements() plan.Requirements { return s.req }

// Init initialises the planned VUs (the plan's peak, excluding arrival-rate VUs beyond
// preAllocatedVUs), GOMAXPROCS at a time. Run calls it when it was not called before.
func (s *Scheduler) Init(ctx context.Context) error {
	s.initOnce.Do(func() { s.initErr = s.pool.initialize(ctx, s.req.PlannedVUs) })
	return s.initErr
}

// Run runs every scenario and returns when all are done, or stopped. It returns the error
// given to Abort if the run was aborted, ctx.Err() if ctx ended the run, and nil otherwise
// (including after Stop). Ending ctx is a hard stop: running iterations are interrupted.
func (s *Scheduler) Run(ctx context.Context) error {
	if err := s.Init(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("executor: Run called twice")
	}
	s.started = true
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cancelRun = cancel
	if s.hardStop {
		cancel()
	}
	s.runStart = time.Now()
	s.mu.Unlock()

	for _, sc := range s.scenarios {
		if sc.base.StartOffset() == 0 {
			s.startsPending.Add(1)
		}
	}
	if s.startsPending.Load() == 0 {
		s.pushGauges(time.Now(), false)
	}
	gaugesDone := make(chan struct{})
	var gaugeWG sync.WaitGroup
	gaugeWG.Add(1)
	go func() {
		defer gaugeWG.Done()
		s.emitGauges(gaugesDone)
	}()

	var wg sync.WaitGroup
	for _, sc := range s.scenarios {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc.run(runCtx)
		}()
	}
	wg.Wait()
	close(gaugesDone)
	gaugeWG.Wait()
	s.pushGauges(time.Now(), true)

	s.mu.Lock()
	s.runEnd = time.Now()
	abortErr, stopped := s.abortErr, s.stopRequested
	s.mu.Unlock()
	switch {
	case abortErr != nil:
		return abortErr
	case ctx.Err() != nil && !stopped:
		return ctx.Err()
	}
	return nil
}

// Stop ends the run early. Graceful (hard=false, the first Ctrl-C): no new iterations start and
// scenarios that have not started never will; running iterations get each scenario's
// gracefulStop to finish and are then interrupted. Hard (hard=true, a second Ctrl-C): running
// iterations are interrupted at once. Stop may be called before Run and more than once.
func (s *Scheduler) Stop(hard bool) {
	s.mu.Lock()
	s.stopRequested = true
	cancel := s.cancelRun
	if hard {
		s.hardStop = true
	}
	s.mu.Unlock()
	s.stopOnce.Do(func() { close(s.stopping) })
	for _, sc := range s.scenarios {
		sc.stopGracefully()
	}
	if hard && cancel != nil {
		cancel()
	}
}

// Abort stops the run at once (like Stop(true)) and makes Run return err; the first error wins.
// It is meant for test.abort() and thresholds with abortOnFail.
func (s *Scheduler) Abort(err error) {
	if err == nil {
		err = errors.New("test aborted")
	}
	s.mu.Lock()
	if s.abortErr == nil {
		s.abortErr = err
	}
	s.mu.Unlock()
	s.Stop(true)
}

// InstanceStats returns the current instance-wide counters; CurrentTestRunDuration is the time
// since Run started (frozen when it returns).
func (s *Scheduler) InstanceStats() execinfo.InstanceStats {
	return execinfo.InstanceStats{
		IterationsCompleted:    s.completed.Load(),
		IterationsInterrupted:  s.interrupted.Load(),
		VUsActive:              s.active.Load(),
		VUsInitialized:         s.pool.initialized.Load(),
		CurrentTestRunDuration: s.elapsed(),
	}
}

func (s *Scheduler) elapsed() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.runStart.IsZero():
		return 0
	case !s.runEnd.IsZero():
		return s.runEnd.Sub(s.runStart)
	}
	return time.Since(s.runStart)
}

// logIterationError logs a script exception; k6 logs them at ERROR and carries on.
func (s *Scheduler) logIterationError(name string, vu execinfo.VUID, err error) {
	if err == nil {
		err = fmt.Errorf("unknown script error")
	}
	s.log.Error(err.Error(), "scenario", name, "vu", vu.InInstance, "source", "stacktrace")
}
