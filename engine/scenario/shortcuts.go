package scenario

import (
	"errors"
	"fmt"
	"time"

	"github.com/dnecho/dnecho/engine/null"
)

// DefaultScenarioName is the name of the scenario derived from shortcut options.
const DefaultScenarioName = "default"

// Shortcuts are the consolidated execution options that may stand in for `scenarios`
// (grafana/k6 lib/executor/execution_config_shortcuts.go).
// Stages and Scenarios distinguish nil (not set) from empty (explicitly set to nothing).
type Shortcuts struct {
	VUs        null.Value[int64]
	Duration   null.Value[time.Duration]
	Iterations null.Value[int64]
	Stages     []Stage
	Scenarios  []Config
}

// DeriveScenarios turns the shortcut options into the scenarios to run, with k6 v1.x rules
// (first match wins): iterations → shared-iterations; duration → constant-vus; stages →
// ramping-vus; else the given scenarios; else 1 iteration of 1 VU. A bare `vus` is ignored with a
// warning. Conflicting options give a *ConfigError (k6 exit code 104). The returned scenarios
// are not validated; run ValidateScenarios on them.
func DeriveScenarios(o Shortcuts) (scenarios []Config, warnings []string, err error) {
	conflict := func(a, b string) error {
		return newConfigError(fmt.Errorf("using `%s` and `%s` options simultaneously is not allowed", a, b))
	}
	scenariosSet := o.Scenarios != nil
	switch {
	case o.Iterations.Valid:
		if len(o.Stages) > 0 {
			return nil, nil, conflict("iterations", "stages")
		}
		if scenariosSet {
			return nil, nil, conflict("iterations", "scenarios")
		}
		c := &SharedIterationsConfig{VUs: o.VUs, Iterations: o.Iterations, MaxDuration: o.Duration}
		return []Config{named(c)}, nil, nil

	case o.Duration.Valid:
		if len(o.Stages) > 0 {
			return nil, nil, conflict("duration", "stages")
		}
		if scenariosSet {
			return nil, nil, conflict("duration", "scenarios")
		}
		if o.Duration.V <= 0 {
			return nil, nil, newConfigError(errors.New(
				"`duration` should be more than 0, for infinite duration use the externally-controlled executor"))
		}
		c := &ConstantVUsConfig{VUs: o.VUs, Duration: o.Duration}
		return []Config{named(c)}, nil, nil

	case len(o.Stages) > 0:
		if scenariosSet {
			return nil, nil, conflict("stages", "scenarios")
		}
		c := &RampingVUsConfig{StartVUs: o.VUs}
		for _, s := range o.Stages {
			if s.Duration.Valid { // a stage without a duration is dropped
				c.Stages = append(c.Stages, s)
			}
		}
		return []Config{named(c)}, nil, nil
	}

	if o.VUs.Valid && o.VUs.V != 1 {
		warnings = append(warnings, fmt.Sprintf(
			"`vus=%d` option will be ignored, it only works in conjunction with `iterations`, `duration`, or `stages`",
			o.VUs.V))
	}
	if len(o.Scenarios) > 0 {
		return o.Scenarios, warnings, nil
	}
	if o.Stages != nil {
		warnings = append(warnings, "`stages` was explicitly set to an empty value, running the script with 1 iteration in 1 VU")
	}
	if scenariosSet {
		warnings = append(warnings, "`scenarios` was explicitly set to an empty value, running the script with 1 iteration in 1 VU")
	}
	c := &PerVUIterationsConfig{VUs: null.From[int64](1), Iterations: null.From[int64](1), MaxDuration: null.From(DefaultMaxDuration)}
	return []Config{named(c)}, warnings, nil
}

// named fills in the base of a derived scenario.
func named(c Config) Config {
	b := c.Base()
	b.Name = DefaultScenarioName
	switch c.(type) {
	case *SharedIterationsConfig:
		b.Executor = SharedIterations
	case *ConstantVUsConfig:
		b.Executor = ConstantVUs
	case *RampingVUsConfig:
		b.Executor = RampingVUs
	case *PerVUIterationsConfig:
		b.Executor = PerVUIterations
	}
	return c
}
