package metrics

import (
	"math"
	"testing"
	"time"
)

// TestDeltasMergeLikeSamples: samples split between two instances and merged as deltas give
// the sink the samples would have given, for every metric type.
func TestDeltasMergeLikeSamples(t *testing.T) {
	reg := NewRegistry()
	t0 := time.Unix(1000, 0)
	for _, m := range []*Metric{
		reg.MustNewMetric("cnt", Counter, Default), reg.MustNewMetric("gau", Gauge, Default),
		reg.MustNewMetric("rat", Rate, Default), reg.MustNewMetric("tre", Trend, Time),
	} {
		direct, merged := NewSink(m), NewSink(m)
		parts := []*DeltaSink{NewDeltaSink(m), NewDeltaSink(m)}
		for i := range 3000 {
			v := float64(i%17) * 1.5
			if i == 5 {
				v = math.NaN()
			}
			s := Sample{Metric: m, Time: t0.Add(time.Duration(i) * time.Millisecond), Value: v}
			direct.Add(s)
			parts[(i/7)%2].Add(s)
			if i%500 == 0 {
				d := parts[i%2].Take()
				merged.MergeDelta(&d)
			}
		}
		for _, p := range parts {
			d := p.Take()
			merged.MergeDelta(&d)
		}
		switch a := direct.(type) {
		case *CounterSink:
			b := merged.(*CounterSink)
			if *a != *b {
				t.Errorf("counter: %+v merged, %+v direct", *b, *a)
			}
		case *GaugeSink:
			b := merged.(*GaugeSink)
			if a.Value != b.Value || a.Min != b.Min || a.Max != b.Max || a.N != b.N || !a.Time.Equal(b.Time) {
				t.Errorf("gauge: %+v merged, %+v direct", *b, *a)
			}
		case *RateSink:
			if *a != *merged.(*RateSink) {
				t.Errorf("rate: %+v merged, %+v direct", *merged.(*RateSink), *a)
			}
		case *TrendSink:
			b := merged.(*TrendSink)
			for _, p := range []float64{0, 50, 90, 95, 99, 99.9, 100} {
				if a.Percentile(p) != b.Percentile(p) {
					t.Errorf("trend p(%v): %v merged, %v direct", p, b.Percentile(p), a.Percentile(p))
				}
			}
			if a.Count() != b.Count() || a.Sum() != b.Sum() || a.Exact() != b.Exact() {
				t.Errorf("trend: count %d/%d sum %v/%v exact %v/%v", b.Count(), a.Count(), b.Sum(), a.Sum(), b.Exact(), a.Exact())
			}
		}
	}
}
