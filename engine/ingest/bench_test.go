package ingest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// BenchmarkIngest measures samples/s through per-producer Buffers into one Collector, with a
// sub-metric and a per-datanode breakdown, as a run with thresholds and the summary does.
func BenchmarkIngest(b *testing.B) {
	for _, producers := range []int{1, 32} {
		b.Run(fmt.Sprintf("producers=%d", producers), func(b *testing.B) {
			f := newFixture(b, Options{})
			f.c.TrackSubmetric(metrics.Submetric{Name: "extmod_req_duration{result:SUCCESS}", Parent: f.rtt,
				Tags: metrics.NewTags(map[string]string{"result": "SUCCESS"})})
			f.c.TrackBreakdown("extmod_req_duration", "datanode")
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

// benchmarkIteration pushes what one iteration of a script calling a protocol module emits
// — the module's five metrics and the four iteration builtins, sharing one tag set — through per-VU buffers, with
// the per-datanode breakdowns the runner asks for. ns/op is per iteration (nine samples).
func benchmarkIteration(b *testing.B, fold bool) {
	for _, tc := range []struct {
		producers int
		and       bool // also breakdowns by datanode and further tags, as dnecho's per-DataNode block asks
	}{{1, false}, {32, false}, {1, true}} {
		producers := tc.producers
		b.Run(fmt.Sprintf("producers=%d/and=%v", producers, tc.and), func(b *testing.B) {
			f := newFixture(b, Options{})
			var ms []*metrics.Metric
			for _, d := range []struct {
				name string
				typ  metrics.MetricType
			}{{"extmod_reqs", metrics.Counter}, {"extmod_req_failed", metrics.Rate},
				{"extmod_data_sent", metrics.Counter}, {"extmod_data_received", metrics.Counter}} {
				m, err := f.reg.NewMetric(d.name, d.typ, metrics.Default)
				if err != nil {
					b.Fatal(err)
				}
				ms = append(ms, m)
			}
			for _, m := range []string{"extmod_req_duration", "extmod_reqs", "extmod_req_failed"} {
				f.c.TrackBreakdown(m, "datanode")
			}
			if tc.and {
				for _, m := range []string{"extmod_req_duration", "extmod_req_failed"} {
					f.c.TrackByTag(ByTag{Metric: m, Tag: "datanode", And: []string{"mode", "attempts"}})
				}
			}
			f.c.Track(ms[1])
			iter := []*metrics.Metric{f.rtt, ms[0], ms[1], ms[2], ms[3], f.b.DataSent, f.b.DataReceived, f.b.Iterations, f.b.IterationDuration}
			tags := metrics.NewTags(map[string]string{"datanode": "96df7b4b-4592-4120-9eb5-3b4fb5cafc19", "result": "SUCCESS",
				"scenario": "default", "group": "", "container": "1", "pipeline": "7a943c79-8bbd-478e-9249-3ded8153c627", "stream": "reuse"})
			per := b.N/producers + 1
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for p := 0; p < producers; p++ {
				wg.Go(func() {
					now := time.Now()
					if !fold {
						buf := metrics.NewBuffer(f.c, 0, 0)
						for i := 0; i < per; i++ {
							for _, m := range iter {
								buf.Add(metrics.Sample{Metric: m, Time: now, Value: float64(i%5000) / 1000, Tags: tags})
							}
						}
						buf.Flush()
						return
					}
					// A VU's fast lane (engine/js samples.go): its iteration's samples in a reused
					// buffer, folded at the end of the iteration, drained every foldDrain iterations.
					var fo metrics.Fold
					buf := make([]metrics.Sample, len(iter))
					for i := 0; i < per; i++ {
						for j, m := range iter {
							buf[j] = metrics.Sample{Metric: m, Time: now, Value: float64(i%5000) / 1000, Tags: tags}
						}
						for j := range buf {
							fo.Add(&buf[j])
						}
						if i%foldDrain == foldDrain-1 {
							fo.Drain(f.c)
						}
					}
					fo.Drain(f.c)
				})
			}
			wg.Wait()
		})
	}
}

// foldDrain is how many iterations a VU folds between two drains in BenchmarkFoldIteration:
// 100 ms (the VU's flush interval) at 3,000 iterations a second.
const foldDrain = 300

// BenchmarkIngestIteration is benchmarkIteration through the full lane: per-VU buffers pushed to
// the collector.
func BenchmarkIngestIteration(b *testing.B) { benchmarkIteration(b, false) }

// BenchmarkFoldIteration is benchmarkIteration through the fast lane: per-VU folds drained into
// the collector.
func BenchmarkFoldIteration(b *testing.B) { benchmarkIteration(b, true) }

// BenchmarkIngestChecks measures checks samples through the full lane, where the collector also
// counts each in its group and check tree: four checks in the root group and a nested one, each
// with its own tag set, as a VU's buffer hands them over. ns/op is per sample.
func BenchmarkIngestChecks(b *testing.B) {
	f := newFixture(b, Options{})
	var tags []*metrics.Tags
	for _, g := range []string{"", "::outer::inner"} {
		for _, c := range []string{"status is 200", "body matches"} {
			tags = append(tags, metrics.NewTags(map[string]string{"group": g, "check": c, "scenario": "default"}))
		}
	}
	buf := metrics.NewBuffer(f.c, 0, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Add(metrics.Sample{Metric: f.b.Checks, Value: float64(i & 1), Tags: tags[i&3]})
	}
	buf.Flush()
}
