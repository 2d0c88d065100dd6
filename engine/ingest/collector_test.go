package ingest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	reg *metrics.Registry
	b   *metrics.Builtins
	rtt *metrics.Metric
	c   *Collector
}

func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltins(reg)
	rtt, err := reg.NewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	if err != nil {
		t.Fatal(err)
	}
	opts.Builtins = b
	return &fixture{reg: reg, b: b, rtt: rtt, c: New(opts)}
}

func smp(m *metrics.Metric, v float64, tags map[string]string) metrics.Sample {
	return metrics.Sample{Metric: m, Time: time.Unix(1000, 0), Value: v, Tags: metrics.NewTags(tags)}
}

type captured struct {
	mu      sync.Mutex
	batches [][]metrics.Sample
}

func (o *captured) AddSamples(b []metrics.Sample) {
	o.mu.Lock()
	o.batches = append(o.batches, b)
	o.mu.Unlock()
}

func TestAggregationAndSubmetrics(t *testing.T) {
	f := newFixture(t, Options{})
	f.c.TrackSubmetric(metrics.Submetric{Name: "extmod_req_duration{datanode:dn1}", Suffix: "datanode:dn1",
		Parent: f.rtt, Tags: metrics.NewTags(map[string]string{"datanode": "dn1"})})
	f.c.TrackSubmetric(metrics.Submetric{Name: "extmod_req_duration{datanode:dn1}", Parent: f.rtt}) // duplicate: ignored
	var out captured
	f.c.AddOutput(&out)
	batch := []metrics.Sample{
		smp(f.rtt, 1, map[string]string{"datanode": "dn1", "result": "SUCCESS"}),
		smp(f.rtt, 3, map[string]string{"datanode": "dn2"}),
		smp(f.rtt, 5, map[string]string{"datanode": "dn1"}),
		smp(f.b.Iterations, 1, nil),
		{Value: 7}, // no metric: ignored, not a panic
	}
	f.c.PushSamples(batch)
	f.c.PushSamples(nil)

	parent, ok := f.c.Sink("extmod_req_duration")
	if !ok || parent.(*metrics.TrendSink).Count() != 3 {
		t.Fatalf("parent sink %v %v", parent, ok)
	}
	sub, ok := f.c.Sink("extmod_req_duration{datanode:dn1}")
	if !ok {
		t.Fatal("sub-metric sink missing")
	}
	if ts := sub.(*metrics.TrendSink); ts.Count() != 2 || ts.Avg() != 3 {
		t.Errorf("sub-metric count %d avg %v, want 2 and 3", ts.Count(), ts.Avg())
	}
	if _, ok := f.c.Sink("nope"); ok {
		t.Error("unknown sink found")
	}
	if len(out.batches) != 1 || len(out.batches[0]) != 5 {
		t.Errorf("output got %d batches", len(out.batches))
	}
	snap := f.c.Snapshot()
	var names []string
	for _, s := range snap.Series {
		names = append(names, s.Name)
	}
	want := []string{"extmod_req_duration", "extmod_req_duration{datanode:dn1}", "iterations"}
	if len(names) != len(want) {
		t.Fatalf("snapshot series %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("snapshot series %v, want %v", names, want)
		}
	}
	if snap.Series[1].Submetric == nil || snap.Series[0].Submetric != nil {
		t.Error("Submetric field")
	}
}

func TestTrackBeforeSamples(t *testing.T) {
	f := newFixture(t, Options{})
	f.c.Track(f.b.Checks)
	s, ok := f.c.Sink("checks")
	if !ok || !s.IsEmpty() {
		t.Fatal("tracked metric must have an empty sink")
	}
}

func TestThresholdsOnly(t *testing.T) {
	f := newFixture(t, Options{ThresholdsOnly: true})
	f.c.Track(f.b.Checks)
	f.c.PushSamples([]metrics.Sample{smp(f.b.Checks, 1, nil), smp(f.b.Iterations, 1, nil), smp(f.rtt, 2, map[string]string{"datanode": "a"})})
	if _, ok := f.c.Sink("iterations"); ok {
		t.Error("untracked metric sunk with ThresholdsOnly")
	}
	// A breakdown registered later makes a metric cached as "not sunk" count again.
	f.c.TrackBreakdown("extmod_req_duration", "datanode")
	f.c.PushSamples([]metrics.Sample{smp(f.rtt, 2, map[string]string{"datanode": "a"})})
	b, ok := f.c.GroupBy("extmod_req_duration", "datanode")
	if !ok || len(b.Values) != 1 || b.Values[0].Sink.(*metrics.TrendSink).Count() != 1 {
		t.Errorf("breakdown %+v %v", b, ok)
	}
}

