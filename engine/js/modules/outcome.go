package modules

import (
	"fmt"
	"sync"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// Outcome records the script's verdicts on the whole run: exec.test.abort and exec.test.fail. It
// is safe for concurrent use; the first abort and the first fail reason win.
type Outcome struct {
	mu         sync.Mutex
	abort      *AbortError
	failed     bool
	failReason string
	onAbort    func(*AbortError)
}

// NewOutcome returns an empty outcome.
func NewOutcome() *Outcome { return &Outcome{} }

// SetOnAbort sets a function called once, on the first abort, from the aborting VU's goroutine,
// so the scheduler can stop the run without waiting for that VU's iteration to return.
func (o *Outcome) SetOnAbort(f func(*AbortError)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.onAbort = f
}

// Abort records an abort and returns the error that ends the calling VU's iteration.
func (o *Outcome) Abort(reason string) *AbortError {
	err := &AbortError{Reason: reason}
	o.mu.Lock()
	first := o.abort == nil
	if first {
		o.abort = err
	}
	cb := o.onAbort
	o.mu.Unlock()
	if first && cb != nil {
		cb(err)
	}
	return err
}

// Fail marks the run as failed; the run goes on and the CLI exits with 110 at the end.
func (o *Outcome) Fail(reason string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.failed {
		o.failed, o.failReason = true, reason
	}
}

// Aborted returns the first abort, or nil.
func (o *Outcome) Aborted() *AbortError {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.abort
}

// Failed reports whether exec.test.fail was called, and with which reason.
func (o *Outcome) Failed() (reason string, failed bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failReason, o.failed
}

// AbortError is the error of a run aborted by exec.test.abort (exit code 108).
type AbortError struct {
	// Reason is the message given to abort, possibly empty.
	Reason string
}

func (e *AbortError) Error() string {
	if e.Reason == "" {
		return "test aborted by the script"
	}
	return fmt.Sprintf("test aborted by the script: %s", e.Reason)
}

// ExitCode is the process exit code for this error.
func (e *AbortError) ExitCode() int { return exitcode.ScriptAborted }

// FailedError reports a run marked as failed by exec.test.fail (exit code 110); the CLI builds it
// from Outcome.Failed at the end of the run.
type FailedError struct{ Reason string }

func (e *FailedError) Error() string {
	if e.Reason == "" {
		return "test marked as failed by the script"
	}
	return fmt.Sprintf("test marked as failed by the script: %s", e.Reason)
}

// ExitCode is the process exit code for this error.
func (e *FailedError) ExitCode() int { return exitcode.MarkedAsFailed }
