package promrw

import (
	"math"
	"sort"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/proto/promrwpb"
)

// series is one metric and tag set, aggregated over the whole test as k6 does: a Counter's sum,
// a Gauge's last value, a Rate's non-zero and total counts, a Trend's HDR sink (or native
// histogram). Nothing per sample is kept, so memory depends on the number of series only.
type series struct {
	metric *metrics.Metric
	labels []*promrwpb.Label // the tags, sorted, without __name__

	sum          float64 // counter
	last         float64 // gauge
	trues, total int64   // rate
	trend        *metrics.TrendSink
	hist         *nativeHist
}

func newSeries(m *metrics.Metric, tags *metrics.Tags, native bool) *series {
	s := &series{metric: m}
	for _, t := range tags.List() {
		if t.Value == "" || t.Key == "" {
			continue // Prometheus treats an empty label as absent; leave it out (root group "")
		}
		s.labels = append(s.labels, &promrwpb.Label{Name: labelName(t.Key), Value: t.Value})
	}
	// Sanitising may reorder names ("a-b" → "a_b"); remote write wants them sorted.
	sort.Slice(s.labels, func(i, j int) bool { return s.labels[i].Name < s.labels[j].Name })
	if m.Type == metrics.Trend {
		if native {
			s.hist = newNativeHist()
		} else {
			s.trend = metrics.NewTrendSink(m.Contains)
		}
	}
	return s
}

// labelName makes a tag key a valid Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*): a write with
// an invalid one would be rejected whole.
func labelName(k string) string {
	b := []byte(k)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func (s *series) add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	switch s.metric.Type {
	case metrics.Counter:
		s.sum += v
	case metrics.Gauge:
		s.last = v
	case metrics.Rate:
		if v != 0 {
			s.trues++
		}
		s.total++
	case metrics.Trend:
		if s.hist != nil {
			s.hist.observe(seconds(s.metric, v))
		} else {
			s.trend.Add(metrics.Sample{Value: v})
		}
	}
}

// seconds converts time values (ms) to Prometheus' base unit.
func seconds(m *metrics.Metric, v float64) float64 {
	if m.Contains == metrics.Time {
		return v / 1000
	}
	return v
}

// appendTimeSeries writes the series' current values at ts (ms): k6_<m>_total for a Counter,
// k6_<m> for a Gauge, k6_<m>_rate for a Rate, one gauge per trend stat (time in seconds) or a
// native histogram k6_<m>_seconds|_bytes for a Trend. stale writes Prometheus' stale marker
// instead of every value.
func (s *series) appendTimeSeries(out []*promrwpb.TimeSeries, stats []trendStat, ts int64, stale bool) []*promrwpb.TimeSeries {
	one := func(suffix string, v float64) {
		if stale {
			v = staleNaN
		}
		out = append(out, &promrwpb.TimeSeries{Labels: s.named(suffix), Samples: []*promrwpb.Sample{{Value: v, Timestamp: ts}}})
	}
	switch s.metric.Type {
	case metrics.Counter:
		one("total", s.sum)
	case metrics.Gauge:
		one("", s.last)
	case metrics.Rate:
		r := 0.0
		if s.total > 0 {
			r = float64(s.trues) / float64(s.total)
		}
		one("rate", r)
	case metrics.Trend:
		if s.hist != nil {
			suffix := map[metrics.ValueType]string{metrics.Time: "seconds", metrics.Data: "bytes"}[s.metric.Contains]
			if stale {
				one(suffix, 0)
				break
			}
			out = append(out, &promrwpb.TimeSeries{Labels: s.named(suffix), Histograms: []*promrwpb.Histogram{s.hist.proto(ts)}})
			break
		}
		for _, st := range stats {
			one(st.suffix, s.trendValue(st))
		}
	}
	return out
}

func (s *series) trendValue(st trendStat) float64 {
	if st.sum {
		return seconds(s.metric, s.trend.Sum())
	}
	v := st.stat.Value(s.trend)
	if st.stat.IsCount() {
		return v
	}
	return seconds(s.metric, v)
}

// named returns the labels with __name__ = k6_<metric>[_suffix], in name order.
func (s *series) named(suffix string) []*promrwpb.Label {
	name := Prefix + s.metric.Name
	if suffix != "" {
		name += "_" + suffix
	}
	i := sort.Search(len(s.labels), func(i int) bool { return s.labels[i].Name >= "__name__" })
	out := make([]*promrwpb.Label, 0, len(s.labels)+1)
	out = append(out, s.labels[:i]...)
	out = append(out, &promrwpb.Label{Name: "__name__", Value: name})
	return append(out, s.labels[i:]...)
}

// staleNaN is Prometheus' stale marker (prometheus/model/value: StaleNaN).
var staleNaN = math.Float64frombits(0x7ff0000000000002)
