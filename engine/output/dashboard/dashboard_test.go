package dashboard

import (
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/engine/threshold"
)

func TestConfig(t *testing.T) {
	c, err := NewConfig(map[string]string{"K6_WEB_DASHBOARD_PORT": "7000", "K6_WEB_DASHBOARD_REPORT": "a.html"}, "period=2s&export=b.html&host=0.0.0.0")
	if err != nil || c.Port != 7000 || c.Export != "b.html" || c.Period != 2*time.Second || c.Host != "0.0.0.0" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, arg := range []string{"port=x", "period=0", "colour=red"} {
		if _, err := NewConfig(nil, arg); err == nil || !strings.Contains(err.Error(), "=") {
			t.Errorf("%s: %v", arg, err)
		}
	}
}

// Samples land in the period of their own time, also when they arrive late, and the points'
// rates integrate back to the number of calls.
func TestCollectorPeriods(t *testing.T) {
	reg := metrics.NewRegistry()
	reqs := reg.MustNewMetric(RequestsMetric, metrics.Counter, metrics.Default)
	start := time.Unix(1000, 0)
	c := newCollector(time.Second, false, start, new(atomic.Pointer[threshold.Set]), testCharts)
	tags := metrics.NewTags(map[string]string{ResultTag: "SUCCESS"})
	for i := range 30 { // 10 calls per second for 3 s, delivered out of order
		at := start.Add(time.Duration((i*7)%30)*100*time.Millisecond + 50*time.Millisecond)
		c.add(&metrics.Sample{Metric: reqs, Time: at, Value: 1, Tags: tags})
	}
	if c.advance(start.Add(2 * time.Second)) { // within the grace of the first period
		t.Fatal("closed a period before its grace ended")
	}
	c.flush(start.Add(3 * time.Second))
	if len(c.points) != 2 { // the last period, cut at the last call (2.95 s), folded into the second
		t.Fatalf("points %+v", c.points)
	}
	if got := integrate(c, start); got != 30 {
		t.Errorf("points integrate to %v calls, want 30", got)
	}
	for _, p := range c.points[:1] {
		if p.RequestsPS != 10 || p.ResultsPS["SUCCESS"] != 10 {
			t.Errorf("point %+v, want 10 calls/s", p)
		}
	}
}

// integrate is Σ rate × period length over the points: the calls they stand for.
func integrate(c *collector, start time.Time) float64 {
	total, prev := 0.0, start.UnixMilli()
	for _, p := range c.points {
		total += p.RequestsPS * float64(p.Time-prev) / 1000
		prev = p.Time
	}
	return math.Round(total*1e6) / 1e6
}

// The test ends with its last call, not when the output stops, and its last period, cut short,
// is folded into the one before: no chart ends in a drop.
func TestCollectorFoldsTheLastPartialPeriod(t *testing.T) {
	reg := metrics.NewRegistry()
	reqs := reg.MustNewMetric(RequestsMetric, metrics.Counter, metrics.Default)
	lat := reg.MustNewMetric(LatencyMetric, metrics.Trend, metrics.Time)
	start := time.Unix(1000, 0)
	c := newCollector(time.Second, false, start, new(atomic.Pointer[threshold.Set]), testCharts)
	for i := range 24 { // 10 calls per second until 2.35 s; the output stops at 3.2 s
		at := start.Add(time.Duration(i)*100*time.Millisecond + 50*time.Millisecond)
		c.add(&metrics.Sample{Metric: reqs, Time: at, Value: 1, Tags: metrics.NewTags(nil)})
		c.add(&metrics.Sample{Metric: lat, Time: at, Value: float64(i), Tags: metrics.NewTags(nil)})
	}
	c.advance(start.Add(2600 * time.Millisecond)) // closes the first period
	c.flush(start.Add(3200 * time.Millisecond))
	if len(c.points) != 2 {
		t.Fatalf("%d points, want 2 (the last period folded into the second): %+v", len(c.points), c.points)
	}
	last := c.points[1]
	if want := start.Add(2350 * time.Millisecond).UnixMilli(); last.Time != want {
		t.Errorf("the last point ends at %d, want the last call's time %d", last.Time, want)
	}
	if math.Abs(last.RequestsPS-14/1.35) > 1e-9 || *last.Max != 23 || *last.P50 != 16.5 {
		t.Errorf("last point %v calls/s, max %v, p50 %v; want 14 calls over 1.35 s, max 23, p50 16.5", last.RequestsPS, *last.Max, *last.P50)
	}
	if got := integrate(c, start); got != 24 {
		t.Errorf("points integrate to %v calls, want 24", got)
	}
}

