package options

import (
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/internal/exitcode"
)

// Error is an invalid option: Option names it as the user wrote it (an option key, an
// environment variable or a flag).
type Error struct {
	Option string
	Err    error
}

// Error implements error.
func (e *Error) Error() string {
	if msg := e.Err.Error(); strings.Contains(msg, e.Option) {
		return msg // the problem already names the option
	}
	return fmt.Sprintf("invalid %s: %v", e.Option, e.Err)
}

// Unwrap returns the underlying problem.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is exitcode.InvalidConfig.
func (e *Error) ExitCode() int { return exitcode.InvalidConfig }
