package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/restapi"
	"github.com/dnecho/dnecho/internal/exitcode"
)

// ErrStoppedFromAPI is the error of a run stopped through the REST API (PATCH /v1/status with
// stopped: true). Its exit code is 103, as in k6.
var ErrStoppedFromAPI = withCode(exitcode.StoppedFromAPI, errors.New("test run stopped from REST API"))

// errRunOver answers REST calls that need the script once the run has released it.
var errRunOver = errors.New("the test run is over")

// Control lets the world outside a run watch and steer it: it implements restapi.Controller.
// Create it before Run (Config.Control), so that the REST API's address is bound at once; the
// API answers once the script's options say whether the run pauses (Ready).
type Control struct {
	status atomic.Int32 // restapi.RunStatus
	// known is closed once the options are consolidated (configure), or Run gave up before.
	known     chan struct{}
	knownOnce sync.Once

	mu      sync.Mutex
	run     *testRun // set once prepare succeeded; its parts are then read-only
	over    bool     // Run returned: the script runner is released
	paused  bool     // the options pause the run and no resume has arrived yet
	started bool
	resume  chan struct{}
	ctx     context.Context // ends on Stop
	cancel  context.CancelFunc
	stopErr error
	// keep makes the script outlive Run (KeepScript); release then frees it on Close.
	keep    bool
	release func()
}

var _ restapi.Controller = (*Control)(nil)

// NewControl returns the control of a run that has not started.
func NewControl() *Control {
	ctx, cancel := context.WithCancel(context.Background())
	return &Control{known: make(chan struct{}), resume: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// Ready implements restapi.Controller: closed once the run's options are known. Before, the
// run has no state to report: a paused run would answer paused: false.
func (c *Control) Ready() <-chan struct{} { return c.known }

// configure takes what the consolidated options say about the control: whether the run waits
// paused before setup. From then on the API answers.
func (c *Control) configure(paused bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.paused = paused
	c.mu.Unlock()
	c.knownOnce.Do(func() { close(c.known) })
}

func (c *Control) setStatus(s restapi.RunStatus) {
	if c != nil {
		c.status.Store(int32(s))
	}
}

// attach hands the prepared run to the control.
func (c *Control) attach(t *testRun) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run = t
}

// detach marks the run as over: the REST API keeps answering (--linger) from what it kept, and
// with KeepScript can still run setup and teardown.
func (c *Control) detach(final restapi.RunStatus) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.over = !c.keep
	c.mu.Unlock()
	c.setStatus(final)
	c.knownOnce.Do(func() { close(c.known) }) // a run whose script failed to load says so
}

// Abandon makes the API answer, with the status Interrupted, when the command fails before it
// calls Run (a lingering API would otherwise hold every request). After Run it does nothing.
func (c *Control) Abandon() {
	select {
	case <-c.known:
	default:
		c.detach(restapi.StatusInterrupted)
	}
}

// KeepScript makes the script outlive Run until Close, so that POST /v1/setup and
// /v1/teardown still run after the test while the API lingers, as in k6 (--linger).
func (c *Control) KeepScript() {
	c.mu.Lock()
	c.keep = true
	c.mu.Unlock()
}

// adopt takes over freeing the run's script when KeepScript asked for it; false means the
// caller frees it now.
func (c *Control) adopt(release func()) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.keep || c.run == nil {
		return false
	}
	c.release = release
	return true
}

// Close frees a script kept by KeepScript; later REST calls that need it get errRunOver. Call
// it once the API has stopped serving.
func (c *Control) Close() {
	c.mu.Lock()
	release := c.release
	c.release, c.over = nil, true
	c.mu.Unlock()
	if release != nil {
		release()
	}
}

// holding says whether a run its options pause is still waiting to be started (not resumed nor
// stopped), while it prepares: the aggregator it needs may be started later (stream.Begin).
func (c *Control) holding() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused && c.stopErr == nil
}

// waitResumed blocks while the run is paused: until a resume, a stop or the end of ctx. It
// marks the run started when it returns nil.
func (c *Control) waitResumed(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	paused := c.paused
	c.mu.Unlock()
	if paused {
		c.setStatus(restapi.StatusPausedBeforeRun)
		select {
		case <-c.resume:
		case <-c.ctx.Done():
			return c.StopErr()
		case <-ctx.Done():
			return fmt.Errorf("paused: %w", ErrInterrupted)
		}
	}
	c.mu.Lock()
	c.started = true
	c.mu.Unlock()
	c.setStatus(restapi.StatusStarted)
	return nil
}

