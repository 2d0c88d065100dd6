package json

import (
	"bufio"
	"bytes"
	"compress/gzip"
	stdjson "encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/threshold"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fixture struct {
	reg       *metrics.Registry
	rtt, reqs *metrics.Metric
	set       *threshold.Set
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	reg := metrics.NewRegistry()
	f := fixture{
		reg:  reg,
		rtt:  reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time),
		reqs: reg.MustNewMetric("extmod_reqs", metrics.Counter, metrics.Default),
	}
	cfg, err := threshold.DecodeConfig([]byte(`{"extmod_req_duration": ["p(99)<5", {"threshold": "avg<2", "abortOnFail": true, "delayAbortEval": "10s"}],
		"extmod_req_duration{datanode:dn1,result:OK}": ["max<10"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.set, _, err = threshold.New(cfg, reg); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) samples() []metrics.Sample {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	return []metrics.Sample{
		{Metric: f.rtt, Time: t0, Value: 0.74, Tags: metrics.NewTags(map[string]string{"group": "", "scenario": "default", "url": "a<b>&c"}),
			Metadata: map[string]string{"vu": "3", "iter": "0"}},
		{Metric: f.reqs, Time: t0.Add(time.Millisecond), Value: 1, Tags: metrics.NewTags(map[string]string{"group": ""})},
		{Metric: f.rtt, Time: t0.Add(time.Second), Value: 1.5e-7},
	}
}

func run(t *testing.T, p output.Params, batches ...[]metrics.Sample) {
	t.Helper()
	o, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		o.AddSamples(b)
	}
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
}

func readLines(t *testing.T, r io.Reader) []string {
	t.Helper()
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func TestFileContent(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "out.json")
	ss := f.samples()
	run(t, output.Params{Arg: path, Thresholds: f.set}, ss[:2], ss[2:])
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	lines := readLines(t, file)
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 2 Metric + 3 Point:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	wantMetric := `{"type":"Metric","data":{"name":"extmod_req_duration","type":"trend","contains":"time",` +
		`"thresholds":["p(99)<5",{"threshold":"avg<2","abortOnFail":true,"delayAbortEval":"10s"}],` +
		`"submetrics":[{"name":"extmod_req_duration{datanode:dn1,result:OK}","suffix":"datanode:dn1,result:OK","tags":{"datanode":"dn1","result":"OK"}}]},` +
		`"metric":"extmod_req_duration"}`
	if lines[0] != wantMetric {
		t.Errorf("Metric line:\n got  %s\n want %s", lines[0], wantMetric)
	}
	local := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC).In(time.Local).Format(time.RFC3339Nano)
	wantPoint := `{"type":"Point","data":{"time":"` + local + `","value":0.74,"tags":{"group":"","scenario":"default","url":"a<b>&c"},` +
		`"metadata":{"iter":"0","vu":"3"}},"metric":"extmod_req_duration"}`
	if lines[1] != wantPoint {
		t.Errorf("Point line:\n got  %s\n want %s", lines[1], wantPoint)
	}
	if want := `{"type":"Metric","data":{"name":"extmod_reqs","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"extmod_reqs"}`; lines[2] != want {
		t.Errorf("Metric line without thresholds:\n got  %s\n want %s", lines[2], want)
	}
	if !strings.Contains(lines[4], `"value":1.5e-7,"tags":{}},`) {
		t.Errorf("exponent value, empty tags, no metadata: %s", lines[4])
	}
	for _, l := range lines {
		var v map[string]any
		if err := stdjson.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("not JSON: %s: %v", l, err)
		}
	}
}

func TestStdoutAndGzip(t *testing.T) {
	f := newFixture(t)
	var stdout bytes.Buffer
	run(t, output.Params{Stdout: &stdout}, f.samples())
	if n := len(readLines(t, &stdout)); n != 5 {
		t.Errorf("stdout: %d lines, want 5", n)
	}
	run(t, output.Params{Arg: "-", Stdout: &stdout}, f.samples())

	path := filepath.Join(t.TempDir(), "out.json.gz")
	run(t, output.Params{Arg: path}, f.samples())
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, zr)
	if len(lines) != 5 || !strings.HasPrefix(lines[0], `{"type":"Metric"`) {
		t.Errorf("gzip round trip: %d lines: %q", len(lines), lines)
	}
}

// The flush ticker runs on synctest's virtual clock: one FlushPeriod after the samples arrive
// they are in the file, with no polling and no real waiting (file writes are not durable blocks,
// so synctest.Wait waits for them).
func TestPeriodicFlushAndDescription(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "live.json")
	synctest.Test(t, func(t *testing.T) {
		o, _ := New(output.Params{Arg: path})
		if o.Description() != "json ("+path+")" {
			t.Errorf("description %q", o.Description())
		}
		if err := o.Start(); err != nil {
			t.Fatal(err)
		}
		o.AddSamples(f.samples())
		time.Sleep(FlushPeriod)
		synctest.Wait()
		if b, _ := os.ReadFile(path); bytes.Count(b, []byte("\n")) != 5 {
			t.Fatalf("samples not flushed while running: %d lines", bytes.Count(b, []byte("\n")))
		}
		if err := o.Stop(); err != nil {
			t.Fatal(err)
		}
	})
	if o2, _ := New(output.Params{}); o2.Description() != "json (stdout)" {
		t.Errorf("stdout description %q", o2.Description())
	}
}

