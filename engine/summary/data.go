package summary

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

// Input is what the runner hands over at the end of the test.
type Input struct {
	Snapshot   *ingest.Snapshot
	Thresholds *threshold.Set // nil without thresholds or with --no-thresholds
	Duration   time.Duration  // test run duration
	SetupData  json.RawMessage
	Options    Options
	// Root, when set, is the root of a copy of the script runner's group and check tree
	// (checktree.Tree.Clone); otherwise the snapshot's tree, which the collector derived from the
	// checks and group_duration samples, is used.
	Root *checktree.Group
	// Sections are the front end's own blocks for the text summary (see Section).
	Sections []Section
}

// Data is the summary in a typed form; JS, Export and Text render it.
type Data struct {
	Options   Options
	Duration  time.Duration
	Root      *checktree.Group // a copy: nothing counts into it
	Metrics   []*Metric        // by name, each metric followed by its sub-metrics
	SetupData json.RawMessage
	// Sections follow the metrics (and groups) in the text summary; JS and Export leave them out.
	Sections []Section

	stats []metrics.TrendStat
}

// Metric is the summary of one metric or sub-metric.
type Metric struct {
	Name     string // "m" or "m{k:v}"
	Parent   string // "" for a metric
	Suffix   string // "k:v" for a sub-metric
	Type     metrics.MetricType
	Contains metrics.ValueType
	// Values are in the order of docs/k6-compat.md#handlesummary; a trend's are summaryTrendStats
	// in that order, then each aggregation its thresholds use that summaryTrendStats lacks.
	Values     []Value
	Thresholds []threshold.Outcome // nil when the metric has none
	// Breakdown marks a sub-metric made by a tag breakdown rather than by a threshold; Siblings
	// counts the tag's distinct values (the text summary shows a breakdown only above one).
	Breakdown bool
	Siblings  int
}

// Value is one named aggregate.
type Value struct {
	Key string
	V   float64
}

// Build computes the summary. It fails only on invalid options.
func Build(in Input) (*Data, error) {
	if err := in.Options.Validate(); err != nil {
		return nil, err
	}
	stats, _ := in.Options.trendStats()
	d := &Data{Options: in.Options, Duration: in.Duration, SetupData: in.SetupData, Sections: in.Sections, stats: stats}
	switch {
	case in.Root != nil:
		d.Root = in.Root
	case in.Snapshot != nil && in.Snapshot.Root != nil:
		d.Root = in.Snapshot.Root
	default:
		d.Root = checktree.New().Root()
	}
	if in.Snapshot == nil {
		return d, nil
	}
	seen := map[string]bool{}
	for _, s := range in.Snapshot.Series {
		m := d.metric(s.Name, s.Metric, s.Sink)
		if s.Submetric != nil {
			m.Parent, m.Suffix = s.Metric.Name, s.Submetric.Suffix
		}
		if in.Thresholds != nil {
			m.Thresholds = in.Thresholds.Outcomes(s.Name)
			m.addThresholdValues()
		}
		seen[s.Name] = true
		d.Metrics = append(d.Metrics, m)
	}
	for _, b := range in.Snapshot.Breakdowns {
		if len(b.And) > 0 {
			continue // a front end's, for its hooks (ingest.ByTag)
		}
		for _, v := range b.Values {
			suffix := b.Key + ":" + v.Value
			name := b.Metric.Name + "{" + suffix + "}"
			if seen[name] {
				continue // a threshold already selects exactly this
			}
			m := d.metric(name, b.Metric, v.Sink)
			m.Parent, m.Suffix, m.Breakdown, m.Siblings = b.Metric.Name, suffix, true, len(b.Values)
			d.Metrics = append(d.Metrics, m)
		}
	}
	sort.SliceStable(d.Metrics, func(i, j int) bool { return less(d.Metrics[i], d.Metrics[j]) })
	return d, nil
}

// less orders by metric name, a metric before its sub-metrics, sub-metrics by suffix.
func less(a, b *Metric) bool {
	pa, pb := a.Parent, b.Parent
	if pa == "" {
		pa = a.Name
	}
	if pb == "" {
		pb = b.Name
	}
	if pa != pb {
		return pa < pb
	}
	if (a.Parent == "") != (b.Parent == "") {
		return a.Parent == ""
	}
	return a.Suffix < b.Suffix
}

func (d *Data) metric(name string, m *metrics.Metric, sink metrics.Sink) *Metric {
	out := &Metric{Name: name, Type: m.Type, Contains: m.Contains}
	secs := d.Duration.Seconds()
	switch s := sink.(type) {
	case *metrics.CounterSink:
		rate := 0.0
		if secs > 0 {
			rate = s.Sum / secs
		}
		out.Values = []Value{{"count", s.Sum}, {"rate", rate}}
	case *metrics.GaugeSink:
		out.Values = []Value{{"value", s.Value}, {"min", s.Min}, {"max", s.Max}}
	case *metrics.RateSink:
		r, _ := s.Rate()
		out.Values = []Value{{"rate", r}, {"passes", float64(s.Trues)}, {"fails", float64(s.Total - s.Trues)}}
	case *metrics.TrendSink:
		for _, st := range d.stats {
			out.Values = append(out.Values, Value{st.String(), st.Value(s)})
		}
	}
	return out
}

// addThresholdValues appends to a trend's values each aggregation a threshold was judged on that
// summaryTrendStats leaves out (`p(99)<5` with the default stats), with the value the threshold
// saw: the handleSummary data and the export then carry every figure a threshold names, so a
// summary helper never has to print N/A for it (docs/k6-compat.md#handlesummary). The text
// summary's columns stay those of summaryTrendStats.
func (m *Metric) addThresholdValues() {
	if m.Type != metrics.Trend {
		return
	}
	for _, o := range m.Thresholds {
		if o.HasValue && !m.has(o.Agg) {
			m.Values = append(m.Values, Value{o.Agg, o.Value})
		}
	}
}

// has reports whether the named aggregate is among the values.
func (m *Metric) has(key string) bool {
	for _, v := range m.Values {
		if v.Key == key {
			return true
		}
	}
	return false
}

// Value returns the named aggregate.
func (m *Metric) Value(key string) float64 {
	for _, v := range m.Values {
		if v.Key == key {
			return v.V
		}
	}
	return 0
}
