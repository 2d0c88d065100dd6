package freon

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Exact mode across workers: the merged quantiles equal Dropwizard's rule on all samples.
func TestExactQuantilesAcrossWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var recs []*recorder
	var all []int64
	for range 5 {
		rec := newRecorder(0, 1)
		for range r.IntN(200) {
			v := r.Int64N(1_000_000) + 1
			rec.record(time.Duration(v), 0)
			all = append(all, v)
		}
		recs = append(recs, rec)
	}
	slices.Sort(all)
	stats, _, _ := mergeRecorders(recs)
	n := int64(len(all))
	want := make([]float64, len(reportQuantiles))
	for i, q := range reportQuantiles {
		want[i] = uniformQuantile(q, n, func(rank int64) float64 { return float64(all[rank-1]) })
	}
	got := []float64{stats.Median, stats.P75, stats.P95, stats.P98, stats.P99, stats.P999}
	if !stats.Exact || !slices.Equal(got, want) {
		t.Errorf("quantiles %v, want %v (exact %v)", got, want, stats.Exact)
	}
}

// Dropwizard's UniformSnapshot definition, checked by hand on 1..10.
func TestUniformQuantile(t *testing.T) {
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	at := func(rank int64) float64 { return vals[rank-1] }
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
	recs := []*recorder{newRecorder(100, 1), newRecorder(100, 1)}
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
