package options

import (
	"encoding/json"
	"fmt"

	"github.com/dnecho/dnecho/engine/executor"
)

// TestOptionsJSON is what scripts see as exec.test.options (spec §8.5): the consolidated options
// without vus, iterations, duration and stages, with `scenarios` holding the derived scenarios.
// Runtime settings (out, summaryExport, …) are not options of the test and are left out.
func (c *Consolidated) TestOptionsJSON() (json.RawMessage, error) {
	scenarios := make(map[string]executor.Config, len(c.Scenarios))
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
		"setupTimeout":      executor.NewNullDuration(c.SetupTimeoutValue()),
		"teardownTimeout":   executor.NewNullDuration(c.TeardownTimeoutValue()),
		"noSetup":           c.NoSetup,
		"noTeardown":        c.NoTeardown,
		"throw":             c.Throw,
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("exec.test.options: %w", err)
	}
	return b, nil
}