// The header's numbers are the whole test's: the rate since the start and the summary's p99,
// and the histogram holds every call.
func TestWholeTest(t *testing.T) {
	reg := metrics.NewRegistry()
	reqs := reg.MustNewMetric(RequestsMetric, metrics.Counter, metrics.Default)
	lat := reg.MustNewMetric(LatencyMetric, metrics.Trend, metrics.Time)
	vus := reg.MustNewMetric("vus", metrics.Gauge, metrics.Default)
	start := time.Unix(1000, 0)
	c := newCollector(time.Second, false, start, new(atomic.Pointer[threshold.Set]), testCharts)
	want := metrics.NewTrendSink(metrics.Time)
	for i := range 3000 { // 3000 calls over 3 s, latency 0.01-300 ms; the last second much slower
		at := start.Add(time.Duration(i) * time.Millisecond)
		v := 0.01 * math.Pow(10, float64(i%500)/100)
		if i >= 2000 {
			v *= 20
		}
		s := metrics.Sample{Metric: lat, Time: at, Value: v, Tags: metrics.NewTags(nil)}
		c.add(&s)
		want.Add(s)
		c.add(&metrics.Sample{Metric: reqs, Time: at, Value: 1, Tags: metrics.NewTags(nil)})
		c.add(&metrics.Sample{Metric: vus, Time: at, Value: float64(1 + i/1000), Tags: metrics.NewTags(nil)})
	}
	c.flush(start.Add(5 * time.Second))
	w := c.wholeTest(start.Add(9*time.Second), 0)
	if w.Count != 3000 || math.Abs(w.Rate-3000/2.999) > 1e-9 || w.P99 == nil || *w.P99 != want.Percentile(99) || *w.VUsMax != 3 {
		t.Errorf("whole test %+v (p99 %v), want 3000 calls at %v/s, p99 %v, 3 VUs", w, *w.P99, 3000/2.999, want.Percentile(99))
	}
	if p := c.points[len(c.points)-1]; *p.P99 == *w.P99 {
		t.Errorf("the last period's p99 %v is the whole test's: the test does not tell them apart", *p.P99)
	}
	var n int64
	for i, b := range w.Hist {
		n += b.Count
		if b.Hi <= b.Lo || i > 0 && b.Lo != w.Hist[i-1].Hi {
			t.Errorf("bin %d %+v does not follow %+v", i, b, w.Hist[i-1])
		}
	}
	if n != 3000 || w.Hist[0].Lo > 0.01 || w.Hist[len(w.Hist)-1].Hi < 20*0.01*math.Pow(10, 4.99) {
		t.Errorf("histogram holds %d calls over [%v, %v) ms, want 3000 over [0.01, 1996]", n, w.Hist[0].Lo, w.Hist[len(w.Hist)-1].Hi)
	}
}

// Threshold values and the summary's data amounts carry their units.
func TestUnits(t *testing.T) {
	reg := metrics.NewRegistry()
	for _, c := range []struct {
		m    *metrics.Metric
		agg  string
		want string
	}{
		{reg.MustNewMetric("lat", metrics.Trend, metrics.Time), "p(99)", "ms"},
		{reg.MustNewMetric("lat", metrics.Trend, metrics.Time), "count", ""},
		{reg.MustNewMetric("failed", metrics.Rate, metrics.Default), "rate", "%"},
		{reg.MustNewMetric("sent", metrics.Counter, metrics.Data), "count", "B"},
		{reg.MustNewMetric("sent", metrics.Counter, metrics.Data), "rate", "B/s"},
		{reg.MustNewMetric("calls", metrics.Counter, metrics.Default), "rate", "/s"},
		{reg.MustNewMetric("size", metrics.Trend, metrics.Data), "max", "B"},
	} {
		if got := unitOf(c.m, c.agg); got != c.want {
			t.Errorf("%s %s: unit %q, want %q", c.m.Name, c.agg, got, c.want)
		}
	}
	for _, c := range []struct {
		typ  metrics.MetricType
		key  string
		v    float64
		want string
	}{
		{metrics.Counter, "count", 933075, "933.1 kB"},
		{metrics.Counter, "rate", 460927.4, "460.9 kB/s"},
		{metrics.Counter, "count", 512, "512 B"},
		{metrics.Trend, "count", 12, "12"},
		{metrics.Trend, "max", 2.5e9, "2.5 GB"},
	} {
		if got := formatValue(metrics.Data, c.typ, summary.Value{Key: c.key, V: c.v}); got != c.want {
			t.Errorf("%v %s %v: %q, want %q", c.typ, c.key, c.v, got, c.want)
		}
	}
}
