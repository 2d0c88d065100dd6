package runner

import (
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// startDelay records the scheduler's start delays as samples of Config.StartDelayMetric. The scheduler
// calls it from VU goroutines; the buffer batches the samples so that each call costs an
// uncontended lock, not a trip to the collector.
type startDelay struct {
	m       *metrics.Metric
	buf     *metrics.Buffer
	runTags *metrics.Tags
	tagged  bool // the scenario system tag is enabled
	tags    sync.Map
}

func newStartDelay(reg *metrics.Registry, name string, p metrics.Pusher, runTags *metrics.Tags, scenarioTag bool) (*startDelay, error) {
	m, err := reg.NewMetric(name, metrics.Trend, metrics.Time)
	if err != nil {
		return nil, err
	}
	return &startDelay{m: m, buf: metrics.NewBuffer(p, 0, metrics.DefaultBufferMaxAge), runTags: runTags, tagged: scenarioTag}, nil
}

// ObserveStartDelay implements executor.StartDelayObserver.
func (d *startDelay) ObserveStartDelay(scenario string, scheduled time.Time, delay time.Duration) {
	d.buf.Add(metrics.Sample{
		Metric: d.m,
		Time:   scheduled.Add(delay),
		Value:  float64(delay) / float64(time.Millisecond),
		Tags:   d.tagsFor(scenario),
	})
}

func (d *startDelay) tagsFor(scenario string) *metrics.Tags {
	if !d.tagged {
		return d.runTags
	}
	if t, ok := d.tags.Load(scenario); ok {
		return t.(*metrics.Tags)
	}
	t := d.runTags.With("scenario", scenario)
	d.tags.Store(scenario, t)
	return t
}

// Flush pushes the buffered samples; call it when the scenarios are over.
func (d *startDelay) Flush() { d.buf.Flush() }
