package output

import "github.com/dnecho/dnecho/engine/metrics"

// SeriesIndex finds the aggregate of a (metric, tag set) series for outputs that aggregate
// (Prometheus remote write, OpenTelemetry): by identity first, since the engine shares tag sets
// between samples, then by content, since equal sets built by different VUs are one series. It is
// not safe for concurrent use.
type SeriesIndex[S any] struct {
	byPtr map[seriesPtr]S
	byKey map[string]S
	order []S
	make  func(*metrics.Metric, *metrics.Tags) S
}

type seriesPtr struct {
	m *metrics.Metric
	t *metrics.Tags
}

// maxSeriesPtrCache bounds the identity cache: a script that builds a new tag set per sample only
// pays the content lookup again.
const maxSeriesPtrCache = 16384

// NewSeriesIndex returns an empty index that creates series with newSeries.
func NewSeriesIndex[S any](newSeries func(*metrics.Metric, *metrics.Tags) S) *SeriesIndex[S] {
	return &SeriesIndex[S]{byPtr: map[seriesPtr]S{}, byKey: map[string]S{}, make: newSeries}
}

// Get returns the series of (m, tags), creating it on first sight.
func (x *SeriesIndex[S]) Get(m *metrics.Metric, tags *metrics.Tags) S {
	k := seriesPtr{m, tags}
	if s, ok := x.byPtr[k]; ok {
		return s
	}
	key := m.Name + "\x00" + tags.Key()
	s, ok := x.byKey[key]
	if !ok {
		s = x.make(m, tags)
		x.byKey[key] = s
		x.order = append(x.order, s)
	}
	if len(x.byPtr) >= maxSeriesPtrCache {
		clear(x.byPtr)
	}
	x.byPtr[k] = s
	return s
}

// All returns the series in first-seen order; the caller must not modify the slice.
func (x *SeriesIndex[S]) All() []S { return x.order }
