package xdnecho

import (
	"strconv"
	"testing"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/execinfo"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

func TestSamplesAndTags(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
import { group } from 'k6';
import exec from 'k6/execution';
const client = new dnecho.Client({ containerId: 2, scm: __ENV.SCM, stream: 'reuse', tags: { team: 'storage' } });
export default function () {
  const a = client.echo({ payloadResp: 100 });
  group('g', () => { client.echo({ payloadResp: 100, tags: { step: 'two', team: 'override' } }); });
  exec.vu.metrics.tags.phase = 'late';
  client.echo({ payloadResp: 100 });
  globalThis.sent = a.bytesSent;
}`, clusterEnv(c))
	vu := rn.vu(t, 1, &execinfo.Scenario{Name: "sc", Executor: "shared-iterations", Tags: map[string]string{"sct": "x"}})
	iterate(t, vu)
	vu.Flush()

	dn := c.DataNodes()[0].UUID()
	base := map[string]string{
		"scenario": "sc", "sct": "x", "group": "", "team": "storage",
		echometrics.TagDataNode: dn, echometrics.TagContainer: "2", echometrics.TagPipeline: c.PipelineID(),
		echometrics.TagResult: "SUCCESS", echometrics.TagStream: "reuse", echometrics.TagMode: "grpc",
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	wantTags := []map[string]string{
		base,
		with(map[string]string{"group": "::g", "step": "two", "team": "override"}),
		with(map[string]string{"phase": "late"}),
	}
	sent := int(global(vu, "sent").(int64))
	for _, m := range []struct {
		name  string
		typ   metrics.MetricType
		value func(float64) bool
	}{
		{MetricReqDuration, metrics.Trend, func(v float64) bool { return v > 0 && v < 5000 }},
		{MetricReqs, metrics.Counter, func(v float64) bool { return v == 1 }},
		{MetricReqFailed, metrics.Rate, func(v float64) bool { return v == 0 }},
		{echometrics.DataSent, metrics.Counter, func(v float64) bool { return int(v) == sent }},
		{echometrics.DataReceived, metrics.Counter, func(v float64) bool { return v > 100 && v < 200 }},
	} {
		samples := rn.out.ByName(m.name)
		if len(samples) != 3 {
			t.Fatalf("%s: %d samples, want 3", m.name, len(samples))
		}
		if samples[0].Metric.Type != m.typ {
			t.Errorf("%s: type %v, want %v", m.name, samples[0].Metric.Type, m.typ)
		}
		for i, s := range samples {
			if !m.value(s.Value) {
				t.Errorf("%s sample %d: value %v", m.name, i, s.Value)
			}
			if got := s.Tags.Map(); !equalMaps(got, wantTags[i]) {
				t.Errorf("%s sample %d: tags %v, want %v", m.name, i, got, wantTags[i])
			}
		}
	}
	if got := rn.r.Registry().Get(MetricReqDuration); got == nil || got.Contains != metrics.Time {
		t.Errorf("%s registered as %+v, want a time Trend", MetricReqDuration, got)
	}
	// The bytes also count towards the iteration's data_sent / data_received.
	var dataSent float64
	for _, s := range rn.out.ByName("data_sent") {
		dataSent += s.Value
	}
	if want := float64(3 * sent); dataSent != want {
		t.Errorf("data_sent = %v, want %v", dataSent, want)
	}
}

func TestFailedSampleTags(t *testing.T) {
	c, _ := minitest.Start(t, minicluster.Options{})
	rn := mustLoad(t, `
import dnecho from 'k6/x/dnecho';
const client = new dnecho.Client({ containerId: 1, scm: __ENV.SCM, retries: false, deadline: '2s' });
export default function () { client.echo(); }`, clusterEnv(c))
	vu := rn.vu(t, 1, nil)
	iterate(t, vu)
	c.DataNodes()[0].Stop()
	iterate(t, vu)
	vu.Flush()
	samples := rn.out.ByName(MetricReqFailed)
	if len(samples) != 2 || samples[0].Value != 0 || samples[1].Value != 1 {
		t.Fatalf("dnecho_req_failed samples: %+v", samples)
	}
	if r, _ := samples[1].Tags.Get(echometrics.TagResult); r != "UNAVAILABLE" {
		t.Errorf("result tag of the failed call = %q", r)
	}
	if d, _ := samples[1].Tags.Get(TagDataNode); d != c.DataNodes()[0].UUID() {
		t.Errorf("datanode tag of the failed call = %q", d)
	}
}

// TestTagCacheReuse checks the hot path: the same VU tags and outcome give the same tag set.
func TestTagCacheReuse(t *testing.T) {
	tc := newTagCache(metrics.NewTags(map[string]string{"a": "1", "container": "5", "stream": "new"}))
	vuTags := metrics.NewTags(map[string]string{"scenario": "s"})
	res := func(pipeline, dn string) *echo.Result {
		return &echo.Result{Pipeline: pipeline, DataNode: datanode.DataNode{UUID: dn}, Label: "SUCCESS"}
	}
	t1 := tc.get(vuTags, res("p", "dn1"), echo.ModeGRPC)
	if t2 := tc.get(vuTags, res("p", "dn1"), echo.ModeGRPC); t2 != t1 {
		t.Error("same key built a new tag set")
	}
	if p, _ := t1.Get(echometrics.TagPipeline); p != "p" {
		t.Errorf("pipeline tag %q, want p", p)
	}
	t3 := tc.get(vuTags, res("p", "dn2"), echo.ModeGRPC)
	if t3 == t1 {
		t.Error("another DataNode got the same tag set")
	}
	if t4 := tc.get(vuTags, res("p", "dn1"), echo.ModeGRPC); t4 != t1 {
		t.Error("cached tag set not reused after another key")
	}
	if moved := tc.get(vuTags, res("q", "dn1"), echo.ModeGRPC); moved == t1 {
		t.Error("another pipeline got the same tag set")
	} else if p, _ := moved.Get(echometrics.TagPipeline); p != "q" {
		t.Errorf("pipeline tag after a move %q, want q", p)
	}
	if t5 := tc.get(vuTags, res("p", "dn1"), echo.ModeRatisWrite); t5 == t1 {
		t.Error("another mode got the same tag set")
	} else if m, _ := t5.Get(echometrics.TagMode); m != "ratis-write" {
		t.Errorf("mode tag %q", m)
	}
	if got := tc.get(metrics.NewTags(map[string]string{"scenario": "t"}), res("p", "dn1"), echo.ModeGRPC); got == t1 {
		t.Error("changed VU tags reused the old tag set")
	}
	for i := range maxCachedTagSets + 10 {
		tc.get(vuTags, res("p", strconv.Itoa(i)), echo.ModeGRPC)
	}
	if len(tc.m) > maxCachedTagSets {
		t.Errorf("cache grew to %d", len(tc.m))
	}
	hot := res("p", "dn1")
	allocs := testing.AllocsPerRun(100, func() { tc.get(vuTags, hot, echo.ModeGRPC) })
	if allocs != 0 {
		t.Errorf("cached lookup allocates %v times", allocs)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