func TestBreakdown(t *testing.T) {
	f := newFixture(t, Options{MaxBreakdownValues: 2})
	f.c.TrackBreakdown("extmod_req_duration", "datanode")
	f.c.TrackBreakdown("extmod_req_duration", "datanode") // idempotent
	for i, dn := range []string{"dn2", "dn1", "dn2", "dn3", ""} {
		tags := map[string]string{"datanode": dn}
		if dn == "" {
			tags = nil
		}
		f.c.PushSamples([]metrics.Sample{smp(f.rtt, float64(i), tags)})
	}
	b, ok := f.c.GroupBy("extmod_req_duration", "datanode")
	if !ok {
		t.Fatal("no breakdown")
	}
	if len(b.Values) != 2 || b.Values[0].Value != "dn2" || b.Values[1].Value != "dn1" || b.Overflow != 1 {
		t.Fatalf("values %+v overflow %d", b.Values, b.Overflow)
	}
	if got := b.Values[0].Sink.(*metrics.TrendSink).Avg(); got != 1 {
		t.Errorf("dn2 avg %v, want 1", got)
	}
	snapB, ok := f.c.Snapshot().Breakdown("extmod_req_duration", "datanode")
	if !ok || len(snapB.Values) != 2 {
		t.Error("snapshot breakdown")
	}
	if _, ok := f.c.GroupBy("extmod_req_duration", "container"); ok {
		t.Error("untracked breakdown returned")
	}
}

func TestCheckTree(t *testing.T) {
	f := newFixture(t, Options{})
	chk := func(group, name string, ok bool) metrics.Sample {
		v := 0.0
		if ok {
			v = 1
		}
		return smp(f.b.Checks, v, map[string]string{"group": group, "check": name})
	}
	f.c.PushSamples([]metrics.Sample{
		chk("", "root ok", true),
		smp(f.b.GroupDuration, 5, map[string]string{"group": "::outer::inner"}),
		chk("::outer", "a", true),
		chk("::outer", "a", false),
		chk("::outer::inner", "b", true),
		chk("", "root ok", true),
		smp(f.b.Checks, 1, map[string]string{"group": ""}), // no check tag: ignored by the tree
	})
	snap := f.c.Snapshot()
	f.c.PushSamples([]metrics.Sample{chk("", "root ok", false)}) // after the snapshot: not in it
	root := snap.Root
	if cs := root.Checks(); len(cs) != 1 || cs[0].Path != "::root ok" || counts(cs[0]) != "2/0" {
		t.Fatalf("root checks %+v", cs)
	}
	gs := root.Groups()
	if len(gs) != 1 || gs[0].Path != "::outer" || gs[0].Name != "outer" {
		t.Fatalf("root groups %+v", gs)
	}
	outer := gs[0]
	if cs := outer.Checks(); len(cs) != 1 || counts(cs[0]) != "1/1" {
		t.Errorf("outer checks %+v", cs)
	}
	if gs := outer.Groups(); len(gs) != 1 || gs[0].Name != "inner" || gs[0].Checks()[0].Path != "::outer::inner::b" {
		t.Errorf("inner group %+v", gs)
	}
}

// Producers push while thresholds and the summary read: run with -race.
func TestConcurrentPushAndSnapshot(t *testing.T) {
	f := newFixture(t, Options{})
	f.c.TrackBreakdown("extmod_req_duration", "datanode")
	var wg sync.WaitGroup
	for p := 0; p < 8; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := metrics.NewBuffer(f.c, 16, 0)
			tags := metrics.NewTags(map[string]string{"datanode": "dn1"})
			for i := 0; i < 2000; i++ {
				buf.Add(metrics.Sample{Metric: f.rtt, Value: float64(i % 7), Tags: tags})
			}
			buf.Flush()
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			f.c.Snapshot()
			f.c.Sink("extmod_req_duration")
		}
	}()
	wg.Wait()
	<-done
	s, _ := f.c.Sink("extmod_req_duration")
	if n := s.(*metrics.TrendSink).Count(); n != 16000 {
		t.Errorf("count %d, want 16000", n)
	}
}

func TestBadRegistrationsAreIgnored(t *testing.T) {
	f := newFixture(t, Options{})
	f.c.Track(nil)
	f.c.TrackSubmetric(metrics.Submetric{Name: "x{a:b}"})
	f.c.PushSamples([]metrics.Sample{{Metric: &metrics.Metric{Name: "odd", Type: metrics.MetricType(42)}, Value: 1}})
	if n := len(f.c.Snapshot().Series); n != 0 {
		t.Errorf("%d series", n)
	}
}

