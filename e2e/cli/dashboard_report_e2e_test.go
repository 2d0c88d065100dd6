package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/teststore"
)

// outlierScript echoes for DURATION with 2 VUs; one call in 300 makes the DataNode sleep 50 ms, so
// that max stands far above p99.
const outlierScript = `
import dnecho from 'k6/x/dnecho';
import exec from 'k6/execution';
export const options = {
  scenarios: { echo: { executor: 'constant-vus', vus: 2, duration: __ENV.DURATION } },
  thresholds: { dnecho_req_failed: ['rate<0.01'] },
};
const client = new dnecho.Client({ containerId: 1 });
export default function () {
  client.echo({ sleepMs: exec.scenario.iterationInTest % 300 === 299 ? 50 : 0 });
}
`

// reportCharts is what TestDashboardReportCharts reads from a report in Chromium.
const reportCharts = `(() => {
  const d = window.dnechoDashboard, doc = d.doc(), pts = doc.points;
  const lat = d.charts.lat.plot, scale = id => d.charts[id].plot.scales.y;
  const failed = document.querySelector('tr[data-metric="dnecho_req_failed"] td:nth-child(3)');
  return {
    points: pts.length,
    maxScale: lat.series.find(s => /^max/.test(s.label)).scale,
    pScales: lat.series.slice(1).filter(s => /^p/.test(s.label)).map(s => s.scale),
    yTop: lat.scales.y.max, maxTop: Math.max(...pts.map(p => p.max || 0)), p99Top: Math.max(...pts.map(p => p.p99 || 0)),
    rateMins: [scale('rps').min, scale('res').min],
    rate: Number(document.getElementById('stat-rps').dataset.value),
    failedText: failed ? failed.textContent : '',
  };
})()`

// The report of a short test: its charts have at least 10 points (the period follows the test's
// length: an 8 s test gets 500 ms periods, where a fixed 10 s period drew one dot), the latency
// chart keeps max on an axis of its own so that the percentiles do not lie flat under it, rate
// axes start at 0, the Summary tab counts failures in words, and the header rate is the
// summary's. The same for `dnecho run` and the freon command. Chromium renders it.
func TestDashboardReportCharts(t *testing.T) {
	t.Parallel()
	browser := teststore.NewBrowser(t)
	dir := t.TempDir()
	_, conf := minitest.Start(t, minicluster.Options{})
	script := writeRunScript(t, "outliers.js", outlierScript)
	runReport, freonReport, export := filepath.Join(dir, "run.html"), filepath.Join(dir, "freon.html"), filepath.Join(dir, "summary.json")
	r := dnecho(t, 2*time.Minute, "run", "-q", "--conf", conf, "-e", "DURATION=8s", "--summary-export", export,
		"-o", "web-dashboard=port=-1&export="+runReport, script)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	e := readExport(t, export)
	f := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "--duration", "8s", "-t", "2",
		"--sleep-time-ms", "0", "-o", "web-dashboard=port=-1&export="+freonReport)
	if f.code != 0 {
		t.Fatalf("freon: exit %d\n%s", f.code, f.all())
	}
	for _, tc := range []struct{ name, file string }{{"run", runReport}, {"freon", freonReport}} {
		browser.Do(t, 30*time.Second, chromedp.Navigate("file://"+tc.file),
			chromedp.Poll[chromedp.Void](chartsDrawn, chromedp.WithPollingTimeout(15*time.Second)))
		browser.Screenshot(t, "report-"+tc.name)
		c := teststore.Eval[struct {
			Points                     int
			MaxScale                   string
			PScales                    []string
			YTop, MaxTop, P99Top, Rate float64
			RateMins                   []float64
			FailedText                 string
		}](t, browser, reportCharts)
		if c.Points < 10 {
			t.Errorf("%s: %d points per chart for an 8 s test, want at least 10", tc.name, c.Points)
		}
		if c.MaxScale == "y" || strings.Join(c.PScales, ",") != "y,y,y,y" {
			t.Errorf("%s: max on scale %q, percentiles on %q: want max on its own axis", tc.name, c.MaxScale, c.PScales)
		}
		// On the percentiles' axis max would set its top; a busy machine can lift p99 near max,
		// and then the axes cannot be told apart.
		if c.MaxTop > 2.5*c.P99Top && c.YTop >= c.MaxTop {
			t.Errorf("%s: the percentiles' axis reaches %v ms for a max of %v ms (p99 at most %v ms): they lie flat", tc.name, c.YTop, c.MaxTop, c.P99Top)
		}
		if c.RateMins[0] != 0 || c.RateMins[1] != 0 {
			t.Errorf("%s: rate axes start at %v, want 0", tc.name, c.RateMins)
		}
		if tc.name == "run" {
			if !strings.Contains(c.FailedText, " failed of ") || strings.Contains(c.FailedText, "passes") {
				t.Errorf("Summary tab for dnecho_req_failed: %q, want \"N failed of M\"", c.FailedText)
			}
			if want := e.Metrics["dnecho_reqs"]["rate"].(float64); math.Abs(c.Rate-want) > 1e-9*want {
				t.Errorf("report header rate %v/s, the summary's %v/s", c.Rate, want)
			}
		}
	}
	if errs := browser.Errors(); len(errs) > 0 {
		t.Errorf("report page errors: %q", errs)
	}
}
