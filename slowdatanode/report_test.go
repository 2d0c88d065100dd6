package slowdatanode

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
)

// allBreakdowns are those `dnecho run` keeps: the summary's per DataNode and the report's.
func allBreakdowns() []ingest.ByTag {
	var b []ingest.ByTag
	for _, m := range echometrics.PerDataNode {
		b = append(b, ingest.ByTag{Metric: m, Tag: echometrics.TagDataNode})
	}
	return append(b, Breakdowns...)
}

// liveCollector is a collector as `dnecho run` keeps it, with the per-DataNode breakdowns of
// calls calls to each of n DataNodes (DataNode 0 ten times slower) and 4 network ticks a second
// for as long as those calls took at 1,000 calls a second.
func liveCollector(tb testing.TB, n, calls int) (*ingest.Collector, *metrics.Registry) {
	tb.Helper()
	reg := metrics.NewRegistry()
	set, err := echometrics.Register(reg)
	if err != nil {
		tb.Fatal(err)
	}
	c := ingest.New(ingest.Options{})
	for _, b := range allBreakdowns() {
		c.TrackByTag(b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now()
	for dn := range n {
		tags := metrics.NewTags(map[string]string{echometrics.TagDataNode: "dn-" + strconv.Itoa(dn), echometrics.TagMode: "grpc"})
		scale := 1.0
		if dn == 0 {
			scale = 10
		}
		batch := make([]metrics.Sample, 0, calls+calls/250)
		for range calls {
			batch = append(batch, metrics.Sample{Metric: set.Duration, Time: now, Value: scale * (0.2 + rng.ExpFloat64()), Tags: tags})
		}
		for range calls / 250 {
			batch = append(batch, metrics.Sample{Metric: set.RTT, Time: now, Value: 0.1 + rng.Float64()/10, Tags: tags})
		}
		c.PushSamples(batch)
	}
	return c, reg
}

// liveTick is one threshold period's work of the live gauge: the breakdowns copied from the
// collector one at a time (as runner.testRun.breakdowns and the aggregator do), then judged
// and the gauge pushed.
func liveTick(c *ingest.Collector, reg *metrics.Registry, d Report) {
	snap := c.BreakdownsOf(allBreakdowns())
	d.DuringTest(ingest.View{Snapshot: snap, Registry: reg, Push: c, Time: time.Now(), Tags: metrics.NewTags(nil)})
}

// The live gauge counts the slow DataNode.
func TestLiveTick(t *testing.T) {
	c, reg := liveCollector(t, 3, 2000)
	liveTick(c, reg, Report{Options: DefaultOptions()})
	s, ok := c.Sink(echometrics.SlowDataNodes)
	if !ok || s.(*metrics.GaugeSink).Value != 1 {
		t.Fatalf("dnecho_slow_datanodes = %+v, want 1", s)
	}
}

// BenchmarkLiveTick is the live gauge's cost per threshold period (2 s), the only work it adds:
// nothing changes per call. The collector's lock is held for one breakdown copy at a time.
func BenchmarkLiveTick(b *testing.B) {
	for _, tc := range []struct{ dns, calls int }{{3, 1000}, {3, 1_000_000}, {100, 100_000}} {
		b.Run(fmt.Sprintf("datanodes=%d/calls=%d", tc.dns, tc.calls), func(b *testing.B) {
			c, reg := liveCollector(b, tc.dns, tc.calls)
			d := Report{Options: DefaultOptions()}
			b.ReportAllocs()
			for b.Loop() {
				liveTick(c, reg, d)
			}
		})
	}
}