// Producers share tag sets between samples; the per-series caches keyed by tag set must give the
// same sinks, sub-metric matches and overflow counts as matching every sample afresh.
func TestSharedTagSets(t *testing.T) {
	f := newFixture(t, Options{MaxBreakdownValues: 2})
	f.c.TrackBreakdown("extmod_req_duration", "datanode")
	f.c.TrackSubmetric(metrics.Submetric{Name: "extmod_req_duration{result:SUCCESS}", Parent: f.rtt,
		Tags: metrics.NewTags(map[string]string{"result": "SUCCESS"})})
	dn1 := metrics.NewTags(map[string]string{"datanode": "dn1", "result": "SUCCESS"})
	dn2 := metrics.NewTags(map[string]string{"datanode": "dn2", "result": "FAIL"})
	dn3 := metrics.NewTags(map[string]string{"datanode": "dn3", "result": "SUCCESS"})
	var batch []metrics.Sample
	for _, tags := range []*metrics.Tags{dn1, dn1, dn2, dn3, dn3, dn1, nil, dn2, dn2} {
		batch = append(batch, metrics.Sample{Metric: f.rtt, Value: 1, Tags: tags},
			metrics.Sample{Metric: f.b.Iterations, Value: 1, Tags: tags})
	}
	// Two batches (each owned by the collector once pushed, so no shared backing array).
	f.c.PushSamples(slices.Clone(batch[:7]))
	f.c.PushSamples(slices.Clone(batch[7:]))
	b, _ := f.c.GroupBy("extmod_req_duration", "datanode")
	if len(b.Values) != 2 || b.Overflow != 2 {
		t.Fatalf("values %+v overflow %d", b.Values, b.Overflow)
	}
	for i, want := range map[int]int64{0: 3, 1: 3} {
		if got := b.Values[i].Sink.(*metrics.TrendSink).Count(); got != want {
			t.Errorf("%s: %d samples, want %d", b.Values[i].Value, got, want)
		}
	}
	snap := f.c.Snapshot()
	sub, _ := snap.Sink("extmod_req_duration{result:SUCCESS}")
	if got := sub.(*metrics.TrendSink).Count(); got != 5 {
		t.Errorf("sub-metric: %d samples, want 5", got)
	}
	if it, _ := snap.Sink("iterations"); it.(*metrics.CounterSink).Sum != 9 {
		t.Errorf("iterations: %v", it.(*metrics.CounterSink).Sum)
	}
}

// A breakdown by a tag and further tags keeps one sink per combination of their values, a
// missing further tag counting as "" and a missing first tag leaving the sample out; pushed
// samples and merged deltas (a distributed test's) land alike. The summary lists none of it.
func TestBreakdownByTags(t *testing.T) {
	by := ByTag{Metric: "extmod_req_duration", Tag: "datanode", And: []string{"mode", "attempts"}}
	samples := []map[string]string{
		{"datanode": "a", "mode": "grpc"}, {"datanode": "a", "mode": "grpc"}, {"datanode": "a", "mode": "ratis"},
		{"datanode": "a", "mode": "grpc", "attempts": "2"}, {"datanode": "b"}, {"mode": "grpc"},
	}
	want := map[string]int64{"a|grpc|": 2, "a|ratis|": 1, "a|grpc|2": 1, "b||": 1}
	for _, viaDelta := range []bool{false, true} {
		f := newFixture(t, Options{})
		f.c.TrackByTag(by)
		f.c.TrackBreakdown(by.Metric, by.Tag)
		for i, tags := range samples {
			s := smp(f.rtt, float64(i), tags)
			if !viaDelta {
				f.c.PushSamples([]metrics.Sample{s})
				continue
			}
			ds := metrics.NewDeltaSink(f.rtt)
			ds.Add(s)
			d := ds.Take()
			f.c.AddDelta(f.rtt, s.Tags, &d)
		}
		snap := f.c.Snapshot()
		b, ok := snap.By(by)
		if !ok {
			t.Fatalf("delta %v: no breakdown by %+v", viaDelta, by)
		}
		got := map[string]int64{}
		for _, v := range b.Values {
			got[v.Value+"|"+strings.Join(v.And, "|")] = v.Sink.(*metrics.TrendSink).Count()
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("delta %v: %v, want %v", viaDelta, got, want)
		}
		if one, ok := snap.Breakdown(by.Metric, by.Tag); !ok || len(one.Values) != 2 || one.And != nil {
			t.Errorf("delta %v: the breakdown by datanode alone %+v", viaDelta, one)
		}
	}
}

// counts is a check's "passes/fails".
func counts(c *checktree.Check) string {
	p, f := c.Counts()
	return fmt.Sprintf("%d/%d", p, f)
}
