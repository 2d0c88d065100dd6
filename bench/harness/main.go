// Command harness is `make bench`: it starts `dnecho cluster`, then for 1 and 32 threads and both
// stream modes runs the raw grpc-go floor (bench/rawecho) and `dnecho freon dn-echo` as separate
// processes against the same DataNode, and prints calls/s, p50, p99 and CPU per call (user+system
// time from rusage, so the emulated cluster's own CPU is not counted) with dnecho/raw ratios.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type result struct {
	callsPerS, p50, p99 float64 // p50/p99 in ms; NaN when the program does not report them
	cpuPerCall          time.Duration
}

func main() {
	bin := flag.String("dnecho", "bin/dnecho", "dnecho binary")
	raw := flag.String("raw", "bin/rawecho", "raw floor binary")
	n := flag.Int("n", 100000, "calls per measurement")
	reps := flag.Int("reps", 5, "interleaved rounds; each tool's run with the median CPU per call is kept")
	threads := flag.String("threads", "1,32", "thread counts (empty: memory figures only)")
	ratisN := flag.Int("ratis-n", 20000, "calls per run of the Ratis rows (0: skip them)")
	flag.Parse()
	var ts []string
	if *threads != "" {
		ts = strings.Split(*threads, ",")
	}
	if err := run(*bin, *raw, *n, *reps, ts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if *ratisN > 0 {
		if err := benchRatis(*bin, *ratisN, *reps); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

type clusterInfo struct {
	SCM       []string `json:"scm"`
	DataNodes []struct {
		UUID string `json:"uuid"`
		Addr string `json:"addr"`
	} `json:"datanodes"`
}

func run(bin, raw string, n, reps int, threads []string) error {
	dir, err := os.MkdirTemp("", "dnecho-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl := exec.CommandContext(ctx, bin, "cluster", "--conf-dir", dir)
	cl.Stdout, cl.Stderr = nil, os.Stderr
	if err := cl.Start(); err != nil {
		return err
	}
	defer func() { _ = cl.Process.Signal(os.Interrupt); _ = cl.Wait() }()
	var info clusterInfo
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
		if err == nil && json.Unmarshal(b, &info) == nil && len(info.DataNodes) > 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster did not write %s", filepath.Join(dir, "cluster.json"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	dn := info.DataNodes[0]
	fmt.Printf("dnecho bench: %d calls per run, median of %d interleaved rounds, DataNode %s, payload 0/0 KB\n\n", n, reps, dn.Addr)
	fmt.Printf("%-8s %-11s %-7s %12s %9s %9s %12s %9s\n", "threads", "stream", "tool", "calls/s", "p50 ms", "p99 ms", "CPU/call", "ratio")
	for _, t := range threads {
		if t == "" {
			continue
		}
		for _, mode := range []string{"new", "reuse"} {
			rawArgs := []string{"-addr", dn.Addr, "-uuid", dn.UUID, "-n", strconv.Itoa(n), "-t", t}
			dnArgs := []string{"freon", "dn-echo", "--conf", dir, "--container-id", "1", "-n", strconv.Itoa(n), "-t", t}
			if mode == "reuse" {
				rawArgs = append(rawArgs, "-reuse")
				dnArgs = append(dnArgs, "--stream", "reuse")
			}
			script := []string{"run", "-q", "--summary-trend-stats", "med,p(99)", "-e", "DNECHO_SCM=" + info.SCM[0],
				"-e", "ITERATIONS=" + strconv.Itoa(n), "-e", "THREADS=" + t, "-e", "PAYLOAD_RESP_KB=0", "-e", "STREAM=" + mode,
				"examples/freon-equivalent.js"}
			rs, err := measure(reps, tool{raw, rawArgs}, tool{bin, dnArgs}, tool{bin, script})
			if err != nil {
				return err
			}
			r, d, j := rs[0], rs[1], rs[2]
			print := func(tool string, x result, ratio string) {
				fmt.Printf("%-8s %-11s %-7s %12.0f %9s %9s %12s %9s\n", t, mode, tool, x.callsPerS, ms(x.p50), ms(x.p99), x.cpuPerCall, ratio)
			}
			print("raw", r, "1.00")
			print("dnecho", d, fmt.Sprintf("%.2fx", float64(d.cpuPerCall)/float64(r.cpuPerCall)))
			print("run(js)", j, fmt.Sprintf("%.2fx", float64(j.cpuPerCall)/float64(r.cpuPerCall)))
			fmt.Printf("%-8s %-11s %-7s %12s   run(js) calls/s = %.2fx freon's (target >= 0.85x)\n", "", "", "", "", j.callsPerS/d.callsPerS)
		}
	}
	return memory(bin, info.SCM[0])
}

// memory prints the RSS cost of a VU (1000 VUs against 1) and how RSS moves when a Trend gets 20x
// more samples (HDR histograms: it should not).
func memory(bin, scm string) error {
	fmt.Println()
	rss := func(args ...string) (int64, error) {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, tail(out))
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, nil // KiB on Linux
	}
	vus := func(n int) (int64, error) {
		return rss("run", "-q", "-e", "DNECHO_SCM="+scm, "-e", "VUS="+strconv.Itoa(n), "-e", "DURATION=5s", "bench/scripts/vus.js")
	}
	one, err := vus(1)
	if err != nil {
		return err
	}
	thousand, err := vus(1000)
	if err != nil {
		return err
	}
	perVU := float64(thousand-one) / 999
	fmt.Printf("memory per VU: max RSS %d KiB at 1 VU, %d KiB at 1000 VUs -> %.0f KiB per VU (target <= 256 KiB)\n", one, thousand, perVU)
	trend := func(samples int) (last, peak int64, err error) {
		return sampledRSS(bin, "run", "-q", "--summary-mode", "disabled", "-e", "SAMPLES="+strconv.Itoa(samples), "bench/scripts/trend.js")
	}
	small, smallPeak, err := trend(1_000_000)
	if err != nil {
		return err
	}
	big, bigPeak, err := trend(20_000_000)
	if err != nil {
		return err
	}
	fmt.Printf("trend memory: RSS after 1M samples %d KiB, after 20M %d KiB -> %+.1f%% (target within 10%%); peak RSS %d / %d KiB\n",
		small, big, 100*(float64(big)/float64(small)-1), smallPeak, bigPeak)
	return nil
}

// sampledRSS runs the program, reading its resident set every 20 ms: last is the final reading
// before it exits (the state after all the work), peak the kernel's high-water mark (which also
// catches transient start-up spikes).
func sampledRSS(bin string, args ...string) (last, peak int64, err error) {
	cmd := exec.Command(bin, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return 0, 0, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, tail([]byte(out.String())))
			}
			return last, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, nil
		case <-tick.C:
			if b, err := os.ReadFile(status); err == nil {
				if m := vmRSS.FindSubmatch(b); m != nil {
					last, _ = strconv.ParseInt(string(m[1]), 10, 64)
				}
			}
		}
	}
}

