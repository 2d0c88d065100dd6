package ingest

import (
	"github.com/dnecho/dnecho/engine/metrics"
)

// series is everything aggregated for one metric.
type series struct {
	metric     *metrics.Metric
	sink       metrics.Sink
	subs       []subSeries
	breakdowns []*breakdown
	maxValues  int
}

type subSeries struct {
	sm   metrics.Submetric
	sink metrics.Sink
	// The outcome of matching the last tag set seen: samples arrive in runs sharing one
	// (immutable) tag set, so matching is done once per run rather than once per sample.
	lastTags  *metrics.Tags
	lastMatch bool
}

// breakdown is one sink per value of a tag.
type breakdown struct {
	key      string
	byValue  map[string]metrics.Sink
	order    []string // first-seen order
	overflow int64    // samples whose value did not fit under the cap
	// The sink of the last tag set seen (nil: none cached). Tags are immutable, so a tag set
	// always maps to the same value; only sets with a sink are cached, so overflowing samples
	// and samples without the tag take the full path and are counted as before.
	lastTags *metrics.Tags
	lastSink metrics.Sink
}

func newSeries(m *metrics.Metric, maxValues int) *series {
	sink := metrics.NewSink(m)
	if sink == nil {
		return nil
	}
	return &series{metric: m, sink: sink, maxValues: maxValues}
}

func (s *series) addSub(sm metrics.Submetric, byName map[string]metrics.Sink) {
	sink := metrics.NewSink(s.metric)
	s.subs = append(s.subs, subSeries{sm: sm, sink: sink})
	byName[sm.Name] = sink
}

func (s *series) addBreakdown(key string) {
	for _, b := range s.breakdowns {
		if b.key == key {
			return
		}
	}
	s.breakdowns = append(s.breakdowns, &breakdown{key: key, byValue: map[string]metrics.Sink{}})
}

func (s *series) add(smp *metrics.Sample) {
	s.sink.Add(*smp)
	for i := range s.subs {
		sub := &s.subs[i]
		if sub.lastTags != smp.Tags || sub.lastTags == nil {
			sub.lastTags, sub.lastMatch = smp.Tags, smp.Tags.Contains(sub.sm.Tags)
		}
		if sub.lastMatch {
			sub.sink.Add(*smp)
		}
	}
	for _, b := range s.breakdowns {
		if b.lastSink != nil && b.lastTags == smp.Tags {
			b.lastSink.Add(*smp)
			continue
		}
		v, ok := smp.Tags.Get(b.key)
		if !ok {
			continue
		}
		sink := b.byValue[v]
		if sink == nil {
			if len(b.order) >= s.maxValues {
				b.overflow++
				continue
			}
			sink = metrics.NewSink(s.metric)
			b.byValue[v] = sink
			b.order = append(b.order, v)
		}
		b.lastTags, b.lastSink = smp.Tags, sink
		sink.Add(*smp)
	}
}
