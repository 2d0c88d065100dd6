package restapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

// RunStatus is k6's numeric run state (grafana/k6 lib/execution.go, ExecutionStatus), the
// `status` attribute of /v1/status.
type RunStatus int

// The run states, in the order a run passes through them.
const (
	StatusCreated RunStatus = iota
	StatusInitVUs
	StatusInitExecutors
	StatusInitDone
	StatusPausedBeforeRun
	StatusStarted
	StatusSetup
	StatusRunning
	StatusTeardown
	StatusEnded
	StatusInterrupted
	StatusMarkedAsFailed
)

// Status is the state /v1/status reports.
type Status struct {
	Status  RunStatus
	Paused  bool
	VUs     int64 // VUs currently running iterations
	VUsMax  int64 // VUs initialised
	Stopped bool  // the run was told to stop (REST API, signal, abort)
	Running bool  // started and not yet over
	Tainted bool  // a threshold is failing
}

// Metric is one metric or sub-metric for /v1/metrics.
type Metric struct {
	Name   string
	Metric *metrics.Metric // the metric, or the sub-metric's parent
	Sink   metrics.Sink    // a copy: only read
	// Tainted is nil for a metric without thresholds, else whether one of them fails.
	Tainted *bool
}

// Controller is the run the API serves. Its methods are called from the server's goroutines.
type Controller interface {
	// Ready is closed once the run has a state to report; the API holds every request until
	// then, so that no answer contradicts a later one (a paused run saying paused: false).
	Ready() <-chan struct{}
	// Status reports the run's state.
	Status() Status
	// SetPaused resumes a run started paused (false), or refuses with an error that becomes
	// HTTP 500 (pausing, or anything after the start).
	SetPaused(pause bool) error
	// Stop ends the run; it exits with exitcode.StoppedFromAPI.
	Stop()
	// Metrics returns every metric with samples (or thresholds) and the test run time, the
	// divisor of a counter's rate.
	Metrics() ([]Metric, time.Duration)
	// Groups returns the root group with its checks and sub-groups.
	Groups() *checktree.Group
	// SetupData returns the setup data JSON; nil when there is none.
	SetupData() json.RawMessage
	// SetSetupData replaces the setup data (nil: none).
	SetSetupData(json.RawMessage)
	// RunSetup runs setup() and returns its data.
	RunSetup(ctx context.Context) (json.RawMessage, error)
	// RunTeardown runs teardown().
	RunTeardown(ctx context.Context) error
}
