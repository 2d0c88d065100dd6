package ingest

import (
	"maps"
	"testing"

	"github.com/dnecho/dnecho/engine/metrics"
)

// TestEnabledSystemTags: the system tags the runtime attaches and --system-tags leaves out are
// gone from the samples the outputs receive and from the sinks' breakdowns; other tags stay.
func TestEnabledSystemTags(t *testing.T) {
	all := map[string]string{"scenario": "s1", "group": "::g", "check": "ok", "datanode": "dn1"}
	tests := []struct {
		name    string
		enabled []string // nil: SetEnabledSystemTags is not called
		want    map[string]string
	}{
		{name: "not set: every tag kept", want: all},
		{name: "default set: nothing to filter", enabled: metrics.DefaultSystemTags(), want: all},
		{name: "scenario only", enabled: []string{"scenario"}, want: map[string]string{"scenario": "s1", "datanode": "dn1"}},
		{name: "none", enabled: []string{}, want: map[string]string{"datanode": "dn1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.c.TrackBreakdown(f.rtt.Name, "scenario")
			if tt.enabled != nil {
				f.c.SetEnabledSystemTags(tt.enabled)
			}
			var out captured
			f.c.AddOutput(&out)
			tags := metrics.NewTags(all)
			for range 3 { // the same tag set again: the memo answers
				f.c.PushSamples([]metrics.Sample{{Metric: f.rtt, Value: 1, Tags: tags}})
			}
			if len(out.batches) != 3 {
				t.Fatalf("outputs got %d batches, want 3", len(out.batches))
			}
			for _, b := range out.batches {
				if got := b[0].Tags.Map(); !maps.Equal(got, tt.want) {
					t.Fatalf("output tags = %v, want %v", got, tt.want)
				}
			}
			b, ok := f.c.GroupBy(f.rtt.Name, "scenario")
			if want := tt.want["scenario"] != ""; !ok || (len(b.Values) == 1) != want {
				t.Errorf("scenario breakdown %+v, want a value: %v", b, want)
			}
		})
	}
}

// TestTagFilterCacheBounded: a module that builds a new tag set per sample does not grow the
// filter's memo without limit.
func TestTagFilterCacheBounded(t *testing.T) {
	f := newTagFilter(nil)
	for i := range 3 * maxFilterCache {
		f.filter(metrics.NewTags(map[string]string{"group": "g", "n": string(rune(i))}))
		if len(f.cache) > maxFilterCache {
			t.Fatalf("memo holds %d tag sets after %d, limit %d", len(f.cache), i+1, maxFilterCache)
		}
	}
}
