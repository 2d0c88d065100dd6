package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
	"github.com/dnecho/dnecho/testsupport/teststore"
)

// grafanaScript runs VUS VUs for DURATION against DNECHO_SCM, with a check and a threshold the
// injected failures do not break. Prometheus' rate() cannot count what a counter holds at its
// first sample, so each VU makes one call and waits two seconds: every series is born holding a
// call or two, and a windowed panel over the whole run sees every call.
const grafanaScript = `
import dnecho from 'k6/x/dnecho';
import { check, sleep } from 'k6';
export const options = {
  scenarios: { echo: { executor: 'constant-vus', vus: Number(__ENV.VUS), duration: __ENV.DURATION } },
  thresholds: { dnecho_req_failed: ['rate<0.5'] },
};
const client = new dnecho.Client({ containerId: 1, target: 'all', scm: __ENV.DNECHO_SCM });
export default function () {
  check(client.echo({ payloadResp: 64 }), { 'echo ok': (r) => r.ok });
  if (__ITER === 0) sleep(2);
}
`

// runWant is what the summaries of one test run (one instance, or every instance of a
// distributed run) say the dashboards must show.
type runWant struct {
	testid          string
	calls, failed   float64
	vus, checksRate float64
	// The latency stats (ms) of a single-instance run; nil for a distributed run, whose
	// instances' summaries cannot be merged into quantiles.
	stats map[string]float64
	perDN map[string]float64 // p(99) per DataNode
	// The echo p(50) and the network RTT's p(50), count and max per DataNode (ms) of a
	// single-instance run, and the slow DataNodes its verdict named (the most of any instance).
	perDNP50, rttP50, rttCount, rttMax map[string]float64
	slow                               float64
	// raw holds the run's dnecho_req_duration ("echo") and dnecho_tcp_rtt ("rtt") samples (ms) as
	// InfluxDB stored them, sorted, per DataNode and under "" all together; checkInflux fills it
	// for a single-instance run.
	raw map[string]map[string][]float64
}

func (w runWant) failureRate() float64 { return w.failed / w.calls }

func wantOf(t *testing.T, testid string, es ...summaryExport) runWant {
	t.Helper()
	w := runWant{testid: testid}
	var passes, checks float64
	for _, e := range es {
		w.calls += float64(reqs(t, e))
		f, _ := e.Metrics["dnecho_req_failed"]["passes"].(float64)
		w.failed += f
		v, _ := e.Metrics["vus_max"]["max"].(float64)
		w.vus += v
		s, _ := e.Metrics["dnecho_slow_datanodes"]["value"].(float64)
		w.slow = max(w.slow, s)
		p, _ := e.Metrics["checks"]["passes"].(float64)
		fl, _ := e.Metrics["checks"]["fails"].(float64)
		passes, checks = passes+p, checks+p+fl
	}
	w.checksRate = passes / checks
	if len(es) == 1 {
		w.stats, w.perDN, w.perDNP50 = map[string]float64{}, map[string]float64{}, map[string]float64{}
		w.rttP50, w.rttCount, w.rttMax = map[string]float64{}, map[string]float64{}, map[string]float64{}
		for k, v := range es[0].Metrics["dnecho_req_duration"] {
			w.stats[k], _ = v.(float64)
		}
		for name, m := range es[0].Metrics {
			if dn, ok := strings.CutPrefix(name, "dnecho_req_duration{datanode:"); ok {
				w.perDN[strings.TrimSuffix(dn, "}")], _ = m["p(99)"].(float64)
				w.perDNP50[strings.TrimSuffix(dn, "}")], _ = m["p(50)"].(float64)
			}
			if dn, ok := strings.CutPrefix(name, "dnecho_tcp_rtt{datanode:"); ok {
				dn = strings.TrimSuffix(dn, "}")
				w.rttP50[dn], _ = m["p(50)"].(float64)
				w.rttCount[dn], _ = m["count"].(float64)
				w.rttMax[dn], _ = m["max"].(float64)
			}
		}
	}
	if w.calls == 0 || w.failed == 0 || w.vus == 0 {
		t.Fatalf("run %s: want calls, failures and VUs in the summaries: %+v", testid, w)
	}
	return w
}

