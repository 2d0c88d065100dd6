package freon

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestExactQuantilesAcrossSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var sets [][]int64
	var all []int64
	for range 5 {
		var s []int64
		for range r.IntN(200) {
			v := r.Int64N(1_000_000) + 1
			s = append(s, v)
			all = append(all, v)
		}
		sets = append(sets, s)
	}
	slices.Sort(all)
	sortAll(sets)
	n := int64(len(all))
	got := exactQuantiles(sets, n, all[0], all[n-1])
	for i, q := range reportQuantiles {
		want := uniformQuantile(q, n, func(rank int64) int64 { return all[rank] })
		if got[i] != want {
			t.Errorf("q%v = %v, want %v", q, got[i], want)
		}
	}
	for rank := range n {
		if v := kth(sets, rank, all[0], all[n-1]); v != all[rank] {
			t.Fatalf("kth(%d) = %d, want %d", rank, v, all[rank])
		}
	}
}

// Dropwizard's UniformSnapshot definition, checked by hand on 1..10.
func TestUniformQuantile(t *testing.T) {
	vals := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	at := func(rank int64) int64 { return vals[rank] }
	for q, want := range map[float64]float64{0.5: 5.5, 0.75: 8.25, 0.95: 10, 0.05: 1, 0.1: 1.1} {
		if got := uniformQuantile(q, 10, at); math.Abs(got-want) > 1e-12 {
			t.Errorf("q%v = %v, want %v", q, got, want)
		}
	}
}

func TestMomentsMerge(t *testing.T) {
	var a, b, all moments
	for i := int64(1); i <= 100; i++ {
		all.add(i * i)
		if i%3 == 0 {
			a.add(i * i)
		} else {
			b.add(i * i)
		}
	}
	a.merge(b)
	sa, sall := a.stats(), all.stats()
	if sa.Count != sall.Count || sa.Min != 1 || sa.Max != 10000 || sa.Mean != sall.Mean ||
		math.Abs(sa.StdDev-sall.StdDev) > 1e-9 {
		t.Errorf("merged %+v, direct %+v", sa, sall)
	}
}

// Past its share of the cap a worker moves to the histogram; the result is approximate
// but within 3 significant digits, and count/min/max/mean stay exact.
func TestRecorderFallback(t *testing.T) {
	recs := []*recorder{newRecorder(100), newRecorder(100)}
	for i := int64(1); i <= 1000; i++ {
		recs[i%2].record(time.Duration(i)*time.Microsecond, 0)
	}
	stats, perTick, _ := mergeRecorders(recs)
	if stats.Exact || stats.Count != 1000 || stats.Min != 1000 || stats.Max != 1_000_000 || stats.Mean != 500500 {
		t.Fatalf("stats %+v", stats)
	}
	if math.Abs(stats.Median-500_500)/500_500 > 0.002 || math.Abs(stats.P999-999_000)/999_000 > 0.002 {
		t.Errorf("median %v, p99.9 %v", stats.Median, stats.P999)
	}
	if len(perTick) != 1 || perTick[0] != 1000 {
		t.Errorf("perTick %v", perTick)
	}
}
