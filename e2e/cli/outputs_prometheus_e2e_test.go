package cli

import (
	"math"
	"testing"
	"time"

	"github.com/dnecho/dnecho/testsupport/teststore"
)

// TestOutputPrometheus writes two runs to a real Prometheus 2.42 by remote write and reads them
// back: k6's names and labels, counts equal to the summary's, trend stats in seconds, native
// histograms and stale markers (TestGrafanaDashboards checks the dashboards' queries).
func TestOutputPrometheus(t *testing.T) {
	t.Parallel()
	prom := teststore.StartPrometheus(t)
	env := []string{"K6_PROMETHEUS_RW_SERVER_URL=" + prom.WriteURL(), "K6_PROMETHEUS_RW_PUSH_INTERVAL=300ms",
		"K6_PROMETHEUS_RW_TREND_STATS=p(50),p(95),p(99),max,count", "K6_PROMETHEUS_RW_HEADERS_X-Scope-OrgID=dnecho"}
	r, e := runOutputs(t, env, "-o", "experimental-prometheus-rw", "--tag", "testid=gauges")
	want := float64(reqs(t, e))
	now := time.Now()
	if a := accounts(t, r)["experimental-prometheus-rw"]; a[1] != 0 || a[0] < int64(want) {
		t.Errorf("account %v\n%s", a, r.all())
	}
	for q, v := range map[string]float64{
		`sum(k6_dnecho_reqs_total{testid="gauges"})`:         want,
		`sum(k6_dnecho_req_duration_count{testid="gauges"})`: want,
		`max(k6_dnecho_req_failed_rate{testid="gauges"})`:    0,
		`count(k6_dnecho_req_duration_p99{testid="gauges"})`: 3, // one series per DataNode
	} {
		got := prom.Query(t, q, now)
		if len(got) != 1 || got[0].Float() != v {
			t.Errorf("%s = %v, want %v", q, got, v)
		}
	}
	p99 := prom.Query(t, `k6_dnecho_req_duration_p99{testid="gauges"}`, now)
	for _, s := range p99 {
		for _, l := range []string{"datanode", "result", "container", "pipeline", "stream", "scenario"} {
			if s.Metric[l] == "" {
				t.Errorf("series %v lacks label %s", s.Metric, l)
			}
		}
		if _, ok := s.Metric["group"]; ok {
			t.Errorf("series %v has the empty group label", s.Metric)
		}
		if v := s.Float(); !(v > 0 && v < 1) {
			t.Errorf("p99 %v: want seconds, well under 1 s on loopback", v)
		}
	}

	// Native histograms and stale markers: the series end when the test does.
	env = append(env, "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true", "K6_PROMETHEUS_RW_STALE_MARKERS=true")
	_, e = runOutputs(t, env, "-o", "experimental-prometheus-rw", "--tag", "testid=native")
	want = float64(reqs(t, e))
	later := time.Now().Add(time.Second)
	if got := prom.Query(t, `k6_dnecho_reqs_total{testid="native"}`, later); len(got) != 0 {
		t.Errorf("series still live after their stale markers: %v", got)
	}
	if got := prom.Query(t, `sum(last_over_time(k6_dnecho_reqs_total{testid="native"}[10m]))`, later); len(got) != 1 || got[0].Float() != want {
		t.Errorf("calls %v, want %v", got, want)
	}
	if got := prom.Query(t, `sum(histogram_count(rate(k6_dnecho_req_duration_seconds{testid="native"}[10m])))`, later); len(got) != 1 || math.IsNaN(got[0].Float()) || got[0].Float() <= 0 {
		t.Errorf("native histogram rate: %v", got)
	}

}
