package summary

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
	"github.com/dnecho/dnecho/testsupport/testkit"
)

// scenario is a fixed run: 10 s, 500 iterations, 3 DataNodes, checks in the root group and in a
// nested group, thresholds on a metric, a sub-metric and checks.
func scenario(t *testing.T) Input {
	t.Helper()
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltins(reg)
	rtt := reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	reqs := reg.MustNewMetric("extmod_reqs", metrics.Counter, metrics.Default)
	failed := reg.MustNewMetric("extmod_req_failed", metrics.Rate, metrics.Default)
	cfg, err := threshold.DecodeConfig([]byte(`{
		"extmod_req_duration": ["p(99)<5", "avg<2"],
		"extmod_req_duration{datanode:dn3}": ["p(99)<3"],
		"checks": ["rate>0.99"],
		"extmod_req_failed": [{"threshold": "rate<0.01", "abortOnFail": true}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
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
	c.TrackBreakdown("extmod_req_duration", "datanode")
	// A front end's breakdown by several tags, for its hooks: the summary leaves it out, so the
	// golden files are those of the breakdown by datanode alone.
	c.TrackByTag(ingest.ByTag{Metric: "extmod_req_duration", Tag: "datanode", And: []string{"scenario"}})

	t0 := time.Unix(1_750_000_000, 0)
	var batch []metrics.Sample
	push := func(m *metrics.Metric, v float64, tags map[string]string) {
		batch = append(batch, metrics.Sample{Metric: m, Time: t0, Value: v, Tags: metrics.NewTags(tags)})
	}
	for i := 0; i < 500; i++ {
		dn := []string{"dn1", "dn2", "dn3"}[i%3]
		ms := 0.4 + float64(i%50)*0.02 // 0.40 .. 1.38 ms
		if dn == "dn3" {
			ms *= 3
		}
		push(rtt, ms, map[string]string{"datanode": dn, "scenario": "default", "group": ""})
		push(reqs, 1, nil)
		push(failed, 0, nil)
		push(b.Iterations, 1, nil)
		push(b.IterationDuration, ms+0.25, nil)
		push(b.Checks, 1, map[string]string{"check": "echo ok", "group": ""})
		ok := 1.0
		if i%10 == 0 {
			ok = 0
		}
		push(b.Checks, ok, map[string]string{"check": "payload matches", "group": "::write::verify"})
		push(b.DataSent, 4096, nil)
		push(b.DataReceived, 1038, nil)
	}
	push(b.GroupDuration, 3, map[string]string{"group": "::write"})
	push(b.VUs, 10, nil)
	push(b.VUs, 4, nil)
	push(b.VUsMax, 10, nil)
	c.PushSamples(batch)
	set.Evaluate(c, 10*time.Second, true)
	return Input{
		Snapshot:   c.Snapshot(),
		Thresholds: set,
		Duration:   10*time.Second + 12500*time.Microsecond,
		SetupData:  json.RawMessage(`{"containers":[1,2]}`),
		Options:    Options{NoColor: true, IsStdErrTTY: true},
	}
}

func TestGoldenText(t *testing.T) {
	for _, tc := range []struct {
		file string
		opts func(*Options)
	}{
		{"compact.txt", func(*Options) {}},
		{"full.txt", func(o *Options) { o.Mode = Full }},
		{"timeunit_stats.txt", func(o *Options) { o.TimeUnit = "us"; o.TrendStats = []string{"count", "p(99.9)", "max"} }},
		{"color.txt", func(o *Options) { o.NoColor = false }},
		{"legacy.txt", func(o *Options) { o.Mode = Legacy }},
		{"legacy_color.txt", func(o *Options) { o.Mode = Legacy; o.NoColor = false }},
	} {
		in := scenario(t)
		tc.opts(&in.Options)
		d, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		testkit.Golden(t, tc.file, []byte(d.Text()))
	}
}

func TestGoldenJSON(t *testing.T) {
	d, err := Build(scenario(t))
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(d.JS(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "handle_summary.json", append(js, '\n'))
	exp, err := d.Export()
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "summary_export.json", exp)
}
