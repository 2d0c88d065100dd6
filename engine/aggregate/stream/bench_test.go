package stream

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/metrics"
)

// BenchmarkSecondOfState is an instance's cost of one second of state: folding 50 samples into
// each of n series (counters, rates, gauges and trends alike) and encoding the push.
func BenchmarkSecondOfState(b *testing.B) {
	reg := metrics.NewRegistry()
	ms := []*metrics.Metric{
		reg.MustNewMetric("bench_reqs", metrics.Counter, metrics.Default),
		reg.MustNewMetric("bench_failed", metrics.Rate, metrics.Default),
		reg.MustNewMetric("bench_inflight", metrics.Gauge, metrics.Default),
		reg.MustNewMetric("bench_duration", metrics.Trend, metrics.Time),
	}
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("series=%d", n), func(b *testing.B) {
			s := New(Options{Addr: "unused"})
			now := time.Now()
			batch := make([]metrics.Sample, 0, n*50)
			for i := range n {
				tags := metrics.NewTags(map[string]string{"scenario": "default", "server": strconv.Itoa(i / 4)})
				for j := range 50 {
					batch = append(batch, metrics.Sample{Metric: ms[i%4], Tags: tags, Time: now, Value: float64(j%7) + 0.5})
				}
			}
			b.ReportAllocs()
			var size int
			for b.Loop() {
				for i := 0; i < len(batch); i += 500 {
					s.AddSamples(batch[i:min(i+500, len(batch))])
				}
				size = len(wire.AppendState(nil, s.take()))
			}
			b.ReportMetric(float64(size), "bytes/push")
		})
	}
}
