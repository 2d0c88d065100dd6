package cli

import (
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/teststore"
)

// chartsDrawn is true when the page has its eight charts, none blank, and the calls/s line drawn
// in its colour (#2f6fde) on the first one.
const chartsDrawn = `(() => {
  const cs = [...document.querySelectorAll('canvas')];
  if (cs.length < 8) return false;
  const blank = c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i]) return false; return true; };
  if (cs.some(blank)) return false;
  const d = cs[0].getContext('2d').getImageData(0, 0, cs[0].width, cs[0].height).data;
  let line = 0;
  for (let i = 0; i < d.length; i += 4)
    if (Math.abs(d[i] - 47) < 40 && Math.abs(d[i+1] - 111) < 40 && Math.abs(d[i+2] - 222) < 40 && d[i+3] > 100) line++;
  return line > 30;
})()`

// chartTotal integrates the calls/s chart of the report: Σ rate × period length.
const chartTotal = `(() => {
  const d = JSON.parse(document.getElementById('dnecho-data').textContent);
  let prev = d.start, total = 0;
  for (const p of d.points) { total += p.rps * (p.t - prev) / 1000; prev = p.t; }
  return total;
})()`

// TestWebDashboard opens the live dashboard in headless Chromium during a run and the exported
// report after it: the charts render, the page logs no error, and the report's numbers (its
// summary and its calls/s chart) match the summary. Screenshots go to DNECHO_TEST_ARTIFACTS or
// the test's temp dir.
func TestWebDashboard(t *testing.T) {
	t.Parallel()
	browser := teststore.NewBrowser(t)
	dir := t.TempDir()
	report, export := filepath.Join(dir, "report.html"), filepath.Join(dir, "summary.json")
	port := teststore.FreePort(t)
	script := writeRunScript(t, "outputs.js", outputScript)
	run := startRun(t, "-q", "--local-cluster", "-e", "DURATION=12s", "--summary-export", export, "--summary-trend-stats", "med,p(99),max,count",
		"-o", "web-dashboard=port="+strconv.Itoa(port)+"&period=1s&export="+report, script)
	run.waitFor(t, "web-dashboard: live page at http://127.0.0.1:"+strconv.Itoa(port))

	browser.Do(t, 30*time.Second, chromedp.Navigate("http://127.0.0.1:"+strconv.Itoa(port)+"/"),
		chromedp.Poll[chromedp.Void](`document.getElementById('stat-rps').textContent !== '–'`, chromedp.WithPollingTimeout(20*time.Second)))
	browser.Do(t, 20*time.Second, chromedp.Poll[chromedp.Void](chartsDrawn, chromedp.WithPollingTimeout(15*time.Second)))
	if s := teststore.Eval[string](t, browser, `document.getElementById('stat-state').textContent`); s != "running" {
		t.Errorf("live page state %q, want running", s)
	}
	browser.Screenshot(t, "dashboard-live")
	// Leave the page before the run ends: afterwards its polls find no server, which Chromium logs.
	browser.Do(t, 10*time.Second, chromedp.Navigate("about:blank"))
	if errs := browser.Errors(); len(errs) > 0 {
		t.Errorf("live page errors: %q", errs)
	}
	seen := len(browser.Errors())

	r := run.wait(t)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	e := readExport(t, export)
	calls := float64(reqs(t, e))

	browser.Do(t, 30*time.Second, chromedp.Navigate("file://"+report),
		chromedp.Poll[chromedp.Void](chartsDrawn, chromedp.WithPollingTimeout(15*time.Second)))
	browser.Screenshot(t, "dashboard-report")
	inSummary := teststore.Eval[string](t, browser, `document.querySelector('tr[data-metric="dnecho_reqs"] span[data-key="count"]').dataset.value`)
	if inSummary != strconv.FormatFloat(calls, 'g', -1, 64) {
		t.Errorf("report summary says %s calls, the summary export %v", inSummary, calls)
	}
	if total := teststore.Eval[float64](t, browser, chartTotal); math.Abs(total-calls) > 0.5 {
		t.Errorf("report chart integrates to %v calls, the summary counts %v", total, calls)
	}
	for _, sel := range []string{"#summary-text", `tr[data-metric="dnecho_req_duration"]`} {
		if !teststore.Eval[bool](t, browser, `document.querySelector('`+sel+`') !== null`) {
			t.Errorf("report lacks %s", sel)
		}
	}
	if b, err := os.ReadFile(report); err != nil || strings.Contains(string(b), "src=\"http") || strings.Contains(string(b), "href=\"http") {
		t.Errorf("report is not self-contained (%v)", err)
	}
	checkReport(t, browser, e)
	if errs := browser.Errors()[seen:]; len(errs) > 0 {
		t.Errorf("report page errors: %q", errs)
	}
}

