package options

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/plan"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/engine/summary"
)

// Layers are the sources of a run's settings, lowest priority first. Defaults are not a
// layer: they apply to whatever no layer sets.
type Layers struct {
	ConfigFile Options // -c/--config, K6_CONFIG
	Script     Options // the script's exported `options`
	Env        Options // K6_* environment variables
	CLI        Options // command-line flags
}

// Merge layers the options without validating them, and returns the warnings layering caused
// (a shortcut in a higher layer replacing the scenarios of a lower one). It serves the settings
// needed before the script is loaded (log format, colours, outputs), and Consolidate.
func (l Layers) Merge() (Options, []string) {
	var out Options
	var warnings []string
	for _, layer := range []struct {
		name string
		o    *Options
	}{{"config", &l.ConfigFile}, {"script", &l.Script}, {"env", &l.Env}, {"cli", &l.CLI}} {
		if out.Scenarios != nil && layer.o.setsShortcuts() && layer.o.Scenarios == nil {
			warnings = append(warnings, fmt.Sprintf("%q level configuration overrode scenarios configuration entirely", layer.name))
		}
		out.apply(layer.o)
	}
	return out, warnings
}

// Consolidated is the validated result of layering: the options, the scenarios to run and the
// warnings to show the user.
type Consolidated struct {
	Options
	// Scenarios are the scenarios to run, derived from the shortcuts or decoded from
	// `scenarios`, validated and in run-header order.
	Scenarios []scenario.Config
	// Warnings are for the log (layering overrides, ignored options).
	Warnings []string
	// Tuple is this instance's execution segment within the segment sequence; nil runs the
	// whole test.
	Tuple *plan.ExecutionTuple

	summaryMode summary.Mode
}

// Consolidate layers the options, derives the scenarios and validates everything. Errors are
// *Error (or *scenario.ConfigError for scenario problems); the CLI exits with 104 for both.
func Consolidate(l Layers) (*Consolidated, error) {
	o, warnings := l.Merge()
	c := &Consolidated{Options: o, Warnings: warnings}
	if err := c.validate(); err != nil {
		return nil, err
	}
	scs, err := scenario.ParseScenarios(o.Scenarios)
	if err != nil {
		return nil, err
	}
	if o.Scenarios != nil && scs == nil {
		scs = []scenario.Config{} // "scenarios: {}" is set, to nothing
	}
	derived, w, err := scenario.DeriveScenarios(scenario.Shortcuts{
		VUs: o.VUs, Duration: o.Duration, Iterations: o.Iterations, Stages: o.Stages, Scenarios: scs,
	})
	if err != nil {
		return nil, err
	}
	c.Warnings = append(c.Warnings, w...)
	if err := scenario.ValidateScenarios(derived); err != nil {
		return nil, err
	}
	scenario.SortScenarios(derived)
	c.Scenarios = derived
	return c, nil
}

// validate checks the options that are not scenarios.
func (c *Consolidated) validate() error {
	mode, err := summary.ParseMode(c.SummaryModeSetting())
	if err != nil {
		return &Error{Option: "summaryMode", Err: err}
	}
	c.summaryMode = mode
	so := summary.Options{TrendStats: c.SummaryTrendStats}
	if err := so.Validate(); err != nil {
		return &Error{Option: "summaryTrendStats", Err: err}
	}
	so = summary.Options{TimeUnit: c.SummaryTimeUnit.V}
	if err := so.Validate(); err != nil {
		return &Error{Option: "summaryTimeUnit", Err: err}
	}
	for _, t := range c.SystemTags {
		if !metrics.IsSystemTag(t) {
			return &Error{Option: "systemTags", Err: fmt.Errorf("unknown system tag %q (known: %s)", t, strings.Join(metrics.AllSystemTags(), ", "))}
		}
	}
	for name, d := range map[string]null.Value[time.Duration]{
		"setupTimeout": c.SetupTimeout, "teardownTimeout": c.TeardownTimeout, "handleSummaryTimeout": c.HandleSummaryTimeout,
	} {
		if d.Valid && d.V <= 0 {
			return &Error{Option: name, Err: fmt.Errorf("%s: the timeout must be positive", d.V)}
		}
	}
	for k := range c.Tags {
		if k == "" {
			return &Error{Option: "tags", Err: errors.New("a tag name can't be empty")}
		}
	}
	if d := c.MinIterationDuration; d.Valid && d.V < 0 {
		return &Error{Option: "minIterationDuration", Err: fmt.Errorf("%s: can't be negative", d.V)}
	}
	if err := c.CheckCompatibilityMode(); err != nil {
		return err
	}
	return c.parseSegment()
}

// parseSegment builds Tuple from executionSegment and executionSegmentSequence.
func (c *Consolidated) parseSegment() error {
	if !c.ExecutionSegment.Valid && !c.ExecutionSegmentSequence.Valid {
		return nil
	}
	if _, err := plan.ParseSegment(c.ExecutionSegment.V); err != nil {
		return &Error{Option: "executionSegment", Err: err}
	}
	if c.ExecutionSegmentSequence.V != "" {
		if _, err := plan.ParseSegmentSequence(c.ExecutionSegmentSequence.V); err != nil {
			return &Error{Option: "executionSegmentSequence", Err: err}
		}
	}
	et, err := plan.ParseExecutionTuple(c.ExecutionSegment.V, c.ExecutionSegmentSequence.V)
	if err != nil {
		return &Error{Option: "executionSegment", Err: err}
	}
	c.Tuple = et
	return nil
}

// CheckCompatibilityMode validates compatibilityMode; the script loader needs it before the
// rest of the options are known.
func (o *Options) CheckCompatibilityMode() error {
	if m := o.CompatibilityMode; m.Valid && !slices.Contains(CompatibilityModes, m.V) {
		return &Error{Option: "compatibilityMode", Err: fmt.Errorf("%q: use one of %s", m.V, strings.Join(CompatibilityModes, ", "))}
	}
	return nil
}

// CompatibilityModeValue is compatibilityMode with its default.
func (c *Consolidated) CompatibilityModeValue() string {
	return c.CompatibilityMode.ValueOr(DefaultCompatibilityMode)
}

// SummaryModeValue is the validated summary mode.
func (c *Consolidated) SummaryModeValue() summary.Mode { return c.summaryMode }

// SetupTimeoutValue is setupTimeout with its default.
func (c *Consolidated) SetupTimeoutValue() time.Duration {
	return c.SetupTimeout.ValueOr(DefaultSetupTimeout)
}

// TeardownTimeoutValue is teardownTimeout with its default.
func (c *Consolidated) TeardownTimeoutValue() time.Duration {
	return c.TeardownTimeout.ValueOr(DefaultTeardownTimeout)
}

// HandleSummaryTimeoutValue is handleSummaryTimeout with its default.
func (c *Consolidated) HandleSummaryTimeoutValue() time.Duration {
	return c.HandleSummaryTimeout.ValueOr(DefaultHandleSummaryTimeout)
}

// EnabledSystemTags is systemTags, or the default set when no layer set it.
func (c *Consolidated) EnabledSystemTags() []string {
	if c.SystemTags == nil {
		return metrics.DefaultSystemTags()
	}
	return slices.Clone(c.SystemTags)
}

// SystemTagEnabled reports whether the system tag name is enabled.
func (c *Consolidated) SystemTagEnabled(name string) bool {
	return slices.Contains(c.EnabledSystemTags(), name)
}
