// Package quantile is the one sample store behind every percentile dnecho reports: freon's
// report (freon package) and the engine's Trend metrics (engine/metrics). A Store keeps values
// exactly up to a limit and then moves to an HDR histogram with 3 significant digits whose size is
// fixed (about 250 KB), so memory stays flat however long a run is. Count, sum, min and max are
// always exact.
//
// A Store answers one question: the value of a given rank (Rank, 1-based), exact while the
// values are kept, a histogram bucket's midpoint afterwards. Each reader keeps its own
// percentile rule on top of it — k6's (n−1)·p interpolation for Trends, Dropwizard's (n+1)·q for
// freon — so the numbers match what users of those tools expect.
//
// Histogram values are integers v×Scale (the caller picks the unit: 1e6 turns milliseconds into
// nanoseconds), recorded between 0 and Highest; values outside are recorded at the nearest bound
// and counted by Clamped. With 3 significant digits a bucket spans at most 1/1024 of its lower
// bound, so a midpoint is within 1/2048 (≈0.05%) of any value in its bucket, plus the rounding
// to the unit (±0.5).
package quantile

import (
	"math"
	"math/bits"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry shared by every Store.
const (
	// Highest is the largest value the histogram places: one hour in nanoseconds.
	Highest = 3_600_000_000_000
	sigFigs = 3
	// With 3 significant digits sub-buckets hold 2048 unit-wide values; every power of two above
	// doubles the bucket width (see bucketMid).
	subBucketBits = 11
)

// Store is a sample store for one writer. The zero value is unusable; use New.
type Store struct {
	scale    float64
	limit    int // exact values kept before the histogram; <= 0: no limit
	count    int64
	sum      float64
	min, max float64
	clamped  int64
	exact    []float64 // nil once hist is used
	sorted   bool
	hist     *hdr.Histogram
}

// New returns an empty store that keeps limit values exactly (no limit when limit <= 0) and
// records v×scale in its histogram afterwards.
func New(limit int, scale float64) *Store {
	if scale <= 0 {
		scale = 1
	}
	return &Store{scale: scale, limit: limit, sorted: true}
}

// Add stores one value. NaN and infinities are the caller's to filter.
func (s *Store) Add(v float64) {
	if s.count == 0 || v < s.min {
		s.min = v
	}
	if s.count == 0 || v > s.max {
		s.max = v
	}
	s.count++
	s.sum += v
	if s.hist != nil {
		s.record(v)
		return
	}
	if s.limit <= 0 || len(s.exact) < s.limit {
		s.exact = append(s.exact, v)
		s.sorted = false
		return
	}
	s.toHistogram()
	s.record(v)
}

// toHistogram moves the exact values into a new histogram.
func (s *Store) toHistogram() {
	s.hist = hdr.New(1, Highest, sigFigs)
	for _, x := range s.exact {
		s.record(x)
	}
	s.exact = nil
}

func (s *Store) record(v float64) {
	x := math.Round(v * s.scale)
	if x < 0 || x > Highest {
		x = min(max(x, 0), Highest)
		s.clamped++
	}
	_ = s.hist.RecordValue(int64(x)) // cannot fail: x is within [0, Highest]
}

// Count is the number of values added.
func (s *Store) Count() int64 { return s.count }

// Sum is the exact sum of the values.
func (s *Store) Sum() float64 { return s.sum }

// Min is the smallest value, 0 when empty.
func (s *Store) Min() float64 { return s.min }

// Max is the largest value, 0 when empty.
func (s *Store) Max() float64 { return s.max }

// Clamped counts values outside the histogram's range (placed at the bound; min, max and sum
// still see the true value).
func (s *Store) Clamped() int64 { return s.clamped }

// Exact reports whether every value is still kept (ranks are exact).
func (s *Store) Exact() bool { return s.hist == nil }

// Clone returns an independent copy whose exact values are sorted, so reading ranks from it
// never writes and several goroutines may read one clone.
func (s *Store) Clone() *Store {
	cp := *s
	if s.exact != nil {
		cp.exact = slices.Clone(s.exact)
		if !cp.sorted {
			slices.Sort(cp.exact)
			cp.sorted = true
		}
	}
	if s.hist != nil {
		cp.hist = s.hist.Clone()
	}
	return &cp
}

// Rank returns the r-th smallest value (1-based, clamped to 1..Count); 0 when empty. On a store
// that is not a Clone it may sort the kept values, so it needs the same exclusive access as Add.
func (s *Store) Rank(r int64) float64 {
	if s.count == 0 {
		return 0
	}
	r = min(max(r, 1), s.count)
	if s.hist == nil {
		if !s.sorted {
			slices.Sort(s.exact)
			s.sorted = true
		}
		return s.exact[r-1]
	}
	return s.histRank(s.hist, r)
}

// histRank reads rank r from h: the exact min and max at the ends, a bucket midpoint between.
func (s *Store) histRank(h *hdr.Histogram, r int64) float64 {
	n := h.TotalCount()
	switch r {
	case 1:
		return s.min
	case n:
		return s.max
	}
	// ValueAtPercentilesSlice resolves rank round(q/100·n); q = 100·r/n selects rank r exactly.
	hv := h.ValueAtPercentilesSlice([]float64{100 * float64(r) / float64(n)})[0]
	v := float64(bucketMid(hv)) / s.scale
	return math.Min(math.Max(v, s.min), s.max)
}

// bucketMid maps the highest value of a histogram bucket to the bucket's midpoint. Below 2048
// the buckets are one unit wide; a value with b significant bits (b > 11) sits in a bucket
// 2^(b−11) wide. This mirrors the library's geometry for lowest=1 and 3 significant digits.
func bucketMid(highest int64) int64 {
	b := bits.Len64(uint64(highest))
	if b <= subBucketBits {
		return highest
	}
	width := int64(1) << (b - subBucketBits)
	return highest - width + 1 + width/2
}
