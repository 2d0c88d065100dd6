package ingest

import (
	"github.com/dnecho/dnecho/engine/metrics"
)

// AddDelta merges what one series (m with tags) gained on another instance of a distributed
// test, with the effect its samples would have had if pushed here: the metric's sink, the
// sub-metrics and breakdowns the tags select, and the check and group tree. Outputs do not see
// deltas. It is safe for concurrent use.
func (c *Collector) AddDelta(m *metrics.Metric, tags *metrics.Tags, d *metrics.Delta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addDelta(m, tags, d)
}

// addDelta is AddDelta; callers hold mu.
func (c *Collector) addDelta(m *metrics.Metric, tags *metrics.Tags, d *metrics.Delta) {
	if m == nil || d.N <= 0 {
		return
	}
	if s := c.lookup(m); s != nil {
		s.merge(tags, d)
	}
	if b := c.opts.Builtins; b != nil {
		switch m {
		case b.Checks:
			c.tree.addCheckDelta(tags, d)
		case b.GroupDuration:
			p, _ := tags.Get("group")
			c.tree.addGroup(p)
		}
	}
}

func (s *series) merge(tags *metrics.Tags, d *metrics.Delta) {
	s.sink.MergeDelta(d)
	for i := range s.subs {
		if tags.Contains(s.subs[i].sm.Tags) {
			s.subs[i].sink.MergeDelta(d)
		}
	}
	for _, b := range s.breakdowns {
		if v, ok := b.values(tags); ok {
			if sink := b.sink(s.metric, v, s.maxValues, d.N); sink != nil {
				sink.MergeDelta(d)
			}
		}
	}
}

// addCheckDelta counts a checks delta: Trues passes and the rest fails.
func (t *sampleTree) addCheckDelta(tags *metrics.Tags, d *metrics.Delta) {
	name, ok := tags.Get("check")
	if !ok {
		return
	}
	gp, _ := tags.Get("group")
	t.check(gp, name).Add(d.Trues, d.N-d.Trues)
}
