package quantile

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPartsMergeLikeOneStore: values split between writers, shipped as Parts at random
// intervals and merged, read exactly as the same values added to one store: every rank is the
// same, also once the histogram is in use and with values out of its range.
func TestPartsMergeLikeOneStore(t *testing.T) {
	for _, n := range []int{0, 1, 500, 1024, 1025, 3000, 200_000} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		one := New(1024, 1e6)
		merged := New(1024, 1e6)
		writers := []*Delta{NewDelta(1024, 1e6), NewDelta(1024, 1e6), NewDelta(1024, 1e6)}
		for i := range n {
			v := math.Exp(rng.NormFloat64()) // a latency-like spread in ms
			switch i % 97 {
			case 0:
				v = -1 // below the range
			case 1:
				v = 5e9 // above it (ms)
			}
			one.Add(v)
			w := writers[rng.IntN(len(writers))]
			w.Add(v)
			if rng.IntN(400) == 0 {
				merged.AddPart(w.Take())
			}
		}
		for _, w := range writers {
			merged.AddPart(w.Take())
			if !w.Empty() {
				t.Fatal("Take must empty the delta")
			}
		}
		if one.Count() != merged.Count() || one.Min() != merged.Min() || one.Max() != merged.Max() ||
			one.Clamped() != merged.Clamped() || one.Exact() != merged.Exact() ||
			math.Abs(one.Sum()-merged.Sum()) > 1e-9*math.Abs(one.Sum()) {
			t.Fatalf("n=%d: one store count %d min %v max %v clamped %d exact %v sum %v; merged %d %v %v %d %v %v", n,
				one.Count(), one.Min(), one.Max(), one.Clamped(), one.Exact(), one.Sum(),
				merged.Count(), merged.Min(), merged.Max(), merged.Clamped(), merged.Exact(), merged.Sum())
		}
		a, b := one.Clone(), merged.Clone()
		for r := int64(1); r <= a.Count(); r += 1 + a.Count()/1000 {
			if x, y := a.Rank(r), b.Rank(r); x != y {
				t.Fatalf("n=%d: rank %d is %v in one store, %v merged", n, r, x, y)
			}
		}
	}
}

func TestLowestEquivalent(t *testing.T) {
	for _, c := range [][2]int64{{0, 0}, {2047, 2047}, {2048, 2048}, {2049, 2048}, {4095, 4094}, {4096, 4096}, {1<<40 + 12345, 1<<40 + 12345>>29<<29}} {
		if got := lowestEquivalent(c[0]); got != c[1] {
			t.Errorf("lowestEquivalent(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}

// TestMergeLikeOneStore: two stores merged read as one store of all their values, whether each
// is exact or has moved to its histogram, and whether the sum fits the exact limit.
func TestMergeLikeOneStore(t *testing.T) {
	for _, tc := range []struct{ a, b int }{{0, 0}, {0, 10}, {10, 0}, {300, 400}, {800, 800}, {5000, 30}, {30, 5000}, {4000, 6000}} {
		rng := rand.New(rand.NewPCG(uint64(tc.a), uint64(tc.b)))
		one, a, b := New(1024, 1e6), New(1024, 1e6), New(1024, 1e6)
		for i := range tc.a + tc.b {
			v := math.Exp(rng.NormFloat64())
			if i%97 == 1 {
				v = 5e9 // above the histogram's range (ms)
			}
			one.Add(v)
			if i < tc.a {
				a.Add(v)
			} else {
				b.Add(v)
			}
		}
		a.Merge(b)
		if one.Count() != a.Count() || one.Min() != a.Min() || one.Max() != a.Max() || one.Clamped() != a.Clamped() ||
			one.Exact() != a.Exact() || math.Abs(one.Sum()-a.Sum()) > 1e-9*math.Abs(one.Sum()) {
			t.Fatalf("%d+%d: one store count %d exact %v clamped %d; merged %d %v %d", tc.a, tc.b,
				one.Count(), one.Exact(), one.Clamped(), a.Count(), a.Exact(), a.Clamped())
		}
		x, y := one.Clone(), a.Clone()
		for r := int64(1); r <= x.Count(); r += 1 + x.Count()/500 {
			if x.Rank(r) != y.Rank(r) {
				t.Fatalf("%d+%d: rank %d is %v in one store, %v merged", tc.a, tc.b, r, x.Rank(r), y.Rank(r))
			}
		}
	}
}
