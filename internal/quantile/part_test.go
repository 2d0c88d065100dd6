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
