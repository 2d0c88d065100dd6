package metrics

import (
	"math"

	"github.com/dnecho/dnecho/internal/quantile"
)

// Trend storage. k6 keeps every sample of a Trend and sorts them for percentiles, so its memory
// grows with the run (k6 issues #763, #2367, #4670). A TrendSink instead keeps the first
// TrendExactSamples values verbatim, which makes small runs give exactly k6's numbers, and then
// moves to an HDR histogram with 3 significant digits whose size is fixed — the store freon's
// report uses too (internal/quantile).
//
// Histogram values are integers v×scale, the unit depending on what the metric contains:
//
//	time     ms → ns (scale 1e6)        range 1 ns .. 1 h
//	data     bytes (scale 1)            range 1 B .. 3.6 TB
//	default  thousandths (scale 1e3)    range 0.001 .. 3.6e9
//
// Values outside the range are recorded at the nearest bound and counted (Clamped). Count, sum,
// min, max and avg are always exact; a histogram percentile is within 0.05% (stated as ≤ 0.1%).

// TrendExactSamples is how many values a TrendSink keeps verbatim before using its histogram.
const TrendExactSamples = 1024

// TrendScale is the histogram unit of a trend's values: histogram value = value × scale.
func TrendScale(contains ValueType) float64 {
	switch contains {
	case Time:
		return 1e6
	case Data:
		return 1
	}
	return 1e3
}

// TrendSink aggregates a Trend: exact count, sum, min and max, and k6's percentiles.
// NewTrendSink picks the unit; the zero value is a sink for default (unitless) values.
type TrendSink struct {
	s    quantile.Store
	init bool // s was made by quantile.New
}

// NewTrendSink returns an empty trend sink whose histogram unit suits contains.
func NewTrendSink(contains ValueType) *TrendSink {
	return &TrendSink{s: *quantile.New(TrendExactSamples, TrendScale(contains)), init: true}
}

func (t *TrendSink) store() *quantile.Store {
	if !t.init {
		t.s, t.init = *quantile.New(TrendExactSamples, TrendScale(Default)), true
	}
	return &t.s
}

// Add implements Sink.
func (t *TrendSink) Add(s Sample) {
	if finite(s.Value) {
		t.store().Add(s.Value)
	}
}

// IsEmpty implements Sink.
func (t *TrendSink) IsEmpty() bool { return t.store().Count() == 0 }

// Clone implements Sink. The copy's exact values are sorted, so reading percentiles from it never
// writes, and several goroutines may read one clone.
func (t *TrendSink) Clone() Sink { return &TrendSink{s: *t.store().Clone(), init: true} }

// Count is the number of values added.
func (t *TrendSink) Count() int64 { return t.store().Count() }

// Sum is the exact sum of the values.
func (t *TrendSink) Sum() float64 { return t.store().Sum() }

// Min is the smallest value, 0 when empty.
func (t *TrendSink) Min() float64 { return t.store().Min() }

// Max is the largest value, 0 when empty.
func (t *TrendSink) Max() float64 { return t.store().Max() }

// Avg is the exact mean, 0 when empty.
func (t *TrendSink) Avg() float64 {
	if t.Count() == 0 {
		return 0
	}
	return t.Sum() / float64(t.Count())
}

// Med is the 50th percentile.
func (t *TrendSink) Med() float64 { return t.Percentile(50) }

// Clamped is how many values fell outside the histogram range (their percentile placement is
// at the range bound; min, max, sum and avg still see the true value).
func (t *TrendSink) Clamped() int64 { return t.store().Clamped() }

// Exact reports whether percentiles are still computed from every value (as k6 does).
func (t *TrendSink) Exact() bool { return t.store().Exact() }

// Merge adds o's values, as adding each with Add would; o must contain the same kind of values.
func (t *TrendSink) Merge(o *TrendSink) { t.store().Merge(o.store()) }

// Rank returns the r-th smallest value (1-based, clamped to 1..Count), exact while the values are
// kept, a histogram bucket's midpoint afterwards; 0 when empty. On a sink that is not a Clone it
// may sort the retained values, so it needs the same exclusive access as Add.
func (t *TrendSink) Rank(r int64) float64 { return t.store().Rank(r) }

// Percentile returns p(N) with k6's definition: position (N/100)·(n−1) in the sorted values,
// linearly interpolated between the two neighbours. N is clamped to [0, 100]; an empty sink gives
// 0. On a sink that is not a Clone it may sort the retained values, so it needs the same exclusive
// access as Add.
func (t *TrendSink) Percentile(p float64) float64 {
	s := t.store()
	return Percentile(s.Count(), s.Rank, p)
}

// Percentile is p(N) of n values with k6's definition (TrendSink.Percentile), the r-th smallest
// (1-based) being rank(r); 0 without values.
func Percentile(n int64, rank func(int64) float64, p float64) float64 {
	if n == 0 {
		return 0
	}
	if !(p > 0) { // also NaN
		p = 0
	} else if p > 100 {
		p = 100
	}
	pos := p / 100 * float64(n-1)
	lo := math.Floor(pos)
	r := int64(lo) + 1 // 1-based rank of the lower neighbour
	a := rank(r)
	if r >= n {
		return a
	}
	return a + (pos-lo)*(rank(r+1)-a)
}
