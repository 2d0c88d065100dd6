package quantile

import (
	"math"
	"slices"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Union reads several stores (per-worker stores, merged at the end of a run) as one, without
// copying their kept values: a run that kept 16 M exact latencies must not need a second 128 MB
// to report them. Build it with Merge once the writers have stopped.
type Union struct {
	ref      *Store // scale and the min/max clamp of histogram ranks
	exact    [][]float64
	hist     *hdr.Histogram // nil while every part is exact
	count    int64
	sum      float64
	min, max float64
	clamped  int64
}

// Merge returns the union of stores, which must all use the same scale and must not change
// afterwards. Exact parts are sorted in place. When any part has moved to its histogram, the
// union is a histogram of everything.
func Merge(stores ...*Store) *Union {
	u := &Union{ref: New(0, 1)}
	first := true
	for _, s := range stores {
		if s == nil {
			continue
		}
		u.ref.scale = s.scale
		if s.count > 0 {
			if first || s.min < u.min {
				u.min = s.min
			}
			if first || s.max > u.max {
				u.max = s.max
			}
			first = false
		}
		u.count += s.count
		u.sum += s.sum
		u.clamped += s.clamped
		if s.hist != nil && u.hist == nil {
			u.hist = hdr.New(1, Highest, sigFigs)
		}
	}
	u.ref.min, u.ref.max, u.ref.count = u.min, u.max, u.count
	for _, s := range stores {
		if s == nil {
			continue
		}
		switch {
		case u.hist == nil:
			if !s.sorted {
				slices.Sort(s.exact)
				s.sorted = true
			}
			u.exact = append(u.exact, s.exact)
		case s.hist != nil:
			u.hist.Merge(s.hist)
		default:
			for _, v := range s.exact {
				x := math.Round(v * s.scale)
				_ = u.hist.RecordValue(int64(min(max(x, 0), Highest)))
			}
		}
	}
	return u
}

// Count is the number of values in every part.
func (u *Union) Count() int64 { return u.count }

// Sum is the exact sum.
func (u *Union) Sum() float64 { return u.sum }

// Min is the smallest value, 0 when empty.
func (u *Union) Min() float64 { return u.min }

// Max is the largest value, 0 when empty.
func (u *Union) Max() float64 { return u.max }

// Clamped counts values outside the histogram's range.
func (u *Union) Clamped() int64 { return u.clamped }

// Exact reports whether ranks are exact.
func (u *Union) Exact() bool { return u.hist == nil }

// Rank returns the r-th smallest value (1-based, clamped to 1..Count); 0 when empty.
func (u *Union) Rank(r int64) float64 {
	if u.count == 0 {
		return 0
	}
	r = min(max(r, 1), u.count)
	if u.hist != nil {
		return u.ref.histRank(u.hist, r)
	}
	if len(u.exact) == 1 {
		return u.exact[0][r-1]
	}
	return kth(u.exact, r, u.min, u.max)
}

// kth returns the r-th smallest value (1-based) across sorted slices by bisecting the ordered
// bit patterns of float64 between the smallest and largest value (never a NaN pattern): at most
// 64 rounds of one binary search per slice, no allocation.
func kth(sorted [][]float64, r int64, lo64, hi64 float64) float64 {
	lo, hi := key(lo64), key(hi64)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if countAtMost(sorted, fromKey(mid)) >= r {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fromKey(lo)
}

func countAtMost(sorted [][]float64, v float64) int64 {
	var c int64
	for _, s := range sorted {
		c += int64(sort.Search(len(s), func(i int) bool { return s[i] > v }))
	}
	return c
}

// key maps a float64 to a uint64 with the same order (negative values below positive ones).
func key(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// fromKey inverts key.
func fromKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
