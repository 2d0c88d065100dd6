// Package summary builds the end-of-test summary: the handleSummary `data` object
// (docs/k6-compat.md#handlesummary), the --summary-export document
// (docs/k6-compat.md#summary-export) and the text summary (docs/k6-compat.md#layout), including a
// per-tag breakdown of chosen metrics (a module's latency trend by its server tag).
package summary

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Mode selects the text summary layout.
type Mode int

// Summary modes (--summary-mode). The runner prints nothing for Disabled. Legacy is k6 v1's
// deprecated pre-v1 layout (docs/k6-compat.md#legacy-layout), which k6 v2 removed.
const (
	Compact Mode = iota
	Full
	Disabled
	Legacy
)

// ParseMode parses --summary-mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "compact":
		return Compact, nil
	case "full":
		return Full, nil
	case "disabled":
		return Disabled, nil
	case "legacy":
		return Legacy, nil
	}
	return 0, fmt.Errorf("invalid summary mode %q: use compact, full, legacy or disabled", s)
}

// Options are the summary options of the test (docs/k6-compat.md#handlesummary `options`,
// docs/k6-compat.md#cli flags).
type Options struct {
	TrendStats  []string // summaryTrendStats; nil means metrics.DefaultTrendStats()
	TimeUnit    string   // summaryTimeUnit: "", "s", "ms" or "us"
	NoColor     bool
	IsStdOutTTY bool
	IsStdErrTTY bool
	Mode        Mode
}

// Validate checks summaryTrendStats and summaryTimeUnit; the CLI treats an error as invalid
// configuration.
func (o Options) Validate() error {
	_, err := o.trendStats()
	return errors.Join(err, checkTimeUnit(o.TimeUnit))
}

func (o Options) trendStats() ([]metrics.TrendStat, error) {
	names := o.TrendStats
	if names == nil {
		names = metrics.DefaultTrendStats()
	}
	out := make([]metrics.TrendStat, 0, len(names))
	for _, n := range names {
		s, err := metrics.ParseTrendStat(n)
		if err != nil {
			return nil, fmt.Errorf("invalid summaryTrendStats: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

func checkTimeUnit(u string) error {
	switch u {
	case "", "s", "ms", "us":
		return nil
	}
	return fmt.Errorf("invalid summaryTimeUnit %q: use s, ms or us", u)
}

func (o Options) trendStatNames() []string {
	if o.TrendStats == nil {
		return metrics.DefaultTrendStats()
	}
	out := make([]string, len(o.TrendStats))
	for i, s := range o.TrendStats {
		out[i] = strings.TrimSpace(s)
	}
	return out
}
