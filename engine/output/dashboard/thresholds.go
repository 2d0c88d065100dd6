package dashboard

import (
	"sort"
	"strings"

	"github.com/dnecho/dnecho/engine/metrics"
)

// ThresholdState is one threshold's latest evaluation (the runner evaluates every 2 s).
type ThresholdState struct {
	Metric    string   `json:"metric"`
	Source    string   `json:"source"`
	OK        bool     `json:"ok"`
	Value     *float64 `json:"value"`
	Unit      string   `json:"unit"` // of Value: ms, %, B, B/s, /s or ""
	Evaluated bool     `json:"evaluated"`
}

// thresholds returns every threshold, or only the failing ones.
func (c *collector) thresholds(all bool) []ThresholdState {
	ths := c.ths.Load()
	if ths == nil {
		return nil
	}
	var out []ThresholdState
	for _, e := range ths.Entries() {
		for _, o := range ths.Outcomes(e.Name) {
			if !all && o.OK {
				continue
			}
			st := ThresholdState{Metric: e.Name, Source: o.Source, OK: o.OK, Evaluated: o.Evaluated, Unit: unitOf(e.Metric, o.Agg)}
			if o.HasValue {
				st.Value = ptr(o.Value)
			}
			out = append(out, st)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out
}

// unitOf is the unit of an aggregation of a metric, as the thresholds compare it: a Trend's
// stats and a Gauge's value in the metric's unit (time in ms), a Rate's rate a fraction (shown
// as a percentage), a Counter's count in its unit and its rate per second.
func unitOf(m *metrics.Metric, agg string) string {
	if m == nil {
		return ""
	}
	base := map[metrics.ValueType]string{metrics.Time: "ms", metrics.Data: "B"}[m.Contains]
	switch {
	case m.Type == metrics.Rate:
		return "%"
	case m.Type == metrics.Counter && agg == "rate":
		return strings.TrimPrefix(base+"/s", "ms")
	case m.Type == metrics.Trend && agg == "count":
		return ""
	}
	return base
}
