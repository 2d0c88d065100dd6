package echometrics

import (
	"testing"
	"time"

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
