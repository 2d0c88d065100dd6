package ingest

import (
	"github.com/dnecho/dnecho/engine/metrics"
)

// DeltaOutput is an Output that can take deltas instead of samples (an aggregator's stream,
// which only sends deltas on). While every output is one, the collector lets producers fold
// their samples (FoldSamples).
type DeltaOutput interface {
	Output
	// AddDeltas receives what series gained; like AddSamples it must not block, must not modify
	// ds and must not keep it after it returns.
	AddDeltas(ds []metrics.SeriesDelta)
}

// FoldSamples implements metrics.DeltaPusher: producers may fold their samples into deltas
// while no output needs individual samples (none is added, or every one is a DeltaOutput).
// Then thresholds, the summary and the delta outputs are all that read them, and deltas give
// them the same figures.
func (c *Collector) FoldSamples() bool { return !c.perSample.Load() }

// PushDeltas implements metrics.DeltaPusher: it drops the disabled system tags from each delta's
// tags (rewriting ds), merges the deltas as AddDelta does, under one lock, and hands them to the
// outputs (DeltaOutputs; an output that needs samples, added after samples flowed, gets
// nothing: add outputs before the run).
func (c *Collector) PushDeltas(ds []metrics.SeriesDelta) {
	c.mu.Lock()
	for i := range ds {
		if c.filter != nil {
			ds[i].Tags = c.filter.filter(ds[i].Tags)
		}
		c.addDelta(ds[i].Metric, ds[i].Tags, &ds[i].Delta)
	}
	outs := c.outputs
	c.mu.Unlock()
	for _, o := range outs {
		if do, ok := o.(DeltaOutput); ok {
			do.AddDeltas(ds)
		}
	}
}

// wantsSamples reports whether o needs individual samples.
func wantsSamples(o Output) bool {
	_, ok := o.(DeltaOutput)
	return !ok
}