// reportFacts is what checkReport reads from the report page.
const reportFacts = `(() => {
  const d = window.dnechoDashboard, doc = d.doc(), pts = doc.points;
  const legend = id => [...document.querySelectorAll('#' + id + ' .u-legend .u-value')].map(e => e.textContent);
  const rps = pts.map(p => p.rps).sort((a, b) => a - b);
  return {
    p99: Number(document.getElementById('stat-p99').dataset.value),
    rate: Number(document.getElementById('stat-rps').dataset.value),
    legends: [...legend('rps'), ...legend('lat'), ...legend('vus')],
    thresholdValues: [...document.querySelectorAll('#th-body td.num')].map(e => e.textContent),
    vuTicks: d.charts.vus.ticks,
    dataSent: document.querySelector('tr[data-metric="data_sent"] span[data-key="count"]').textContent,
    histCalls: doc.totals.hist.reduce((a, b) => a + b.n, 0),
    lastRPS: pts[pts.length - 1].rps, medianRPS: rps[Math.floor(rps.length / 2)],
    netSeries: d.charts.net.plot.series.slice(1).map(s => s.label),
    netLegends: legend('net').slice(1),
    dnRows: [...document.querySelectorAll('#dn-body tr')].map(r => [...r.cells].map(c => c.textContent)),
    verdict: document.getElementById('verdict').textContent,
  };
})()`

// checkReport checks the finished report against the summary export e: the header shows the
// whole test's rate and p99, legends show the last values, thresholds and data amounts have
// units, VU ticks are whole, the histogram holds every call, the charts do not end in a drop, and
// the network chart and the per-DataNode table show the 3 DataNodes (network RTT and DataNode
// time each), with the verdict.
func checkReport(t *testing.T, browser *teststore.Browser, e summaryExport) {
	t.Helper()
	f := teststore.Eval[struct {
		P99, Rate, HistCalls, LastRPS, MedianRPS float64
		Legends, ThresholdValues, VUTicks        []string
		NetSeries, NetLegends                    []string
		DNRows                                   [][]string
		DataSent, Verdict                        string
	}](t, browser, reportFacts)
	want := e.Metrics["dnecho_req_duration"]["p(99)"].(float64)
	if math.Abs(f.P99-want) > 1e-9*want {
		t.Errorf("report header p99 %v ms, the summary's %v ms", f.P99, want)
	}
	if rate := e.Metrics["dnecho_reqs"]["rate"].(float64); math.Abs(f.Rate-rate) > 1e-9*rate {
		t.Errorf("report header rate %v/s, the summary's %v/s", f.Rate, rate)
	}
	for _, l := range f.Legends {
		if strings.Contains(l, "–") {
			t.Errorf("report legends %q: want the last values", f.Legends)
			break
		}
	}
	if len(f.ThresholdValues) != 2 || !slices.ContainsFunc(f.ThresholdValues, func(v string) bool { return strings.HasSuffix(v, " ms") }) ||
		!slices.ContainsFunc(f.ThresholdValues, func(v string) bool { return strings.HasSuffix(v, "%") }) {
		t.Errorf("threshold values %q: want one in ms and one in %%", f.ThresholdValues)
	}
	for _, v := range f.VUTicks {
		if _, err := strconv.Atoi(v); err != nil {
			t.Errorf("VU ticks %q: want whole numbers", f.VUTicks)
			break
		}
	}
	if !regexp.MustCompile(`^count=[\d.]+ [kMG]?B$`).MatchString(f.DataSent) {
		t.Errorf("data_sent %q: want an amount in B, kB, MB or GB", f.DataSent)
	}
	if calls := float64(reqs(t, e)); f.HistCalls != calls {
		t.Errorf("latency histogram holds %v calls, the summary counts %v", f.HistCalls, calls)
	}
	if f.LastRPS < f.MedianRPS/2 {
		t.Errorf("the calls/s chart ends in a drop: last %v/s, median %v/s", f.LastRPS, f.MedianRPS)
	}
	checkNetworkChart(t, f.NetSeries, f.NetLegends, f.DNRows, f.Verdict)
}

