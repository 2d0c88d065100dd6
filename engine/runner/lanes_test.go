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
	if a, b := untimed(fast.Metrics), untimed(full.Metrics); a != b {
		t.Errorf("%d metrics fast, %d full (vus and vus_max left out)", a, b)
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

// untimed counts the metrics but vus and vus_max, which the scheduler samples once a second as
// k6 does: a run shorter than that has none, and either lane's run may be.
func untimed(ms []*summary.Metric) int {
	n := 0
	for _, m := range ms {
		if m.Name != "vus" && m.Name != "vus_max" {
			n++
		}
	}
	return n
}