var vmRSS = regexp.MustCompile(`VmRSS:\s+(\d+) kB`)

func ms(v float64) string {
	if v != v {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// tool is one program and its arguments.
type tool struct {
	bin  string
	args []string
}

// measure runs the tools in turn, reps rounds (raw, dnecho, run, raw, ...), so that the machine's
// drift hits every tool alike, and keeps each tool's run with the median CPU per call.
func measure(reps int, tools ...tool) ([]result, error) {
	runs := make([][]result, len(tools))
	for range reps {
		for i, tl := range tools {
			r, err := once(tl.bin, tl.args)
			if err != nil {
				return nil, err
			}
			runs[i] = append(runs[i], r)
		}
	}
	out := make([]result, len(tools))
	for i, rs := range runs {
		sort.Slice(rs, func(a, b int) bool { return rs[a].cpuPerCall < rs[b].cpuPerCall })
		out[i] = rs[len(rs)/2]
	}
	return out, nil
}

var (
	rawLine = regexp.MustCompile(`calls=(\d+) failed=(\d+) seconds=[0-9.]+ calls_per_s=([0-9.]+)`)
	// The k6-style summary of `dnecho run`: the request counter and the duration trend.
	reqsLine  = regexp.MustCompile(`dnecho_reqs\.*: (\d+)\s+([0-9.]+)/s`)
	durLine   = regexp.MustCompile(`dnecho_req_duration\.*: med=([0-9.]+)(µs|ms|s)\s+p\(99\)=([0-9.]+)(µs|ms|s)`)
	timerLine = regexp.MustCompile(`type=TIMER, name=rpc-payload, count=(\d+),.* median=([0-9.E-]+), .* p99=([0-9.E-]+), .* mean_rate=([0-9.E-]+),`)
)

func once(bin string, args []string) (result, error) {
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, tail(out))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r := result{p50: nan(), p99: nan()}
	var calls int64
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if m := rawLine.FindStringSubmatch(sc.Text()); m != nil {
			calls, _ = strconv.ParseInt(m[1], 10, 64)
			if m[2] != "0" {
				return result{}, fmt.Errorf("raw loop: %s failed calls", m[2])
			}
			r.callsPerS, _ = strconv.ParseFloat(m[3], 64)
		}
		if m := reqsLine.FindStringSubmatch(sc.Text()); m != nil {
			calls, _ = strconv.ParseInt(m[1], 10, 64)
			r.callsPerS, _ = strconv.ParseFloat(m[2], 64)
		}
		if m := durLine.FindStringSubmatch(sc.Text()); m != nil {
			r.p50, r.p99 = toMS(m[1], m[2]), toMS(m[3], m[4])
		}
		if m := timerLine.FindStringSubmatch(sc.Text()); m != nil {
			calls, _ = strconv.ParseInt(m[1], 10, 64)
			r.p50, _ = strconv.ParseFloat(m[2], 64)
			r.p99, _ = strconv.ParseFloat(m[3], 64)
			r.callsPerS, _ = strconv.ParseFloat(m[4], 64)
		}
	}
	if calls == 0 {
		return result{}, fmt.Errorf("%s: no result line in output:\n%s", bin, tail(out))
	}
	r.cpuPerCall = cpu / time.Duration(calls)
	return r, nil
}

func toMS(v, unit string) float64 {
	f, _ := strconv.ParseFloat(v, 64)
	switch unit {
	case "µs":
		return f / 1000
	case "s":
		return f * 1000
	}
	return f
}

func nan() float64 { z := 0.0; return z / z }

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
