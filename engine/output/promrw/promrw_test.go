package promrw

import (
	"crypto/tls"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/proto/promrwpb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConfig(t *testing.T) {
	c, err := NewConfig(map[string]string{
		"K6_PROMETHEUS_RW_SERVER_URL": "https://mimir/api/v1/push", "K6_PROMETHEUS_RW_TREND_STATS": "p(99.9),avg,sum,count",
		"K6_PROMETHEUS_RW_HEADERS_X-Scope-OrgID": "t1", "K6_PROMETHEUS_RW_HTTP_HEADERS": "A:1,B:2",
		"K6_PROMETHEUS_RW_TLS_MINIMUM_VERSION": "1.2", "K6_PROMETHEUS_RW_PUSH_INTERVAL": "10s",
	}, "pushInterval=2s,username=u,password=p,headers.C=3")
	if err != nil {
		t.Fatal(err)
	}
	var suffixes []string
	for _, s := range c.TrendStats {
		suffixes = append(suffixes, s.suffix)
	}
	if c.PushInterval != 2*time.Second || c.TLSMinVersion != tls.VersionTLS12 || strings.Join(suffixes, ",") != "p999,avg,sum,count" ||
		len(c.Headers) != 4 || c.Username != "u" {
		t.Errorf("config %+v suffixes %v", c, suffixes)
	}
	h := headers(c)
	if h.Get("Authorization") == "" || h.Get("X-Scope-OrgID") != "t1" || h.Get("Content-Encoding") != "snappy" {
		t.Errorf("headers %v", h)
	}
	for env, arg := range map[string]string{
		"K6_PROMETHEUS_RW_TREND_STATS=p(101)":      "",
		"K6_PROMETHEUS_RW_SIGV4_REGION=eu":         "",
		"K6_PROMETHEUS_RW_TLS_MINIMUM_VERSION=1.1": "",
		"":                                      "color=red",
		"K6_PROMETHEUS_RW_HTTP_HEADERS=nocolon": "",
	} {
		e := map[string]string{}
		if k, v, ok := strings.Cut(env, "="); ok {
			e[k] = v
		}
		if _, err := NewConfig(e, arg); err == nil || !strings.Contains(err.Error(), "=") {
			t.Errorf("%s %s: err %v, want a setting error", env, arg, err)
		}
	}
}

func TestBucketIndex(t *testing.T) {
	for v, want := range map[float64]int32{1: 0, 1.0001: 1, 2: 8, 0.5: -8, math.Exp2(3.0 / 8): 3, 0.001: -79} {
		if got := bucketIndex(v); got != want {
			t.Errorf("bucketIndex(%v) = %d, want %d", v, got, want)
		}
	}
	h := newNativeHist()
	for _, v := range []float64{0, 1, 1, 2, 0.5} {
		h.observe(v)
	}
	p := h.proto(7)
	if p.GetCountInt() != 5 || p.GetZeroCountInt() != 1 || p.Sum != 4.5 || len(p.PositiveSpans) != 3 ||
		p.PositiveSpans[0].Offset != -8 || p.PositiveSpans[1].Offset != 7 || p.PositiveSpans[2].Offset != 7 {
		t.Errorf("histogram %v", p)
	}
	if d := p.PositiveDeltas; len(d) != 3 || d[0] != 1 || d[1] != 1 || d[2] != -1 {
		t.Errorf("deltas %v, want [1 1 -1] for counts 1, 2, 1", d)
	}
}

// TestWrites checks the series of each metric type against a receiver, one sample per series
// per write at increasing times, and that a receiver answering 500 loses the samples of the
// final write only.
func TestWrites(t *testing.T) {
	var mu sync.Mutex
	var reqs []*promrwpb.WriteRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, b)
		req := &promrwpb.WriteRequest{}
		if err != nil || proto.Unmarshal(raw, req) != nil {
			w.WriteHeader(400)
			return
		}
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		w.WriteHeader(204)
	}))
	defer srv.Close()
	reg := metrics.NewRegistry()
	ms := []*metrics.Metric{
		reg.MustNewMetric("cc", metrics.Counter, metrics.Default), reg.MustNewMetric("gg", metrics.Gauge, metrics.Default),
		reg.MustNewMetric("rr", metrics.Rate, metrics.Default), reg.MustNewMetric("dd", metrics.Trend, metrics.Time),
	}
	o, err := New(output.Params{Arg: "url=" + srv.URL, Env: map[string]string{"K6_PROMETHEUS_RW_TREND_STATS": "max,count"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	tags := metrics.NewTags(map[string]string{"group": "", "dn": "a", "bad-key": "x"})
	for i := range 10 {
		var b []metrics.Sample
		for _, m := range ms {
			b = append(b, metrics.Sample{Metric: m, Time: time.Now(), Value: float64(i % 2), Tags: tags})
		}
		o.AddSamples(b)
	}
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	if a := o.Account(); a.Written != 40 || a.Dropped != 0 {
		t.Errorf("account %+v", a)
	}
	last := map[string]float64{}
	for _, r := range reqs {
		for _, ts := range r.Timeseries {
			if len(ts.Samples) != 1 || ts.Labels[0].Name != "__name__" {
				t.Fatalf("series %v", ts)
			}
			var names []string
			for _, l := range ts.Labels {
				names = append(names, l.Name+"="+l.Value)
			}
			if got := strings.Join(names[1:], ","); got != "bad_key=x,dn=a" {
				t.Errorf("labels %s", got)
			}
			last[ts.Labels[0].Value] = ts.Samples[0].Value
		}
	}
	want := map[string]float64{"k6_cc_total": 5, "k6_gg": 1, "k6_rr_rate": 0.5, "k6_dd_max": 0.001, "k6_dd_count": 10}
	for k, v := range want {
		if last[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, last[k], v, last)
		}
	}
}
