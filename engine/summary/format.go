package summary

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Number formatting of the text summary (docs/k6-compat.md#layout).

// formatValue formats v by what the metric contains; timeUnit is summaryTimeUnit.
func formatValue(v float64, contains metrics.ValueType, timeUnit string) string {
	switch contains {
	case metrics.Time:
		if timeUnit != "" {
			return formatFixedTime(v, timeUnit)
		}
		return formatTime(v)
	case metrics.Data:
		return formatData(v)
	}
	return formatDefault(v)
}

// formatDefault rounds to 6 decimals and drops trailing zeros.
func formatDefault(v float64) string {
	if math.Abs(v) < 1e15 { // beyond, v·1e6 loses the integer part's precision anyway
		v = math.Round(v*1e6) / 1e6
	}
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// truncate cuts x to at most n decimals without rounding, dropping trailing zeros. It cuts the
// text of x rounded to 9 decimals, so that 1.23 (stored as 1.2299999…) keeps its last digit.
func truncate(x float64, n int) string {
	if !finite(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'f', 9, 64)
	dot := strings.IndexByte(s, '.')
	s = s[:dot+1+n]
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// truncateFixed is truncate keeping exactly n decimals.
func truncateFixed(x float64, n int) string {
	if !finite(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'f', 9, 64)
	return s[:strings.IndexByte(s, '.')+1+n]
}

// formatTime formats milliseconds: 0s; whole ns below 1 µs; µs, ms and s truncated to 2 decimals;
// then XmYs or XhYmZs with whole seconds.
func formatTime(ms float64) string {
	switch {
	case ms == 0 || math.IsNaN(ms):
		return "0s"
	case ms < 0:
		return "-" + formatTime(-ms)
	case math.IsInf(ms, 1):
		return "+Inf"
	case ms < 0.001:
		return strconv.FormatFloat(math.Trunc(ms*1e6), 'f', 0, 64) + "ns"
	case ms < 1:
		return truncate(ms*1000, 2) + "µs"
	case ms < 1000:
		return truncate(ms, 2) + "ms"
	case ms < 60_000:
		return truncate(ms/1000, 2) + "s"
	}
	sec := int64(ms / 1000)
	h, m, s := sec/3600, sec%3600/60, sec%60
	if h > 0 {
		return fmt.Sprintf("%dh%dm%ds", h, m, s)
	}
	return fmt.Sprintf("%dm%ds", m, s)
}

// formatFixedTime formats milliseconds in a fixed unit with 2 decimals (summaryTimeUnit).
func formatFixedTime(ms float64, unit string) string {
	switch unit {
	case "s":
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + "s"
	case "us":
		return strconv.FormatFloat(ms*1000, 'f', 2, 64) + "µs"
	}
	return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
}

var dataUnits = []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// formatData formats bytes in base-1000 units: "N B" below 10 bytes, else one decimal below 10
// of the unit and none above ("4.9 kB", "519 kB").
func formatData(b float64) string {
	switch {
	case math.IsNaN(b):
		return "0 B"
	case b < 0:
		return "-" + formatData(-b)
	case math.IsInf(b, 1):
		return "+Inf B"
	case b < 10:
		return strconv.FormatFloat(math.Round(b), 'f', 0, 64) + " B"
	}
	i := 0
	for b >= 1000 && i < len(dataUnits)-1 {
		b /= 1000
		i++
	}
	r := math.Round(b*10) / 10
	if r < 10 {
		return strconv.FormatFloat(r, 'f', 1, 64) + " " + dataUnits[i]
	}
	return strconv.FormatFloat(r, 'f', 0, 64) + " " + dataUnits[i]
}

// formatPercent formats a ratio as a percentage truncated to exactly 2 decimals ("99.99%").
func formatPercent(ratio float64) string {
	if math.IsNaN(ratio) {
		ratio = 0
	}
	return truncateFixed(ratio*100, 2) + "%"
}
