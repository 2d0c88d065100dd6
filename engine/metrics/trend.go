package metrics

import (
	"math"
	"math/bits"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Trend storage. k6 keeps every sample of a Trend and sorts them for percentiles, so its memory
// grows with the run (k6 issues #763, #2367, #4670). A TrendSink instead keeps the first
// TrendExactSamples values verbatim, which makes small runs give exactly k6's numbers, and then
// moves to an HDR histogram with 3 significant digits whose size is fixed (about 270 KB).
//
// Histogram values are integers v×scale, the unit depending on what the metric contains:
//
//	time     ms → ns (scale 1e6)        range 1 ns .. 1 h
//	data     bytes (scale 1)            range 1 B .. 3.6 TB
//	default  thousandths (scale 1e3)    range 0.001 .. 3.6e9
//
// Values outside the range are recorded at the nearest bound and counted (Clamped). Count, sum,
// min, max and avg are always exact. A histogram percentile is the midpoint of the bucket holding
// the sample of that rank; with 3 significant digits a bucket spans at most 1/1024 of its lower
// bound, so the relative error is at most 1/2048 (≈0.05%, stated as ≤ 0.1%), plus the rounding to
// the unit above (±0.5 ns for time).
const (
	// TrendExactSamples is how many values a TrendSink keeps verbatim before using its histogram.
	TrendExactSamples = 1024

	trendHighest = 3_600_000_000_000
	trendSigFigs = 3
	// With 3 significant digits the histogram's sub-buckets hold 2048 unit-wide values; every
	// power of two above that doubles the bucket width (see bucketMid).
	trendSubBucketBits = 11
)

func trendScale(contains ValueType) float64 {
	switch contains {
	case Time:
		return 1e6
	case Data:
		return 1
	}
	return 1e3
}

// TrendSink aggregates a Trend: exact count, sum, min and max, and percentiles (see above). The
// zero value is a sink for default (unitless) values; NewTrendSink picks the unit.
type TrendSink struct {
	scale    float64
	count    int64
	sum      float64
	min, max float64
	clamped  int64
	exact    []float64 // every value while count <= TrendExactSamples, nil afterwards
	sorted   bool      // exact is sorted
	hist     *hdr.Histogram
}

// NewTrendSink returns an empty trend sink whose histogram unit suits contains.
func NewTrendSink(contains ValueType) *TrendSink {
	return &TrendSink{scale: trendScale(contains), sorted: true}
}

// Add implements Sink.
func (t *TrendSink) Add(s Sample) {
	v := s.Value
	if !finite(v) {
		return
	}
	if t.count == 0 || v < t.min {
		t.min = v
	}
	if t.count == 0 || v > t.max {
		t.max = v
	}
	t.count++
	t.sum += v
	if t.hist == nil {
		if len(t.exact) < TrendExactSamples {
			t.exact = append(t.exact, v)
			t.sorted = false
			return
		}
		t.hist = hdr.New(1, trendHighest, trendSigFigs)
		for _, x := range t.exact {
			t.record(x)
		}
		t.exact = nil
	}
	t.record(v)
}

func (t *TrendSink) record(v float64) {
	if t.scale == 0 {
		t.scale = trendScale(Default)
	}
	x := math.Round(v * t.scale)
	switch {
	case x < 0:
		x = 0
		t.clamped++
	case x > trendHighest:
		x = trendHighest
		t.clamped++
	}
	// Cannot fail: x is within [0, trendHighest].
	_ = t.hist.RecordValue(int64(x))
}

// IsEmpty implements Sink.
func (t *TrendSink) IsEmpty() bool { return t.count == 0 }

// Clone implements Sink. The copy's exact values are sorted, so reading percentiles from it never
// writes, and several goroutines may read one clone.
func (t *TrendSink) Clone() Sink {
	cp := *t
	if t.exact != nil {
		cp.exact = slices.Clone(t.exact)
		if !cp.sorted {
			slices.Sort(cp.exact)
			cp.sorted = true
		}
	}
	if t.hist != nil {
		cp.hist = t.hist.Clone()
	}
	return &cp
}

// Count is the number of values added.
func (t *TrendSink) Count() int64 { return t.count }

// Sum is the exact sum of the values.
func (t *TrendSink) Sum() float64 { return t.sum }

// Min is the smallest value, 0 when empty.
func (t *TrendSink) Min() float64 { return t.min }

// Max is the largest value, 0 when empty.
func (t *TrendSink) Max() float64 { return t.max }

// Avg is the exact mean, 0 when empty.
func (t *TrendSink) Avg() float64 {
	if t.count == 0 {
		return 0
	}
	return t.sum / float64(t.count)
}

// Med is the 50th percentile.
func (t *TrendSink) Med() float64 { return t.Percentile(50) }

// Clamped is how many values fell outside the histogram range (their percentile placement is
// at the range bound; min, max, sum and avg still see the true value).
func (t *TrendSink) Clamped() int64 { return t.clamped }

// Exact reports whether percentiles are still computed from every value (as k6 does).
func (t *TrendSink) Exact() bool { return t.hist == nil }

// Percentile returns p(N) with k6's definition: position (N/100)·(n−1) in the sorted values,
// linearly interpolated between the two neighbours. N is clamped to [0, 100]; an empty sink gives 0.
// On a sink that is not a Clone it may sort the retained values, so it needs the same exclusive
// access as Add.
func (t *TrendSink) Percentile(p float64) float64 {
	if t.count == 0 {
		return 0
	}
	if !(p > 0) { // also NaN
		p = 0
	} else if p > 100 {
		p = 100
	}
	if t.hist == nil {
		if !t.sorted {
			slices.Sort(t.exact)
			t.sorted = true
		}
		return interpolate(t.exact, p)
	}
	n := t.hist.TotalCount()
	pos := p / 100 * float64(n-1)
	lo := math.Floor(pos)
	r1 := int64(lo) + 1 // 1-based ranks of the two neighbours
	r2 := min(r1+1, n)
	// ValueAtPercentilesSlice resolves rank round(q/100·n); q = 100·r/n selects rank r exactly.
	hv := t.hist.ValueAtPercentilesSlice([]float64{100 * float64(r1) / float64(n), 100 * float64(r2) / float64(n)})
	a, b := t.rankValue(r1, n, hv[0]), t.rankValue(r2, n, hv[1])
	return a + (pos-lo)*(b-a)
}

func interpolate(sorted []float64, p float64) float64 {
	pos := p / 100 * float64(len(sorted)-1)
	lo := math.Floor(pos)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-lo)*(sorted[i+1]-sorted[i])
}

// rankValue turns the histogram's answer for rank r (the highest value of its bucket) into the
// bucket midpoint in the metric's unit. The first and last ranks are the exact min and max.
func (t *TrendSink) rankValue(r, n, highest int64) float64 {
	switch r {
	case 1:
		return t.min
	case n:
		return t.max
	}
	v := float64(bucketMid(highest)) / t.scale // scale is set: the histogram exists
	return math.Min(math.Max(v, t.min), t.max)
}

// bucketMid maps the highest value of a histogram bucket to the bucket's midpoint. Below 2048 the
// buckets are one unit wide; a value with b significant bits (b > 11) sits in a bucket 2^(b−11)
// wide. This mirrors the library's geometry for lowest=1 and 3 significant digits.
func bucketMid(highest int64) int64 {
	b := bits.Len64(uint64(highest))
	if b <= trendSubBucketBits {
		return highest
	}
	width := int64(1) << (b - trendSubBucketBits)
	return highest - width + 1 + width/2
}
