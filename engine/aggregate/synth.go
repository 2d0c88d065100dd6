package aggregate

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output/dashboard"
)

// charted are the metrics the web dashboard draws (engine/output/dashboard/collect.go).
var charted = map[string]bool{
	dashboard.LatencyMetric: true, dashboard.RequestsMetric: true,
	"iterations": true, "iteration_duration": true,
}

// Synthesize turns a delta of a charted metric into samples at the delta's last sample time
// that chart the same: a counter as one sample of its sum, a trend as its values (a bucket's
// lowest value once per value it holds). Other metrics give none; vus is charted from the
// instances' own counts instead.
func Synthesize(m *metrics.Metric, tags *metrics.Tags, d *metrics.Delta) []metrics.Sample {
	if !charted[m.Name] || d.N <= 0 {
		return nil
	}
	at := d.Last
	if at.IsZero() { // trend deltas carry no time: they are as old as the push
		at = time.Now()
	}
	switch m.Type {
	case metrics.Counter:
		return []metrics.Sample{{Metric: m, Time: at, Value: d.Sum, Tags: tags}}
	case metrics.Trend:
		out := make([]metrics.Sample, 0, d.N)
		for _, v := range d.Trend.Exact {
			out = append(out, metrics.Sample{Metric: m, Time: at, Value: v, Tags: tags})
		}
		scale := metrics.TrendScale(m.Contains)
		for _, b := range d.Trend.Buckets {
			for range b.Count {
				out = append(out, metrics.Sample{Metric: m, Time: at, Value: float64(b.Value) / scale, Tags: tags})
			}
		}
		return out
	}
	return nil
}
