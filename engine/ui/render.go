package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/executor"
)

// Progress bar geometry, as k6 draws it (grafana/k6 ui/pb/progressbar.go).
const (
	maxNameWidth   = 30
	defaultBarSize = 40
	minBarSize     = 10 // below this the bar becomes "NN%"
)

const (
	ansiGreen = "\x1b[32m"
	ansiRed   = "\x1b[31m"
	ansiReset = "\x1b[0m"
)

// Snapshot is the state the progress display draws: the instance counters and one entry per
// scenario, in run-header order.
type Snapshot struct {
	Instance  execinfo.InstanceStats
	Scenarios []executor.ScenarioProgress
	// MaxVUs and MaxDuration come from the plan; they fix the widths so lines do not jump.
	MaxVUs      int64
	MaxDuration time.Duration
}

// renderLines draws the progress block: the top line and one bar per scenario. width is the
// terminal width (0: unknown, bars keep their default size).
func renderLines(s Snapshot, width int, color bool) []string {
	lines := []string{topLine(s)}
	nameW := 0
	for _, sc := range s.Scenarios {
		nameW = max(nameW, utf8.RuneCountInString(shortName(sc.Name)))
	}
	for _, sc := range s.Scenarios {
		lines = append(lines, scenarioLine(sc, nameW, width, color))
	}
	return lines
}

// topLine is "running (1m23.4s), 010/100 VUs, 1234 complete and 5 interrupted iterations".
func topLine(s Snapshot) string {
	maxVUs := max(s.MaxVUs, s.Instance.VUsActive)
	w := len(strconv.FormatInt(maxVUs, 10))
	return fmt.Sprintf("running (%s), %0*d/%d VUs, %d complete and %d interrupted iterations",
		executor.FixedLengthDuration(s.Instance.CurrentTestRunDuration, s.MaxDuration),
		w, s.Instance.VUsActive, maxVUs, s.Instance.IterationsCompleted, s.Instance.IterationsInterrupted)
}

// scenarioLine is "<name> <status> [=====>-----] <right-hand parts>".
func scenarioLine(sc executor.ScenarioProgress, nameW, width int, color bool) string {
	name := shortName(sc.Name)
	name += strings.Repeat(" ", nameW-utf8.RuneCountInString(name))
	mark := sc.Status.Mark()
	if sc.Status == executor.StatusDone && color {
		mark = ansiGreen + mark + ansiReset
	} else if sc.Status == executor.StatusInterrupted && color {
		mark = ansiRed + mark + ansiReset
	}
	right := strings.Join(sc.Right, "  ")
	size := defaultBarSize
	if width > 0 {
		// name, mark, brackets and spaces around the bar take nameW + 5 columns.
		size = min(size, width-nameW-5-utf8.RuneCountInString(right)-1)
	}
	return name + " " + mark + " " + bar(sc.Fraction, size) + " " + right
}

// bar draws [=====>-----] of size cells, or [ NN% ] when there is no room for a bar.
func bar(f float64, size int) string {
	if math.IsNaN(f) {
		f = 0
	}
	f = min(max(f, 0), 1)
	if size < minBarSize {
		return fmt.Sprintf("[ %3d%% ]", int(f*100))
	}
	filled := int(f * float64(size))
	switch {
	case filled >= size:
		return "[" + strings.Repeat("=", size) + "]"
	case filled == 0:
		return "[" + strings.Repeat("-", size) + "]"
	}
	return "[" + strings.Repeat("=", filled-1) + ">" + strings.Repeat("-", size-filled) + "]"
}

// shortName cuts a scenario name to maxNameWidth runes, ending in "..." when cut.
func shortName(s string) string {
	if utf8.RuneCountInString(s) <= maxNameWidth {
		return s
	}
	r := []rune(s)
	return string(r[:maxNameWidth-3]) + "..."
}