// Stopped is closed when the run was stopped through Stop.
func (c *Control) Stopped() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.ctx.Done()
}

// StopErr is ErrStoppedFromAPI once Stop was called, else nil.
func (c *Control) StopErr() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopErr
}

// Stop implements restapi.Controller: the run ends as soon as it can (running iterations are
// interrupted, teardown still runs) and Run returns ErrStoppedFromAPI.
func (c *Control) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopErr == nil {
		c.stopErr = ErrStoppedFromAPI
		c.cancel()
	}
}

// SetPaused implements restapi.Controller with k6's rules (grafana/k6
// internal/execution/scheduler.go, SetPaused): a run paused before its start can be resumed;
// no executor can be paused or resumed once started.
func (c *Control) SetPaused(pause bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !c.started && c.paused && pause:
		return errors.New("execution is already paused")
	case !c.started && c.paused:
		c.paused = false
		close(c.resume)
		return nil
	case c.run == nil && !pause:
		return nil // still preparing a run its options do not pause: nothing to resume
	case c.run == nil || len(c.run.opts.Scenarios) == 0:
		return errors.New("the test run can't be paused or resumed now")
	}
	b := c.run.opts.Scenarios[0].Base()
	return fmt.Errorf("%s executor '%s' doesn't support pause and resume operations after its start", b.Executor, b.Name)
}

// Status implements restapi.Controller.
func (c *Control) Status() restapi.Status {
	st := restapi.RunStatus(c.status.Load())
	c.mu.Lock()
	t, paused, stopped := c.run, c.paused, c.stopErr != nil
	c.mu.Unlock()
	s := restapi.Status{Status: st, Paused: paused, Stopped: stopped || st == restapi.StatusInterrupted,
		Running: st >= restapi.StatusStarted && st <= restapi.StatusTeardown}
	if t != nil {
		in := t.sched.InstanceStats()
		s.VUs, s.VUsMax = in.VUsActive, in.VUsInitialized
		s.Tainted = t.ths != nil && t.ths.Tainted()
	}
	return s
}

// prepared returns the run once prepare succeeded, nil before.
func (c *Control) prepared() *testRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run
}

// Metrics implements restapi.Controller.
func (c *Control) Metrics() ([]restapi.Metric, time.Duration) {
	t := c.prepared()
	if t == nil {
		return nil, 0
	}
	snap := t.collector.Snapshot()
	out := make([]restapi.Metric, 0, len(snap.Series))
	for _, s := range snap.Series {
		m := restapi.Metric{Name: s.Name, Metric: s.Metric, Sink: s.Sink}
		if t.ths != nil {
			if outcomes := t.ths.Outcomes(s.Name); outcomes != nil {
				tainted := false
				for _, o := range outcomes {
					tainted = tainted || !o.OK
				}
				m.Tainted = &tainted
			}
		}
		out = append(out, m)
	}
	return out, t.sched.InstanceStats().CurrentTestRunDuration
}

// Groups implements restapi.Controller.
func (c *Control) Groups() *checktree.Group {
	t := c.prepared()
	if t == nil {
		return nil
	}
	return t.script.Groups().Clone().Root()
}

// SetupData implements restapi.Controller.
func (c *Control) SetupData() json.RawMessage {
	if t := c.prepared(); t != nil {
		return t.script.SetupData()
	}
	return nil
}

// SetSetupData implements restapi.Controller.
func (c *Control) SetSetupData(data json.RawMessage) {
	if t := c.prepared(); t != nil {
		t.script.SetSetupData(data)
	}
}

// script returns the run while its script runner may still be used.
func (c *Control) script() (*testRun, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.over:
		return nil, errRunOver
	case c.run == nil:
		return nil, errors.New("the script is not loaded yet")
	}
	return c.run, nil
}

// RunSetup implements restapi.Controller.
func (c *Control) RunSetup(ctx context.Context) (json.RawMessage, error) {
	t, err := c.script()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.SetupTimeoutValue())
	defer cancel()
	return t.script.Setup(ctx)
}

// RunTeardown implements restapi.Controller.
func (c *Control) RunTeardown(ctx context.Context) error {
	t, err := c.script()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.TeardownTimeoutValue())
	defer cancel()
	return t.script.Teardown(ctx)
}
