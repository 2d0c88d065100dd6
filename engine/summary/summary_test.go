package summary

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/checktree"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, ""},
		{Options{TrendStats: []string{"count", "p(99.99)", "med"}, TimeUnit: "us"}, ""},
		{Options{TrendStats: []string{"avg", "p95"}}, `invalid summaryTrendStats: invalid trend stat "p95": use avg, min, med, max, count or p(N) with 0 <= N <= 100`},
		{Options{TrendStats: []string{"p(101)"}}, `invalid summaryTrendStats: invalid percentile "p(101)": N in p(N) must be a number between 0 and 100`},
		{Options{TimeUnit: "m"}, `invalid summaryTimeUnit "m": use s, ms or us`},
	} {
		err := tc.o.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
		if _, err := Build(Input{Options: tc.o}); (err != nil) != (tc.want != "") {
			t.Errorf("Build with %+v: %v", tc.o, err)
		}
	}
	for in, want := range map[string]Mode{"": Compact, "compact": Compact, "full": Full, "disabled": Disabled, "legacy": Legacy} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, m, err)
		}
	}
	if _, err := ParseMode("old"); err == nil || err.Error() != `invalid summary mode "old": use compact, full, legacy or disabled` {
		t.Errorf("old: %v", err)
	}
}

func TestEmptyRun(t *testing.T) {
	d, err := Build(Input{})
	if err != nil {
		t.Fatal(err)
	}
	js := d.JS()
	if _, ok := js["setup_data"]; ok {
		t.Error("setup_data must be absent (undefined) when setup returned nothing")
	}
	root := js["root_group"].(map[string]any)
	if root["id"] != "d41d8cd98f00b204e9800998ecf8427e" || len(root["groups"].([]any)) != 0 {
		t.Errorf("root group %v", root)
	}
	if _, err := json.Marshal(js); err != nil {
		t.Error(err)
	}
	if got := d.Text(); got != "\n  █ TOTAL RESULTS\n" {
		t.Errorf("empty text %q", got)
	}
}

// A single-valued breakdown stays in the data but is not printed: it would repeat its parent.
func TestBreakdownSingleValue(t *testing.T) {
	reg := metrics.NewRegistry()
	rtt := reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	c := ingest.New(ingest.Options{})
	c.TrackBreakdown("extmod_req_duration", "datanode")
	c.PushSamples([]metrics.Sample{{Metric: rtt, Value: 1, Tags: metrics.NewTags(map[string]string{"datanode": "only"})}})
	d, err := Build(Input{Snapshot: c.Snapshot(), Duration: time.Second, Options: Options{NoColor: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.JS()["metrics"].(map[string]any)["extmod_req_duration{datanode:only}"]; !ok {
		t.Error("breakdown missing from data")
	}
	if strings.Contains(d.Text(), "datanode:only") {
		t.Errorf("single-valued breakdown printed:\n%s", d.Text())
	}
}

// A sub-metric threshold whose parent has none is listed under its full name; a Rate without
// samples shows N/A and passes.
func TestThresholdSubmetricWithoutParent(t *testing.T) {
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltins(reg)
	cfg, _ := threshold.DecodeConfig([]byte(`{"iteration_duration{scenario:write}":["max<100"], "checks":["rate>0.5"]}`))
	set, _, err := threshold.New(cfg, reg)
	if err != nil {
		t.Fatal(err)
	}
	c := ingest.New(ingest.Options{Builtins: b})
	for _, m := range set.Metrics() {
		c.Track(m)
	}
	for _, sm := range set.Submetrics() {
		c.TrackSubmetric(sm)
	}
	c.PushSamples([]metrics.Sample{{Metric: b.IterationDuration, Value: 250, Tags: metrics.NewTags(map[string]string{"scenario": "write"})}})
	set.Evaluate(c, time.Second, true)
	d, err := Build(Input{Snapshot: c.Snapshot(), Thresholds: set, Duration: time.Second, Options: Options{NoColor: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n  █ THRESHOLDS\n\n" +
		"    checks\n" +
		"    ✓ 'rate>0.5' rate=N/A\n\n" +
		"    iteration_duration{scenario:write}\n" +
		"    ✗ 'max<100' max=250ms\n\n\n" +
		"  █ TOTAL RESULTS\n\n" +
		"    EXECUTION\n" +
		"    iteration_duration.....: avg=250ms min=250ms med=250ms max=250ms p(90)=250ms p(95)=250ms\n" +
		"      { scenario:write }...: avg=250ms min=250ms med=250ms max=250ms p(90)=250ms p(95)=250ms\n"
	if got := d.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// The script runner's own group tree replaces the one derived from samples; JSON is the JS object.
func TestRootOverrideAndJSON(t *testing.T) {
	tree := checktree.New()
	if _, err := tree.Root().Child("setup"); err != nil {
		t.Fatal(err)
	}
	c, err := tree.Root().Check("a<b")
	if err != nil {
		t.Fatal(err)
	}
	c.Record(true)
	d, err := Build(Input{Root: tree.Root(), Duration: time.Second, SetupData: json.RawMessage(`not json`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"name":"a<b"`) {
		t.Errorf("HTML escaped or check missing: %s", b)
	}
	if _, ok := back["setup_data"]; ok {
		t.Error("undecodable setup data must be left out")
	}
	g := back["root_group"].(map[string]any)["groups"].([]any)[0].(map[string]any)
	if g["name"] != "setup" || g["id"] != checktree.ID("::setup") {
		t.Errorf("groups %v", g)
	}
}