func TestStartErrorAndStopWithoutStart(t *testing.T) {
	o, _ := New(output.Params{Arg: filepath.Join(t.TempDir(), "missing", "dir", "x.json")})
	if err := o.Start(); err == nil {
		t.Error("no error for an unwritable path")
	}
	if err := o.Stop(); err != nil {
		t.Errorf("stop after failed start: %v", err)
	}
}

// pointJSON mirrors a Point line for encoding/json, field order included.
type pointJSON struct {
	Type string `json:"type"`
	Data struct {
		Time     time.Time         `json:"time"`
		Value    float64           `json:"value"`
		Tags     map[string]string `json:"tags"`
		Metadata map[string]string `json:"metadata,omitempty"`
	} `json:"data"`
	Metric string `json:"metric"`
}

func TestPointMatchesEncodingJSON(t *testing.T) {
	f := newFixture(t)
	for _, v := range []float64{0, -0.5, 1, 123456.789, 1e-6, 9.99e-7, 1e20, 1e21, -3e-9, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		s := metrics.Sample{Metric: f.rtt, Time: time.Unix(1_700_000_000, 5).In(time.Local), Value: v,
			Tags:     metrics.NewTags(map[string]string{"k\u2028": "v\"\\\x01\xff<>&", "a": "\u00e9"}),
			Metadata: map[string]string{"z": "1", "b": "2"}}
		var p pointJSON
		p.Type, p.Metric = "Point", s.Metric.Name
		p.Data.Time, p.Data.Value, p.Data.Tags, p.Data.Metadata = s.Time, s.Value, s.Tags.Map(), s.Metadata
		var want bytes.Buffer
		enc := stdjson.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
		if got := appendPoint(nil, &s, appendTags(nil, s.Tags)); string(got) != want.String() {
			t.Errorf("value %v:\n got  %s want %s", v, got, want.String())
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\x00\x1f\b\f\n\r\t", "\xff\xfe", "\u2028\u2029", "<>&", "é漢🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := stdjson.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := string(appendString(nil, s)) + "\n"; got != want.String() {
			t.Errorf("%q: got %s want %s", s, got, want.String())
		}
	})
}

func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, 1, -1.5, 1e-7, 1e21, 123.456} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if string(appendFloat(nil, v)) != "null" {
				t.Errorf("%v not null", v)
			}
			return
		}
		want, _ := stdjson.Marshal(v)
		if got := appendFloat(nil, v); string(got) != string(want) {
			t.Errorf("%v: got %s want %s", v, got, want)
		}
	})
}

// BenchmarkAppendPoint is the per-sample cost of the json output for a series whose tags are
// cached (the common case); allocs/op must be 0.
func BenchmarkAppendPoint(b *testing.B) {
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	s := metrics.Sample{Metric: m, Time: time.Now(), Value: 0.734,
		Tags: metrics.NewTags(map[string]string{"datanode": "dn-1", "group": "", "result": "SUCCESS", "scenario": "default"})}
	buf := make([]byte, 0, 4096)
	o := &Output{tags: map[*metrics.Tags][]byte{}}
	b.ReportAllocs()
	for b.Loop() {
		buf = appendPoint(buf[:0], &s, o.tagsOf(s.Tags))
	}
}
