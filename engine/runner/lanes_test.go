package runner

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/options"
	"github.com/dnecho/dnecho/engine/summary"
)

// lanesScript emits the same multiset of values whichever VU runs which iteration: every value
// is a function of the iteration's number in the test. Its trend gets more values than a store
// keeps exactly (metrics.TrendExactSamples), in the collector and in one VU's flush interval, and
// each tagged add makes a new tag set (the fold's per-sample series).
const lanesScript = `
import exec from 'k6/execution';
import { check, group } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const t = new Trend('lane_trend', true);
const c = new Counter('lane_counter');
const r = new Rate('lane_rate');
const g = new Gauge('lane_gauge');
export const options = {
  scenarios: { s: { executor: 'shared-iterations', vus: 4, iterations: 6000 } },
  summaryTrendStats: ['count', 'min', 'max', 'avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)'],
  thresholds: {
    lane_trend: ['p(95)<100000'],
    'lane_trend{kind:odd}': ['p(99)<100000'],
    lane_rate: ['rate>0.1'],
  },
};
export default function () {
  const i = exec.scenario.iterationInTest;
  const v = ((i * 7919) % 100003) / 7;
  t.add(v);
  t.add(v / 3, { kind: i % 2 ? 'odd' : 'even' });
  c.add(i % 5);
  r.add(i % 3 === 0);
  g.add(i);
  group('g', () => { check(i, { even: (x) => x % 2 === 0 }); });
}`

// TestLanesAgree: the same script gives the same thresholds and summary whether the VUs fold
// their samples (no output: the fast lane) or push every sample (a json output: the full lane).
// Counts, percentiles, extremes, counter sums, rates, checks and threshold outcomes are equal;
// sums may differ in the last bits (another order of additions).
func TestLanesAgree(t *testing.T) {
	breakdown := func(c *Config) { c.Breakdowns = []ingest.ByTag{{Metric: "lane_trend", Tag: "kind"}} }
	fast := runScript(t, lanesScript, options.Options{}, breakdown, nil)
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	full := runScript(t, lanesScript, options.Options{Out: []string{"json=" + jsonPath}}, breakdown, nil)
	for _, out := range []testRunOutput{fast, full} {
		if out.err != nil {
			t.Fatalf("%v\n%s", out.err, out.logs)
		}
	}
	if b, err := os.ReadFile(jsonPath); err != nil || strings.Count(string(b), `"metric":"lane_trend"`) < 12000 {
		t.Fatalf("the full lane's json output lacks the samples (err %v)", err)
	}
	compareSummaries(t, fast.res.Summary, full.res.Summary)
}

func compareSummaries(t *testing.T, fast, full *summary.Data) {
	t.Helper()
	byName := map[string]*summary.Metric{}
	for _, m := range full.Metrics {
		byName[m.Name] = m
	}
	compared := 0
	for _, m := range fast.Metrics {
		f := byName[m.Name]
		if f == nil {
			t.Errorf("%s: only in the fast lane's summary", m.Name)
			continue
		}
		if !strings.HasPrefix(m.Name, "lane_") && m.Name != "checks" && m.Name != "iterations" {
			continue // durations and data sizes differ from run to run
		}
		compared++
		if len(m.Thresholds) != len(f.Thresholds) {
			t.Errorf("%s: %d thresholds fast, %d full", m.Name, len(m.Thresholds), len(f.Thresholds))
		}
		for i := range min(len(m.Thresholds), len(f.Thresholds)) {
			if a, b := m.Thresholds[i], f.Thresholds[i]; a.OK != b.OK || a.Value != b.Value || !a.Evaluated {
				t.Errorf("%s: threshold %s: %+v fast, %+v full", m.Name, a.Source, a, b)
			}
		}
		for _, v := range m.Values {
			want := f.Value(v.Key)
			if v.Key == "rate" && m.Type == metrics.Counter { // a counter's per second: over each run's duration
				continue
			}
			if m.Name == "lane_gauge" && v.Key == "value" { // the last of 4 VUs: either lane's order
				continue
			}
			tol := 0.0
			if v.Key == "avg" {
				tol = 1e-9 * math.Abs(want)
			}
			if math.Abs(v.V-want) > tol {
				t.Errorf("%s %s: %v fast, %v full", m.Name, v.Key, v.V, want)
			}
		}
	}
	if compared < 7 {
		t.Errorf("compared %d metrics, want the script's 4, their sub-metrics, checks and iterations", compared)
	}
	if len(fast.Metrics) != len(full.Metrics) {
		t.Errorf("%d metrics fast, %d full", len(fast.Metrics), len(full.Metrics))
	}
	fg, ug := fast.Root.Groups(), full.Root.Groups()
	if len(fg) != 1 || len(ug) != 1 || len(fg[0].Checks()) != 1 || len(ug[0].Checks()) != 1 {
		t.Fatalf("group tree: fast %d groups, full %d", len(fg), len(ug))
	}
	a, b := fg[0].Checks()[0], ug[0].Checks()[0]
	ap, af := a.Counts()
	bp, bf := b.Counts()
	if a.ID != b.ID || ap != bp || af != bf || ap != 3000 {
		t.Errorf("checks: %s %d/%d fast, %s %d/%d full (want 3000 passes)", a.Path, ap, af, b.Path, bp, bf)
	}
}

// TestShortRunHasVUGauges: a run far shorter than the gauges' one-second period still has vus
// and vus_max, in the summary of either lane and in a per-sample output, as k6 shows them
// (`vus: 2 min=2 max=2`): the scheduler samples them at the start and at the end of every run.
func TestShortRunHasVUGauges(t *testing.T) {
	const script = `
export const options = { vus: 2, iterations: 10 };
export default function () {}`
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	for _, lane := range []struct {
		name string
		out  []string
	}{{"fast", nil}, {"full", []string{"json=" + jsonPath}}} {
		out := runScript(t, script, options.Options{Out: lane.out}, nil, nil)
		if out.err != nil {
			t.Fatalf("%s lane: %v\n%s", lane.name, out.err, out.logs)
		}
		for _, name := range []string{"vus", "vus_max"} {
			for _, key := range []string{"value", "min", "max"} {
				if v := metricValue(out.res.Summary, name, key); v != 2 {
					t.Errorf("%s lane: %s %s = %v, want 2", lane.name, name, key, v)
				}
			}
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vus", "vus_max"} {
		if n := strings.Count(string(b), `"value":2,"tags":{}},"metric":"`+name+`"}`); n < 2 {
			t.Errorf("json output: %d points of %s, want the start and the end", n, name)
		}
	}
}
