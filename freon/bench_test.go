package freon

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRunnerOverhead measures what the runner itself costs per task (counter, clock
// reads, recording) with a no-op task on 32 workers. It reports ns per task; it asserts nothing.
func BenchmarkRunnerOverhead(b *testing.B) {
	b.ReportAllocs()
	r, err := newRunner(runConfig{Threads: 32, NumberOfTests: int64(max(b.N, 1))},
		func(context.Context, int) Outcome { return Outcome{Latency: time.Microsecond} })
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	res := r.Run(context.Background())
	b.StopTimer()
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(res.Latency.Count), "ns/task")
}
