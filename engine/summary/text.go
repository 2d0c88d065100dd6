package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

const (
	ansiGreen = "\x1b[32m"
	ansiRed   = "\x1b[31m"
	ansiFaint = "\x1b[2m"
	ansiReset = "\x1b[0m"
	minDots   = 3 // dots after the longest name of a section
)

// Text renders the end-of-test text summary (docs/k6-compat.md#layout) in the mode of d.Options
// (Legacy: legacyText).
// Full mode adds the metrics compact mode hides and a section per group with its checks;
// per-scenario sections are not rendered. A tag breakdown (`{ server:s1 }` lines under a
// req_duration trend) is shown only when the tag has more than one value: a single line would
// repeat its parent.
func (d *Data) Text() string {
	if d.Options.Mode == Legacy {
		return d.legacyText()
	}
	t := &textRenderer{d: d, color: !d.Options.NoColor}
	t.thresholds()
	t.totals()
	if d.Options.Mode == Full {
		t.groups(d.Root.Groups(), 0)
	}
	t.sections()
	for len(t.lines) > 0 && t.lines[len(t.lines)-1] == "" {
		t.lines = t.lines[:len(t.lines)-1]
	}
	if len(t.lines) == 0 {
		return ""
	}
	return "\n" + strings.Join(t.lines, "\n") + "\n"
}

type textRenderer struct {
	d     *Data
	color bool
	lines []string
}

func (t *textRenderer) add(lines ...string) { t.lines = append(t.lines, lines...) }

func (t *textRenderer) paint(code, s string) string {
	if !t.color {
		return s
	}
	return code + s + ansiReset
}

func (t *textRenderer) mark(ok bool) string {
	if ok {
		return t.paint(ansiGreen, "✓")
	}
	return t.paint(ansiRed, "✗")
}

// thresholds writes the THRESHOLDS section: each metric with its expressions; a sub-metric whose
// parent is listed shows only its {k:v} part, one level deeper.
func (t *textRenderer) thresholds() {
	listed := map[string]bool{}
	first := true
	for _, m := range t.d.Metrics {
		if m.Thresholds == nil {
			continue
		}
		if first {
			t.add("  █ THRESHOLDS", "")
			first = false
		}
		indent := "    "
		if m.Parent != "" && listed[m.Parent] {
			indent = "      "
			t.add(indent + "{" + m.Suffix + "}")
		} else {
			if len(listed) > 0 {
				t.add("")
			}
			t.add(indent + m.Name)
		}
		listed[m.Name] = true
		for _, o := range m.Thresholds {
			value := "N/A"
			if o.HasValue {
				value = t.thresholdValue(m, o.Agg, o.Value)
			}
			t.add(fmt.Sprintf("%s%s '%s' %s=%s", indent, t.mark(o.OK), o.Source, o.Agg, value))
		}
	}
	if !first {
		t.add("", "")
	}
}

func (t *textRenderer) thresholdValue(m *Metric, agg string, v float64) string {
	switch {
	case m.Type == metrics.Rate:
		return formatPercent(v)
	case m.Type == metrics.Counter && agg == "rate":
		return formatValue(v, m.Contains, t.d.Options.TimeUnit) + "/s"
	}
	return formatValue(v, m.Contains, t.d.Options.TimeUnit)
}

// row is one aligned line of TOTAL RESULTS: a counter/gauge/rate has a first column and the rest,
// a trend has one cell per stat.
type row struct {
	indent int
	name   string
	first  string
	rest   string
	cells  []string
}

type block struct {
	title string
	rows  []row
}

func (t *textRenderer) totals() {
	t.add("  █ TOTAL RESULTS", "")
	var blocks []block
	checks := t.checkRows()
	if checks.rows != nil {
		blocks = append(blocks, checks)
	}
	blocks = append(blocks, t.metricBlocks()...)
	width := 0
	for _, b := range blocks {
		for _, r := range b.rows {
			width = max(width, r.indent+utf8.RuneCountInString(r.name))
		}
	}
	for i, b := range blocks {
		if b.title != "" {
			t.add("    " + b.title)
		}
		t.add(t.render(b, width+minDots)...)
		t.add("")
		if i == 0 && checks.rows != nil {
			t.checkList()
		}
	}
}

// checkRows builds checks_total, checks_succeeded and checks_failed from the checks Rate.
func (t *textRenderer) checkRows() block {
	var c *Metric
	for _, m := range t.d.Metrics {
		if m.Name == "checks" {
			c = m
		}
	}
	if c == nil {
		return block{}
	}
	passes, fails := int64(c.Value("passes")), int64(c.Value("fails"))
	total := passes + fails
	if total == 0 {
		return block{}
	}
	rate := 0.0
	if s := t.d.Duration.Seconds(); s > 0 {
		rate = float64(total) / s
	}
	return block{rows: []row{
		{indent: 4, name: "checks_total", first: fmt.Sprint(total), rest: formatDefault(rate) + "/s"},
		{indent: 4, name: "checks_succeeded", first: formatPercent(float64(passes) / float64(total)), rest: fmt.Sprintf("%d out of %d", passes, total)},
		{indent: 4, name: "checks_failed", first: formatPercent(float64(fails) / float64(total)), rest: fmt.Sprintf("%d out of %d", fails, total)},
	}}
}

