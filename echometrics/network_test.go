package echometrics

import (
	"testing"
	"time"

	"github.com/dnecho/dnecho/dnstats"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
)

// A tick gives one RTT per DataNode with a connection and the retransmits since the previous
// tick (all of them at a DataNode's first tick).
func TestNetworkSamples(t *testing.T) {
	m, err := Register(metrics.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	n := NewNetwork(m, metrics.NewTags(map[string]string{"testid": "x"}), echo.ModeGRPC)
	a, b := datanode.DataNode{UUID: "a", Addr: "h:1"}, datanode.DataNode{UUID: "b", Addr: "h:2"}
	at := time.Unix(100, 0)
	type want struct {
		metric, dn string
		v          float64
	}
	for i, tc := range []struct {
		tick []echo.NetworkSample
		want []want
	}{
		{[]echo.NetworkSample{{DataNode: a, At: at, RTT: 250 * time.Microsecond, Retransmits: 3, Conns: 1}, {DataNode: b, At: at, Conns: 0}},
			[]want{{TCPRTT, "a", 0.25}, {TCPRetransmits, "a", 3}, {TCPRetransmits, "b", 0}}},
		{[]echo.NetworkSample{{DataNode: a, At: at, RTT: time.Millisecond, Retransmits: 5, Conns: 2}},
			[]want{{TCPRTT, "a", 1}, {TCPRetransmits, "a", 2}}},
	} {
		got := n.Samples(tc.tick)
		if len(got) != len(tc.want) {
			t.Fatalf("tick %d: %d samples, want %d", i, len(got), len(tc.want))
		}
		for j, w := range tc.want {
			s := got[j]
			dn, _ := s.Tags.Get(TagDataNode)
			id, _ := s.Tags.Get("testid")
			if mode, _ := s.Tags.Get(TagMode); mode != "grpc" {
				t.Errorf("tick %d sample %d: mode %q, want the session's", i, j, mode)
			}
			if s.Metric.Name != w.metric || dn != w.dn || s.Value != w.v || id != "x" || !s.Time.Equal(at) {
				t.Errorf("tick %d sample %d: %s{%s} %v (testid %q), want %s{%s} %v", i, j, s.Metric.Name, dn, s.Value, id, w.metric, w.dn, w.v)
			}
		}
	}
}

// DataNodes reads the per-DataNode breakdowns of a run's snapshot: each attempt counts at the
// DataNode it went to, with its own latency (a retried call's whole latency counts nowhere), and
// each mode has its own rows.
func TestDataNodes(t *testing.T) {
	reg := metrics.NewRegistry()
	m, err := Register(reg)
	if err != nil {
		t.Fatal(err)
	}
	c := ingest.New(ingest.Options{})
	for _, b := range DataNodeBreakdowns {
		c.TrackByTag(b)
	}
	a, b := datanode.DataNode{UUID: "a", Addr: "h:1"}, datanode.DataNode{UUID: "b", Addr: "h:2"}
	var batch []metrics.Sample
	call := func(r echo.Result, mode echo.Mode) {
		r.Label = echo.LabelSuccess
		tags := CallTags(metrics.NewTags(nil), &r, mode)
		one := make([]metrics.Sample, SamplesPerCall+AttemptSamples(&r))
		m.Fill(one, time.Now(), tags, nil, &r)
		m.FillAttempts(one[SamplesPerCall:], time.Now(), metrics.NewTags(nil), nil, &r, mode)
		batch = append(batch, one...)
	}
	for i := 1; i <= 100; i++ {
		call(echo.Result{DataNode: b, Latency: time.Duration(i) * 100 * time.Microsecond, Attempts: 1}, echo.ModeGRPC)
		call(echo.Result{DataNode: a, Latency: 2 * time.Millisecond, Attempts: 1}, echo.ModeGRPC)
	}
	// 20 calls that time out on a after 10 ms and b answers 0.5 ms later.
	for range 20 {
		call(echo.Result{DataNode: b, Latency: 10500 * time.Microsecond, Attempts: 2,
			Earlier: []echo.Attempt{{DataNode: a, Latency: 10 * time.Millisecond, Label: "DEADLINE_EXCEEDED"}}}, echo.ModeGRPC)
	}
	for range 50 {
		call(echo.Result{DataNode: a, Latency: 3 * time.Millisecond, Attempts: 1}, echo.ModeRatisWrite)
	}
	grpc := metrics.NewTags(map[string]string{TagDataNode: "b", TagMode: "grpc"})
	batch = append(batch,
		metrics.Sample{Metric: m.RTT, Value: 0.5, Tags: grpc},
		metrics.Sample{Metric: m.Retransmits, Value: 4, Tags: grpc},
		metrics.Sample{Metric: m.Retransmits, Value: 1, Tags: grpc})
	c.PushSamples(batch)
	got := DataNodes(c.Snapshot(), func(uuid string, mode echo.Mode) string { return uuid + ":" + string(mode) })
	want := []dnstats.DataNode{
		{UUID: "a", Addr: "a:grpc", Mode: "grpc", Attempts: 120, Failed: 20, P50: 2 * time.Millisecond, P99: 10 * time.Millisecond},
		{UUID: "a", Addr: "a:ratis-write", Mode: "ratis-write", Attempts: 50, P50: 3 * time.Millisecond, P99: 3 * time.Millisecond},
		// k6's percentile rule: rank (n−1)·p, interpolated; b's 20 answers of 0.5 ms among them.
		{UUID: "b", Addr: "b:grpc", Mode: "grpc", Attempts: 120, P50: 4050 * time.Microsecond, P99: 9881 * time.Microsecond,
			RTT: 500 * time.Microsecond, HasRTT: true, Retransmits: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	// b's latencies are its own: none of the retried calls' 10.5 ms.
	if got[2].Latencies == nil || got[2].Latencies.Above(10*time.Millisecond) != 0 || got[2].Latencies.Above(5*time.Millisecond) != 50 {
		t.Errorf("b's latencies are not its attempts' own")
	}
	for i := range want {
		got[i].Latencies = nil
		if got[i] != want[i] {
			t.Errorf("DataNode %d: got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if DataNodes(ingest.New(ingest.Options{}).Snapshot(), nil) != nil {
		t.Error("DataNodes of a run without calls")
	}
}
