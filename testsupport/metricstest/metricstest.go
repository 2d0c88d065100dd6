// Package metricstest holds what tests of the engine and of its modules need around metrics: a
// metrics.Pusher that records samples.
package metricstest

import (
	"sync"
	"sync/atomic"

	"github.com/dnecho/dnecho/engine/metrics"
)

// Samples is a metrics.Pusher that keeps every sample pushed to it, safe for concurrent pushers.
type Samples struct {
	mu      sync.Mutex
	samples []metrics.Sample
	// Discard drops batches instead of keeping them (benchmarks), recycling them as the engine's
	// collector does when no output holds them.
	Discard atomic.Bool
}

// PushSamples implements metrics.Pusher.
func (c *Samples) PushSamples(s []metrics.Sample) {
	if c.Discard.Load() {
		metrics.RecycleBatch(s)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples = append(c.samples, s...)
}

// ByName returns the kept samples of one metric, in push order.
func (c *Samples) ByName(name string) []metrics.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []metrics.Sample
	for _, s := range c.samples {
		if s.Metric != nil && s.Metric.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Sum adds up the values of one metric's samples.
func (c *Samples) Sum(name string) float64 {
	var t float64
	for _, s := range c.ByName(name) {
		t += s.Value
	}
	return t
}

// All returns a copy of every kept sample.
func (c *Samples) All() []metrics.Sample {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]metrics.Sample(nil), c.samples...)
}

// Reset forgets the kept samples.
func (c *Samples) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples = nil
}
