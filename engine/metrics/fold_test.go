package metrics

import (
	"testing"
	"time"
)

// deltaSinks is a DeltaPusher that merges what it is pushed into one sink per metric.
type deltaSinks struct {
	sinks  map[*Metric]Sink
	pushes int
}

func (d *deltaSinks) PushSamples([]Sample) { panic("a folding producer pushed samples") }
func (d *deltaSinks) FoldSamples() bool    { return true }
func (d *deltaSinks) PushDeltas(ds []SeriesDelta) {
	d.pushes++
	for i := range ds {
		d.sinks[ds[i].Metric].MergeDelta(&ds[i].Delta)
	}
}

// TestFoldMatchesSinks: samples folded per series and drained now and then give the sinks that
// adding them one by one gives, with a new tag set per sample on one metric (series that the
// fold must forget once drained) and a shared one on the others.
func TestFoldMatchesSinks(t *testing.T) {
	reg := NewRegistry()
	ms := []*Metric{
		reg.MustNewMetric("cnt", Counter, Default), reg.MustNewMetric("rat", Rate, Default),
		reg.MustNewMetric("tre", Trend, Time), reg.MustNewMetric("gau", Gauge, Default),
	}
	direct := map[*Metric]Sink{}
	to := &deltaSinks{sinks: map[*Metric]Sink{}}
	for _, m := range ms {
		direct[m], to.sinks[m] = NewSink(m), NewSink(m)
	}
	shared := NewTags(map[string]string{"k": "v"})
	var f Fold
	t0 := time.Unix(1000, 0)
	for i := range 14000 {
		m := ms[i%len(ms)]
		tags := shared
		if m.Name == "tre" && i%5 == 0 {
			tags = shared.With("i", "x") // a new set each time
		}
		s := Sample{Metric: m, Time: t0.Add(time.Duration(i) * time.Millisecond), Value: float64(i%97) * 0.25, Tags: tags}
		direct[m].Add(s)
		f.Add(&s)
		if i%6000 == 5999 { // 1500 trend values: the delta moves to buckets
			f.Drain(to)
			if f.Len() > maxFoldScan {
				t.Fatalf("after a drain the fold holds %d series, want at most %d", f.Len(), maxFoldScan)
			}
		}
	}
	f.Add(&Sample{}) // an unused reserved slot
	f.Drain(to)
	f.Drain(to) // nothing new: no push
	if to.pushes != 3 {
		t.Errorf("%d pushes, want 3 (2 drains mid-way and 1 at the end)", to.pushes)
	}
	for _, m := range ms {
		a, b := direct[m], to.sinks[m]
		switch a := a.(type) {
		case *TrendSink:
			b := b.(*TrendSink)
			for _, p := range []float64{0, 50, 90, 99, 99.9, 100} {
				if a.Percentile(p) != b.Percentile(p) {
					t.Errorf("p(%v): %v folded, %v direct", p, b.Percentile(p), a.Percentile(p))
				}
			}
			if a.Count() != b.Count() || a.Exact() != b.Exact() {
				t.Errorf("trend: count %d/%d exact %v/%v", b.Count(), a.Count(), b.Exact(), a.Exact())
			}
		case *GaugeSink:
			if b := b.(*GaugeSink); *a != *b {
				t.Errorf("gauge: %+v folded, %+v direct", *b, *a)
			}
		case *CounterSink:
			if b := b.(*CounterSink); *a != *b {
				t.Errorf("counter: %+v folded, %+v direct", *b, *a)
			}
		case *RateSink:
			if b := b.(*RateSink); *a != *b {
				t.Errorf("rate: %+v folded, %+v direct", *b, *a)
			}
		}
	}
}
