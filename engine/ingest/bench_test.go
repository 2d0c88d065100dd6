package ingest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

// BenchmarkIngest measures samples/s through per-producer Buffers into one Collector, with a
// sub-metric and a per-datanode breakdown, as a run with thresholds and the summary does.
func BenchmarkIngest(b *testing.B) {
	for _, producers := range []int{1, 32} {
		b.Run(fmt.Sprintf("producers=%d", producers), func(b *testing.B) {
			f := newFixture(b, Options{})
			f.c.TrackSubmetric(metrics.Submetric{Name: "dnecho_req_duration{result:SUCCESS}", Parent: f.rtt,
				Tags: metrics.NewTags(map[string]string{"result": "SUCCESS"})})
			f.c.TrackBreakdown("dnecho_req_duration", "datanode")
			tags := make([]*metrics.Tags, 8)
			for i := range tags {
				tags[i] = metrics.NewTags(map[string]string{"datanode": fmt.Sprintf("dn%d", i), "result": "SUCCESS", "scenario": "default"})
			}
			per := b.N/producers + 1
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for p := 0; p < producers; p++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					buf := metrics.NewBuffer(f.c, 0, 0)
					for i := 0; i < per; i++ {
						buf.Add(metrics.Sample{Metric: f.rtt, Value: float64(i%5000) / 1000, Tags: tags[i&7]})
					}
					buf.Flush()
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*producers)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
