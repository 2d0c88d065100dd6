// Package ingest is the engine side of the sample pipeline: it receives batches from the VUs'
// buffers, keeps one sink per metric, per threshold sub-metric and per tag value of the requested
// breakdowns, forwards the batches to the outputs, and hands out snapshots for thresholds and the
// end-of-test summary.
package ingest

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dnecho/dnecho/engine/metrics"
)

// DefaultMaxBreakdownValues bounds the distinct tag values a breakdown keeps, so that a tag with
// unbounded cardinality cannot grow memory without limit; further values are only counted.
const DefaultMaxBreakdownValues = 1000

// Output receives every pushed batch, after aggregation. AddSamples must not block (outputs
// queue and flush on their own goroutine) and must not modify the batch, which all outputs share.
type Output interface {
	AddSamples(batch []metrics.Sample)
}

// Options configures a Collector. The zero value sinks every metric.
type Options struct {
	// Builtins, when set, lets the collector build the group and check tree of the summary from
	// the checks and group_duration samples.
	Builtins *metrics.Builtins
	// ThresholdsOnly sinks only the metrics registered with Track, TrackSubmetric or
	// TrackBreakdown (k6 sinks nothing else when the summary is disabled).
	ThresholdsOnly bool
	// MaxBreakdownValues bounds each breakdown; 0 means DefaultMaxBreakdownValues.
	MaxBreakdownValues int
}

// Collector aggregates samples. It implements metrics.Pusher and is safe for concurrent use.
//
// One mutex guards all sinks. Producers push batches (metrics.Buffer), so the lock is taken once
// per batch, and holding it costs a few tens of nanoseconds per sample; outputs are called after
// it is released.
type Collector struct {
	opts Options

	mu         sync.Mutex
	series     map[*metrics.Metric]*series // nil value: seen, deliberately not sunk
	order      []*series
	byName     map[string]metrics.Sink // parents and sub-metrics, by sink name
	subs       map[string][]metrics.Submetric
	breakdowns map[string][]ByTag // by metric name
	tree       *sampleTree
	outputs    []Output
	filter     *tagFilter // SetEnabledSystemTags; nil: every tag is kept
	// perSample is set once an output needs individual samples: producers then stop folding
	// (FoldSamples). An atomic, because VUs ask at every hand-over.
	perSample atomic.Bool

	// recent caches lookup for the few metrics a run pushes most (a VU's iteration interleaves
	// them, so the batch loop's one-entry cache alone misses on almost every sample). A linear
	// scan of pointers is cheaper than hashing into series; any change to series clears it.
	recent  [maxRecent]recentSeries
	nRecent int
}

// maxRecent bounds Collector.recent.
const maxRecent = 16

type recentSeries struct {
	m *metrics.Metric
	s *series
}

// New returns an empty collector.
func New(opts Options) *Collector {
	if opts.MaxBreakdownValues <= 0 {
		opts.MaxBreakdownValues = DefaultMaxBreakdownValues
	}
	return &Collector{
		opts:       opts,
		series:     map[*metrics.Metric]*series{},
		byName:     map[string]metrics.Sink{},
		subs:       map[string][]metrics.Submetric{},
		breakdowns: map[string][]ByTag{},
		tree:       newSampleTree(),
	}
}

// AddOutput adds an output to the fan-out. Add outputs before samples flow.
func (c *Collector) AddOutput(o Output) {
	c.mu.Lock()
	c.outputs = append(c.outputs, o)
	if wantsSamples(o) {
		c.perSample.Store(true)
	}
	c.mu.Unlock()
}

// Track makes m sunk even before (or without) any sample, as k6 does for metrics that have
// thresholds: they are then evaluated, and listed in the summary, with empty sinks.
func (c *Collector) Track(m *metrics.Metric) {
	if m == nil {
		return
	}
	c.mu.Lock()
	c.track(m)
	c.mu.Unlock()
}

// TrackSubmetric adds a sub-metric sink (and its parent's).
func (c *Collector) TrackSubmetric(sm metrics.Submetric) {
	if sm.Parent == nil || sm.Name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.byName[sm.Name]; dup {
		return
	}
	c.subs[sm.Parent.Name] = append(c.subs[sm.Parent.Name], sm)
	if s := c.series[sm.Parent]; s != nil {
		s.addSub(sm, c.byName)
	} else {
		c.track(sm.Parent) // picks the sub-metric up from c.subs
	}
}

