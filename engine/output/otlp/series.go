package otlp

import (
	"math"
	"sort"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/dnecho/dnecho/engine/metrics"
)

// DefaultBounds are the OpenTelemetry SDK's default explicit histogram boundaries, which k6's
// output uses for Trends (in the metric's unit: ms for time).
var DefaultBounds = []float64{0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000}

// series aggregates one metric and attribute set with cumulative temporality, as the SDK's
// default reader does: counter sums, the last gauge value, rate tallies, histogram buckets.
type series struct {
	metric *metrics.Metric
	attrs  []*commonpb.KeyValue

	sum          float64
	last         float64
	lastTime     uint64
	trues, total int64
	count        uint64
	min, max     float64
	buckets      []uint64 // len(DefaultBounds)+1
}

func newSeries(m *metrics.Metric, tags *metrics.Tags) *series {
	s := &series{metric: m}
	for _, t := range tags.List() {
		s.attrs = append(s.attrs, &commonpb.KeyValue{Key: t.Key, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: t.Value}}})
	}
	if m.Type == metrics.Trend {
		s.buckets = make([]uint64, len(DefaultBounds)+1)
	}
	return s
}

func (s *series) add(v float64, t uint64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	switch s.metric.Type {
	case metrics.Counter:
		s.sum += v
	case metrics.Gauge:
		s.last, s.lastTime = v, t
	case metrics.Rate:
		if v != 0 {
			s.trues++
		}
		s.total++
	case metrics.Trend:
		if s.count == 0 || v < s.min {
			s.min = v
		}
		if s.count == 0 || v > s.max {
			s.max = v
		}
		s.count++
		s.sum += v
		// Bucket i holds (bounds[i-1], bounds[i]]; the last one everything above.
		s.buckets[sort.SearchFloat64s(DefaultBounds, v)]++
	}
}

// condition is the attribute k6 puts on a Rate's counter.
func condition(v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: "condition", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

// fill adds the series' data points to its instrument (created by the caller with the right
// data kind); start and now are the cumulative window in Unix nanoseconds.
func (s *series) fill(m *metricspb.Metric, start, now uint64) {
	switch d := m.Data.(type) {
	case *metricspb.Metric_Sum:
		if s.metric.Type == metrics.Rate {
			for _, c := range []struct {
				name string
				n    int64
			}{{"nonzero", s.trues}, {"zero", s.total - s.trues}} {
				attrs := append(append([]*commonpb.KeyValue(nil), s.attrs...), condition(c.name))
				d.Sum.DataPoints = append(d.Sum.DataPoints, &metricspb.NumberDataPoint{Attributes: attrs,
					StartTimeUnixNano: start, TimeUnixNano: now, Value: &metricspb.NumberDataPoint_AsInt{AsInt: c.n}})
			}
			return
		}
		d.Sum.DataPoints = append(d.Sum.DataPoints, &metricspb.NumberDataPoint{Attributes: s.attrs,
			StartTimeUnixNano: start, TimeUnixNano: now, Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: s.sum}})
	case *metricspb.Metric_Gauge:
		d.Gauge.DataPoints = append(d.Gauge.DataPoints, &metricspb.NumberDataPoint{Attributes: s.attrs,
			TimeUnixNano: s.lastTime, Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: s.last}})
	case *metricspb.Metric_Histogram:
		sum, lo, hi := s.sum, s.min, s.max
		d.Histogram.DataPoints = append(d.Histogram.DataPoints, &metricspb.HistogramDataPoint{Attributes: s.attrs,
			StartTimeUnixNano: start, TimeUnixNano: now, Count: s.count, Sum: &sum, Min: &lo, Max: &hi,
			BucketCounts: append([]uint64(nil), s.buckets...), ExplicitBounds: DefaultBounds})
	}
}

// instrument returns an empty OTLP metric for m: Counter → monotonic Sum (double), Gauge →
// Gauge, Trend → Histogram, Rate → monotonic Sum (int) named <name>.total (k6 v2).
func instrument(m *metrics.Metric, prefix string) *metricspb.Metric {
	out := &metricspb.Metric{Name: prefix + m.Name, Unit: map[metrics.ValueType]string{metrics.Time: "ms", metrics.Data: "By"}[m.Contains]}
	cum := metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	switch m.Type {
	case metrics.Counter:
		out.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{AggregationTemporality: cum, IsMonotonic: true}}
	case metrics.Gauge:
		out.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{}}
	case metrics.Trend:
		out.Data = &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{AggregationTemporality: cum}}
	case metrics.Rate:
		out.Name += ".total"
		out.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{AggregationTemporality: cum, IsMonotonic: true}}
	}
	return out
}
