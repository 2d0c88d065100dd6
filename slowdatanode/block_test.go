package slowdatanode

import (
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/echo"
)

func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{12345 * time.Microsecond, "12.3"}, {2100 * time.Microsecond, "2.1"}, {212300 * time.Nanosecond, "0.212"},
		{45 * time.Microsecond, "0.045"}, {81500 * time.Nanosecond, "0.082"}, {100 * time.Microsecond, "0.1"}, {2 * time.Millisecond, "2"}, {123456 * time.Microsecond, "123"},
		{0, "0"}, {50 * time.Nanosecond, "0"},
	} {
		if got := Millis(tc.d); got != tc.want {
			t.Errorf("Millis(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestShortUUID(t *testing.T) {
	if got := ShortUUID("6c0e5a1b-0000-4000-8000-000000000001"); got != "6c0e…" {
		t.Errorf("got %q", got)
	}
	if got := ShortUUID("abc"); got != "abc" {
		t.Errorf("got %q", got)
	}
}

// Without an address the name is the whole uuid: four characters alone may be ambiguous.
func TestName(t *testing.T) {
	for _, tc := range []struct {
		d    DataNode
		want string
	}{
		{DataNode{UUID: "6c0e5a1b-0000", Addr: "10.0.0.12:9859"}, "6c0e… (10.0.0.12:9859)"},
		{DataNode{UUID: "6c0e5a1b-0000"}, "6c0e5a1b-0000"},
	} {
		if got := tc.d.Name(); got != tc.want {
			t.Errorf("Name() = %q, want %q", got, tc.want)
		}
	}
}

func TestDataNodeTimeNeverNegative(t *testing.T) {
	d := DataNode{P50: time.Millisecond, RTT: 2 * time.Millisecond, HasRTT: true}
	if got := d.DataNodeTime(); got != 0 {
		t.Errorf("DataNodeTime = %s, want 0", got)
	}
}

func TestBlock(t *testing.T) {
	if Block(nil) != nil {
		t.Error("a block without DataNodes")
	}
	got := Block([]DataNode{
		{UUID: "6c0e5a1b", Addr: "10.0.0.12:9859", Attempts: 1500, Failed: 20, P50: 1200 * time.Microsecond, P99: 12300 * time.Microsecond,
			RTT: 200 * time.Microsecond, HasRTT: true, Retransmits: 3},
		{UUID: "77aa0000", Attempts: 20, P50: 900 * time.Microsecond, P99: 2 * time.Millisecond},
	})
	want := []string{
		BlockTitle,
		"  datanode  address         attempts  failed  p50   p99  RTT p50  DataNode time  retransmits",
		"  6c0e…     10.0.0.12:9859      1500      20  1.2  12.3      0.2              1            3",
		"  77aa0000  -                     20       0  0.9     2        -              -            0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("block\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A run of several modes has a row per DataNode and mode, under the mode's address, and a mode
// column; a run of one mode has neither (oneMode drops it).
func TestRowsByMode(t *testing.T) {
	mixed := oneMode([]DataNode{
		{UUID: "11aa0000", Mode: "grpc", Attempts: 1000, P50: 210 * time.Microsecond, P99: time.Millisecond},
		{UUID: "6c0e5a1b", Addr: "10.0.0.12:9859", Mode: "grpc", Attempts: 1000, P50: 200 * time.Microsecond, P99: time.Millisecond},
		{UUID: "6c0e5a1b", Addr: "10.0.0.12:9858", Mode: "ratis-write", Attempts: 400, P50: 3 * time.Millisecond, P99: 9 * time.Millisecond},
	})
	want := []string{
		"  datanode  mode         address         attempts  failed   p50  p99  RTT p50  DataNode time  retransmits",
		"  11aa0000  grpc         -                   1000       0  0.21    1        -              -            0",
		"  6c0e…     grpc         10.0.0.12:9859      1000       0   0.2    1        -              -            0",
		"  6c0e…     ratis-write  10.0.0.12:9858       400       0     3    9        -              -            0",
	}
	if got := Table(mixed); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("table\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := mixed[2].Name(); got != "6c0e… (10.0.0.12:9858, ratis-write)" {
		t.Errorf("Name %q", got)
	}
	if got := mixed[0].Name(); got != "11aa0000 (grpc)" {
		t.Errorf("Name without an address %q", got)
	}
	one := oneMode([]DataNode{{UUID: "a", Mode: "grpc"}, {UUID: "b", Mode: "grpc"}})
	if one[0].Mode != "" || one[1].Mode != "" {
		t.Errorf("rows of one mode %+v", one)
	}
}

func TestNetworkFill(t *testing.T) {
	var n Network
	a, b, z := datanode.DataNode{UUID: "a", Addr: "h1:1"}, datanode.DataNode{UUID: "b", Addr: "h2:1"}, datanode.DataNode{UUID: "z", Addr: "h3:1"}
	n.Add([]echo.NetworkSample{
		{DataNode: a, RTT: 100 * time.Microsecond, Retransmits: 0, Conns: 1},
		{DataNode: b, RTT: 5 * time.Millisecond, Retransmits: 2, Conns: 1},
		{DataNode: z, Conns: 0},
	})
	n.Add([]echo.NetworkSample{
		{DataNode: a, RTT: 300 * time.Microsecond, Retransmits: 1, Conns: 2},
		{DataNode: b, RTT: 0, Retransmits: 2, Conns: 0},
	})
	got := DataNodes(n.Fill([]Row{{UUID: "b", Failed: 5, Unit: time.Nanosecond}, {UUID: "a", Failed: 7, Unit: time.Nanosecond}}), nil)
	want := []DataNode{
		{UUID: "b", Addr: "h2:1", Failed: 5, RTT: 5 * time.Millisecond, HasRTT: true, Retransmits: 2},
		{UUID: "a", Addr: "h1:1", Failed: 7, RTT: 200 * time.Microsecond, HasRTT: true, Retransmits: 1},
		{UUID: "z", Addr: "h3:1"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("DataNode %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// values are latencies in a Distribution with k6's percentile rule.
type values []float64

func (v values) Count() int64                 { return int64(len(v)) }
func (v values) Rank(r int64) float64         { return v[r-1] }
func (v values) Percentile(p float64) float64 { return metrics.Percentile(v.Count(), v.Rank, p) }

// DataNodes reads each row with its distribution's own rule and unit, and asks addr only for the
// rows without an address.
func TestDataNodesOfRows(t *testing.T) {
	ms := values{1, 2, 3, 4, 100}
	got := DataNodes([]Row{
		{UUID: "a", Mode: "grpc", Attempts: ms, Failed: 1, RTT: values{0.1, 0.3}, Retransmits: 4, Unit: time.Millisecond},
		{UUID: "b", Mode: "grpc", Addr: "h:2", Attempts: values{2000, 4000}, Unit: time.Microsecond},
	}, func(uuid string, mode echo.Mode) string { return uuid + "@" + string(mode) })
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	a, b := got[0], got[1]
	if a.Addr != "a@grpc" || a.Mode != "" || a.Attempts != 5 || a.Failed != 1 || a.P50 != 3*time.Millisecond ||
		a.P99 != 96160*time.Microsecond || a.RTT != 200*time.Microsecond || !a.HasRTT || a.Retransmits != 4 {
		t.Errorf("a: %+v", a)
	}
	if a.Latencies.Above(4*time.Millisecond) != 1 {
		t.Errorf("a's latencies: %d above 4 ms", a.Latencies.Above(4*time.Millisecond))
	}
	if b.Addr != "h:2" || b.P50 != 3*time.Millisecond || b.HasRTT {
		t.Errorf("b: %+v", b)
	}
	if DataNodes(nil, nil) != nil {
		t.Error("DataNodes of no rows")
	}
}