// checkList writes one line per check: all of them in compact mode, the root group's in full mode
// (the others go to their group sections).
func (t *textRenderer) checkList() {
	var walk func(g *checktree.Group)
	walk = func(g *checktree.Group) {
		t.checkLines(g.Checks(), "    ")
		if t.d.Options.Mode != Full {
			for _, sub := range g.Groups() {
				walk(sub)
			}
		}
	}
	before := len(t.lines)
	walk(t.d.Root)
	if len(t.lines) > before {
		t.add("")
	}
}

func (t *textRenderer) checkLines(checks []*checktree.Check, indent string) {
	for _, c := range checks {
		passes, fails := c.Counts()
		t.add(indent + t.mark(fails == 0) + " " + c.Name)
		if fails > 0 {
			pct := int64(math.Floor(100 * float64(passes) / float64(passes+fails)))
			t.add(fmt.Sprintf("%s  ↳  %d%% — ✓ %d / ✗ %d", indent, pct, passes, fails))
		}
	}
}

func (t *textRenderer) metricBlocks() []block {
	mode := t.d.Options.Mode
	byCat := map[string][]row{}
	for _, m := range t.d.Metrics {
		parent := m.Name
		if m.Parent != "" {
			parent = m.Parent
		}
		if hidden(parent, mode) || (m.Breakdown && m.Siblings < 2) {
			continue
		}
		r := t.metricRow(m)
		if m.Parent != "" {
			r.indent, r.name = 6, "{ "+m.Suffix+" }"
		}
		cat := category(parent)
		byCat[cat] = append(byCat[cat], r)
	}
	var out []block
	for _, c := range categoryOrder {
		if rows := byCat[c]; len(rows) > 0 {
			out = append(out, block{title: c, rows: rows})
		}
	}
	return out
}

func (t *textRenderer) metricRow(m *Metric) row {
	unit := t.d.Options.TimeUnit
	f := func(v float64) string { return formatValue(v, m.Contains, unit) }
	r := row{indent: 4, name: m.Name}
	switch m.Type {
	case metrics.Counter:
		r.first, r.rest = f(m.Value("count")), f(m.Value("rate"))+"/s"
	case metrics.Gauge:
		r.first, r.rest = f(m.Value("value")), "min="+f(m.Value("min"))+" max="+f(m.Value("max"))
	case metrics.Rate:
		passes, fails := int64(m.Value("passes")), int64(m.Value("fails"))
		r.first, r.rest = formatPercent(m.Value("rate")), fmt.Sprintf("%d out of %d", passes, passes+fails)
	case metrics.Trend:
		r.cells = []string{} // no stats configured: nothing after the colon
		// One column per summaryTrendStats entry; the values thresholds added after them are
		// shown in the THRESHOLDS section only.
		for i, v := range m.Values[:min(len(m.Values), len(t.d.stats))] {
			s := f(v.V)
			if t.d.stats[i].IsCount() {
				s = fmt.Sprint(int64(v.V))
			}
			r.cells = append(r.cells, v.Key+"="+s)
		}
	}
	return r
}

// render aligns a block: names dotted to a common width, the first column and every trend cell
// padded to the widest in the block.
func (t *textRenderer) render(b block, width int) []string {
	firstW := 0
	var cellW []int
	for _, r := range b.rows {
		firstW = max(firstW, utf8.RuneCountInString(r.first))
		for i, c := range r.cells {
			if i >= len(cellW) {
				cellW = append(cellW, 0)
			}
			cellW[i] = max(cellW[i], utf8.RuneCountInString(c))
		}
	}
	out := make([]string, 0, len(b.rows))
	for _, r := range b.rows {
		var s strings.Builder
		s.WriteString(strings.Repeat(" ", r.indent))
		s.WriteString(r.name)
		s.WriteString(t.paint(ansiFaint, strings.Repeat(".", width-r.indent-utf8.RuneCountInString(r.name))))
		s.WriteString(": ")
		if r.cells != nil {
			for i, c := range r.cells {
				if i > 0 {
					s.WriteByte(' ')
				}
				s.WriteString(c)
				if i < len(r.cells)-1 {
					s.WriteString(pad(c, cellW[i]))
				}
			}
		} else {
			s.WriteString(r.first)
			s.WriteString(pad(r.first, firstW))
			s.WriteByte(' ')
			s.WriteString(r.rest)
		}
		out = append(out, s.String())
	}
	return out
}

func pad(s string, w int) string {
	return strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

// groups writes a section per group (full mode) with its checks; nested groups one level deeper.
func (t *textRenderer) groups(gs []*checktree.Group, depth int) {
	sorted := slices.SortedFunc(slices.Values(gs), func(a, b *checktree.Group) int { return strings.Compare(a.Name, b.Name) })
	for _, g := range sorted {
		indent := strings.Repeat("  ", depth)
		if depth == 0 {
			t.add("", "  █ GROUP: "+g.Name, "")
		} else {
			t.add(indent+"  ↳ GROUP: "+g.Name, "")
		}
		checks := g.Checks()
		t.checkLines(checks, indent+"    ")
		if len(checks) > 0 {
			t.add("")
		}
		t.groups(g.Groups(), depth+1)
	}
}
