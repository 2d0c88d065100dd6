package summary

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

const (
	ansiCyan      = "\x1b[36m"
	ansiCyanFaint = "\x1b[36;2m"
	// legacyChecks and legacyMetrics are the indents of the legacy layout's two parts.
	legacyChecks  = "     "
	legacyMetrics = "   "
)

// legacyText renders k6 v1's `--summary-mode=legacy` layout (docs/k6-compat.md#legacy-layout):
// the checks by group, then every metric in one aligned list, each marked ✓ or ✗ when it has
// thresholds. The front end's sections follow as in the other modes.
func (d *Data) legacyText() string {
	t := &textRenderer{d: d, color: !d.Options.NoColor}
	t.legacyGroup(d.Root, legacyChecks)
	t.legacyMetrics()
	t.sections()
	for len(t.lines) > 0 && t.lines[len(t.lines)-1] == "" {
		t.lines = t.lines[:len(t.lines)-1]
	}
	return "\n" + strings.Join(t.lines, "\n") + "\n"
}

// legacyGroup writes a group's checks, then its groups, each titled `█ <name>` and two deeper.
func (t *textRenderer) legacyGroup(g *checktree.Group, indent string) {
	if g.Name != "" {
		t.add(indent+"█ "+g.Name, "")
		indent += "  "
	}
	checks := g.Checks()
	for _, c := range checks {
		passes, fails := c.Counts()
		if fails == 0 {
			t.add(t.paint(ansiGreen, indent+"✓ "+c.Name))
			continue
		}
		pct := int64(math.Floor(100 * float64(passes) / float64(passes+fails)))
		t.add(t.paint(ansiRed, indent+"✗ "+c.Name), t.paint(ansiRed, fmt.Sprintf("%s ↳  %d%% — ✓ %d / ✗ %d", indent, pct, passes, fails)))
	}
	if len(checks) > 0 {
		t.add("")
	}
	for _, sub := range g.Groups() {
		t.legacyGroup(sub, indent)
	}
}

// legacyRow is one metric of the legacy list: its columns, unpainted.
type legacyRow struct {
	m      *Metric
	indent string // "  " for a sub-metric
	name   string // the name, or `{ k:v }` for a sub-metric
	cols   []string
}

// legacyMetrics writes every metric (but single-valued breakdowns) sorted as d.Metrics is, the
// names dotted to one width and each column padded to its widest over the whole list.
func (t *textRenderer) legacyMetrics() {
	var rows []legacyRow
	nameW := 0
	var trendW, otherW []int
	for _, m := range t.d.Metrics {
		if m.Breakdown && m.Siblings < 2 {
			continue
		}
		r := legacyRow{m: m, name: m.Name, cols: t.legacyColumns(m)}
		if m.Parent != "" {
			r.indent, r.name = "  ", "{ "+m.Suffix+" }"
		}
		nameW = max(nameW, utf8.RuneCountInString(r.indent+r.name))
		if m.Type == metrics.Trend {
			trendW = widen(trendW, r.cols)
		} else {
			otherW = widen(otherW, r.cols)
		}
		rows = append(rows, r)
	}
	for _, r := range rows {
		dots := strings.Repeat(".", nameW-utf8.RuneCountInString(r.indent+r.name)+minDots)
		line := legacyMetrics + r.indent + t.legacyMark(r.m) + " " + r.name + t.paint(ansiFaint, dots+":") + " "
		if r.m.Type == metrics.Trend {
			line += t.legacyTrend(r.cols, trendW)
		} else {
			line += t.legacyOther(r.cols, otherW)
		}
		t.add(strings.TrimRight(line, " "))
	}
}

// legacyColumns are a metric's values as the legacy layout shows them: a trend's `stat=value`
// per summaryTrendStats entry; a counter's count and rate, a gauge's value, min and max, a
// rate's percentage and `passes out of total`.
func (t *textRenderer) legacyColumns(m *Metric) []string {
	f := func(v float64) string { return formatValue(v, m.Contains, t.d.Options.TimeUnit) }
	switch m.Type {
	case metrics.Counter:
		return []string{f(m.Value("count")), f(m.Value("rate")) + "/s"}
	case metrics.Gauge:
		return []string{f(m.Value("value")), "min=" + f(m.Value("min")), "max=" + f(m.Value("max"))}
	case metrics.Rate:
		passes, fails := int64(m.Value("passes")), int64(m.Value("fails"))
		return []string{formatPercent(m.Value("rate")), fmt.Sprintf("%d out of %d", passes, passes+fails)}
	}
	cols := []string{}
	for i, v := range m.Values[:min(len(m.Values), len(t.d.stats))] {
		s := f(v.V)
		if t.d.stats[i].IsCount() {
			s = fmt.Sprint(int64(v.V))
		}
		cols = append(cols, v.Key+"="+s)
	}
	return cols
}

// legacyMark is ✓ for a metric whose thresholds all passed, ✗ when one failed, else a space.
func (t *textRenderer) legacyMark(m *Metric) string {
	if m.Thresholds == nil {
		return " "
	}
	for _, o := range m.Thresholds {
		if !o.OK {
			return t.mark(false)
		}
	}
	return t.mark(true)
}

// legacyTrend joins a trend's cells, each value painted and padded to its column's width.
func (t *textRenderer) legacyTrend(cols []string, widths []int) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		stat, value, _ := strings.Cut(c, "=")
		out[i] = stat + "=" + t.paint(ansiCyan, value) + pad(c, widths[i])
	}
	return strings.Join(out, " ")
}

// legacyOther joins a counter's, gauge's or rate's columns: the first painted and padded, the
// others faint, each padded to its column when there are several.
func (t *textRenderer) legacyOther(cols []string, widths []int) string {
	s := t.paint(ansiCyan, cols[0]) + pad(cols[0], widths[0])
	for i, c := range cols[1:] {
		s += " " + t.paint(ansiCyanFaint, c)
		if len(cols) > 2 {
			s += pad(c, widths[i+1])
		}
	}
	return s
}

// widen grows widths to hold cols, column by column.
func widen(widths []int, cols []string) []int {
	for i, c := range cols {
		if i >= len(widths) {
			widths = append(widths, 0)
		}
		widths[i] = max(widths[i], utf8.RuneCountInString(c))
	}
	return widths
}
