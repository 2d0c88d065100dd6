// Package options consolidates the settings of a test run from its layers, lowest
// to highest: defaults < JSON config file (-c) < the script's exported `options` < K6_*
// environment variables < command-line flags. It derives the scenarios to run from the
// vus/duration/iterations/stages shortcuts, validates everything, and names the offending option
// in every error (the CLI exits with 104 for them). Layering follows grafana/k6
// internal/cmd/config.go (getConsolidatedConfig).
//
// The package reads no files, flags or process state itself: callers hand it the layers.
package options

import (
	"encoding/json"
	"time"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/scenario"
	"github.com/dnecho/dnecho/engine/threshold"
)

// Defaults of the options that have one (grafana/k6 lib/options.go, internal/cmd/config.go).
const (
	DefaultSetupTimeout         = 60 * time.Second
	DefaultTeardownTimeout      = 60 * time.Second
	DefaultHandleSummaryTimeout = 120 * time.Second
	DefaultSummaryMode          = "compact"
	DefaultLogFormat            = "text"
	DefaultCompatibilityMode    = "extended"
)

// CompatibilityModes are the values of compatibilityMode (grafana/k6 lib/compatibility_mode.go).
var CompatibilityModes = []string{"extended", "base"}

// Options is one layer of settings, and also the result of layering them. Every field remembers
// whether its layer set it (Null* types, nil slices and maps), so a higher layer overrides only
// what it sets. JSON keys are k6's option names.
type Options struct {
	// Execution shortcuts and scenarios. Stages distinguishes nil (not set) from empty
	// (set to nothing); Scenarios stays raw JSON until consolidation decodes it strictly.
	VUs        null.Value[int64]
	Duration   null.Value[time.Duration]
	Iterations null.Value[int64]
	Stages     []scenario.Stage
	Scenarios  json.RawMessage

	// Thresholds, replaced as a whole by a higher layer.
	Thresholds threshold.Config
	// Tags are the run tags; a higher layer replaces them rather than merging.
	Tags map[string]string
	// SystemTags are the enabled system tags; nil means metrics.DefaultSystemTags().
	SystemTags []string

	SummaryTrendStats []string
	SummaryTimeUnit   null.Value[string]

	SetupTimeout         null.Value[time.Duration]
	TeardownTimeout      null.Value[time.Duration]
	HandleSummaryTimeout null.Value[time.Duration]
	NoSetup              null.Value[bool]
	NoTeardown           null.Value[bool]
	// Throw turns metric-value and tag warnings into exceptions (-w/--throw).
	Throw null.Value[bool]
	// MinIterationDuration: an iteration that ends sooner keeps its VU until then.
	MinIterationDuration null.Value[time.Duration]
	// ExecutionSegment and ExecutionSegmentSequence split the test between instances, as
	// written (--execution-segment, --execution-segment-sequence; k6 reads no environment
	// variable for them). Consolidate parses them into Consolidated.Tuple.
	ExecutionSegment         null.Value[string]
	ExecutionSegmentSequence null.Value[string]
	// Paused starts the run paused after VU initialisation, until resumed through the REST
	// API (-p/--paused, K6_PAUSED).
	Paused null.Value[bool]
	// ConsoleOutput is a file that receives console.* output instead of the log.
	ConsoleOutput null.Value[string]

	// Runtime settings: a config file, the environment and flags may set them, a script may not.
	Out           []string
	SummaryExport null.Value[string]
	SummaryMode   null.Value[string]
	// NoSummary is k6 v1's --no-summary (K6_NO_SUMMARY): no summary, whatever SummaryMode says.
	NoSummary            null.Value[bool]
	NoThresholds         null.Value[bool]
	NoColor              null.Value[bool]
	IncludeSystemEnvVars null.Value[bool]
	LogFormat            null.Value[string]
	// LogOutput is where the log goes: stderr, stdout, none or file=PATH[,level=L].
	LogOutput null.Value[string]
	// CompatibilityMode is the JavaScript mode: extended (default) or base.
	CompatibilityMode null.Value[string]
}

// setsShortcuts reports whether o sets any of the options that stand in for each other: a layer
// that sets one of them wipes all four from the layers below.
func (o *Options) setsShortcuts() bool {
	return o.Duration.Valid || o.Iterations.Valid || o.Stages != nil || o.Scenarios != nil
}

// apply overrides o with every field that higher sets.
func (o *Options) apply(higher *Options) {
	if higher.setsShortcuts() {
		o.Duration, o.Iterations, o.Stages, o.Scenarios = null.Value[time.Duration]{}, null.Value[int64]{}, nil, nil
	}
	set(&o.VUs, higher.VUs)
	set(&o.Duration, higher.Duration)
	set(&o.Iterations, higher.Iterations)
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
	set(&o.SummaryTimeUnit, higher.SummaryTimeUnit)
	set(&o.SetupTimeout, higher.SetupTimeout)
	set(&o.TeardownTimeout, higher.TeardownTimeout)
	set(&o.HandleSummaryTimeout, higher.HandleSummaryTimeout)
	set(&o.NoSetup, higher.NoSetup)
	set(&o.NoTeardown, higher.NoTeardown)
	set(&o.Throw, higher.Throw)
	set(&o.MinIterationDuration, higher.MinIterationDuration)
	set(&o.ExecutionSegment, higher.ExecutionSegment)
	set(&o.ExecutionSegmentSequence, higher.ExecutionSegmentSequence)
	set(&o.Paused, higher.Paused)
	set(&o.ConsoleOutput, higher.ConsoleOutput)
	if higher.Out != nil {
		o.Out = higher.Out
	}
	set(&o.SummaryExport, higher.SummaryExport)
	set(&o.SummaryMode, higher.SummaryMode)
	set(&o.NoSummary, higher.NoSummary)
	set(&o.NoThresholds, higher.NoThresholds)
	set(&o.NoColor, higher.NoColor)
	set(&o.IncludeSystemEnvVars, higher.IncludeSystemEnvVars)
	set(&o.LogFormat, higher.LogFormat)
	set(&o.LogOutput, higher.LogOutput)
	set(&o.CompatibilityMode, higher.CompatibilityMode)
}

// set overrides dst with v when v is set.
func set[T any](dst *null.Value[T], v null.Value[T]) {
	if v.Valid {
		*dst = v
	}
}

// SummaryModeSetting is the summary mode the layers ask for: "disabled" with NoSummary, as k6 v1
// reads --no-summary before --summary-mode (docs/k6-compat.md#text-summary), else SummaryMode.
func (o *Options) SummaryModeSetting() string {
	if o.NoSummary.V {
		return "disabled"
	}
	return o.SummaryMode.V
}
