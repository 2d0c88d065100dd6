package runner

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
)

// StartDelayMetric is the Trend (time) of how late arrival-rate iterations started compared with
// their schedule: a generator that falls behind shows up here before it shows up as
// dropped_iterations.
const StartDelayMetric = "dnecho_iteration_start_delay"

// startDelay records the scheduler's start delays as StartDelayMetric samples. The scheduler
// calls it from VU goroutines; the buffer batches the samples so that each call costs an
// uncontended lock, not a trip to the collector.
type startDelay struct {
	m       *metrics.Metric
	buf     *metrics.Buffer
	runTags *metrics.Tags
	tagged  bool // the scenario system tag is enabled
	tags    sync.Map
}

func newStartDelay(reg *metrics.Registry, p metrics.Pusher, runTags *metrics.Tags, scenarioTag bool) (*startDelay, error) {
	m, err := reg.NewMetric(StartDelayMetric, metrics.Trend, metrics.Time)
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

// tagFilter drops disabled system tags from samples (--system-tags), since the script runtime and
// the scheduler always attach scenario, group and check.
type tagFilter struct {
	next     metrics.Pusher
	disabled []string

	mu    sync.Mutex
	cache map[*metrics.Tags]*metrics.Tags
}

// maxFilterCache bounds the filter's memo: tag sets are shared and few in a normal run, but a
// module that builds a new set per sample must not grow memory without limit.
const maxFilterCache = 4096

// attachedSystemTags are the system tags this runtime puts on samples (the k6 modules and the
// scheduler); the other system tags of k6 (url, status, ip, ...) belong to protocols we do not
// have, so they never need filtering.
var attachedSystemTags = []string{"scenario", "group", "check"}

// newTagFilter returns next itself when every system tag the pipeline attaches is enabled (the
// default), so the common run pays nothing for the filter.
func newTagFilter(next metrics.Pusher, enabled []string) metrics.Pusher {
	var disabled []string
	for _, t := range attachedSystemTags {
		if !slices.Contains(enabled, t) {
			disabled = append(disabled, t)
		}
	}
	if len(disabled) == 0 {
		return next
	}
	return &tagFilter{next: next, disabled: disabled, cache: map[*metrics.Tags]*metrics.Tags{}}
}

// PushSamples implements metrics.Pusher; the batch is ours to modify.
func (f *tagFilter) PushSamples(batch []metrics.Sample) {
	f.mu.Lock()
	for i := range batch {
		batch[i].Tags = f.filter(batch[i].Tags)
	}
	f.mu.Unlock()
	f.next.PushSamples(batch)
}

func (f *tagFilter) filter(t *metrics.Tags) *metrics.Tags {
	if t == nil {
		return nil
	}
	if out, ok := f.cache[t]; ok {
		return out
	}
	out := t
	for _, k := range f.disabled {
		if _, has := out.Get(k); has {
			out = out.Without(k)
		}
	}
	if len(f.cache) >= maxFilterCache {
		clear(f.cache)
	}
	f.cache[t] = out
	return out
}

// switchPusher forwards samples to a pusher that can be replaced while samples flow.
type switchPusher struct {
	cur atomic.Pointer[pusherBox]
}

type pusherBox struct{ p metrics.Pusher }

func newSwitchPusher(p metrics.Pusher) *switchPusher {
	s := &switchPusher{}
	s.set(p)
	return s
}

func (s *switchPusher) set(p metrics.Pusher) { s.cur.Store(&pusherBox{p}) }

// PushSamples implements metrics.Pusher.
func (s *switchPusher) PushSamples(batch []metrics.Sample) { s.cur.Load().p.PushSamples(batch) }
