package options

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON writes the test options under k6's keys, unset ones as null, the way k6 writes its
// whole options struct into archives and `k6 inspect` output. scenarios is written as given (not
// derived). Runtime settings (out, summaryExport, logOutput, …) are not options of the test and
// are left out; FromScript reads the result back.
func (o Options) MarshalJSON() ([]byte, error) {
	scenarios := json.RawMessage("null")
	if o.Scenarios != nil {
		scenarios = o.Scenarios
	}
	var stages any
	if o.Stages != nil {
		stages = o.Stages
	}
	m := map[string]any{
		"vus":                      o.VUs,
		"duration":                 o.Duration,
		"iterations":               o.Iterations,
		"stages":                   stages,
		"scenarios":                scenarios,
		"thresholds":               o.Thresholds,
		"tags":                     o.Tags,
		"systemTags":               o.SystemTags,
		"summaryTrendStats":        o.SummaryTrendStats,
		"summaryTimeUnit":          o.SummaryTimeUnit,
		"setupTimeout":             o.SetupTimeout,
		"teardownTimeout":          o.TeardownTimeout,
		"handleSummaryTimeout":     o.HandleSummaryTimeout,
		"noSetup":                  o.NoSetup,
		"noTeardown":               o.NoTeardown,
		"throw":                    o.Throw,
		"minIterationDuration":     o.MinIterationDuration,
		"executionSegment":         o.ExecutionSegment,
		"executionSegmentSequence": o.ExecutionSegmentSequence,
		"consoleOutput":            o.ConsoleOutput,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
