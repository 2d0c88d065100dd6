package metrics

import (
	"math"
	"time"
)

// Sink aggregates the samples of one metric or sub-metric. A Sink is not safe for concurrent use:
// its owner (the collector) serialises Add, and readers work on a Clone.
type Sink interface {
	// Add folds one sample in. Samples with a NaN or infinite value are ignored: they would poison
	// sums and cannot be placed in a histogram.
	Add(s Sample)
	// IsEmpty reports whether no sample was added (run-time threshold evaluation skips empty sinks).
	IsEmpty() bool
	// Clone returns an independent copy that is safe to read while the original keeps changing.
	Clone() Sink
	// MergeDelta folds in what a series gained elsewhere (another instance of a distributed
	// test), with the effect of adding its samples here.
	MergeDelta(d *Delta)
}

// NewSink returns an empty sink for m's type, or nil for an unknown type or a nil metric.
func NewSink(m *Metric) Sink {
	if m == nil {
		return nil
	}
	switch m.Type {
	case Counter:
		return &CounterSink{}
	case Gauge:
		return &GaugeSink{}
	case Rate:
		return &RateSink{}
	case Trend:
		return NewTrendSink(m.Contains)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// CounterSink sums values. Its per-second rate is computed against the test's elapsed time by the
// reader (thresholds and summary), as k6 does, not against First/Last.
type CounterSink struct {
	Sum         float64
	N           int64     // samples added
	First, Last time.Time // times of the earliest and latest sample
}

// Add implements Sink.
func (c *CounterSink) Add(s Sample) {
	if !finite(s.Value) {
		return
	}
	c.Sum += s.Value
	if c.N == 0 || s.Time.Before(c.First) {
		c.First = s.Time
	}
	if c.N == 0 || s.Time.After(c.Last) {
		c.Last = s.Time
	}
	c.N++
}

// IsEmpty implements Sink.
func (c *CounterSink) IsEmpty() bool { return c.N == 0 }

// Clone implements Sink.
func (c *CounterSink) Clone() Sink { cp := *c; return &cp }

// Rate is Sum per second of elapsed; 0 when elapsed is not positive.
func (c *CounterSink) Rate(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return c.Sum / elapsed.Seconds()
}

// GaugeSink keeps the last value and the extremes.
type GaugeSink struct {
	Value, Min, Max float64
	N               int64
	// Time is the sample time of Value, so that gauges merged from several instances keep the
	// latest value (MergeDelta).
	Time time.Time
}

// Add implements Sink.
func (g *GaugeSink) Add(s Sample) {
	if !finite(s.Value) {
		return
	}
	g.Value, g.Time = s.Value, s.Time
	if g.N == 0 || s.Value < g.Min {
		g.Min = s.Value
	}
	if g.N == 0 || s.Value > g.Max {
		g.Max = s.Value
	}
	g.N++
}

// IsEmpty implements Sink.
func (g *GaugeSink) IsEmpty() bool { return g.N == 0 }

// Clone implements Sink.
func (g *GaugeSink) Clone() Sink { cp := *g; return &cp }

// RateSink counts non-zero values among all values.
type RateSink struct {
	Trues, Total int64
}

// Add implements Sink.
func (r *RateSink) Add(s Sample) {
	if !finite(s.Value) {
		return
	}
	if s.Value != 0 {
		r.Trues++
	}
	r.Total++
}

// IsEmpty implements Sink.
func (r *RateSink) IsEmpty() bool { return r.Total == 0 }

// Clone implements Sink.
func (r *RateSink) Clone() Sink { cp := *r; return &cp }

// Rate is Trues/Total, and false when there is no sample: k6 then has no value at all, so a
// threshold on it passes (docs/k6-compat.md#expressions).
func (r *RateSink) Rate() (float64, bool) {
	if r.Total == 0 {
		return 0, false
	}
	return float64(r.Trues) / float64(r.Total), true
}
