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
	n := NewNetwork(m, metrics.NewTags(map[string]string{"testid": "x"}))
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
			if s.Metric.Name != w.metric || dn != w.dn || s.Value != w.v || id != "x" || !s.Time.Equal(at) {
				t.Errorf("tick %d sample %d: %s{%s} %v (testid %q), want %s{%s} %v", i, j, s.Metric.Name, dn, s.Value, id, w.metric, w.dn, w.v)
			}
		}
	}
}

// DataNodes reads the per-DataNode breakdowns of a run's snapshot.
func TestDataNodes(t *testing.T) {
	reg := metrics.NewRegistry()
	m, err := Register(reg)
	if err != nil {
		t.Fatal(err)
	}
	c := ingest.New(ingest.Options{})
	for _, name := range PerDataNode {
		c.TrackBreakdown(name, TagDataNode)
	}
	tags := func(uuid string) *metrics.Tags { return metrics.NewTags(map[string]string{TagDataNode: uuid}) }
	var batch []metrics.Sample
	for i := 1; i <= 100; i++ {
		batch = append(batch,
			metrics.Sample{Metric: m.Duration, Value: float64(i) / 10, Tags: tags("b")},
			metrics.Sample{Metric: m.Duration, Value: 2, Tags: tags("a")})
	}
	batch = append(batch,
		metrics.Sample{Metric: m.RTT, Value: 0.5, Tags: tags("b")},
		metrics.Sample{Metric: m.Retransmits, Value: 4, Tags: tags("b")},
		metrics.Sample{Metric: m.Retransmits, Value: 1, Tags: tags("b")})
	c.PushSamples(batch)
	got := DataNodes(c.Snapshot(), map[string]string{"a": "h:1"})
	want := []dnstats.DataNode{
		{UUID: "a", Addr: "h:1", Calls: 100, P50: 2 * time.Millisecond, P99: 2 * time.Millisecond},
		// k6's percentile rule: rank (n−1)·p, interpolated.
		{UUID: "b", Calls: 100, P50: 5050 * time.Microsecond, P99: 9901 * time.Microsecond, RTT: 500 * time.Microsecond, HasRTT: true, Retransmits: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	// Their latencies, for the verdict's tail test: b's 0.1 to 10 ms, half above 5 ms.
	if got[0].Latencies == nil || got[0].Latencies.Above(time.Millisecond) != 100 || got[1].Latencies.Above(5*time.Millisecond) != 50 {
		t.Errorf("latencies of a and b not those of their calls")
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
