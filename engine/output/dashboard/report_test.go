package dashboard

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/summary"
)

// The Summary tab says what a Rate counted: a failure rate (k6's http_req_failed, named *_failed)
// in failures, another Rate in k6's "N out of M", never k6's passes/fails terms, which read
// "passes=0 fails=78941" for a run without a failure.
func TestSummaryRateWords(t *testing.T) {
	rate := func(name string, trues, falses float64) *summary.Metric {
		return &summary.Metric{Name: name, Type: metrics.Rate, Values: []summary.Value{
			{Key: "rate", V: trues / (trues + falses)}, {Key: "passes", V: trues}, {Key: "fails", V: falses}}}
	}
	doc := newSummaryDoc(&summary.Data{Metrics: []*summary.Metric{
		rate("dnecho_req_failed", 0, 78941),
		rate("http_req_failed{status:500}", 3, 7),
		rate("checks", 9, 1),
	}})
	want := [][]string{
		{"rate=0.00%", "0 failed of 78,941"},
		{"rate=30.00%", "3 failed of 10"},
		{"rate=90.00%", "9 out of 10"},
	}
	for i, m := range doc.Metrics {
		var got []string
		for _, v := range m.Values {
			got = append(got, v.Label)
		}
		if strings.Join(got, " ") != strings.Join(want[i], " ") {
			t.Errorf("%s: %q, want %q", m.Name, got, want[i])
		}
	}
}

// The report's header rate is the summary's: the calls over the test's duration the front end
// gives, not over the output's own lifetime (which starts before the test and ends at its last
// call).
func TestReportHeaderRateIsTheSummarys(t *testing.T) {
	reg := metrics.NewRegistry()
	reqs := reg.MustNewMetric(RequestsMetric, metrics.Counter, metrics.Default)
	file := filepath.Join(t.TempDir(), "r.html")
	o, err := New(output.Params{Arg: "port=-1&export=" + file, Charts: testCharts})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	batch := make([]metrics.Sample, 1000)
	for i := range batch {
		batch[i] = metrics.Sample{Metric: reqs, Time: now, Value: 1, Tags: metrics.NewTags(nil)}
	}
	o.AddSamples(batch)
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	const run = 3 * time.Second // as the summary's rates take it
	if err := o.Finish(output.End{Duration: run}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="dnecho-data">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no data in the report")
	}
	var doc document
	if err := json.Unmarshal(m[1], &doc); err != nil {
		t.Fatal(err)
	}
	if want := 1000 / run.Seconds(); math.Abs(doc.Totals.Rate-want) > 1e-9 {
		t.Errorf("report header rate %v/s, want the summary's %v/s", doc.Totals.Rate, want)
	}
}
