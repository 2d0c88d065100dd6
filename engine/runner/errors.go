package runner

import (
	"errors"
	"fmt"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// ErrInterrupted is the error of a run stopped from outside (the context given to Run ended,
// e.g. on Ctrl-C or SIGTERM). Its exit code is 105.
var ErrInterrupted = errors.New("test run was aborted because it was stopped from outside (interrupt or terminate signal)")

// Error carries an exit code for errors that have none of their own.
type Error struct {
	Code int
	Err  error
}

// Error implements error.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the process exit code for the error.
func (e *Error) ExitCode() int { return e.Code }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

func withCodef(code int, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// ExitCode is the process exit code for an error returned by Run: 0 for nil, the error's own
// code when it has one (ExitCode() int anywhere in its chain), exitcode.Failure otherwise.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, ErrInterrupted) {
		return exitcode.ExternalAbort
	}
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return exitcode.Failure
}
