package metrics

import (
	"time"

	"github.com/dnecho/dnecho/internal/quantile"
)

// Delta is what one series (a metric and a tag set) gained over an interval on one instance of
// a distributed test: the fields its metric type uses, in a form that merges into a Sink exactly
// as the samples themselves would have been added there (Sink.MergeDelta).
type Delta struct {
	N int64 // samples: every type
	// Counter: Sum of the values and the times of the earliest and latest sample.
	Sum         float64
	First, Last time.Time
	// Gauge: the last value (at Last), and the extremes.
	Value, Min, Max float64
	// Rate: how many of the N values were non-zero.
	Trues int64
	// Trend: the values.
	Trend quantile.Part
}

// DeltaSink collects the Delta of one series between two Takes. It is not safe for concurrent
// use.
type DeltaSink struct {
	typ   MetricType
	d     Delta
	trend *quantile.Delta
}

// NewDeltaSink returns an empty delta sink for m's type.
func NewDeltaSink(m *Metric) *DeltaSink {
	ds := &DeltaSink{typ: m.Type}
	if m.Type == Trend {
		ds.trend = quantile.NewDelta(TrendExactSamples, TrendScale(m.Contains))
	}
	return ds
}

// Add folds one sample in; non-finite values are ignored, as sinks do.
func (ds *DeltaSink) Add(s Sample) { ds.add(&s) }

// add is Add without the copy, filling only the fields MergeDelta reads for the type (a VU folds
// every sample of its iterations through it).
func (ds *DeltaSink) add(s *Sample) {
	if !finite(s.Value) {
		return
	}
	d := &ds.d
	switch ds.typ {
	case Trend:
		d.N++
		ds.trend.Add(s.Value)
		return
	case Rate:
		d.N++
		if s.Value != 0 {
			d.Trues++
		}
		return
	}
	if d.N == 0 || s.Time.Before(d.First) {
		d.First = s.Time
	}
	if d.N == 0 || !s.Time.Before(d.Last) {
		d.Last, d.Value = s.Time, s.Value
	}
	if d.N == 0 || s.Value < d.Min {
		d.Min = s.Value
	}
	if d.N == 0 || s.Value > d.Max {
		d.Max = s.Value
	}
	d.N++
	if ds.typ == Counter {
		d.Sum += s.Value
	}
}

// Empty reports whether no sample arrived since the last Take.
func (ds *DeltaSink) Empty() bool { return ds.d.N == 0 }

// Take returns the delta since the last Take and starts a new one.
func (ds *DeltaSink) Take() Delta {
	d := ds.d
	if ds.trend != nil {
		d.Trend = ds.trend.Take()
	}
	ds.d = Delta{}
	return d
}

// MergeDelta implements Sink.
func (c *CounterSink) MergeDelta(d *Delta) {
	if d.N <= 0 {
		return
	}
	if c.N == 0 || d.First.Before(c.First) {
		c.First = d.First
	}
	if c.N == 0 || d.Last.After(c.Last) {
		c.Last = d.Last
	}
	c.Sum += d.Sum
	c.N += d.N
}

// MergeDelta implements Sink: the value is the one sampled last, whichever instance sent it.
func (g *GaugeSink) MergeDelta(d *Delta) {
	if d.N <= 0 {
		return
	}
	if g.N == 0 || !d.Last.Before(g.Time) {
		g.Value, g.Time = d.Value, d.Last
	}
	if g.N == 0 || d.Min < g.Min {
		g.Min = d.Min
	}
	if g.N == 0 || d.Max > g.Max {
		g.Max = d.Max
	}
	g.N += d.N
}

// MergeDelta implements Sink.
func (r *RateSink) MergeDelta(d *Delta) {
	if d.N <= 0 {
		return
	}
	r.Trues += d.Trues
	r.Total += d.N
}

// MergeDelta implements Sink.
func (t *TrendSink) MergeDelta(d *Delta) { t.store().AddPart(d.Trend) }
