package influxdb

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/sender"
)

func TestConfigPrecedence(t *testing.T) {
	cases := []struct {
		name     string
		v2       bool
		env      map[string]string
		arg      string
		check    func(Config) bool
		wantErr  string
		writeURL string
	}{
		{name: "defaults", check: func(c Config) bool {
			return c.Addr == DefaultAddr && c.DB == "k6" && c.PushInterval == time.Second && c.ConcurrentWrites == 4 && len(c.TagsAsFields) == 3
		}, writeURL: "http://localhost:8086/write?db=k6"},
		{name: "env", env: map[string]string{"K6_INFLUXDB_ADDR": "https://influx:8086", "K6_INFLUXDB_DB": "ozone", "K6_INFLUXDB_PUSH_INTERVAL": "250ms",
			"K6_INFLUXDB_CONCURRENT_WRITES": "2", "K6_INFLUXDB_PRECISION": "ms", "K6_INFLUXDB_RETENTION": "week", "K6_INFLUXDB_TAGS_AS_FIELDS": "url,datanode:string"},
			check: func(c Config) bool {
				return c.PushInterval == 250*time.Millisecond && c.ConcurrentWrites == 2 && len(c.TagsAsFields) == 2
			},
			writeURL: "https://influx:8086/write?db=ozone&precision=ms&rp=week"},
		// The URL wins over the environment; the last path segment is the database, the rest a prefix.
		{name: "url over env", env: map[string]string{"K6_INFLUXDB_DB": "envdb", "K6_INFLUXDB_USERNAME": "x"},
			arg: "http://u:p@h:8086/proxy/influx/mydb?consistency=one&tagsAsFields=url&tagsAsFields=iter:int&pushInterval=2s",
			check: func(c Config) bool {
				return c.Username == "u" && c.Password == "p" && c.PushInterval == 2*time.Second && len(c.TagsAsFields) == 2
			},
			writeURL: "http://h:8086/proxy/influx/write?consistency=one&db=mydb"},
		{name: "trailing slash means no db", arg: "http://h:8086/", writeURL: "http://h:8086/write?db=k6"},
		{name: "unknown parameter", arg: "http://h:8086/db?foo=1", wantErr: "influxdb URL parameter foo"},
		{name: "bad interval", env: map[string]string{"K6_INFLUXDB_PUSH_INTERVAL": "soon"}, wantErr: "K6_INFLUXDB_PUSH_INTERVAL"},
		{name: "zero writes", arg: "http://h:8086/db?concurrentWrites=0", wantErr: "concurrentWrites"},
		{name: "bad field type", env: map[string]string{"K6_INFLUXDB_TAGS_AS_FIELDS": "vu:long"}, wantErr: "string, int, float or bool"},
		{name: "bad precision", env: map[string]string{"K6_INFLUXDB_PRECISION": "d"}, wantErr: "ns, us, ms, s, m or h"},
		{name: "v2 needs a bucket", v2: true, wantErr: "K6_INFLUXDB_BUCKET"},
		{name: "v2", v2: true, env: map[string]string{"K6_INFLUXDB_ORGANIZATION": "o", "K6_INFLUXDB_TOKEN": "t", "K6_INFLUXDB_PRECISION": "1ms"},
			arg: "https://cloud:443/b", check: func(c Config) bool { return c.TagsAsFields[0] == FieldSpec{"vu", Int} },
			writeURL: "https://cloud:443/api/v2/write?bucket=b&org=o&precision=ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := NewConfig(c.v2, c.env, c.arg)
			if c.wantErr != "" {
				var se *output.SettingError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &se) {
					t.Fatalf("err %v, want a SettingError naming %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.check != nil && !c.check(cfg) {
				t.Errorf("config %+v", cfg)
			}
			if got := cfg.writeURL(); c.writeURL != "" && got != c.writeURL {
				t.Errorf("write URL %s, want %s", got, c.writeURL)
			}
		})
	}
}