// TestGrafanaDashboards writes runs with injected failures to a real Prometheus 2.42 and
// InfluxDB 1.6 with the settings of deploy/compose.yaml and evaluates every query of every
// dashboard in deploy/grafana for each run, as Grafana would: each panel must show that run's
// own numbers (failure rate, calls, VUs of all instances, latency quantiles), not another run's,
// and not the rate of one series.
func TestGrafanaDashboards(t *testing.T) {
	t.Parallel()
	prom, influx := teststore.StartPrometheus(t), teststore.StartInfluxDB(t)
	c, _ := minitest.Start(t, minicluster.Options{Faults: dnsim.Faults{ErrorRate: 0.04}})
	script := writeRunScript(t, "grafana.js", grafanaScript)
	dir := t.TempDir()
	start := time.Now()
	stamp := strconv.FormatInt(start.UnixNano(), 36)
	runs := 0

	// run starts one dnecho run (or instance) writing to both stores with the environment of a
	// compose service; it returns a function waiting for its summary.
	run := func(service, testid, vus string, extra ...string) func() summaryExport {
		env := []string{"K6_PROMETHEUS_RW_PUSH_INTERVAL=100ms", "K6_INFLUXDB_PUSH_INTERVAL=250ms"}
		for k, v := range composeEnv(t, service) {
			if k == "K6_PROMETHEUS_RW_SERVER_URL" {
				v = prom.WriteURL()
			}
			env = append(env, k+"="+v)
		}
		runs++
		export := filepath.Join(dir, fmt.Sprintf("%d.json", runs))
		args := append([]string{"run", "-q", "-e", "DNECHO_SCM=" + strings.Join(c.SCMAddrs(), ","), "-e", "VUS=" + vus,
			"-e", "DURATION=5s", "--tag", "testid=" + testid, "--summary-export", export,
			"--summary-trend-stats", "p(50),p(95),p(99),min,max,count", "-o", "experimental-prometheus-rw",
			"-o", "influxdb=" + influx.URL + "/dnecho"}, extra...)
		r := startBinary(t, dnechoBinary(t), env, append(args, script)...)
		return func() summaryExport {
			if res := r.wait(t); res.code != 0 {
				t.Fatalf("%s: exit %d\n%s", testid, res.code, res.all())
			}
			return readExport(t, export)
		}
	}
	native, stats, dist := "native-"+stamp, "stats-"+stamp, "dist-"+stamp
	waitNative, waitStats := run("dnecho", native, "2"), run("dnecho-trend-stats", stats, "2")
	wNative, wStats := wantOf(t, native, waitNative()), wantOf(t, stats, waitStats())
	seg := func(id, s string) []string {
		return []string{"--execution-segment", s, "--execution-segment-sequence", "0,1/2,1", "--tag", "instance_id=" + id}
	}
	wait1, wait2 := run("dnecho", dist, "4", seg("1", "0:1/2")...), run("dnecho", dist, "4", seg("2", "1/2:1")...)
	wDist := wantOf(t, dist, wait1(), wait2())

	t.Run("prometheus native histograms", func(t *testing.T) {
		checkPrometheus(t, prom.URL, "dnecho-prometheus.json", nativeChecks, start, wNative, wDist)
	})
	t.Run("prometheus trend stats", func(t *testing.T) {
		checkPrometheus(t, prom.URL, "dnecho-prometheus-trend-stats.json", trendStatChecks, start, wStats)
	})
	t.Run("influxdb", func(t *testing.T) {
		checkInflux(t, influx, start, wNative, wDist, wStats)
	})
}

