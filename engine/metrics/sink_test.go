package metrics

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewSinkPerType(t *testing.T) {
	r := NewRegistry()
	b := RegisterBuiltins(r)
	for _, tc := range []struct {
		m    *Metric
		want string
	}{
		{b.Iterations, "*metrics.CounterSink"},
		{b.VUs, "*metrics.GaugeSink"},
		{b.Checks, "*metrics.RateSink"},
		{b.IterationDuration, "*metrics.TrendSink"},
	} {
		s := NewSink(tc.m)
		if got := typeName(s); got != tc.want {
			t.Errorf("%s: sink %s, want %s", tc.m.Name, got, tc.want)
		}
		if !s.IsEmpty() {
			t.Errorf("%s: new sink not empty", tc.m.Name)
		}
	}
	if s := NewSink(&Metric{Name: "x", Type: MetricType(9)}); s != nil {
		t.Errorf("unknown type: got %T, want nil", s)
	}
}

func typeName(s Sink) string {
	switch s.(type) {
	case *CounterSink:
		return "*metrics.CounterSink"
	case *GaugeSink:
		return "*metrics.GaugeSink"
	case *RateSink:
		return "*metrics.RateSink"
	case *TrendSink:
		return "*metrics.TrendSink"
	}
	return "?"
}

func at(sec int, v float64) Sample {
	return Sample{Time: time.Unix(1_700_000_000+int64(sec), 0), Value: v}
}

func TestCounterSink(t *testing.T) {
	var c CounterSink
	for i, v := range []float64{3, 0, 2.5, math.NaN(), math.Inf(1)} {
		c.Add(at(10-i, v))
	}
	if c.Sum != 5.5 || c.N != 3 {
		t.Fatalf("sum %v n %d, want 5.5 and 3 (NaN and Inf ignored)", c.Sum, c.N)
	}
	if !c.First.Equal(at(8, 0).Time) || !c.Last.Equal(at(10, 0).Time) {
		t.Errorf("first %v last %v", c.First, c.Last)
	}
	if got := c.Rate(2 * time.Second); got != 2.75 {
		t.Errorf("rate %v, want 2.75", got)
	}
	if got := c.Rate(0); got != 0 {
		t.Errorf("rate over 0s %v, want 0", got)
	}
	cl := c.Clone().(*CounterSink)
	c.Add(at(0, 1))
	if cl.Sum != 5.5 {
		t.Errorf("clone changed with the original")
	}
}

func TestGaugeSink(t *testing.T) {
	var g GaugeSink
	for _, v := range []float64{5, -2, 9, 4} {
		g.Add(at(0, v))
	}
	if g.Value != 4 || g.Min != -2 || g.Max != 9 || g.N != 4 {
		t.Errorf("got %+v", g)
	}
}

func TestRateSink(t *testing.T) {
	var r RateSink
	if _, ok := r.Rate(); ok {
		t.Fatal("empty rate has a value")
	}
	for _, v := range []float64{1, 0, 0.5, -1, 0} {
		r.Add(at(0, v))
	}
	if got, ok := r.Rate(); !ok || got != 0.6 || r.Trues != 3 || r.Total != 5 {
		t.Errorf("rate %v ok %v %+v", got, ok, r)
	}
}

func TestRegisterBuiltins(t *testing.T) {
	r := NewRegistry()
	b := RegisterBuiltins(r)
	want := map[string][2]string{
		"vus": {"gauge", "default"}, "vus_max": {"gauge", "default"},
		"iterations": {"counter", "default"}, "iteration_duration": {"trend", "time"},
		"dropped_iterations": {"counter", "default"}, "checks": {"rate", "default"},
		"group_duration": {"trend", "time"}, "data_sent": {"counter", "data"},
		"data_received": {"counter", "data"},
		// k6's protocol metrics, registered so that thresholds may name them.
		"http_reqs": {"counter", "default"}, "http_req_failed": {"rate", "default"},
		"http_req_duration": {"trend", "time"}, "http_req_blocked": {"trend", "time"},
		"http_req_connecting": {"trend", "time"}, "http_req_tls_handshaking": {"trend", "time"},
		"http_req_sending": {"trend", "time"}, "http_req_waiting": {"trend", "time"},
		"http_req_receiving": {"trend", "time"}, "ws_sessions": {"counter", "default"},
		"ws_msgs_sent": {"counter", "default"}, "ws_msgs_received": {"counter", "default"},
		"ws_ping": {"trend", "time"}, "ws_session_duration": {"trend", "time"},
		"ws_connecting": {"trend", "time"}, "grpc_req_duration": {"trend", "time"},
	}
	if len(r.All()) != len(want) {
		t.Fatalf("%d metrics registered, want %d", len(r.All()), len(want))
	}
	for _, m := range r.All() {
		w, ok := want[m.Name]
		if !ok || m.Type.String() != w[0] || m.Contains.String() != w[1] {
			t.Errorf("%s: %s of %s", m.Name, m.Type, m.Contains)
		}
	}
	if b.Checks != r.Get("checks") || b.DataReceived != r.Get("data_received") {
		t.Error("Builtins fields do not point at the registered metrics")
	}
}

func TestSystemTags(t *testing.T) {
	if got := len(DefaultSystemTags()); got != 14 {
		t.Errorf("%d default system tags, want 14", got)
	}
	if len(AllSystemTags()) != 18 || !IsSystemTag("ocsp_status") || IsSystemTag("datanode") {
		t.Error("AllSystemTags / IsSystemTag disagree with docs/k6-compat.md#system-tags")
	}
	if !IsMetadataTag("vu") || IsMetadataTag("group") {
		t.Error("IsMetadataTag")
	}
}

func TestValidNameMatchesK6Pattern(t *testing.T) {
	re := regexp.MustCompile(namePattern)
	for _, name := range []string{"", "a", "ab", "_x", "9a", "a9", "a-b", "a b", "extmod_req_duration", "é_x", "A_Z_09",
		strings.Repeat("a", 129), strings.Repeat("a", 130), "a\n"} {
		if got, want := validName(name), re.MatchString(name); got != want {
			t.Errorf("validName(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}
