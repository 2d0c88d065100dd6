package dashboard

import (
	"math"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/internal/quantile"
)

// window is one period being filled, or two folded together at the end of the test.
type window struct {
	reqs    float64
	iters   float64
	latency sink
	iterDur sink
	perTag  map[string]sink // latency per Breakdown value
	net     map[string]sink // Charts.Network per Breakdown value
	results map[string]float64
	vus     float64
	hasVUs  bool
}

func newWindow() *window {
	return &window{latency: newSink(), iterDur: newSink(), perTag: map[string]sink{}, net: map[string]sink{}, results: map[string]float64{}}
}

func (w *window) tag(v string) sink { return sinkOf(w.perTag, v) }

func (w *window) netOf(v string) sink { return sinkOf(w.net, v) }

func sinkOf(m map[string]sink, v string) sink {
	s, ok := m[v]
	if !ok {
		s = newSink()
		m[v] = s
	}
	return s
}

// merge adds o's samples to w; o must not change afterwards.
func (w *window) merge(o *window) {
	w.reqs += o.reqs
	w.iters += o.iters
	w.latency = append(w.latency, o.latency...)
	w.iterDur = append(w.iterDur, o.iterDur...)
	for k, s := range o.perTag {
		w.perTag[k] = append(w.perTag[k], s...)
	}
	for k, s := range o.net {
		w.net[k] = append(w.net[k], s...)
	}
	for k, n := range o.results {
		w.results[k] += n
	}
	if o.hasVUs {
		w.vus, w.hasVUs = max(w.vus, o.vus), true
	}
}

// sink holds a period's time values (ms) in the stores of the windows folded into it; values
// are added to the first. The stores are engine/metrics' Trend store, so a period's percentiles
// are computed as the summary's are.
type sink []*quantile.Store

func newSink() sink {
	return sink{quantile.New(metrics.TrendExactSamples, metrics.TrendScale(metrics.Time))}
}

func (s sink) add(v float64) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		s[0].Add(v)
	}
}

// ranker is a store, or several read as one.
type ranker interface {
	Count() int64
	Rank(r int64) float64
	Max() float64
}

func (s sink) ranker() ranker {
	if len(s) == 1 {
		return s[0]
	}
	return quantile.Merge(s...)
}

// percentile is p(N) as k6 defines it and engine/metrics.TrendSink.Percentile computes it:
// position (N/100)·(n−1) in the sorted values, linearly interpolated between the neighbours.
func percentile(r ranker, p float64) float64 {
	n := r.Count()
	if n == 0 {
		return 0
	}
	pos := min(max(p, 0), 100) / 100 * float64(n-1)
	lo := math.Floor(pos)
	k := int64(lo) + 1
	a := r.Rank(k)
	if k >= n {
		return a
	}
	return a + (pos-lo)*(r.Rank(k+1)-a)
}
