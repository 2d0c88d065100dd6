package scenario

import (
	"errors"
	"strings"
)

// ConfigError reports invalid scenarios or shortcut options. k6 exits with code 104 for these,
// so the CLI can map every *ConfigError to that exit code.
type ConfigError struct {
	// Errs holds one error per problem, each a complete sentence.
	Errs []error
}

func newConfigError(errs ...error) *ConfigError { return &ConfigError{Errs: errs} }

// Error lists the problems, one per line.
func (e *ConfigError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap exposes the individual problems to errors.Is and errors.As.
func (e *ConfigError) Unwrap() []error { return e.Errs }

// IsConfigError reports whether err is, or wraps, a *ConfigError.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
