package dashboard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/threshold"
)

// The network chart's names, as a protocol module might name them.
const (
	NetworkMetric     = "rtt"
	RetransmitsMetric = "retransmits"
	ServerTag         = "server"
)

// netCharts are testCharts with the network metrics and a judge that records what it was given.
func netCharts(judged *[]output.Server) output.Charts {
	c := testCharts
	c.Network, c.Retransmits = NetworkMetric, RetransmitsMetric
	c.Short = func(v string) string { return strings.ToUpper(v[:1]) }
	c.Judge = func(s []output.Server) []string {
		*judged = append((*judged)[:0], s...)
		return []string{"judged " + s[0].Name}
	}
	return c
}

type netSample struct {
	metric, server string
	v              float64
}

// netMetrics registers the test's metrics and returns a sample maker at time at.
func netMetrics() func(at time.Time, s netSample) *metrics.Sample {
	reg := metrics.NewRegistry()
	ms := map[string]*metrics.Metric{
		LatencyMetric:     reg.MustNewMetric(LatencyMetric, metrics.Trend, metrics.Time),
		NetworkMetric:     reg.MustNewMetric(NetworkMetric, metrics.Trend, metrics.Time),
		RetransmitsMetric: reg.MustNewMetric(RetransmitsMetric, metrics.Counter, metrics.Default),
	}
	return func(at time.Time, s netSample) *metrics.Sample {
		tags := map[string]string{}
		if s.server != "" {
			tags[ServerTag] = s.server
		}
		return &metrics.Sample{Metric: ms[s.metric], Time: at, Value: s.v, Tags: metrics.NewTags(tags)}
	}
}