// TrackBreakdown aggregates metric separately for each value of the tag key (for example a
// module's req_duration by its server tag). The metric need not be registered yet; samples pushed before
// the call are not counted.
func (c *Collector) TrackBreakdown(metricName, key string) {
	c.TrackByTag(ByTag{Metric: metricName, Tag: key})
}

// TrackByTag aggregates b.Metric separately for each value of b.Tag, or of b.Tag and b.And together
// (TrackBreakdown). More than MaxAnd further tags are not tracked.
func (c *Collector) TrackByTag(b ByTag) {
	if len(b.And) > MaxAnd {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.ContainsFunc(c.breakdowns[b.Metric], func(o ByTag) bool { return o.key() == b.key() }) {
		return
	}
	c.breakdowns[b.Metric] = append(c.breakdowns[b.Metric], b)
	for m, s := range c.series {
		switch {
		case m.Name != b.Metric:
		case s == nil:
			delete(c.series, m) // cached as "not sunk": let lookup decide again
		default:
			s.addBreakdown(b)
		}
	}
	c.nRecent = 0
}

// track returns m's series, creating it; nil when m's type has no sink. Callers hold mu.
func (c *Collector) track(m *metrics.Metric) *series {
	if s := c.series[m]; s != nil {
		return s
	}
	s := newSeries(m, c.opts.MaxBreakdownValues)
	if s == nil {
		return nil
	}
	c.series[m] = s
	c.nRecent = 0
	c.order = append(c.order, s)
	c.byName[m.Name] = s.sink
	for _, sm := range c.subs[m.Name] {
		s.addSub(sm, c.byName)
	}
	for _, b := range c.breakdowns[m.Name] {
		s.addBreakdown(b)
	}
	return s
}

// lookup returns the series samples of m go to, or nil. Callers hold mu.
func (c *Collector) lookup(m *metrics.Metric) *series {
	for i := range c.nRecent {
		if c.recent[i].m == m {
			return c.recent[i].s
		}
	}
	s := c.lookupSlow(m)
	if c.nRecent < maxRecent {
		c.recent[c.nRecent] = recentSeries{m, s}
		c.nRecent++
	}
	return s
}

func (c *Collector) lookupSlow(m *metrics.Metric) *series {
	if s, seen := c.series[m]; seen {
		return s
	}
	if c.opts.ThresholdsOnly && len(c.breakdowns[m.Name]) == 0 {
		c.series[m] = nil
		c.nRecent = 0
		return nil
	}
	s := c.track(m)
	if s == nil {
		c.series[m] = nil
		c.nRecent = 0
	}
	return s
}

// PushSamples drops the disabled system tags (SetEnabledSystemTags), aggregates a batch and
// forwards it to the outputs. It implements metrics.Pusher; the batch becomes the collector's,
// then the outputs', and must not be modified afterwards. Without outputs the collector is the
// batch's last user and recycles it (metrics.RecycleBatch).
func (c *Collector) PushSamples(batch []metrics.Sample) {
	if len(batch) == 0 {
		return
	}
	var checks, groupDur *metrics.Metric
	if b := c.opts.Builtins; b != nil {
		checks, groupDur = b.Checks, b.GroupDuration
	}
	c.mu.Lock()
	filter := c.filter
	var last *metrics.Metric
	var s *series
	for i := range batch {
		smp := &batch[i]
		if filter != nil {
			smp.Tags = filter.filter(smp.Tags)
		}
		if smp.Metric == nil {
			continue
		}
		if smp.Metric != last {
			last, s = smp.Metric, c.lookup(smp.Metric)
		}
		if s != nil {
			s.add(smp)
		}
		switch smp.Metric {
		case checks:
			c.tree.addCheck(smp)
		case groupDur:
			c.tree.addGroupSample(smp)
		}
	}
	outs := c.outputs
	c.mu.Unlock()
	if len(outs) == 0 {
		metrics.RecycleBatch(batch)
		return
	}
	for _, o := range outs {
		o.AddSamples(batch)
	}
}

// Sink returns a copy of the sink called name (a metric or sub-metric name). It implements the
// threshold package's sink source; only the requested sink is copied.
func (c *Collector) Sink(name string) (metrics.Sink, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byName[name]
	if !ok {
		return nil, false
	}
	return s.Clone(), true
}
