package slowdatanode

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	ms = time.Millisecond
	us = time.Microsecond
)

// dn is a DataNode known by its percentiles only: its p99 alone cannot make it slow.
func dn(uuid string, calls int64, p50, p99, rtt time.Duration) DataNode {
	return DataNode{UUID: uuid, Addr: "10.0.0." + uuid[:1] + ":9859", Attempts: calls, P50: p50, P99: p99, RTT: rtt, HasRTT: rtt > 0}
}

// ofMode is d as a row of mode.
func ofMode(d DataNode, mode string) DataNode {
	d.Mode = mode
	return d
}

// tailDN is a DataNode of calls calls that took base, but for slow of them that took late; its
// percentiles are read from those latencies (nearest rank).
func tailDN(uuid string, calls int64, base time.Duration, slow int64, late, rtt time.Duration) DataNode {
	lat := make([]float64, calls)
	for i := range lat {
		lat[i] = float64(base)
		if int64(i) >= calls-slow {
			lat[i] = float64(late)
		}
	}
	slices.Sort(lat)
	rank := func(r int64) float64 { return lat[min(max(r, 1), calls)-1] }
	d := dn(uuid, calls, time.Duration(rank((calls+1)/2)), time.Duration(rank((99*calls+99)/100)), rtt)
	d.Latencies = Ranked(calls, rank, time.Nanosecond)
	return d
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
		// The five runs of a busy machine where the p99 alone named no DataNode: the others'
		// tails were as wide as the slow one's, its median was 2.8 to 5 times theirs.
		{
			name: "freon under load (p50 5x, p99 1.7x)",
			dns: []DataNode{dn("53c6aa", 1000, 44700*us, 71700*us, 0), dn("1aaaaa", 1000, 9*ms, 37200*us, 0),
				dn("2bbbbb", 1000, 9100*us, 44400*us, 0)},
			opts: DefaultOptions(), judged: 3,
			slow: []string{"SLOW DATANODE 53c6… (10.0.0.5:9859): p50 44.7 ms vs 9.05 ms for the other 2 (p99 71.7 vs 40.8)"},
		},
		{
			name: "run under load",
			dns: []DataNode{dn("1aaaaa", 1000, 20300*us, 81*ms, 0), dn("2bbbbb", 1000, 20400*us, 83*ms, 0),
				dn("3ccccc", 1000, 57800*us, 127*ms, 0)},
			opts: DefaultOptions(), judged: 3,
			slow: []string{"SLOW DATANODE 3ccc… (10.0.0.3:9859): p50 57.8 ms vs 20.4 ms for the other 2 (p99 127 vs 82)"},
		},
		{
			name: "run's abort under load",
			dns: []DataNode{dn("1aaaaa", 1000, 19800*us, 95*ms, 0), dn("2bbbbb", 1000, 20100*us, 98500*us, 0),
				dn("3ccccc", 1000, 57100*us, 137*ms, 0)},
			opts: DefaultOptions(), judged: 3,
			slow: []string{"SLOW DATANODE 3ccc… (10.0.0.3:9859): p50 57.1 ms vs 19.9 ms for the other 2 (p99 137 vs 96.8)"},
		},
		{
			name: "aggregate under load",
			dns: []DataNode{DataNode{UUID: "ce8bd341-ab64", Attempts: 1000, P50: 64300 * us, P99: 135 * ms},
				DataNode{UUID: "1aaaaaaa-0000", Attempts: 1000, P50: 26300 * us, P99: 96 * ms},
				DataNode{UUID: "2bbbbbbb-0000", Attempts: 1000, P50: 26700 * us, P99: 107 * ms}},
			opts: DefaultOptions(), judged: 3,
			slow: []string{"SLOW DATANODE ce8bd341-ab64: p50 64.3 ms vs 26.5 ms for the other 2 (p99 135 vs 102)"},
		},
		{
			name: "every tail wide (40 ms of jitter), one DataNode 40 ms slower",
			dns: []DataNode{dn("1aaaaa", 1000, 22*ms, 43*ms, 0), dn("2bbbbb", 1000, 61*ms, 81*ms, 0),
				dn("3ccccc", 1000, 23*ms, 43*ms, 0)},
			opts: DefaultOptions(), judged: 3,
			slow: []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p50 61 ms vs 22.5 ms for the other 2 (p99 81 vs 43)"},
		},
		{
			name: "sub-millisecond: three times the others' p50 but under the floor",
			dns: []DataNode{dn("1aaaaa", 1000, 100*us, 400*us, 0), dn("2bbbbb", 1000, 300*us, 900*us, 0),
				dn("3ccccc", 1000, 100*us, 350*us, 0)},
			opts: DefaultOptions(), judged: 3,
		},
		{
			name: "sub-millisecond: a tail three times the others' but under the floor",
			dns: []DataNode{tailDN("1aaaaa", 1000, 100*us, 5, 300*us, 0), tailDN("2bbbbb", 1000, 100*us, 50, 900*us, 0),
				tailDN("3ccccc", 1000, 100*us, 5, 300*us, 0)},
			opts: DefaultOptions(), judged: 3,
		},
		{
			name: "the floor set to zero names the sub-millisecond one",
			dns: []DataNode{dn("1aaaaa", 1000, 100*us, 400*us, 0), dn("2bbbbb", 1000, 300*us, 900*us, 0),
				dn("3ccccc", 1000, 100*us, 350*us, 0)},
			opts: Options{MinAttempts: 100, SlowFactor: 2}, judged: 3,
			slow: []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p50 0.3 ms vs 0.1 ms for the other 2 (p99 0.9 vs 0.375)"},
		},
		{
			name: "one slow DataNode",
			dns: []DataNode{dn("1aaaaa", 500, 1*ms, 2100*us, ms/10), dn("6c0e5a", 500, 11*ms, 12300*us, ms/10),
				dn("3ccccc", 500, 1*ms, 2100*us, ms/10)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 6c0e… (10.0.0.6:9859): p50 11 ms vs 1 ms for the other 2 (p99 12.3 vs 2.1)"},
			causes: []string{"its DataNode time is what is high: network RTT p50 0.1 ms vs 0.1 ms, DataNode time 10.9 ms vs 0.9 ms"},
		},
		{
			name: "exactly k times is not slow",
			dns:  []DataNode{dn("1aaaaa", 100, 2*ms, 4*ms, 0), dn("2bbbbb", 100, 4*ms, 8*ms, 0)},
			opts: DefaultOptions(), judged: 2,
		},
		{
			name: "slow network",
			dns: []DataNode{dn("1aaaaa", 200, 1*ms, 2*ms, ms/10), dn("2bbbbb", 200, 9*ms, 10*ms, 8*ms),
				dn("3ccccc", 200, 1*ms, 2*ms, ms/10)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p50 9 ms vs 1 ms for the other 2 (p99 10 vs 2)"},
			causes: []string{"its network RTT is what is high: network RTT p50 8 ms vs 0.1 ms"},
		},
		{
			name: "only the tail: 3% of the calls 30 ms late",
			dns: []DataNode{tailDN("1aaaaa", 1000, 1*ms, 5, 2*ms, ms/10), tailDN("2bbbbb", 1000, 1*ms, 30, 30*ms, ms/10),
				tailDN("3ccccc", 1000, 1*ms, 5, 2*ms, ms/10)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 30 ms vs 1 ms for the other 2 (p50 1 vs 1; 3% of its attempts above 2 ms, 0% of theirs)"},
			causes: []string{"only its tail is slow"},
		},
		{
			// The stalls of a loaded client: a few calls of every DataNode 20 ms late, 1.1% of
			// one's and 0.9% of the others': its p99 falls among them, theirs just below.
			name: "a p99 across the stalls by chance is not slow",
			dns: []DataNode{tailDN("1aaaaa", 1000, 300*us, 9, 20*ms, 0), tailDN("2bbbbb", 1000, 300*us, 11, 20*ms, 0),
				tailDN("3ccccc", 1000, 300*us, 9, 20*ms, 0)},
			opts: DefaultOptions(), judged: 3,
		},
		{
			name: "too few late calls to tell a tail from luck",
			dns:  []DataNode{tailDN("1aaaaa", 100, 1*ms, 0, 0, 0), tailDN("2bbbbb", 100, 1*ms, 2, 30*ms, 0)},
			opts: DefaultOptions(), judged: 2,
		},
		{
			name: "a p99 without latencies cannot tell",
			dns:  []DataNode{dn("1aaaaa", 1000, 1*ms, 2*ms, 0), dn("2bbbbb", 1000, 1*ms, 30*ms, 0)},
			opts: DefaultOptions(), judged: 2,
		},
		{
			// A DataNode paused now and then: most calls at once, a few very late, and the
			// delayed ACKs of the late ones lift its RTT p50 by half a millisecond (the real
			// cluster's figures, e2e/realcluster TestSlowRealDataNodeIsNamed).
			name: "a p50 excess far below the tail's is not the cause",
			dns: []DataNode{tailDN("1aaaaa", 900, 1234*us, 5, 7350*us, 556*us),
				tailDN("2bbbbb", 900, 1314*us, 27, 52900*us, 1080*us),
				tailDN("3ccccc", 900, 1234*us, 5, 7350*us, 556*us)},
			opts: DefaultOptions(), judged: 3,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p99 52.9 ms vs 1.23 ms for the other 2 (p50 1.31 vs 1.23; 3% of its attempts above 2.47 ms, 0.56% of theirs)"},
			causes: []string{"only its tail is slow: its network RTT and DataNode time at p50 are near the others' (network RTT p50 1.08 ms vs 0.556 ms"},
		},
		{
			name: "no network figures",
			dns:  []DataNode{dn("1aaaaa", 200, 1*ms, 2*ms, 0), dn("2bbbbb", 200, 5*ms, 30*ms, 0)},
			opts: DefaultOptions(), judged: 2,
			slow:   []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p50 5 ms vs 1 ms for the other 1 (p99 30 vs 2)"},
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
				dn("3ccccc", 100, 2*ms, 3*ms, 0), dn("4ddddd", 100, 4*ms, 7*ms, 0), dn("5eeeee", 100, 40*ms, 45*ms, 0)},
			opts: DefaultOptions(), judged: 5,
			slow: []string{
				"SLOW DATANODE 4ddd… (10.0.0.4:9859): p50 4 ms vs 1.5 ms for the other 4 (p99 7 vs 2.5)",
				"SLOW DATANODE 5eee… (10.0.0.5:9859): p50 40 ms vs 1.5 ms for the other 4 (p99 45 vs 2.5)",
			},
		},
		{
			// A Raft write is slower than a gRPC echo by nature: each row is judged against the
			// rows of its mode only.
			name: "each mode against its own",
			dns: []DataNode{ofMode(dn("1aaaaa", 500, 200*us, ms, 0), "grpc"), ofMode(dn("2bbbbb", 500, 210*us, ms, 0), "grpc"),
				ofMode(dn("3ccccc", 500, 220*us, ms, 0), "grpc"), ofMode(dn("1aaaaa", 300, 3*ms, 9*ms, 0), "ratis-write"),
				ofMode(dn("2bbbbb", 300, 3100*us, 9*ms, 0), "ratis-write"), ofMode(dn("3ccccc", 300, 12*ms, 20*ms, 0), "ratis-write")},
			opts: DefaultOptions(), judged: 6,
			slow: []string{"SLOW DATANODE 3ccc… (10.0.0.3:9859, ratis-write): p50 12 ms vs 3.05 ms for the other 2 (p99 20 vs 9)"},
		},
		{
			name: "a mode of one DataNode is not judged",
			dns:  []DataNode{ofMode(dn("1aaaaa", 500, 200*us, ms, 0), "grpc"), ofMode(dn("1aaaaa", 300, 30*ms, 90*ms, 0), "ratis-write")},
			opts: DefaultOptions(), judged: 2,
		},
		{
			name: "a larger factor",
			dns:  []DataNode{dn("1aaaaa", 100, 2*ms, 4*ms, 0), dn("2bbbbb", 100, 7*ms, 9*ms, 0)},
			opts: Options{MinAttempts: 100, SlowFactor: 4, MinExcess: ms}, judged: 2,
		},
		{
			name: "a smaller minimum",
			dns:  []DataNode{dn("1aaaaa", 10, 2*ms, 4*ms, 0), dn("2bbbbb", 10, 7*ms, 9*ms, 0)},
			opts: Options{MinAttempts: 10, SlowFactor: 2, MinExcess: ms}, judged: 2,
			slow: []string{"SLOW DATANODE 2bbb… (10.0.0.2:9859): p50 7 ms vs 2 ms for the other 1 (p99 9 vs 4)"},
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
	// One DataNode called (the default target), or one with a few retries besides: nothing to
	// say, and never an option to suggest.
	for _, dns := range [][]DataNode{{dn("1aaaaa", 100, ms, ms, 0)}, {dn("1aaaaa", 5000, ms, ms, 0), dn("2bbbbb", 20, 10*ms, 10*ms, 0)},
		{ofMode(dn("1aaaaa", 500, ms, ms, 0), "grpc"), ofMode(dn("1aaaaa", 500, 3*ms, 3*ms, 0), "ratis-write")}, nil} {
		if l := Judge(dns, DefaultOptions()).Lines(); l != nil {
			t.Errorf("lines of %d rows without two of a mode to compare: %q", len(dns), l)
		}
	}
	few := Judge([]DataNode{dn("1aaaaa", 50, ms, ms, 0), dn("2bbbbb", 50, ms, ms, 0)}, DefaultOptions())
	if l := few.Lines(); len(l) != 1 || l[0] != "No slow-DataNode verdict: it needs two DataNodes with at least 100 attempts, there were 0" {
		t.Errorf("lines of calls spread too thin: %q", l)
	}
	fine := Judge([]DataNode{dn("1aaaaa", 100, ms, ms, 0), dn("2bbbbb", 100, ms, ms, 0)}, DefaultOptions())
	if l := fine.Lines(); len(l) != 1 || l[0] != "No slow DataNode: the p50 and p99 of each of the 2 DataNodes with at least 100 attempts are within 2× the others' median or less than 1 ms above it" {
		t.Errorf("lines of a run without a slow DataNode: %q", l)
	}
	slow := Judge([]DataNode{dn("1aaaaa", 100, ms, ms, 0), dn("2bbbbb", 100, 3*ms, 3*ms, 0)}, DefaultOptions())
	if l := slow.Lines(); len(l) != 2 || !strings.HasPrefix(l[0], "SLOW DATANODE 2bbb…") || !strings.HasPrefix(l[1], "  ") {
		t.Errorf("lines of a slow DataNode: %q", l)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{MinAttempts: 100, SlowFactor: 1}, {MinAttempts: 100, SlowFactor: 0.5},
		{MinAttempts: 0, SlowFactor: 2}, {MinAttempts: 100, SlowFactor: nan()}, {MinAttempts: 100, SlowFactor: 2, MinExcess: -ms}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Error(err)
	}
}

func nan() float64 { z := 0.0; return z / z }

// Above counts the values strictly above the bound, in the store's unit.
func TestRankedAbove(t *testing.T) {
	vals := []float64{0.5, 1, 1, 2, 7} // ms
	l := Ranked(int64(len(vals)), func(r int64) float64 { return vals[r-1] }, time.Millisecond)
	for _, tc := range []struct {
		bound time.Duration
		want  int64
	}{{0, 5}, {500 * us, 4}, {999 * us, 4}, {ms, 2}, {2 * ms, 1}, {7 * ms, 0}, {time.Hour, 0}} {
		if got := l.Above(tc.bound); got != tc.want {
			t.Errorf("Above(%s) = %d, want %d", tc.bound, got, tc.want)
		}
	}
	if got := Ranked(0, nil, ms).Above(0); got != 0 {
		t.Errorf("empty: Above = %d", got)
	}
}
