package scenario

import (
	"errors"
	"fmt"
	"strings"
)

// ValidateScenarios checks every scenario and returns a *ConfigError with one line per invalid
// scenario ("scenario NAME has configuration errors: a, b"), or nil.
func ValidateScenarios(scs []Config) error {
	var errs []error
	seen := map[string]bool{}
	for _, c := range scs {
		if c == nil {
			errs = append(errs, errors.New("scenario config is nil"))
			continue
		}
		name := c.Base().Name
		if seen[name] {
			errs = append(errs, fmt.Errorf("scenario '%s' is defined more than once", name))
		}
		seen[name] = true
		if problems := c.Validate(); len(problems) > 0 {
			msgs := make([]string, len(problems))
			for i, p := range problems {
				msgs[i] = p.Error()
			}
			errs = append(errs, fmt.Errorf("scenario %s has configuration errors: %s", name, strings.Join(msgs, ", ")))
		}
	}
	if len(errs) > 0 {
		return newConfigError(errs...)
	}
	return nil
}

// CheckExecs verifies that every scenario's exec function is exported by the script; exported
// reports whether a name is a callable export. It returns a *ConfigError or nil.
func CheckExecs(scs []Config, exported func(name string) bool) error {
	var errs []error
	for _, c := range scs {
		b := c.Base()
		if !exported(b.ExecName()) {
			errs = append(errs, fmt.Errorf("executor %s: function '%s' not found in exports", b.Name, b.ExecName()))
		}
	}
	if len(errs) > 0 {
		return newConfigError(errs...)
	}
	return nil
}