// Per period and server, the network chart shows the RTT p50 and the rest of the latency p50,
// never negative; a server without calls in the period has no rest, one without RTT samples no
// split, and a sample without the server tag counts for no server.
func TestNetworkSplits(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name    string
		samples []netSample
		want    map[string]Split
	}{
		{"rtt and latency", []netSample{{NetworkMetric, "a", 0.2}, {NetworkMetric, "a", 0.4}, {NetworkMetric, "a", 0.3},
			{LatencyMetric, "a", 1}, {LatencyMetric, "a", 2}, {LatencyMetric, "a", 3}}, map[string]Split{"a": {0.3, f(1.7)}}},
		{"rtt above the latency", []netSample{{NetworkMetric, "a", 5}, {LatencyMetric, "a", 1}}, map[string]Split{"a": {5, f(0)}}},
		{"no calls", []netSample{{NetworkMetric, "a", 0.5}}, map[string]Split{"a": {0.5, nil}}},
		{"two servers", []netSample{{NetworkMetric, "a", 0.1}, {LatencyMetric, "a", 1}, {NetworkMetric, "b", 2}, {LatencyMetric, "b", 10}},
			map[string]Split{"a": {0.1, f(0.9)}, "b": {2, f(8)}}},
		{"no rtt", []netSample{{LatencyMetric, "a", 1}}, nil},
		{"untagged", []netSample{{NetworkMetric, "", 1}, {LatencyMetric, "", 3}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Unix(1000, 0)
			var judged []output.Server
			c := newCollector(time.Second, false, start, new(atomic.Pointer[threshold.Set]), netCharts(&judged))
			sample := netMetrics()
			for _, s := range tc.samples {
				c.add(sample(start.Add(100*time.Millisecond), s))
			}
			c.advance(start.Add(5 * time.Second))
			got := c.points[0].Net
			if len(got) != len(tc.want) {
				t.Fatalf("splits %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				g := got[k]
				if g.Network != w.Network || (g.Rest == nil) != (w.Rest == nil) || g.Rest != nil && *g.Rest != *w.Rest {
					t.Errorf("%s: %+v (rest %v), want %+v (rest %v)", k, g, deref(g.Rest), w, deref(w.Rest))
				}
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// The per-server table holds the whole test's figures, and Charts.Judge gets them; samples of the
// network watch do not move the test's end, which is its last call.
func TestServerTable(t *testing.T) {
	start := time.Unix(1000, 0)
	var judged []output.Server
	c := newCollector(time.Second, false, start, new(atomic.Pointer[threshold.Set]), netCharts(&judged))
	sample := netMetrics()
	for i := range 200 { // a: 1 ms calls over 0.1 ms RTT; b: 10 ms calls over 0.2 ms RTT and retransmits
		at := start.Add(time.Duration(i) * 10 * time.Millisecond)
		for _, s := range []netSample{{LatencyMetric, "a", 1}, {LatencyMetric, "b", 10}, {NetworkMetric, "a", 0.1}, {NetworkMetric, "b", 0.2}} {
			c.add(sample(at, s))
		}
	}
	c.add(sample(start.Add(2500*time.Millisecond), netSample{RetransmitsMetric, "b", 3}))
	c.add(sample(start.Add(2600*time.Millisecond), netSample{RetransmitsMetric, "b", 2}))
	c.add(sample(start.Add(2600*time.Millisecond), netSample{NetworkMetric, "c", 0.3})) // watched, never called
	c.flush(start.Add(4 * time.Second))
	if want := start.Add(1990 * time.Millisecond); !c.end.Equal(want) {
		t.Errorf("the test ends at %v, want its last call's time %v", c.end, want)
	}
	rows, verdict := c.serverTable()
	if len(rows) != 3 || len(verdict) != 1 || verdict[0] != "judged a" {
		t.Fatalf("rows %+v, verdict %q", rows, verdict)
	}
	b := rows[1]
	if b.Name != "b" || b.Label != "B" || b.Attempts != 200 || *b.P50 != 10 || *b.P99 != 10 || *b.Network != 0.2 || *b.Rest != 9.8 || b.Retransmits != 5 {
		t.Errorf("row b %+v", b)
	}
	if c := rows[2]; c.Attempts != 0 || c.P50 != nil || *c.Network != 0.3 || c.Rest != nil {
		t.Errorf("row c (no calls) %+v", c)
	}
	// The judge gets each server's sinks: b's 200 latencies of 10 ms and its RTT samples.
	if len(judged) != 3 {
		t.Fatalf("judged %+v", judged)
	}
	if jb := judged[1]; jb.Name != "b" || jb.Latency.Count() != 200 || jb.Latency.Rank(200) != 10 || jb.Network.Percentile(50) != 0.2 ||
		jb.Failed != 0 || jb.Retransmits != 5 {
		t.Errorf("judged b: %+v", jb)
	}
	if judged[0].Network.Count() == 0 || judged[2].Latency.Count() != 0 {
		t.Errorf("judged a %+v, c %+v", judged[0], judged[2])
	}
}

// The report carries the network chart's data, the per-server table and the verdict.
func TestReportHasTheNetworkChart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "report.html")
	var judged []output.Server
	o, err := New(output.Params{Arg: "port=-1&period=1s&export=" + file, Charts: netCharts(&judged)})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	sample := netMetrics()
	now := time.Now()
	var batch []metrics.Sample
	for _, s := range []netSample{{LatencyMetric, "a", 2}, {NetworkMetric, "a", 0.5}, {RetransmitsMetric, "a", 1}} {
		batch = append(batch, *sample(now, s))
	}
	o.AddSamples(batch)
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := o.Finish(output.End{}); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="dnecho-data">(.*?)</script>`).FindSubmatch(html)
	if m == nil || !strings.Contains(string(html), `id="net"`) || !strings.Contains(string(html), `id="dn-body"`) {
		t.Fatal("report lacks the network chart, the per-server table or its data")
	}
	var doc document
	if err := json.Unmarshal(m[1], &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Points[len(doc.Points)-1]
	if !doc.Network || p.Net["a"].Network != 0.5 || *p.Net["a"].Rest != 1.5 {
		t.Errorf("network %v, last point's splits %+v", doc.Network, p.Net)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].Retransmits != 1 || *doc.Servers[0].Rest != 1.5 || len(doc.Verdict) != 1 {
		t.Errorf("servers %+v, verdict %q", doc.Servers, doc.Verdict)
	}
}

// With Attempt, Retried, Mode and Success, a row is a server and mode, and counts attempts: a
// retried call's Latency sample counts nowhere, each of its Attempt samples at its own server,
// failed unless its result is the success.
func TestServerTableCountsAttempts(t *testing.T) {
	start := time.Unix(1000, 0)
	var judged []output.Server
	charts := netCharts(&judged)
	charts.Attempt, charts.Retried, charts.Mode, charts.Success = "attempt", "attempts", "mode", "OK"
	c := newCollector(time.Second, false, start, new(atomic.Pointer[threshold.Set]), charts)
	reg := metrics.NewRegistry()
	lat := reg.MustNewMetric(LatencyMetric, metrics.Trend, metrics.Time)
	att := reg.MustNewMetric("attempt", metrics.Trend, metrics.Time)
	add := func(m *metrics.Metric, v float64, tags ...string) {
		kv := map[string]string{}
		for i := 0; i < len(tags); i += 2 {
			kv[tags[i]] = tags[i+1]
		}
		c.add(&metrics.Sample{Metric: m, Time: start, Value: v, Tags: metrics.NewTags(kv)})
	}
	for range 150 {
		add(lat, 1, ServerTag, "a", "mode", "grpc", ResultTag, "OK")
	}
	for range 20 { // a times out after 10 ms, b answers 0.5 ms later
		add(lat, 10.5, ServerTag, "b", "mode", "grpc", ResultTag, "OK", "attempts", "2")
		add(att, 10, ServerTag, "a", "mode", "grpc", ResultTag, "DEADLINE_EXCEEDED")
		add(att, 0.5, ServerTag, "b", "mode", "grpc", ResultTag, "OK")
	}
	for range 10 {
		add(lat, 3, ServerTag, "a", "mode", "ratis-write", ResultTag, "OK")
	}
	rows, _ := c.serverTable()
	type row struct {
		label          string
		attempts, fail int64
		p99            float64
	}
	var got []row
	for _, r := range rows {
		got = append(got, row{r.Label, r.Attempts, r.Failed, *r.P99})
	}
	want := []row{{"A grpc", 170, 20, 10}, {"A ratis-write", 10, 0, 3}, {"B grpc", 20, 0, 0.5}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v\nwant %v", got, want)
	}
	if len(judged) != 3 || judged[1].Mode != "ratis-write" || judged[2].Latency.Count() != 20 || judged[2].Latency.Rank(20) != 0.5 {
		t.Errorf("judged %+v", judged)
	}
}