// checkNetworkChart checks the report's network chart (a network and a DataNode series per
// DataNode, named by short uuid, with values in ms), its per-DataNode table (3 rows, RTT
// measured) and the verdict (one of slowdatanode's lines).
func checkNetworkChart(t *testing.T, series, legends []string, rows [][]string, verdict string) {
	t.Helper()
	short := regexp.MustCompile(`^[0-9a-f]{4}… (network|DataNode)$`)
	if len(series) != 6 || !slices.ContainsFunc(series, short.MatchString) {
		t.Errorf("network chart series %q: want a network and a DataNode series for each of 3 DataNodes", series)
	}
	for _, l := range legends {
		if !strings.HasSuffix(l, " ms") {
			t.Errorf("network chart legends %q: want values in ms", legends)
			break
		}
	}
	if len(rows) != 3 || len(rows[0]) != 8 || rows[0][5] == "–" {
		t.Errorf("per-DataNode rows %q: want 3 with an RTT p50", rows)
	}
	if !strings.HasPrefix(verdict, "No slow DataNode") && !strings.HasPrefix(verdict, "SLOW DATANODE") {
		t.Errorf("verdict %q", verdict)
	}
}

// TestWebDashboardShortRun: a run shorter than one period is one point on an axis one period
// wide, not one that spans years.
func TestWebDashboardShortRun(t *testing.T) {
	t.Parallel()
	browser := teststore.NewBrowser(t)
	report := filepath.Join(t.TempDir(), "short.html")
	runOutputs(t, []string{"DURATION=1s"}, "-o", "web-dashboard=port=-1&period=10s&export="+report)
	browser.Do(t, 30*time.Second, chromedp.Navigate("file://"+report),
		chromedp.Poll[chromedp.Void](`window.dnechoDashboard && window.dnechoDashboard.charts.rps`, chromedp.WithPollingTimeout(15*time.Second)))
	span := teststore.Eval[[]float64](t, browser, `(() => { const s = window.dnechoDashboard.charts.rps.plot.scales.x;
	  return [s.max - s.min, window.dnechoDashboard.doc().points.length]; })()`)
	if span[1] != 1 || !(span[0] > 0 && span[0] <= 10) {
		t.Errorf("%v points on an x axis %v s wide; want one point and at most one period (10 s)", span[1], span[0])
	}
	if errs := browser.Errors(); len(errs) > 0 {
		t.Errorf("report page errors: %q", errs)
	}
}

// TestWebDashboardPortInUse: a port in use is a warning; the run and its report go on.
func TestWebDashboardPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	report := filepath.Join(t.TempDir(), "r.html")
	_, port, _ := net.SplitHostPort(l.Addr().String())
	r, _ := runOutputs(t, []string{"K6_WEB_DASHBOARD=true", "K6_WEB_DASHBOARD_PORT=" + port, "K6_WEB_DASHBOARD_EXPORT=" + report, "DURATION=1s"})
	mustContain(t, r, "web-dashboard: cannot listen on 127.0.0.1:"+port, "web-dashboard: report written to "+report)
	if _, err := os.Stat(report); err != nil {
		t.Error(err)
	}
}

