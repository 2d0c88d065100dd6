package aggregate

import (
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Synthesize turns a delta of a charted metric (Options.Charts) into samples at the delta's
// last sample time that chart the same: a counter as one sample of its sum, a trend as its values
// (a bucket's lowest value once per value it holds). Other metric types give none; vus is charted
// from the instances' own counts instead.
func Synthesize(m *metrics.Metric, tags *metrics.Tags, d *metrics.Delta) []metrics.Sample {
	if d.N <= 0 {
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
