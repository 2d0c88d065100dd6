package main

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/testsupport/realozone"
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
	h2loadOut = `finished in 6.68ms, 14967.82 req/s, 809.49KB/s
requests: 100 total, 100 started, 100 done, 100 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 100 2xx, 0 3xx, 0 4xx, 0 5xx
`
	h2loadFailedOut = `finished in 6.68ms, 14967.82 req/s, 809.49KB/s
requests: 100 total, 100 started, 100 done, 97 succeeded, 3 failed, 0 errored, 0 timeout
status codes: 97 2xx, 0 3xx, 3 4xx, 0 5xx
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
		{"h2load", parseH2load, h2loadOut, result{calls: 100, callsPerS: 14967.82, p50: math.NaN(), p99: math.NaN()}, false},
		{"h2load with failed requests", parseH2load, h2loadFailedOut, result{}, true},
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

func near(a, b float64) bool {
	return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

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

// javaFreonOut is Java `ozone freon dn-echo`'s report as Ozone 2.2.0 logs it on stderr (a run of
// -t 32 -n 2000 against a real DataNode), with the lines before it.
const javaFreonOut = `2026-12-03 19:20:05,060 [main] WARN freon.DNRPCLoadGenerator: Read only is not set to true for GRPC, setting it to true
2026-12-03 19:20:06,499 [main] INFO freon.BaseFreonGenerator: Executing test with prefix ydyekxdtse and number-of-tests 2000
2026-12-03 19:20:11,545 [Thread-4] INFO freon.ProgressBar: Progress: 100.00 % (2000 out of 2000)
2026-12-03 19:20:11,781 [shutdown-hook-0] INFO metrics: type=TIMER, name=rpc-payload, count=2000, min=6.45144, max=917.635383, mean=61.54799377236009, stddev=83.71237771856006, median=48.536378, p75=77.103127, p95=131.531885, p98=152.291508, p99=161.6745, p999=898.178745, mean_rate=380.99578885487927, m1=400.0, m5=400.0, m15=400.0, rate_unit=events/second, duration_unit=milliseconds
2026-12-03 19:20:11,788 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Total execution time (sec): 5
2026-12-03 19:20:11,789 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Failures: 0
2026-12-03 19:20:11,789 [shutdown-hook-0] INFO freon.BaseFreonGenerator: Successful executions: 2000
`

func TestParseJavaFreon(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    result
		wantErr bool
	}{
		{"report", javaFreonOut, result{calls: 2000, callsPerS: 380.99578885487927, p50: 48.536378, p99: 161.6745}, false},
		// Java prints doubles below 0.001 in scientific notation.
		{"scientific", strings.Replace(javaFreonOut, "median=48.536378", "median=5.0E-4", 1), result{calls: 2000, callsPerS: 380.99578885487927, p50: 0.0005, p99: 161.6745}, false},
		// The timer counts failed tasks too: a report with failures is no measurement.
		{"failures", strings.Replace(javaFreonOut, "Failures: 0", "Failures: 3", 1), result{}, true},
		{"no report", "2026-12-03 19:20:04,720 [main] ERROR freon.BaseFreonGenerator: cannot connect\n", result{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFreon(tt.out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if got.calls != tt.want.calls || !near(got.callsPerS, tt.want.callsPerS) || !near(got.p50, tt.want.p50) || !near(got.p99, tt.want.p99) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Java freon's CPU per call is the difference of two runs: start-up cancels out.
func TestMarginal(t *testing.T) {
	long := result{calls: 50000, callsPerS: 9000, p50: 2, p99: 9, cpu: 3*time.Second + 50000*40*time.Microsecond,
		dnCPU: time.Second + 50000*30*time.Microsecond}
	short := result{calls: 10000, callsPerS: 7000, cpu: 3*time.Second + 10000*40*time.Microsecond,
		dnCPU: time.Second + 10000*30*time.Microsecond}
	got, err := marginal(long, short)
	if err != nil {
		t.Fatal(err)
	}
	if got.cpuPerCall != 40*time.Microsecond || got.dnCPUPerCall != 30*time.Microsecond {
		t.Errorf("cpuPerCall %v, dnCPUPerCall %v; want 40µs and 30µs (3 s and 1 s during start-up in both runs)", got.cpuPerCall, got.dnCPUPerCall)
	}
	if got.callsPerS != 9000 || got.p50 != 2 || got.p99 != 9 || got.calls != 50000 {
		t.Errorf("rate and latency %+v, want the long run's", got)
	}
	for _, bad := range []struct{ long, short result }{
		{result{calls: 100, cpu: time.Second}, result{calls: 100, cpu: time.Second / 2}},     // no extra calls
		{result{calls: 500, cpu: time.Second}, result{calls: 100, cpu: 2 * time.Second}},     // CPU went down
		{result{calls: 500, cpu: time.Second}, result{calls: 100, cpu: time.Second}},         // no extra CPU
		{result{calls: 100, cpu: 2 * time.Second}, result{calls: 500, cpu: 1 * time.Second}}, // short is longer
	} {
		if r, err := marginal(bad.long, bad.short); err == nil {
			t.Errorf("marginal(%+v, %+v) = %+v, want an error", bad.long, bad.short, r)
		}
	}
}

// The section's targets: dnecho freon at least as fast as Java freon at half its CPU per call or
// less, dnecho run at least as fast; every round's ratio counts, the median decides.
func TestRealRatioVerdicts(t *testing.T) {
	round := func(freonRate, javaRate float64, freonCPU, javaCPU time.Duration) map[string]result {
		return map[string]result{
			toolFreon: {callsPerS: freonRate, cpuPerCall: freonCPU},
			toolRun:   {callsPerS: freonRate},
			toolJava:  {callsPerS: javaRate, cpuPerCall: javaCPU},
		}
	}
	tests := []struct {
		name   string
		rounds []map[string]result
		pass   int
		failed []string
	}{
		{"all pass", []map[string]result{round(12000, 10000, 20, 50), round(11000, 10000, 25, 50), round(9000, 10000, 20, 50)}, 3, nil},
		// Rates 0.9, 1.0, 0.95 -> median 0.95; CPU 0.6, 0.4, 0.55 -> median 0.55.
		{"slower and dearer", []map[string]result{round(9000, 10000, 30, 50), round(10000, 10000, 20, 50), round(9500, 10000, 55, 100)}, 0,
			[]string{"grpc new freon/java calls/s 0.95x", "grpc new freon/java CPU per call 0.55x", "grpc new run/java calls/s 0.95x"}},
		// Exactly at the targets passes.
		{"at the targets", []map[string]result{round(10000, 10000, 25, 50)}, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scorecard
			for _, q := range realRatios {
				_, num := tt.rounds[0][q.num]
				_, den := tt.rounds[0][q.den]
				if num && den && q.applies("new") {
					s.judge(q, tt.rounds, "grpc new", true)
				}
			}
			if s.passed != tt.pass || !slices.Equal(s.failed, tt.failed) {
				t.Errorf("passed %d, failed %q; want %d, %q", s.passed, s.failed, tt.pass, tt.failed)
			}
		})
	}
}

// Every row has a tool that Java freon is compared with, and Java only where it has the mode.
func TestRealRows(t *testing.T) {
	for _, row := range realRows() {
		java := slices.Contains(row.tools, toolJava)
		if row.reuse && java {
			t.Errorf("%s: Java freon has no reused-stream mode", row.name)
		}
		if row.ratis && (slices.Contains(row.tools, toolRun) || slices.Contains(row.tools, toolRaw) || slices.Contains(row.tools, toolGhz)) {
			t.Errorf("%s: only the freons speak Ratis", row.name)
		}
		if !slices.Contains(row.tools, toolFreon) {
			t.Errorf("%s: no dnecho freon", row.name)
		}
	}
}

// Every tool of a row sends the same calls: the container, the count, 32 threads, empty payloads,
// and the row's transport and stream mode.
func TestRealTools(t *testing.T) {
	rt := &realTarget{config: config{dnecho: "dnecho", raw: "rawecho", ghz: "ghz", h2load: "h2load"}, container: 7, ghzRequest: "req.bin",
		h2loadRequest: "h2.bin", h2loadRequestMiB: "h2-1m.bin",
		cluster: &realozone.Cluster{ClientConf: "/conf"}, dn: datanode.DataNode{UUID: "u-1", Addr: "127.0.0.1:9859"}}
	has := func(args []string, want ...string) bool {
		for i := 0; i+len(want) <= len(args); i++ {
			if slices.Equal(args[i:i+len(want)], want) {
				return true
			}
		}
		return false
	}
	for _, row := range realRows() {
		tools := rt.tools(row, 500)
		if len(tools) != len(row.tools) {
			t.Fatalf("%s: %d tools, want %d", row.name, len(tools), len(row.tools))
		}
		for _, tl := range tools {
			var want [][]string
			switch tl.name {
			case toolRaw:
				want = [][]string{{"-uuid", "u-1"}, {"-container", "7"}, {"-n", "500"}, {"-t", "32"}, {"-addr", "127.0.0.1:9859"}}
			case toolFreon, toolJava, toolFreonH2:
				want = [][]string{{"--container-id", "7"}, {"-n", "500"}, {"-t", "32"}, {"--payload-req", "0"}, {"--payload-resp", row.respKB()}, row.flags}
				if tl.name == toolFreonH2 {
					want = append(want, []string{"--transport", "h2"})
				}
			case toolRun, toolRunH2:
				want = [][]string{{"-e", "CONTAINER_ID=7"}, {"-e", "ITERATIONS=500"}, {"-e", "THREADS=32"}, {"-e", "DNECHO_CONF=/conf"}, {"-e", "PAYLOAD_RESP_KB=" + row.respKB()}}
				if tl.name == toolRunH2 {
					want = append(want, []string{"-e", "TRANSPORT=h2"})
				}
			case toolH2load:
				file := "h2.bin"
				if row.mib {
					file = "h2-1m.bin"
				}
				want = [][]string{{"-n", "500"}, {"-c", "1"}, {"-m", "32"}, {"-w", "30", "-W", "30"}, {"-d", file}, {"http://127.0.0.1:9859" + h2loadPath}}
			case toolGhz:
				want = [][]string{{"-n", "500"}, {"-c", "32"}, {"--binary-file", "req.bin"}, {"127.0.0.1:9859"}}
			}
			for _, w := range want {
				if !has(tl.args, w...) {
					t.Errorf("%s %s: args %q lack %q", row.name, tl.name, tl.args, w)
				}
			}
			reused := has(tl.args, "-reuse") || has(tl.args, "--stream", "reuse") || has(tl.args, "-e", "STREAM=reuse")
			if reused != row.reuse {
				t.Errorf("%s %s: args %q: reused stream %v, want %v", row.name, tl.name, tl.args, reused, row.reuse)
			}
		}
	}
	if java := rt.javaTool(realRows()[0], 100); java.command == nil || java.args[0] != "dn-echo" {
		t.Errorf("java-freon: %+v, want `ozone freon dn-echo` through the cluster's jars", java)
	}
}

// Each row gets its own targets: run's CPU against freon's 1.15x with a new stream per call and
// 1.30x on a reused stream, for both transports; the h2 transport at most 2x
// h2load's CPU per new-stream call and 1.5x with 1 MiB responses, at least 0.9x its calls/s
// on new streams.
func TestRatioTargetsPerMode(t *testing.T) {
	want := map[string]map[string]float64{
		"new":   {"run/freon CPU per call": 1.15, "run-h2/freon-h2 CPU per call": 1.15, "freon-h2/h2load CPU per call": 2.0, "freon-h2/h2load calls/s": 0.9},
		"reuse": {"run/freon CPU per call": 1.30, "run-h2/freon-h2 CPU per call": 1.30},
		modeMiB: {"freon-h2/h2load CPU per call": 1.5},
	}
	for mode, targets := range want {
		got := map[string][]float64{}
		for _, q := range ratios {
			if q.applies(mode) && q.target > 0 {
				got[q.name] = append(got[q.name], q.target)
			}
		}
		for name, target := range targets {
			if len(got[name]) != 1 || got[name][0] != target {
				t.Errorf("%s rows: %s targets %v, want [%.2f]", mode, name, got[name], target)
			}
		}
		if mode == modeMiB && len(got) != 1 {
			t.Errorf("%s rows have targets %v, want only the h2load CPU one", mode, got)
		}
	}
}
