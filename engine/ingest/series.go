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

// breakdown is one sink per value of a tag, or per combination of values of a tag and of further
// tags (ByTag.And).
type breakdown struct {
	by       ByTag
	byValue  map[tagValues]metrics.Sink
	order    []tagValues // first-seen order
	overflow int64       // samples whose value did not fit under the cap
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

// tagValues are the values of a breakdown's tags: ByTag.Tag's, then ByTag.And's. An array, so
// that a lookup builds no string.
type tagValues [1 + MaxAnd]string

func (s *series) addBreakdown(by ByTag) {
	for _, b := range s.breakdowns {
		if b.by.key() == by.key() {
			return
		}
	}
	s.breakdowns = append(s.breakdowns, &breakdown{by: by, byValue: map[tagValues]metrics.Sink{}})
}

// values are the breakdown's values of tags; ok is false without its first tag, which leaves
// the sample out.
func (b *breakdown) values(tags *metrics.Tags) (v tagValues, ok bool) {
	if v[0], ok = tags.Get(b.by.Tag); !ok {
		return v, false
	}
	for i, k := range b.by.And {
		v[1+i], _ = tags.Get(k)
	}
	return v, true
}

// sink returns the sink of v, making it under the cap; nil when v is beyond the cap (then n
// samples are counted as overflow).
func (b *breakdown) sink(m *metrics.Metric, v tagValues, maxValues int, n int64) metrics.Sink {
	sink := b.byValue[v]
	if sink == nil {
		if len(b.order) >= maxValues {
			b.overflow += n
			return nil
		}
		sink = metrics.NewSink(m)
		b.byValue[v] = sink
		b.order = append(b.order, v)
	}
	return sink
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
		v, ok := b.values(smp.Tags)
		if !ok {
			continue
		}
		sink := b.sink(s.metric, v, s.maxValues, 1)
		if sink == nil {
			continue
		}
		b.lastTags, b.lastSink = smp.Tags, sink
		sink.Add(*smp)
	}
}
