package quantile

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestRankExactAndHistogram(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		exact bool
	}{{"exact", 0, true}, {"histogram", 100, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.limit, 1)
			rng := rand.New(rand.NewPCG(1, 2))
			var all []float64
			for range 5000 {
				v := float64(1000 + rng.IntN(1_000_000))
				all = append(all, v)
				s.Add(v)
			}
			slices.Sort(all)
			if s.Exact() != tc.exact || s.Count() != 5000 || s.Min() != all[0] || s.Max() != all[len(all)-1] {
				t.Fatalf("exact=%v count=%d min=%v max=%v", s.Exact(), s.Count(), s.Min(), s.Max())
			}
			for _, r := range []int64{1, 2, 50, 2500, 4999, 5000} {
				got, want := s.Rank(r), all[r-1]
				if tc.exact && got != want {
					t.Errorf("Rank(%d) = %v, want %v", r, got, want)
				}
				if !tc.exact && math.Abs(got-want) > want/1000 {
					t.Errorf("Rank(%d) = %v, want %v within 0.1%%", r, got, want)
				}
			}
		})
	}
}

func TestClampedAndScale(t *testing.T) {
	s := New(1, 1e6) // ms recorded as ns
	s.Add(-1)
	s.Add(2)
	s.Add(4e6) // beyond an hour
	if s.Clamped() != 2 || s.Min() != -1 || s.Max() != 4e6 || s.Sum() != 4e6+1 {
		t.Fatalf("clamped=%d min=%v max=%v sum=%v", s.Clamped(), s.Min(), s.Max(), s.Sum())
	}
	if got := s.Rank(2); math.Abs(got-2) > 0.002 {
		t.Fatalf("Rank(2) = %v, want 2 (ms, from ns buckets)", got)
	}
}

func TestUnionEqualsOneStore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, limit := range []int{0, 64} {
		one := New(0, 1)
		parts := []*Store{New(limit, 1), New(limit, 1), New(limit, 1), nil}
		var all []float64
		for i := range 3000 {
			v := rng.NormFloat64() * 1000 // negative values too
			all = append(all, v)
			one.Add(v)
			parts[i%3].Add(v)
		}
		slices.Sort(all)
		u := Merge(parts...)
		if u.Count() != 3000 || u.Min() != all[0] || u.Max() != all[2999] || u.Exact() != (limit == 0) {
			t.Fatalf("limit %d: count=%d min=%v max=%v exact=%v", limit, u.Count(), u.Min(), u.Max(), u.Exact())
		}
		for _, r := range []int64{1, 7, 1500, 2999, 3000} {
			got := u.Rank(r)
			if limit == 0 && got != all[r-1] {
				t.Errorf("exact Rank(%d) = %v, want %v", r, got, all[r-1])
			}
		}
	}
}

func TestCloneIsIndependent(t *testing.T) {
	s := New(0, 1)
	for _, v := range []float64{3, 1, 2} {
		s.Add(v)
	}
	c := s.Clone()
	s.Add(0)
	if c.Count() != 3 || c.Rank(1) != 1 || s.Rank(1) != 0 {
		t.Fatalf("clone count=%d rank1=%v, original rank1=%v", c.Count(), c.Rank(1), s.Rank(1))
	}
}

func TestKeyOrder(t *testing.T) {
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for i := 1; i < len(vals); i++ {
		if key(vals[i-1]) >= key(vals[i]) {
			t.Errorf("key(%v) >= key(%v)", vals[i-1], vals[i])
		}
		if fromKey(key(vals[i])) != vals[i] {
			t.Errorf("fromKey(key(%v)) = %v", vals[i], fromKey(key(vals[i])))
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	s := New(1024, 1e6)
	for i := range b.N {
		s.Add(float64(i % 5000))
	}
}

// bucketMid must agree with the library's geometry: the midpoint is in the same bucket as every
// value recorded there.
func TestBucketMidMatchesLibrary(t *testing.T) {
	h := hdr.New(1, Highest, sigFigs)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		v := int64(math.Exp(rng.Float64() * math.Log(Highest)))
		h.Reset()
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
		highest := h.ValueAtPercentile(100)
		mid := bucketMid(highest)
		if !h.ValuesAreEquivalent(mid, v) || !h.ValuesAreEquivalent(highest, v) {
			t.Fatalf("v %d highest %d mid %d not in one bucket", v, highest, mid)
		}
		if v > 0 && math.Abs(float64(mid-v))/float64(v) > 1.0/2048 {
			t.Fatalf("v %d mid %d: error above 1/2048", v, mid)
		}
	}
}
