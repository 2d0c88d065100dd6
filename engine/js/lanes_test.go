package js

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
)

// countingCollector is a collector that counts what reaches it by each lane.
type countingCollector struct {
	*ingest.Collector
	samples, deltaPushes atomic.Int64
}

func (c *countingCollector) PushSamples(b []metrics.Sample) {
	c.samples.Add(int64(len(b)))
	c.Collector.PushSamples(b)
}

func (c *countingCollector) PushDeltas(ds []metrics.SeriesDelta) {
	c.deltaPushes.Add(1)
	c.Collector.PushDeltas(ds)
}

// perSampleOutput is an output that needs every sample (as -o json does).
type perSampleOutput struct{ n atomic.Int64 }

func (o *perSampleOutput) AddSamples(b []metrics.Sample) { o.n.Add(int64(len(b))) }

// TestVULanes: without an output that needs samples a VU folds its samples and hands the
// collector deltas only; with one it pushes every sample. The collector counts the same either
// way.
func TestVULanes(t *testing.T) {
	script := map[string]string{"s.js": `
import { Trend } from 'k6/metrics';
const t = new Trend('lane_t');
export default function () { t.add(__ITER); }`}
	for _, perSample := range []bool{false, true} {
		c := &countingCollector{Collector: ingest.New(ingest.Options{})}
		out := &perSampleOutput{}
		if perSample {
			c.AddOutput(out)
		}
		dir := writeFiles(t, script)
		r, err := Load(context.Background(), Config{Filename: filepath.Join(dir, "s.js"), Pusher: c})
		if err != nil {
			t.Fatal(err)
		}
		e := &env{r: r}
		vu := e.vu(t, 1)
		for range 50 {
			iterate(t, vu)
		}
		vu.Flush()
		snap := c.Snapshot()
		for name, want := range map[string]int64{"lane_t": 50, "iterations": 50, "iteration_duration": 50} {
			var n int64
			if s, ok := snap.Sink(name); ok {
				n = sinkCount(s)
			}
			if n != want {
				t.Errorf("per-sample output %v: %s counts %d, want %d", perSample, name, n, want)
			}
		}
		switch {
		case perSample && (c.deltaPushes.Load() != 0 || out.n.Load() < 50*5):
			t.Errorf("with a per-sample output: %d delta pushes, %d samples output", c.deltaPushes.Load(), out.n.Load())
		case !perSample && (c.samples.Load() != 0 || c.deltaPushes.Load() == 0):
			t.Errorf("without outputs: %d samples pushed, %d delta pushes; want deltas only", c.samples.Load(), c.deltaPushes.Load())
		}
	}
}

func sinkCount(s metrics.Sink) int64 {
	switch s := s.(type) {
	case *metrics.TrendSink:
		return s.Count()
	case *metrics.CounterSink:
		return s.N
	}
	return -1
}
