package main

import (
	"math"
	"os"
	"testing"
	"time"
)

// Outputs as the tools print them (trimmed to the lines the parsers read and their neighbours).
const (
	rawOut   = "calls=2000 failed=0 seconds=0.500 calls_per_s=4000.0 p50_ms=0.250 p99_ms=1.500 allocs_per_call=89.3\n"
	freonOut = "2026-12-02 13:17:16,756 [shutdown-hook-0] INFO metrics: type=TIMER, name=rpc-payload, count=2000, min=0.105441, max=38.29, mean=1.07, stddev=2.51, median=0.552218, p75=0.93, p95=3.06, p98=5.79, p99=7.7496722799999995, p999=38.23, mean_rate=3710.0967638128172, m1=0.0, m5=0.0, m15=0.0, rate_unit=events/second, duration_unit=milliseconds\n"
	runOut   = "    dnecho_req_duration....: med=445.56µs p(99)=3.98ms\n    dnecho_req_failed......: 0.00%  0 out of 2000\n    dnecho_reqs............: 2000   5984.298207/s\n"
	ghzOut   = `
Summary:
  Count:	20000
  Total:	1.68 s
  Requests/sec:	11890.91

Latency distribution:
  10 % in 0.91 ms 
  50 % in 1.68 ms 
  99 % in 7.75 ms 

Status code distribution:
  [OK]   20000 responses   
`
	ghzFailedOut = `
Summary:
  Count:	20
  Requests/sec:	118.91

Status code distribution:
  [OK]            18 responses   
  [Unavailable]   2 responses   
`
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		parse   func(string) (result, error)
		out     string
		want    result
		wantErr bool
	}{
		{"raw", parseRaw, rawOut, result{calls: 2000, callsPerS: 4000, p50: 0.25, p99: 1.5}, false},
		{"raw with failures", parseRaw, "calls=10 failed=2 seconds=1.0 calls_per_s=10.0 p50_ms=0 p99_ms=0 allocs_per_call=1\n", result{}, true},
		{"raw, no result line", parseRaw, "rawecho: dial: refused\n", result{}, false},
		{"freon", parseFreon, freonOut, result{calls: 2000, callsPerS: 3710.0967638128172, p50: 0.552218, p99: 7.7496722799999995}, false},
		{"run", parseRun, runOut, result{calls: 2000, callsPerS: 5984.298207, p50: 0.44556, p99: 3.98}, false},
		{"ghz", parseGhz, ghzOut, result{calls: 20000, callsPerS: 11890.91, p50: 1.68, p99: 7.75}, false},
		{"ghz with failed calls", parseGhz, ghzFailedOut, result{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(tt.out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if got.calls != tt.want.calls || !near(got.callsPerS, tt.want.callsPerS) || !near(got.p50, tt.want.p50) || !near(got.p99, tt.want.p99) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestToMS(t *testing.T) {
	for _, tt := range []struct {
		v, unit string
		want    float64
	}{{"500", "ns", 0.0005}, {"445.5", "µs", 0.4455}, {"12", "us", 0.012}, {"3.5", "ms", 3.5}, {"1.2", "s", 1200}} {
		if got := toMS(tt.v, tt.unit); !near(got, tt.want) {
			t.Errorf("toMS(%s %s) = %v, want %v", tt.v, tt.unit, got, tt.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tt.xs); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

// The verdicts use the median of the per-round ratios, and only at the target concurrency.
func TestRatioVerdicts(t *testing.T) {
	round := func(rawCPU, freonCPU time.Duration) map[string]result {
		return map[string]result{toolRaw: {cpuPerCall: rawCPU}, toolFreon: {cpuPerCall: freonCPU}}
	}
	q := ratios[0] // freon/raw CPU per call <= 1.10
	if q.num != toolFreon || q.den != toolRaw || q.atLeast || q.target != 1.10 {
		t.Fatalf("ratios[0] = %+v, want freon/raw CPU <= 1.10", q)
	}
	pass := []map[string]result{round(100, 105), round(100, 150), round(100, 100)} // median 1.05
	fail := []map[string]result{round(100, 120), round(100, 100), round(100, 115)} // median 1.15
	b := &bench{}
	b.printRatio(q, pass, targetThreads, "new")
	b.printRatio(q, fail, targetThreads, "new")
	b.printRatio(q, fail, "1", "new") // no verdict
	if b.passed != 1 || len(b.failed) != 1 {
		t.Errorf("passed %d, failed %v; want 1 and 1", b.passed, b.failed)
	}
}

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and a parenthesis; utime 250 and stime 50 ticks.
	line := "4242 (dnecho (x) y) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 50 0 0 20 0 9 0 100 0 0"
	if got, err := parseStatCPU(line); err != nil || got != 3*time.Second {
		t.Errorf("parseStatCPU = %v, %v; want 3s", got, err)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 50"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
	if d, err := procCPU(os.Getpid()); err != nil || d < 0 {
		t.Errorf("procCPU(self) = %v, %v", d, err)
	}
}