func TestLineProtocol(t *testing.T) {
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	fields, _ := ParseFieldSpecs("", []string{"url", "n:int", "f:float", "b:bool", "bad:int"})
	at := time.Unix(1700000000, 123456789)
	cases := []struct {
		tags map[string]string
		v    float64
		div  int64
		want string
	}{
		{map[string]string{"group": "", "datanode": "dn-1", "result": "SUCCESS"}, 0.25, 1,
			"extmod_req_duration,datanode=dn-1,result=SUCCESS value=0.25 1700000000123456789\n"},
		{map[string]string{"a b": "c,d=e", "url": `say "hi"\`}, 3, 1e6,
			`extmod_req_duration,a\ b=c\,d\=e value=3,url="say \"hi\"\\" 1700000000123` + "\n"},
		{map[string]string{"n": "7", "f": "1.5", "b": "true", "bad": "x"}, 1e21, 1e9,
			`extmod_req_duration value=1000000000000000000000,b=true,bad="x",f=1.5,n=7i 1700000000` + "\n"},
	}
	for _, c := range cases {
		e := newEncoder(fields, c.div)
		got, ok := e.append(nil, &metrics.Sample{Metric: m, Time: at, Value: c.v, Tags: metrics.NewTags(c.tags)})
		if !ok || string(got) != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
	if _, ok := newEncoder(nil, 1).append(nil, &metrics.Sample{Metric: m, Time: at, Value: math.NaN()}); ok {
		t.Error("NaN encoded")
	}
}

// flushSamples is 20 batches of 1,000 samples over two series.
func flushSamples() [][]metrics.Sample {
	reg := metrics.NewRegistry()
	m := reg.MustNewMetric("extmod_req_duration", metrics.Trend, metrics.Time)
	tags := []*metrics.Tags{
		metrics.NewTags(map[string]string{"datanode": "dn-1", "result": "SUCCESS", "scenario": "default"}),
		metrics.NewTags(map[string]string{"datanode": "dn-2", "result": "UNAVAILABLE", "scenario": "default", "mode": "grpc"}),
	}
	var batches [][]metrics.Sample
	for b := range 20 {
		batch := make([]metrics.Sample, 1000)
		for i := range batch {
			batch[i] = metrics.Sample{Metric: m, Time: time.Unix(1700000000, int64(b*1000+i)), Value: float64(i) / 7, Tags: tags[i%2]}
		}
		batches = append(batches, batch)
	}
	return batches
}

// TestFlushBodies: the bodies a flush hands to the sender hold every line once, in order, each
// under MaxBodyBytes but for its last line, whatever the size estimate was.
func TestFlushBodies(t *testing.T) {
	batches := flushSamples()
	var want []byte
	enc := newEncoder(nil, 1)
	for _, b := range batches {
		for i := range b {
			want, _ = enc.append(want, &b[i])
		}
	}
	o := &Output{enc: newEncoder(nil, 1)}
	for _, lineBytes := range []int{0, 1, 90, 1 << 20} { // no estimate, far too small, about right, far too big
		var bodies [][]byte
		o.lineBytes = lineBytes
		o.sender = sender.New(sender.Config{Name: "test", QueueLimit: 1 << 20}, func(_ context.Context, body []byte) error {
			bodies = append(bodies, body) // one worker: in order, no race
			return nil
		})
		o.sender.Start()
		if err := o.flush(batches); err != nil {
			t.Fatal(err)
		}
		o.sender.Stop()
		var got []byte
		for _, body := range bodies {
			if len(body) > MaxBodyBytes+200 {
				t.Errorf("estimate %d: body of %d bytes", lineBytes, len(body))
			}
			got = append(got, body...)
		}
		if string(got) != string(want) {
			t.Errorf("estimate %d: the bodies (%d bytes) are not the %d bytes of lines", lineBytes, len(got), len(want))
		}
		if o.lineBytes < 60 || o.lineBytes > 120 {
			t.Errorf("estimate after a flush: %d bytes per line", o.lineBytes)
		}
	}
}

// BenchmarkFlush is the influxdb output's cost per sample: encoding and body allocation.
func BenchmarkFlush(b *testing.B) {
	batches := flushSamples()
	o := &Output{enc: newEncoder(nil, 1)}
	b.ReportAllocs()
	for b.Loop() {
		o.sender = sender.New(sender.Config{Name: "bench", QueueLimit: 1 << 20}, nil)
		if err := o.flush(batches); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*20000), "ns/sample")
}
