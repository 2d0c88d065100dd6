package main

import (
	"fmt"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// exitError carries a process exit code through cobra's error return.
type exitError struct {
	code int
	err  error // nil: exit silently with code
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that the process exits with code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// Exit statuses of the freon command (internal/exitcode), Usage also the cluster command's:
// Failure when any task failed or the command died (Java's −1), Interrupted after Ctrl-C, Usage
// for a command line that cannot run — freon itself exits 255 for its own option checks and 2 for
// picocli's; dnecho uses 2 for all.
const (
	freonExitFailed = exitcode.Failure
	exitInterrupted = exitcode.Interrupted
	exitUsage       = exitcode.Usage
)
