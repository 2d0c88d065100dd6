package slowdatanode

import (
	"testing"
	"time"

	"github.com/dnecho/dnecho/echometrics"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
)

// FromSnapshot reads the per-DataNode breakdowns of a run's snapshot: each attempt counts at the
// DataNode it went to, with its own latency (a retried call's whole latency counts nowhere), and
// each mode has its own rows.
func TestFromSnapshot(t *testing.T) {
	reg := metrics.NewRegistry()
	m, err := echometrics.Register(reg)
	if err != nil {
		t.Fatal(err)
	}
	c := ingest.New(ingest.Options{})
	for _, b := range Breakdowns {
		c.TrackByTag(b)
	}
	a, b := datanode.DataNode{UUID: "a", Addr: "h:1"}, datanode.DataNode{UUID: "b", Addr: "h:2"}
	var batch []metrics.Sample
	call := func(r echo.Result, mode echo.Mode) {
		r.Label = echo.LabelSuccess
		tags := echometrics.CallTags(metrics.NewTags(nil), &r, mode)
		one := make([]metrics.Sample, echometrics.SamplesPerCall+echometrics.AttemptSamples(&r))
		m.Fill(one, time.Now(), tags, nil, &r)
		m.FillAttempts(one[echometrics.SamplesPerCall:], time.Now(), metrics.NewTags(nil), nil, &r, mode)
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
	grpc := metrics.NewTags(map[string]string{echometrics.TagDataNode: "b", echometrics.TagMode: "grpc"})
	batch = append(batch,
		metrics.Sample{Metric: m.RTT, Value: 0.5, Tags: grpc},
		metrics.Sample{Metric: m.Retransmits, Value: 4, Tags: grpc},
		metrics.Sample{Metric: m.Retransmits, Value: 1, Tags: grpc})
	c.PushSamples(batch)
	got := DataNodes(FromSnapshot(c.Snapshot()), func(uuid string, mode echo.Mode) string { return uuid + ":" + string(mode) })
	want := []DataNode{
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
	if FromSnapshot(ingest.New(ingest.Options{}).Snapshot()) != nil {
		t.Error("DataNodes of a run without calls")
	}
}
