package dnstats

import (
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

func dn(uuid string, calls int64, p50, p99, rtt time.Duration) DataNode {
	return DataNode{UUID: uuid, Addr: "10.0.0." + uuid[:1] + ":9859", Calls: calls, P50: p50, P99: p99, RTT: rtt, HasRTT: rtt > 0}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dns    []DataNode
		opts   Options
		judged int
		slow   []string // Line of each slow DataNode
		causes []string // a fragment of each Cause
	}{
		{
			name: "all alike",
			dns: []DataNode{dn("1aaaaa", 500, 1*ms, 2*ms, ms/10), dn("2bbbbb", 500, 1*ms, 2100*time.Microsecond, ms/10),
				dn("3ccccc", 500, 1*ms, 3900*time.Microsecond, ms/10)},
			opts: DefaultOptions(), judged: 3,
		},
		{
			name: "one slow DataNode",
			dns: []DataNode{dn("1aaaaa", 500, 1*ms, 2100*time.Microsecond, ms/10), dn("6c0e5a", 500, 11*ms, 12300*time.Microsecond, ms/10),
				dn("3ccccc", 500, 1*ms, 2100*time.Microsecond, ms/10)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 6c0e… (10.0.0.6:9859): p99 12.3 ms vs 2.1 ms for the other 2"},
			causes: []string{"its DataNode time is what is high: network RTT p50 0.1 ms vs 0.1 ms, DataNode time 10.9 ms vs 0.9 ms"},
		},
		{
			name: "exactly k times is not slow",
			dns:  []DataNode{dn("1aaaaa", 100, 1*ms, 2*ms, 0), dn("2bbbbb", 100, 1*ms, 4*ms, 0)},
			opts: DefaultOptions(), judged: 2,
		},
		{
			name: "slow network",
			dns: []DataNode{dn("1aaaaa", 200, 1*ms, 2*ms, ms/10), dn("2bbbbb", 200, 9*ms, 10*ms, 8*ms),
				dn("3ccccc", 200, 1*ms, 2*ms, ms/10)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 10 ms vs 2 ms for the other 2"},
			causes: []string{"its network RTT is what is high: network RTT p50 8 ms vs 0.1 ms"},
		},
		{
			name: "only the tail",
			dns:  []DataNode{dn("1aaaaa", 200, 1*ms, 2*ms, ms/10), dn("2bbbbb", 200, 1*ms, 30*ms, ms/10)},
			opts: DefaultOptions(), judged: 2,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 30 ms vs 2 ms for the other 1"},
			causes: []string{"only its tail is slow"},
		},
		{
			// A DataNode paused now and then: most calls at once, a few very late, and the
			// delayed ACKs of the late ones lift its RTT p50 by half a millisecond (the real
			// cluster's figures, e2e/realcluster TestSlowRealDataNodeIsNamed).
			name: "a p50 excess far below the tail's is not the cause",
			dns: []DataNode{dn("1aaaaa", 900, 1234*time.Microsecond, 7350*time.Microsecond, 556*time.Microsecond),
				dn("2bbbbb", 900, 1314*time.Microsecond, 52900*time.Microsecond, 1080*time.Microsecond),
				dn("3ccccc", 900, 1234*time.Microsecond, 7350*time.Microsecond, 556*time.Microsecond)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 52.9 ms vs 7.35 ms for the other 2"},
			causes: []string{"only its tail is slow: its network RTT and DataNode time at p50 are near the others' (network RTT p50 1.08 ms vs 0.556 ms"},
		},
		{
			name: "no network figures",
			dns:  []DataNode{dn("1aaaaa", 200, 1*ms, 2*ms, 0), dn("2bbbbb", 200, 5*ms, 30*ms, 0)},
			opts: DefaultOptions(), judged: 2,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 30 ms vs 2 ms for the other 1"},
			causes: []string{"p50 5 ms vs 1 ms; no network figures"},
		},
		{
			name: "too few calls are neither judged nor counted among the others",
			dns: []DataNode{dn("1aaaaa", 99, 50*ms, 90*ms, 0), dn("2bbbbb", 100, 1*ms, 2*ms, 0),
				dn("3ccccc", 100, 1*ms, 2*ms, 0)},
			opts: DefaultOptions(), judged: 2,
		},
		{
			name: "a single judged DataNode gives no verdict",
			dns:  []DataNode{dn("1aaaaa", 1000, 1*ms, 2*ms, 0), dn("2bbbbb", 10, 50*ms, 90*ms, 0)},
			opts: DefaultOptions(), judged: 1,
		},
		{
			name: "median of the others, not their mean",
			dns: []DataNode{dn("1aaaaa", 100, 1*ms, 2*ms, 0), dn("2bbbbb", 100, 1*ms, 2*ms, 0),
				dn("3ccccc", 100, 1*ms, 3*ms, 0), dn("4ddddd", 100, 4*ms, 7*ms, 0), dn("5eeeee", 100, 4*ms, 40*ms, 0)},
			opts: DefaultOptions(), judged: 5,
			slow: []string{
				"SLOW DATANODE 4ddd… (10.0.0.4:9859): p99 7 ms vs 2.5 ms for the other 4",
				"SLOW DATANODE 5eee… (10.0.0.5:9859): p99 40 ms vs 2.5 ms for the other 4",
			},
		},
		{
			name: "a larger factor",
			dns:  []DataNode{dn("1aaaaa", 100, 1*ms, 2*ms, 0), dn("2bbbbb", 100, 1*ms, 7*ms, 0)},
			opts: Options{MinCalls: 100, SlowFactor: 4}, judged: 2,
		},
		{
			name: "a smaller minimum",
			dns:  []DataNode{dn("1aaaaa", 10, 1*ms, 2*ms, 0), dn("2bbbbb", 10, 1*ms, 7*ms, 0)},
			opts: Options{MinCalls: 10, SlowFactor: 2}, judged: 2,
			slow: []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 7 ms vs 2 ms for the other 1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.opts.Validate(); err != nil {
				t.Fatal(err)
			}
			v := Judge(tc.dns, tc.opts)
			if v.Judged != tc.judged {
				t.Errorf("judged %d, want %d", v.Judged, tc.judged)
			}
			if len(v.Slow) != len(tc.slow) {
				t.Fatalf("slow %d DataNodes, want %d: %v", len(v.Slow), len(tc.slow), v.Lines())
			}
			for i, s := range v.Slow {
				if got := s.Line(); got != tc.slow[i] {
					t.Errorf("line\n got %q\nwant %q", got, tc.slow[i])
				}
				if i < len(tc.causes) && !strings.Contains(s.Cause(), tc.causes[i]) {
					t.Errorf("cause %q lacks %q", s.Cause(), tc.causes[i])
				}
			}
		})
	}
}

func TestVerdictLines(t *testing.T) {
	none := Judge([]DataNode{dn("1aaaaa", 100, ms, ms, 0)}, DefaultOptions())
	if l := none.Lines(); len(l) != 1 || !strings.Contains(l[0], "at least 100 calls, there were 1") {
		t.Errorf("lines without a verdict: %q", l)
	}
	fine := Judge([]DataNode{dn("1aaaaa", 100, ms, ms, 0), dn("2bbbbb", 100, ms, ms, 0)}, DefaultOptions())
	if l := fine.Lines(); len(l) != 1 || l[0] != "No slow DataNode: the p99 of each of the 2 DataNodes with at least 100 calls is within 2× the others' median" {
		t.Errorf("lines of a run without a slow DataNode: %q", l)
	}
	slow := Judge([]DataNode{dn("1aaaaa", 100, ms, ms, 0), dn("2bbbbb", 100, ms, 3*ms, 0)}, DefaultOptions())
	if l := slow.Lines(); len(l) != 2 || !strings.HasPrefix(l[0], "SLOW DATANODE 2bbb…") || !strings.HasPrefix(l[1], "  ") {
		t.Errorf("lines of a slow DataNode: %q", l)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{MinCalls: 100, SlowFactor: 1}, {MinCalls: 100, SlowFactor: 0.5},
		{MinCalls: 0, SlowFactor: 2}, {MinCalls: 100, SlowFactor: nan()}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Error(err)
	}
}

func nan() float64 { z := 0.0; return z / z }
