package quantile

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// Part is the values one writer added over an interval, in a form that can travel between
// processes and be merged into a Store with exactly the effect of adding the values there
// (AddPart): the values themselves while few, histogram buckets beyond. Count, Sum, Min and Max
// are exact either way.
type Part struct {
	Count    int64
	Sum      float64
	Min, Max float64
	Clamped  int64     // values outside the histogram's range (counted in Buckets at the bound)
	Exact    []float64 // the values, when Buckets is empty
	Buckets  []Bucket  // ascending by Value; nil while the values are kept
}

// Bucket is Count values that share a histogram bucket; Value is the bucket's lowest value in
// histogram units (the value × Scale), so recording it lands in the same bucket.
type Bucket struct {
	Value, Count int64
}

// Delta collects the values of one interval for a Part: the values while at most limit, then
// their histogram buckets, so its memory is bounded by the buckets hit rather than the values.
// The zero value is unusable; use NewDelta. It is not safe for concurrent use.
type Delta struct {
	scale   float64
	limit   int
	p       Part
	buckets map[int64]int64 // nil while p.Exact holds the values
}

// NewDelta returns an empty delta for a Store of the same scale; limit should be the Store's.
func NewDelta(limit int, scale float64) *Delta {
	if scale <= 0 {
		scale = 1
	}
	return &Delta{scale: scale, limit: limit}
}

// Add adds one value. NaN and infinities are the caller's to filter.
func (d *Delta) Add(v float64) {
	p := &d.p
	if p.Count == 0 || v < p.Min {
		p.Min = v
	}
	if p.Count == 0 || v > p.Max {
		p.Max = v
	}
	p.Count++
	p.Sum += v
	if d.buckets == nil && (d.limit <= 0 || len(p.Exact) < d.limit) {
		p.Exact = append(p.Exact, v)
		return
	}
	if d.buckets == nil {
		d.buckets = make(map[int64]int64, 2*len(p.Exact))
		for _, x := range p.Exact {
			d.bucket(x)
		}
		p.Exact = nil
	}
	d.bucket(v)
}

func (d *Delta) bucket(v float64) {
	x, clamped := toUnits(v, d.scale)
	if clamped {
		d.p.Clamped++
	}
	d.buckets[lowestEquivalent(x)]++
}

// Empty reports whether no value was added since the last Take.
func (d *Delta) Empty() bool { return d.p.Count == 0 }

// Take returns the values added since the last Take and starts a new interval.
func (d *Delta) Take() Part {
	p := d.p
	if d.buckets != nil {
		p.Buckets = make([]Bucket, 0, len(d.buckets))
		for v, n := range d.buckets {
			p.Buckets = append(p.Buckets, Bucket{Value: v, Count: n})
		}
		slices.SortFunc(p.Buckets, func(a, b Bucket) int { return cmp.Compare(a.Value, b.Value) })
		d.buckets = nil
	}
	d.p = Part{}
	return p
}

// Reuse hands the delta the Exact slice of a Part it made whose values have been merged and are
// no longer read, to hold the next interval's values: a producer that takes a Part every interval
// then stops allocating one. It does nothing once the delta holds values or has moved to buckets.
func (d *Delta) Reuse(exact []float64) {
	if d.p.Count == 0 && d.buckets == nil && d.p.Exact == nil {
		d.p.Exact = exact[:0]
	}
}

// toUnits is the histogram value of v: v×scale rounded, clamped to 0..Highest.
func toUnits(v, scale float64) (x int64, clamped bool) {
	f := math.Round(v * scale)
	if f < 0 || f > Highest {
		return int64(min(max(f, 0), Highest)), true
	}
	return int64(f), false
}

// lowestEquivalent is the lowest value of x's histogram bucket: below 2048 buckets are one unit
// wide, above a value with b significant bits sits in a bucket 2^(b−11) wide (the library's
// geometry for lowest=1 and 3 significant digits, as bucketMid).
func lowestEquivalent(x int64) int64 {
	b := bits.Len64(uint64(x))
	if b <= subBucketBits {
		return x
	}
	shift := b - subBucketBits
	return x >> shift << shift
}

// AddPart adds a Part's values, with the same result as adding each value with Add: kept
// exactly while the store and the part are exact and fit, else in the histogram. The part must
// come from a Delta of the store's scale.
func (s *Store) AddPart(p Part) {
	if p.Count <= 0 {
		return
	}
	s.addStats(p.Count, p.Sum, p.Min, p.Max)
	fits := s.limit <= 0 || len(s.exact)+len(p.Exact) <= s.limit
	if s.hist == nil && p.Buckets == nil && fits {
		s.exact = append(s.exact, p.Exact...)
		s.sorted = false
		return
	}
	if s.hist == nil {
		s.toHistogram()
	}
	for _, v := range p.Exact {
		s.record(v)
	}
	s.clamped += p.Clamped
	for _, b := range p.Buckets {
		_ = s.hist.RecordValues(min(max(b.Value, 0), Highest), b.Count)
	}
}

// Merge adds o's values to s, with the same result as adding each with Add (the kept values
// while both are exact and fit, else the histogram). o must use s's scale; it is not changed.
func (s *Store) Merge(o *Store) {
	if o.hist == nil {
		s.AddPart(Part{Count: o.count, Sum: o.sum, Min: o.min, Max: o.max, Exact: o.exact})
		return
	}
	if o.count == 0 {
		return
	}
	s.addStats(o.count, o.sum, o.min, o.max)
	s.clamped += o.clamped
	if s.hist == nil {
		s.toHistogram()
	}
	s.hist.Merge(o.hist)
}

// addStats adds the exact figures of n more values: their sum, min and max.
func (s *Store) addStats(n int64, sum, lo, hi float64) {
	if s.count == 0 || lo < s.min {
		s.min = lo
	}
	if s.count == 0 || hi > s.max {
		s.max = hi
	}
	s.count += n
	s.sum += sum
}
