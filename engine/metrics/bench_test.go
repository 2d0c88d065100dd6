package metrics

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkTrendAdd measures the hot path of a Trend in histogram mode. allocs/op must be 0.
func BenchmarkTrendAdd(b *testing.B) {
	tr := NewTrendSink(Time)
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 4096)
	for i := range vals {
		vals[i] = rng.ExpFloat64()
	}
	for _, v := range vals {
		tr.Add(Sample{Value: v})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tr.Add(Sample{Value: vals[i&4095]})
	}
}

// BenchmarkTrendMemoryFlat adds b.N samples to a fresh sink and reports the bytes it allocated
// in total (sink-B): the same ~280 KB for 1M and 20M samples, so memory does not grow with the
// number of samples. Compare -benchtime=1000000x with -benchtime=20000000x.
func BenchmarkTrendMemoryFlat(b *testing.B) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr := NewTrendSink(Time)
	for i := 0; b.Loop(); i++ {
		tr.Add(Sample{Value: float64(i%100000) / 1000})
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(tr.Count()), "samples")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc), "sink-B")
}

// BenchmarkTrendPercentile is the cost of one p(N) on a full histogram (threshold evaluation).
func BenchmarkTrendPercentile(b *testing.B) {
	tr := NewTrendSink(Time)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 1_000_000; i++ {
		tr.Add(Sample{Value: rng.ExpFloat64() * 3})
	}
	b.ReportAllocs()
	for b.Loop() {
		tr.Percentile(99)
	}
}
