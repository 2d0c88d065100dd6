package ingest

import (
	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Snapshot is an immutable copy of everything the collector aggregated. Its sinks are clones:
// they may be read from several goroutines and must not be modified.
type Snapshot struct {
	// Series lists the metrics in first-seen order, each followed by its sub-metrics.
	Series     []Series
	Breakdowns []Breakdown
	// Root is the group and check tree (empty unless Options.Builtins was set).
	Root   *checktree.Group
	byName map[string]metrics.Sink
}

// Series is the sink of one metric or sub-metric.
type Series struct {
	Name      string // metric name, or sub-metric name "m{k:v}"
	Metric    *metrics.Metric
	Submetric *metrics.Submetric // nil for the metric itself
	Sink      metrics.Sink
}

// Breakdown is one metric aggregated per value of one tag (Key), or per combination of values of
// Key and of the tags And.
type Breakdown struct {
	Metric   *metrics.Metric
	Key      string
	And      []string
	Values   []TagSink // first-seen order
	Overflow int64     // samples with a value beyond the cap, not aggregated
}

// TagSink is the sink of one tag value of a breakdown: Value is Key's, And the And tags' ("" for
// a tag a sample lacked).
type TagSink struct {
	Value string
	And   []string
	Sink  metrics.Sink
}

// Snapshot copies every sink.
func (c *Collector) Snapshot() *Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := &Snapshot{Root: c.tree.snapshot(), byName: map[string]metrics.Sink{}}
	for _, s := range c.order {
		snap.add(Series{Name: s.metric.Name, Metric: s.metric, Sink: s.sink.Clone()})
		for i := range s.subs {
			sm := s.subs[i].sm
			snap.add(Series{Name: sm.Name, Metric: s.metric, Submetric: &sm, Sink: s.subs[i].sink.Clone()})
		}
		for _, b := range s.breakdowns {
			snap.Breakdowns = append(snap.Breakdowns, b.copy(s.metric))
		}
	}
	return snap
}

func (s *Snapshot) add(ser Series) {
	s.Series = append(s.Series, ser)
	s.byName[ser.Name] = ser.Sink
}

// Sink returns the sink called name; it lets a snapshot feed threshold evaluation.
func (s *Snapshot) Sink(name string) (metrics.Sink, bool) {
	sink, ok := s.byName[name]
	return sink, ok
}

// Breakdown returns the breakdown of metric by tag key, if tracked.
func (s *Snapshot) Breakdown(metric, key string) (Breakdown, bool) {
	return s.By(ByTag{Metric: metric, Tag: key})
}

// By returns the breakdown b names, if tracked.
func (s *Snapshot) By(b ByTag) (Breakdown, bool) {
	for _, bd := range s.Breakdowns {
		if bd.Metric.Name == b.Metric && (ByTag{Tag: bd.Key, And: bd.And}).key() == b.key() {
			return bd, true
		}
	}
	return Breakdown{}, false
}

// GroupBy returns a copy of metric's breakdown by tag key (for example a module's req_duration
// by its server tag). ok is false if TrackBreakdown was not called for it or no sample arrived yet.
func (c *Collector) GroupBy(metric, key string) (Breakdown, bool) {
	return c.groupBy(ByTag{Metric: metric, Tag: key})
}

// groupBy returns a copy of the breakdown by names, as GroupBy does.
func (c *Collector) groupBy(by ByTag) (Breakdown, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for m, s := range c.series {
		if s == nil || m.Name != by.Metric {
			continue
		}
		for _, b := range s.breakdowns {
			if b.by.key() == by.key() {
				return b.copy(m), true
			}
		}
	}
	return Breakdown{}, false
}

func (b *breakdown) copy(m *metrics.Metric) Breakdown {
	out := Breakdown{Metric: m, Key: b.by.Tag, And: b.by.And, Overflow: b.overflow, Values: make([]TagSink, 0, len(b.order))}
	for _, v := range b.order {
		ts := TagSink{Value: v[0], Sink: b.byValue[v].Clone()}
		if n := len(b.by.And); n > 0 {
			ts.And = append([]string(nil), v[1:1+n]...)
		}
		out.Values = append(out.Values, ts)
	}
	return out
}
