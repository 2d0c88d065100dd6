package options

import (
	"encoding/json"
	"fmt"

	"github.com/dnecho/dnecho/engine/null"
	"github.com/dnecho/dnecho/engine/scenario"
)

// TestOptionsJSON is what scripts see as exec.test.options: the consolidated options
// without vus, iterations, duration and stages, with `scenarios` holding the derived scenarios.
// Runtime settings (out, summaryExport, …) are not options of the test and are left out.
func (c *Consolidated) TestOptionsJSON() (json.RawMessage, error) {
	scenarios := make(map[string]scenario.Config, len(c.Scenarios))
	for _, sc := range c.Scenarios {
		scenarios[sc.Base().Name] = sc
	}
	m := map[string]any{
		"scenarios":         scenarios,
		"thresholds":        c.Thresholds,
		"tags":              c.Tags,
		"systemTags":        c.EnabledSystemTags(),
		"summaryTrendStats": c.SummaryTrendStats,
		"summaryTimeUnit":   c.SummaryTimeUnit,
		"setupTimeout":      null.From(c.SetupTimeoutValue()),
		"teardownTimeout":   null.From(c.TeardownTimeoutValue()),
		"noSetup":           c.NoSetup,
		"noTeardown":        c.NoTeardown,
		"throw":             c.Throw,
		"paused":            c.Paused,
		// Read-only in k6 too: the file console output goes to.
		"consoleOutput": c.ConsoleOutput,
	}
	if c.MinIterationDuration.Valid {
		m["minIterationDuration"] = c.MinIterationDuration
	}
	if c.Tuple != nil {
		m["executionSegment"] = c.Tuple.Segment.String()
		m["executionSegmentSequence"] = c.Tuple.Sequence.String()
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("exec.test.options: %w", err)
	}
	return b, nil
}