// checkPrometheus evaluates every query of a dashboard over each run's span and applies its
// check; a query without a check fails the test (a new panel needs one).
func checkPrometheus(t *testing.T, base, file string, checks map[string]promCheck, since time.Time, runs ...runWant) {
	targets, vars := grafanaDashboard(t, file, "expr")
	for _, w := range runs {
		first, last := promSpan(t, base, fmt.Sprintf(`k6_dnecho_reqs_total{testid=%q}`, w.testid))
		if got := promLabelValues(t, base, vars["testid"], since, time.Now()); !slices.Contains(got, w.testid) {
			t.Errorf("%s: testid variable offers %v, not %s", file, got, w.testid)
		}
		vs := strings.NewReplacer("$__rate_interval", "15m", "$__range", "15m", "$testid", w.testid, "$datanode", ".*")
		if got := promLabelValues(t, base, vs.Replace(vars["datanode"]), since, time.Now()); len(got) != 3 {
			t.Errorf("%s: datanode variable offers %v, want the 3 DataNodes", file, got)
		}
		for _, tg := range targets {
			check, ok := checks[tg.key]
			if !ok {
				t.Errorf("%s: panel %s %q has no check in this test", file, tg.key, tg.title)
				continue
			}
			q := vs.Replace(tg.query)
			ss := promRange(t, base, q, first, last, max(last.Sub(first)/20, 100*time.Millisecond).Truncate(time.Millisecond))
			if len(ss) == 0 {
				t.Errorf("%s %s: panel %s %q shows nothing: %s", file, w.testid, tg.key, tg.title, q)
				continue
			}
			if err := check(ss, w); err != nil {
				t.Errorf("%s %s: panel %s %q: %v\n%s", file, w.testid, tg.key, tg.title, err, q)
			}
		}
	}
}

// checkInflux runs every query of the InfluxDB dashboard for each run and applies its check.
func checkInflux(t *testing.T, db *teststore.InfluxDB, since time.Time, runs ...runWant) {
	targets, vars := grafanaDashboard(t, "dnecho-influxdb.json", "query")
	for _, w := range runs {
		base := strings.NewReplacer("$timeFilter", fmt.Sprintf("time >= %dms", since.Add(-time.Minute).UnixMilli()),
			"$testid", w.testid, "$datanode", ".*")
		if vars["testid"] == "" || vars["datanode"] == "" {
			t.Fatalf("the InfluxDB dashboard lacks the testid or datanode variable: %q", vars)
		}
		if s := db.Query(t, "dnecho", base.Replace(vars["testid"])); len(s) == 0 || !slices.ContainsFunc(s[0].Values, func(v []any) bool { return v[1] == w.testid }) {
			t.Errorf("testid variable does not offer %s: %+v", w.testid, s)
		}
		if s := db.Query(t, "dnecho", base.Replace(vars["datanode"])); len(s) == 0 || len(s[0].Values) != 3 {
			t.Errorf("datanode variable: %+v, want the 3 DataNodes", s)
		}
		if w.stats != nil {
			w.raw = map[string]map[string][]float64{}
			for key, m := range map[string]string{"echo": "dnecho_req_duration", "rtt": "dnecho_tcp_rtt"} {
				w.raw[key] = influxRaw(t, db, base.Replace(`SELECT "value" FROM "`+m+`" WHERE $timeFilter AND "testid" = '$testid' GROUP BY "datanode"`))
			}
		}
		for _, tg := range targets {
			check, ok := influxChecks[tg.key]
			if !ok {
				t.Errorf("InfluxDB panel %s %q has no check in this test", tg.key, tg.title)
				continue
			}
			q := strings.ReplaceAll(base.Replace(tg.query), "$__interval", check.interval)
			s := db.Query(t, "dnecho", q)
			if len(s) == 0 {
				t.Errorf("%s: InfluxDB panel %s %q shows nothing: %s", w.testid, tg.key, tg.title, q)
				continue
			}
			if err := check.check(s, w); err != nil {
				t.Errorf("%s: InfluxDB panel %s %q: %v\n%s", w.testid, tg.key, tg.title, err, q)
			}
		}
	}
}

// influxRaw runs a query of raw values grouped by datanode and returns them sorted, by DataNode
// and under "" all together.
func influxRaw(t *testing.T, db *teststore.InfluxDB, q string) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range db.Query(t, "dnecho", q) {
		var vs []float64
		for _, v := range s.Values {
			if f, ok := v[1].(float64); ok {
				vs = append(vs, f)
			}
		}
		slices.Sort(vs)
		out[s.Tags["datanode"]] = vs
		out[""] = append(out[""], vs...)
	}
	slices.Sort(out[""])
	return out
}
