package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/dashboard"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/slowdatanode"
)

// The dashboard's report judges the DataNodes as the end of the test does: with one DataNode
// 10x slower than the other two, its verdict names that one, by short uuid and address, and says
// its DataNode time is what is high; with one whose calls are 30 ms late one time in fifteen, it
// names it by its tail (which takes the dashboard's own latencies); with none slower it says so.
func TestDashboardVerdict(t *testing.T) {
	for _, tc := range []struct {
		name string
		slow func(call int) float64 // the latency of DataNode cccc-3's calls
		want []string
	}{
		{"one slow", func(int) float64 { return 10 }, []string{"SLOW DATANODE cccc… (10.0.0.3:9859): p50 10 ms vs 1 ms for the other 2 (p99 10 vs 1)",
			"  its DataNode time is what is high: network RTT p50 0.1 ms vs 0.1 ms, DataNode time 9.9 ms vs 0.9 ms"}},
		{"a slow tail", func(call int) float64 { return map[bool]float64{true: 30, false: 1}[call%15 == 0] }, []string{
			"SLOW DATANODE cccc… (10.0.0.3:9859): p99 30 ms vs 1 ms for the other 2 (p50 1 vs 1; 6.7% of its attempts above 2 ms, 0% of theirs)",
			"  only its tail is slow: neither its network RTT nor its DataNode time is above the others' (network RTT p50 0.1 ms vs 0.1 ms, DataNode time 0.9 ms vs 0.9 ms)"}},
		{"none slow", func(int) float64 { return 1.5 }, []string{"No slow DataNode: the p50 and p99 of each of the 3 DataNodes with at least 100 attempts are within 2× the others' median or less than 1 ms above it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs := func() func(string, echo.Mode) string {
				return func(uuid string, _ echo.Mode) string { return map[string]string{"cccc-3": "10.0.0.3:9859"}[uuid] }
			}
			doc := dashboardReport(t, slowdatanode.Report{Options: slowdatanode.DefaultOptions(), Addrs: addrs}.Charts(), func(m *echometrics.Set, tags func(string) *metrics.Tags, now time.Time) []metrics.Sample {
				var out []metrics.Sample
				for call := range 150 {
					for _, dn := range []string{"aaaa-1", "bbbb-2", "cccc-3"} {
						lat := 1.0
						if dn == "cccc-3" {
							lat = tc.slow(call)
						}
						out = append(out, metrics.Sample{Metric: m.Duration, Time: now, Value: lat, Tags: tags(dn)},
							metrics.Sample{Metric: m.RTT, Time: now, Value: 0.1, Tags: tags(dn)})
					}
				}
				return out
			})
			if strings.Join(doc.Verdict, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("verdict %q\nwant    %q", doc.Verdict, tc.want)
			}
			if len(doc.Servers) != 3 || doc.Servers[2].Label != "cccc…" || doc.Servers[2].Attempts != 150 {
				t.Errorf("per-DataNode rows %+v", doc.Servers)
			}
		})
	}
}

// reportDoc is the part of a report's data the tests read.
type reportDoc struct {
	Network bool                  `json:"network"`
	Servers []dashboard.ServerRow `json:"servers"`
	Verdict []string              `json:"verdict"`
}

// dashboardReport writes a report of the samples made with the dnecho metrics and returns its data.
func dashboardReport(t *testing.T, charts output.Charts, gen func(*echometrics.Set, func(string) *metrics.Tags, time.Time) []metrics.Sample) reportDoc {
	t.Helper()
	m, err := echometrics.Register(metrics.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.html")
	o, err := dashboard.New(output.Params{Arg: "port=-1&export=" + file, Charts: charts})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	tags := func(dn string) *metrics.Tags { return metrics.NewTags(map[string]string{echometrics.TagDataNode: dn}) }
	o.AddSamples(gen(m, tags, time.Now()))
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := o.Finish(output.End{}); err != nil {
		t.Fatal(err)
	}
	return readReport(t, file)
}

// readReport reads the data of an HTML report the web dashboard wrote.
func readReport(t *testing.T, file string) reportDoc {
	t.Helper()
	html, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sub := regexp.MustCompile(`(?s)id="dnecho-data">(.*?)</script>`).FindSubmatch(html)
	if sub == nil {
		t.Fatalf("%s holds no report data", file)
	}
	var doc reportDoc
	if err := json.Unmarshal(sub[1], &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
