package options

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/null"
)

// envVar reads one K6_* variable into a layer.
type envVar struct {
	name  string
	parse func(o *Options, v string) error
}

// envVars are the K6_* variables k6 reads (grafana/k6 lib/options.go and internal/cmd/config.go,
// their `envconfig` tags), in the order they are read. An empty value reads as unset, except for
// NO_COLOR, which only has to exist.
var envVars = []envVar{
	{"K6_VUS", func(o *Options, v string) error { return parseInt(v, &o.VUs) }},
	{"K6_DURATION", func(o *Options, v string) error { return parseDuration(v, &o.Duration) }},
	{"K6_ITERATIONS", func(o *Options, v string) error { return parseInt(v, &o.Iterations) }},
	{"K6_STAGES", func(o *Options, v string) (err error) {
		o.Stages, err = ParseStages(strings.Split(v, ","))
		return err
	}},
	{"K6_TAGS", func(o *Options, v string) (err error) {
		o.Tags, err = ParseEnvTags(v)
		return err
	}},
	{"K6_SYSTEM_TAGS", func(o *Options, v string) error { o.SystemTags = SplitList(v); return nil }},
	{"K6_SUMMARY_TREND_STATS", func(o *Options, v string) error { o.SummaryTrendStats = SplitList(v); return nil }},
	{"K6_SUMMARY_TIME_UNIT", func(o *Options, v string) error { o.SummaryTimeUnit = null.From(v); return nil }},
	{"K6_SETUP_TIMEOUT", func(o *Options, v string) error { return parseDuration(v, &o.SetupTimeout) }},
	{"K6_TEARDOWN_TIMEOUT", func(o *Options, v string) error { return parseDuration(v, &o.TeardownTimeout) }},
	{"K6_HANDLE_SUMMARY_TIMEOUT", func(o *Options, v string) error { return parseDuration(v, &o.HandleSummaryTimeout) }},
	{"K6_NO_SETUP", func(o *Options, v string) error { return parseBool(v, &o.NoSetup) }},
	{"K6_NO_TEARDOWN", func(o *Options, v string) error { return parseBool(v, &o.NoTeardown) }},
	{"K6_THROW", func(o *Options, v string) error { return parseBool(v, &o.Throw) }},
	{"K6_PAUSED", func(o *Options, v string) error { return parseBool(v, &o.Paused) }},
	{"K6_OUT", func(o *Options, v string) error { o.Out = SplitList(v); return nil }},
	{"K6_SUMMARY_EXPORT", func(o *Options, v string) error { o.SummaryExport = null.From(v); return nil }},
	{"K6_SUMMARY_MODE", func(o *Options, v string) error { o.SummaryMode = null.From(v); return nil }},
	{"K6_NO_SUMMARY", func(o *Options, v string) error { return parseBool(v, &o.NoSummary) }},
	{"K6_NO_THRESHOLDS", func(o *Options, v string) error { return parseBool(v, &o.NoThresholds) }},
	// K6_NO_COLOR: any non-empty value turns colours off.
	{"K6_NO_COLOR", func(o *Options, v string) error { o.NoColor = null.From(true); return nil }},
	{"K6_INCLUDE_SYSTEM_ENV_VARS", func(o *Options, v string) error { return parseBool(v, &o.IncludeSystemEnvVars) }},
	{"K6_LOG_FORMAT", func(o *Options, v string) error { o.LogFormat = null.From(v); return nil }},
	{"K6_LOG_OUTPUT", func(o *Options, v string) error { o.LogOutput = null.From(v); return nil }},
	{"K6_MIN_ITERATION_DURATION", func(o *Options, v string) error { return parseDuration(v, &o.MinIterationDuration) }},
	{"K6_CONSOLE_OUTPUT", func(o *Options, v string) error { o.ConsoleOutput = null.From(v); return nil }},
	{"K6_COMPATIBILITY_MODE", func(o *Options, v string) error { o.CompatibilityMode = null.From(v); return nil }},
}

// FromEnv reads the K6_* environment layer (and NO_COLOR, which counts when merely set). Errors
// name the variable.
func FromEnv(env map[string]string) (Options, error) {
	var o Options
	if _, ok := env["NO_COLOR"]; ok {
		o.NoColor = null.From(true)
	}
	for _, ev := range envVars {
		v, ok := env[ev.name]
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		if err := ev.parse(&o, strings.TrimSpace(v)); err != nil {
			return o, &Error{Option: "environment variable " + ev.name, Err: err}
		}
	}
	return o, nil
}

func parseInt(v string, dst *null.Value[int64]) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", v)
	}
	*dst = null.From(n)
	return nil
}

func parseDuration(v string, dst *null.Value[time.Duration]) error {
	d, err := null.ParseDuration(v)
	if err != nil {
		return err
	}
	*dst = null.From(d)
	return nil
}

func parseBool(v string, dst *null.Value[bool]) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q is not a boolean (use true or false)", v)
	}
	*dst = null.From(b)
	return nil
}
