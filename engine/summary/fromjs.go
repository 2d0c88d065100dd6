package summary

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

// jsData is the handleSummary `data` object as JS gives it back (the shape of Data.JS).
type jsData struct {
	RootGroup *checktree.Tree `json:"root_group"`
	Options   struct {
		SummaryTrendStats []string `json:"summaryTrendStats"`
		SummaryTimeUnit   string   `json:"summaryTimeUnit"`
		NoColor           bool     `json:"noColor"`
	} `json:"options"`
	State struct {
		IsStdOutTTY       bool    `json:"isStdOutTTY"`
		IsStdErrTTY       bool    `json:"isStdErrTTY"`
		TestRunDurationMs float64 `json:"testRunDurationMs"`
	} `json:"state"`
	Metrics   map[string]jsMetric `json:"metrics"`
	SetupData json.RawMessage     `json:"setup_data"`
}

type jsMetric struct {
	Type       string                       `json:"type"`
	Contains   string                       `json:"contains"`
	Values     map[string]float64           `json:"values"`
	Thresholds map[string]struct{ OK bool } `json:"thresholds"`
}

// FromJS reads a handleSummary `data` object, as JSON, back into Data, so that a script's
// summary helpers (dnecho's built-in k6-summary module) render what the script passes them,
// changes included. Unknown metric types or value types are an error; missing parts are empty.
func FromJS(data []byte) (*Data, error) {
	var in jsData
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("summary data: %w", err)
	}
	d := &Data{
		Options: Options{
			TrendStats: in.Options.SummaryTrendStats, TimeUnit: in.Options.SummaryTimeUnit,
			NoColor: in.Options.NoColor, IsStdOutTTY: in.State.IsStdOutTTY, IsStdErrTTY: in.State.IsStdErrTTY,
		},
		Duration:  time.Duration(in.State.TestRunDurationMs * float64(time.Millisecond)),
		SetupData: in.SetupData,
	}
	if in.RootGroup == nil {
		in.RootGroup = checktree.New()
	}
	d.Root = in.RootGroup.Root()
	var err error
	if d.stats, err = d.Options.trendStats(); err != nil {
		return nil, err
	}
	for name, m := range in.Metrics {
		out, err := metricFromJS(name, m, d.Options.trendStatNames())
		if err != nil {
			return nil, err
		}
		d.Metrics = append(d.Metrics, out)
	}
	sort.SliceStable(d.Metrics, func(i, j int) bool { return less(d.Metrics[i], d.Metrics[j]) })
	return d, nil
}

func metricFromJS(name string, m jsMetric, trendStats []string) (*Metric, error) {
	out := &Metric{Name: name}
	if parent, rest, ok := strings.Cut(name, "{"); ok && strings.HasSuffix(rest, "}") {
		out.Parent, out.Suffix = parent, strings.TrimSuffix(rest, "}")
	}
	var ok bool
	if out.Type, ok = metricTypes[m.Type]; !ok {
		return nil, fmt.Errorf("summary data: metric %s: unknown type %q", name, m.Type)
	}
	if out.Contains, ok = valueTypes[m.Contains]; !ok {
		return nil, fmt.Errorf("summary data: metric %s: unknown contains %q", name, m.Contains)
	}
	keys := map[metrics.MetricType][]string{
		metrics.Counter: {"count", "rate"}, metrics.Gauge: {"value", "min", "max"},
		metrics.Rate: {"rate", "passes", "fails"}, metrics.Trend: trendStats,
	}[out.Type]
	for _, k := range keys {
		out.Values = append(out.Values, Value{k, m.Values[k]})
	}
	if m.Thresholds != nil {
		sources := make([]string, 0, len(m.Thresholds))
		for src := range m.Thresholds {
			sources = append(sources, src)
		}
		sort.Strings(sources)
		out.Thresholds = []threshold.Outcome{}
		for _, src := range sources {
			o := threshold.Outcome{Source: src, OK: m.Thresholds[src].OK, Evaluated: true}
			if e, err := threshold.ParseExpression(src); err == nil {
				o.Agg = e.Agg.Text
				o.Value, o.HasValue = m.Values[o.Agg]
			}
			out.Thresholds = append(out.Thresholds, o)
		}
	}
	return out, nil
}

var metricTypes = map[string]metrics.MetricType{
	"counter": metrics.Counter, "gauge": metrics.Gauge, "rate": metrics.Rate, "trend": metrics.Trend,
}

var valueTypes = map[string]metrics.ValueType{
	"default": metrics.Default, "time": metrics.Time, "data": metrics.Data,
}
