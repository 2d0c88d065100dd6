package aggregate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/metrics"
)

// benchState is one instance's push of one second over n series: a quarter each of counters,
// rates, gauges and latency trends (50 values per trend and second), every series with its own
// tag value, as a script calling many servers sends.
func benchState(n int) (defs, push *wire.State) {
	rng := rand.New(rand.NewPCG(1, 2))
	defs, push = &wire.State{}, &wire.State{Elapsed: time.Minute, VUs: 50, VUsMax: 50}
	now := time.Now()
	names := []string{"bench_reqs", "bench_failed", "bench_inflight", "bench_duration"}
	types := []metrics.MetricType{metrics.Counter, metrics.Rate, metrics.Gauge, metrics.Trend}
	for i := range n {
		k := i % 4
		id := uint64(i + 1)
		defs.NewSeries = append(defs.NewSeries, wire.SeriesDef{ID: id, Metric: names[k], Type: types[k], Contains: metrics.Time,
			Tags: []metrics.Tag{{Key: "scenario", Value: "default"}, {Key: "server", Value: strconv.Itoa(i / 4)}}})
		ds := metrics.NewDeltaSink(&metrics.Metric{Name: names[k], Type: types[k], Contains: metrics.Time})
		for j := range 50 {
			ds.Add(metrics.Sample{Time: now.Add(time.Duration(j) * time.Millisecond), Value: 0.2 + rng.ExpFloat64()})
		}
		push.Deltas = append(push.Deltas, wire.SeriesDelta{ID: id, Type: types[k], Delta: ds.Take()})
	}
	return defs, push
}

// BenchmarkInstanceSecond is the aggregator's cost of one instance's one-second push: decode it
// and merge every series' delta into the whole test's sinks. Eight instances of 2,000 series
// cost 8 × this per second.
func BenchmarkInstanceSecond(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("series=%d", n), func(b *testing.B) {
			a := New(Options{})
			in := &instance{series: map[uint64]seriesRef{}}
			defs, push := benchState(n)
			if err := a.apply(in, defs); err != nil {
				b.Fatal(err)
			}
			payload := wire.AppendState(nil, push)
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				st, err := wire.DecodeState(payload)
				if err != nil {
					b.Fatal(err)
				}
				if err := a.apply(in, st); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(payload)), "bytes/push")
		})
	}
}