// screenshotScript ramps from 1 to 8 VUs and back over 60 s against DNECHO_SCM.
const screenshotScript = `
import dnecho from 'k6/x/dnecho';
import { check } from 'k6';
export const options = {
  scenarios: { echo: { executor: 'ramping-vus', startVUs: 1, gracefulRampDown: '0s',
    stages: [{ duration: '20s', target: 8 }, { duration: '20s', target: 8 }, { duration: '20s', target: 2 }] } },
  thresholds: { dnecho_req_failed: ['rate<0.01'], 'dnecho_req_duration{result:SUCCESS}': ['p(99)<20'] },
};
const client = new dnecho.Client({ containerId: 1, target: 'all', scm: __ENV.DNECHO_SCM });
export default function () {
  check(client.echo({ payloadResp: 1024 }), { 'echo ok': (r) => r.ok });
}
`

// TestWebDashboardScreenshots renders the pictures of docs/ (docs/dashboard.png: the live page
// near the end of the run; docs/report.png: the report) from a 60-second ramp during which one
// DataNode slows down from 15 s on and fails a few calls: the network chart shows its DataNode
// time rise over a flat RTT, and the verdict (most of its calls slow) names it and its DataNode
// time. It runs for a minute, so only with DNECHO_SCREENSHOTS=1.
func TestWebDashboardScreenshots(t *testing.T) {
	if os.Getenv("DNECHO_SCREENSHOTS") != "1" {
		t.Skip("DNECHO_SCREENSHOTS=1 renders docs/dashboard.png and docs/report.png from a 60 s run")
	}
	browser := teststore.NewBrowser(t)
	c, _ := minitest.Start(t, minicluster.Options{Faults: dnsim.Faults{Latency: 100 * time.Microsecond, Jitter: 200 * time.Microsecond}})
	report := filepath.Join(t.TempDir(), "report.html")
	port := strconv.Itoa(teststore.FreePort(t))
	run := startRun(t, "-q", "-e", "DNECHO_SCM="+strings.Join(c.SCMAddrs(), ","), "-o",
		"web-dashboard=port="+port+"&period=2s&export="+report, writeRunScript(t, "ramp.js", screenshotScript))
	run.waitFor(t, "web-dashboard: live page at")
	began := time.Now()
	at := func(d time.Duration) { time.Sleep(time.Until(began.Add(d))) }
	slow := c.DataNodes()[1]
	at(15 * time.Second)
	if err := slow.SetFaults(dnsim.Faults{Latency: 3 * time.Millisecond, Jitter: 4 * time.Millisecond, ErrorRate: 0.02}); err != nil {
		t.Fatal(err)
	}
	at(55 * time.Second)
	browser.Do(t, 30*time.Second, chromedp.Navigate("http://127.0.0.1:"+port+"/"),
		chromedp.Poll[chromedp.Void](chartsDrawn, chromedp.WithPollingTimeout(15*time.Second)))
	copyFile(t, browser.Screenshot(t, "dashboard-live"), filepath.Join("..", "..", "docs", "dashboard.png"))
	browser.Do(t, 10*time.Second, chromedp.Navigate("about:blank"))
	if r := run.wait(t); r.code != 0 && r.code != 99 { // 99: the slow DataNode fails a threshold
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	browser.Do(t, 30*time.Second, chromedp.Navigate("file://"+report),
		chromedp.Poll[chromedp.Void](chartsDrawn, chromedp.WithPollingTimeout(15*time.Second)))
	copyFile(t, browser.Screenshot(t, "dashboard-report"), filepath.Join("..", "..", "docs", "report.png"))
	if v := teststore.Eval[string](t, browser, `document.getElementById('verdict').textContent`); !strings.HasPrefix(v, "SLOW DATANODE") {
		t.Errorf("the report's verdict %q does not name the slowed DataNode", v)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", to)
}
