// Package options consolidates the settings of a test run from its layers (spec §2.1), lowest
// to highest: defaults < JSON config file (-c) < the script's exported `options` < K6_*
// environment variables < command-line flags. It derives the scenarios to run from the
// vus/duration/iterations/stages shortcuts, validates everything, and names the offending option
// in every error (the CLI exits with 104 for them, spec §7).
//
// The package reads no files, flags or process state itself: callers hand it the layers.
package options

import (
	"encoding/json"
	"time"

	"github.com/dnecho/dnecho/engine/executor"
	"github.com/dnecho/dnecho/engine/threshold"
)

// Defaults of the options that have one (spec §1, §9.1, §10).
const (
	DefaultSetupTimeout         = 60 * time.Second
	DefaultTeardownTimeout      = 60 * time.Second
	DefaultHandleSummaryTimeout = 120 * time.Second
	DefaultSummaryMode          = "compact"
	DefaultLogFormat            = "text"
)

// Options is one layer of settings, and also the result of layering them. Every field remembers
// whether its layer set it (Null* types, nil slices and maps), so a higher layer overrides only
// what it sets. JSON keys are k6's option names.
type Options struct {
	// Execution shortcuts and scenarios (§2.2). Stages distinguishes nil (not set) from empty
	// (set to nothing); Scenarios stays raw JSON until consolidation decodes it strictly.
	VUs        executor.NullInt
	Duration   executor.NullDuration
	Iterations executor.NullInt
	Stages     []executor.Stage
	Scenarios  json.RawMessage

	// Thresholds (§6), replaced as a whole by a higher layer.
	Thresholds threshold.Config
	// Tags are the run tags; a higher layer replaces them rather than merging (§2.1 rule 2).
	Tags map[string]string
	// SystemTags are the enabled system tags (§8.2); nil means metrics.DefaultSystemTags().
	SystemTags []string

	SummaryTrendStats []string
	SummaryTimeUnit   executor.NullString

	SetupTimeout         executor.NullDuration
	TeardownTimeout      executor.NullDuration
	HandleSummaryTimeout executor.NullDuration
	NoSetup              NullBool
	NoTeardown           NullBool
	// Throw turns metric-value and tag warnings into exceptions (-w/--throw).
	Throw NullBool

	// Runtime settings: a config file, the environment and flags may set them, a script may not.
	Out                  []string
	SummaryExport        executor.NullString
	SummaryMode          executor.NullString
	NoThresholds         NullBool
	NoColor              NullBool
	IncludeSystemEnvVars NullBool
	LogFormat            executor.NullString
}

// NullBool is a boolean option that remembers whether it was set.
type NullBool struct {
	Bool  bool
	Valid bool
}

// NewNullBool returns a set NullBool.
func NewNullBool(b bool) NullBool { return NullBool{Bool: b, Valid: true} }

// ValueOr returns the value, or def when it is not set.
func (n NullBool) ValueOr(def bool) bool {
	if n.Valid {
		return n.Bool
	}
	return def
}

// MarshalJSON writes null or the boolean.
func (n NullBool) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.Bool)
}

// UnmarshalJSON accepts null or a JSON boolean.
func (n *NullBool) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullBool{}
		return nil
	}
	var b bool
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	*n = NewNullBool(b)
	return nil
}

// setsShortcuts reports whether o sets any of the options that stand in for each other: a layer
// that sets one of them wipes all four from the layers below (§2.1 rule 1).
func (o *Options) setsShortcuts() bool {
	return o.Duration.Valid || o.Iterations.Valid || o.Stages != nil || o.Scenarios != nil
}

// apply overrides o with every field that higher sets.
func (o *Options) apply(higher *Options) {
	if higher.setsShortcuts() {
		o.Duration, o.Iterations, o.Stages, o.Scenarios = executor.NullDuration{}, executor.NullInt{}, nil, nil
	}
	setInt(&o.VUs, higher.VUs)
	setDuration(&o.Duration, higher.Duration)
	setInt(&o.Iterations, higher.Iterations)
	if higher.Stages != nil {
		o.Stages = higher.Stages
	}
	if higher.Scenarios != nil {
		o.Scenarios = higher.Scenarios
	}
	if higher.Thresholds != nil {
		o.Thresholds = higher.Thresholds
	}
	if higher.Tags != nil {
		o.Tags = higher.Tags
	}
	if higher.SystemTags != nil {
		o.SystemTags = higher.SystemTags
	}
	if higher.SummaryTrendStats != nil {
		o.SummaryTrendStats = higher.SummaryTrendStats
	}
	setString(&o.SummaryTimeUnit, higher.SummaryTimeUnit)
	setDuration(&o.SetupTimeout, higher.SetupTimeout)
	setDuration(&o.TeardownTimeout, higher.TeardownTimeout)
	setDuration(&o.HandleSummaryTimeout, higher.HandleSummaryTimeout)
	setBool(&o.NoSetup, higher.NoSetup)
	setBool(&o.NoTeardown, higher.NoTeardown)
	setBool(&o.Throw, higher.Throw)
	if higher.Out != nil {
		o.Out = higher.Out
	}
	setString(&o.SummaryExport, higher.SummaryExport)
	setString(&o.SummaryMode, higher.SummaryMode)
	setBool(&o.NoThresholds, higher.NoThresholds)
	setBool(&o.NoColor, higher.NoColor)
	setBool(&o.IncludeSystemEnvVars, higher.IncludeSystemEnvVars)
	setString(&o.LogFormat, higher.LogFormat)
}

func setInt(dst *executor.NullInt, v executor.NullInt) {
	if v.Valid {
		*dst = v
	}
}

func setDuration(dst *executor.NullDuration, v executor.NullDuration) {
	if v.Valid {
		*dst = v
	}
}

func setString(dst *executor.NullString, v executor.NullString) {
	if v.Valid {
		*dst = v
	}
}

func setBool(dst *NullBool, v NullBool) {
	if v.Valid {
		*dst = v
	}
}
