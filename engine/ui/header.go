// Package ui renders a test run for a person: the run header (docs/k6-compat.md#run-header), the
// live progress display (docs/k6-compat.md#progress-display) and the log lines (text, raw or JSON,
// docs/k6-compat.md#cli --log-format). It only formats and writes; the runner decides what to show
// and when.
package ui

import (
	"fmt"
	"io"
	"strings"
	"time"
)

const ansiCyan = "\x1b[36m"

// Header is what the run header shows: where the test runs, the script, the outputs and the
// scenarios with their plan.
type Header struct {
	Script  string
	Outputs []string // output descriptions, e.g. "json (results.json)"; none prints "-"
	// Segment is the share of the test this instance runs, in percent (100 for a whole test).
	Segment     float64
	Scenarios   []ScenarioLine
	MaxVUs      int64
	MaxDuration time.Duration // end of the plan, graceful stops included
}

// ScenarioLine is one scenario of the header: its name and its executor's description.
type ScenarioLine struct {
	Name, Description string
}

// Render writes the header; color paints the values.
func (h Header) Render(w io.Writer, color bool) error {
	val := func(s string) string {
		if !color {
			return s
		}
		return ansiCyan + s + ansiReset
	}
	out := "-"
	if len(h.Outputs) > 0 {
		out = strings.Join(h.Outputs, ", ")
	}
	plural := "s"
	if len(h.Scenarios) == 1 {
		plural = ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n     execution: %s\n", val("local"))
	fmt.Fprintf(&b, "        script: %s\n", val(h.Script))
	fmt.Fprintf(&b, "        output: %s\n\n", val(out))
	fmt.Fprintf(&b, "     scenarios: %s\n", val(fmt.Sprintf(
		"(%.2f%%) %d scenario%s, %d max VUs, %s max duration (incl. graceful stop):",
		h.Segment, len(h.Scenarios), plural, h.MaxVUs, h.MaxDuration)))
	for _, s := range h.Scenarios {
		fmt.Fprintf(&b, "              * %s: %s\n", s.Name, s.Description)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
