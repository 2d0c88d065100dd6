package csv

import (
	"bytes"
	"compress/gzip"
	stdcsv "encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const defaultHeader = "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		env  map[string]string
		want Config
	}{
		{"", nil, Config{"file.csv", time.Second, "unix"}},
		{"out.csv", nil, Config{"out.csv", time.Second, "unix"}},
		{"-", nil, Config{"-", time.Second, "unix"}},
		{"fileName=a.csv.gz,saveInterval=5s,timeFormat=rfc3339_nano", nil, Config{"a.csv.gz", 5 * time.Second, "rfc3339_nano"}},
		{"timeFormat=unix_milli", map[string]string{"K6_CSV_FILENAME": "env.csv", "K6_CSV_TIME_FORMAT": "unix_nano"}, Config{"env.csv", time.Second, "unix_milli"}},
		{"", map[string]string{"K6_CSV_SAVE_INTERVAL": "250ms"}, Config{"file.csv", 250 * time.Millisecond, "unix"}},
	} {
		got, err := ParseConfig(tc.arg, tc.env)
		if err != nil || got != tc.want {
			t.Errorf("%q %v: %+v, %v; want %+v", tc.arg, tc.env, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		arg  string
		env  map[string]string
		want string
	}{
		{"fileName=a,bogus", nil, `csv output: "bogus" is not key=value`},
		{"color=red", nil, `csv output: unknown option "color": use fileName, saveInterval or timeFormat`},
		{"timeFormat=iso", nil, `csv output: unknown timeFormat "iso": use unix, unix_milli, unix_micro, unix_nano, rfc3339, rfc3339_nano`},
		{"saveInterval=soon", nil, `csv output: saveInterval: invalid duration "soon"`},
		{"saveInterval=0s", nil, `csv output: saveInterval "0s" must be positive`},
		{"fileName=", nil, `csv output: fileName is empty`},
		{"", map[string]string{"K6_CSV_TIME_FORMAT": "x"}, `csv output: K6_CSV_TIME_FORMAT: unknown timeFormat "x": use unix, unix_milli, unix_micro, unix_nano, rfc3339, rfc3339_nano`},
	} {
		if _, err := ParseConfig(tc.arg, tc.env); err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.arg, err, tc.want)
		}
	}
}

func samples() []metrics.Sample {
	reg := metrics.NewRegistry()
	rtt := reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	return []metrics.Sample{
		{Metric: rtt, Time: t0, Value: 0.7345678, Tags: metrics.NewTags(map[string]string{
			"group": "", "scenario": "default", "datanode": "dn1", "name": "a,b \"q\""}),
			Metadata: map[string]string{"vu": "3", "iter": "7"}},
		{Metric: rtt, Time: t0.Add(time.Second), Value: 2},
	}
}

func run(t *testing.T, p output.Params, ss []metrics.Sample) {
	t.Helper()
	o, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	o.AddSamples(ss)
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
}

func parse(t *testing.T, r io.Reader) [][]string {
	t.Helper()
	recs, err := stdcsv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestFileContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	run(t, output.Params{Arg: path}, samples())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := parse(t, f)
	if len(recs) != 3 || strings.Join(recs[0], ",") != defaultHeader {
		t.Fatalf("records %q", recs)
	}
	row := map[string]string{}
	for i, h := range recs[0] {
		row[h] = recs[1][i]
	}
	want := map[string]string{"metric_name": "extmod_req_duration", "timestamp": "1772600767", "metric_value": "0.734568",
		"scenario": "default", "group": "", "name": `a,b "q"`, "extra_tags": "datanode=dn1", "metadata": "iter=7&vu=3"}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s = %q, want %q", k, row[k], v)
		}
	}
	if recs[2][2] != "2.000000" || recs[2][len(recs[2])-1] != "" {
		t.Errorf("second row %q", recs[2])
	}
}

func TestTimeFormatsAndSystemTags(t *testing.T) {
	ts := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	for f, want := range map[string]string{
		"unix": "1772600767", "unix_milli": "1772600767123", "unix_micro": "1772600767123456",
		"unix_nano": "1772600767123456789", "rfc3339": "2026-03-04T05:06:07Z", "rfc3339_nano": "2026-03-04T05:06:07.123456789Z",
	} {
		o, err := New(output.Params{Arg: "timeFormat=" + f})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.timestamp(ts); got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
	// vu and iter are metadata, never columns; tags that are not enabled system tags go to extra_tags.
	var out bytes.Buffer
	run(t, output.Params{Arg: "-", Stdout: &out, SystemTags: []string{"vu", "scenario", "ip", "iter", "group"}}, samples())
	recs := parse(t, &out)
	if got := strings.Join(recs[0], ","); got != "metric_name,timestamp,metric_value,group,ip,scenario,extra_tags,metadata" {
		t.Errorf("header %s", got)
	}
	if recs[1][6] != `datanode=dn1&name=a,b "q"` {
		t.Errorf("extra_tags %q", recs[1][6])
	}
}

func TestGzipRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv.gz")
	run(t, output.Params{Arg: "fileName=" + path + ",saveInterval=10ms"}, samples())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs := parse(t, zr)
	if len(recs) != 3 || recs[1][0] != "extmod_req_duration" {
		t.Errorf("records %q", recs)
	}
	o, _ := New(output.Params{Arg: path})
	if o.Description() != "csv ("+path+")" {
		t.Errorf("description %q", o.Description())
	}
}
