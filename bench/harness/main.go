// Command harness is `make bench`: it starts `dnecho cluster`, then for each thread count and
// stream mode runs, as separate processes against the cluster's first DataNode and the same
// request, the floor (bench/rawecho), `dnecho freon dn-echo`, `dnecho run
// examples/freon-equivalent.js` and ghz (new-stream mode only), in interleaved rounds. It prints
// calls/s, p50, p99 and CPU per call (user+system time from rusage, so the cluster's CPU is not
// counted; it is shown beside, as the DataNode's CPU per call during the tool's run) with the
// ratios checked against their targets (BENCHMARKS.md), then memory figures and the Ratis rows. With
// -real it then starts a real Apache Ozone cluster (testsupport/realozone) and runs the same tools
// and Java `ozone freon dn-echo` against one of its containers (real.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dnecho/dnecho/testsupport/testwait"
)

// config is the command line.
type config struct {
	dnecho, raw, ghz string
	h2load           string
	calls, reps      int
	callsMiB         int // calls per run of the 1 MiB row
	threads, modes   []string
	profileDir       string
	gogc             string
}

func main() {
	var c config
	var threads, modes string
	flag.StringVar(&c.dnecho, "dnecho", "bin/dnecho", "dnecho binary")
	flag.StringVar(&c.raw, "raw", "bin/rawecho", "floor binary (bench/rawecho)")
	flag.StringVar(&c.ghz, "ghz", "bin/ghz", "ghz binary (empty: leave ghz out)")
	flag.StringVar(&c.h2load, "h2load", "h2load", "h2load binary, nghttp2's (empty: leave h2load out)")
	flag.IntVar(&c.callsMiB, "n-1mib", 3000, "calls per measurement of the 1 MiB-response row")
	flag.IntVar(&c.calls, "n", 100000, "calls per measurement")
	flag.IntVar(&c.reps, "reps", 5, "interleaved rounds; figures are medians over the rounds")
	flag.StringVar(&threads, "threads", "1,32", "thread counts (empty: memory figures only)")
	flag.StringVar(&modes, "modes", "new,reuse,"+modeMiB, "rows: new (a stream per call), reuse (long-lived streams), "+modeMiB+" (new streams, 1 MiB responses)")
	flag.StringVar(&c.gogc, "gogc", "", "GOGC for every tool (empty: inherited; set, it also turns off the heap floor of dnecho and rawecho); keeps runtime settings equal when comparing a GC change")
	flag.StringVar(&c.profileDir, "profile", "", "after each row's rounds, write one CPU profile per tool into this directory")
	ratisN := flag.Int("ratis-n", 20000, "calls per run of the Ratis rows (0: skip them)")
	emulated := flag.Bool("emulated", true, "measure against the emulated cluster (false: only the -real section)")
	var rc realConfig
	flag.BoolVar(&rc.on, "real", false, "also measure against a real Apache Ozone cluster, with Java freon (needs java and mvn)")
	flag.IntVar(&rc.calls, "real-n", DefaultRealCalls, "calls per run against the real DataNode, gRPC rows")
	flag.IntVar(&rc.ratisCalls, "real-ratis-n", DefaultRealRatisCalls, "calls per run against the real DataNodes, Ratis rows")
	flag.IntVar(&rc.callsMiB, "real-n-1mib", DefaultRealCallsMiB, "calls per run against the real DataNode, 1 MiB-response row")
	flag.IntVar(&rc.reps, "real-reps", DefaultRealReps, "rounds against the real DataNode")
	scalingConf := scalingFlags(flag.CommandLine)
	flag.Parse()
	sc, err := scalingConf()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	c.threads, c.modes = split(threads), split(modes)
	if c.calls < 1 || c.reps < 1 || c.callsMiB < 1 {
		fmt.Fprintln(os.Stderr, "bench: -n, -n-1mib and -reps must be at least 1")
		os.Exit(2)
	}
	if rc.on && (rc.calls < javaBaselineDivisor+1 || rc.ratisCalls < javaBaselineDivisor+1 || rc.callsMiB < javaBaselineDivisor+1 || rc.reps < 1) {
		fmt.Fprintf(os.Stderr, "bench: -real-n, -real-ratis-n and -real-n-1mib must be at least %d, -real-reps at least 1\n", javaBaselineDivisor+1)
		os.Exit(2)
	}
	for _, m := range c.modes {
		if m != "new" && m != "reuse" && m != modeMiB {
			fmt.Fprintf(os.Stderr, "bench: -modes %q: want a comma-separated list of new, reuse and %s\n", modes, modeMiB)
			os.Exit(2)
		}
	}
	if c.ghz != "" {
		if _, err := os.Stat(c.ghz); err != nil {
			fmt.Fprintf(os.Stderr, "bench: ghz left out: %v\n", err)
			c.ghz = ""
		}
	}
	if c.h2load != "" {
		path, err := exec.LookPath(c.h2load)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: h2load left out: %v\n", err)
		}
		c.h2load = path
	}
	if c.profileDir != "" {
		if err := os.MkdirAll(c.profileDir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "bench: -profile:", err)
			os.Exit(1)
		}
	}
	if *emulated {
		if err := run(c); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		if *ratisN > 0 {
			if err := benchRatis(c.dnecho, *ratisN, c.reps); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
		}
	}
	if rc.on {
		if err := benchReal(c, rc); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
	if sc.on {
		if err := benchScaling(c.dnecho, c.raw, sc); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// clusterInfo is the part of `dnecho cluster`'s cluster.json the harness reads.
type clusterInfo struct {
	SCM       []string `json:"scm"`
	DataNodes []struct {
		UUID string `json:"uuid"`
		Addr string `json:"addr"`
	} `json:"datanodes"`
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "dnecho-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl := exec.CommandContext(ctx, c.dnecho, "cluster", "--conf-dir", dir)
	cl.Stdout, cl.Stderr = nil, os.Stderr
	if err := cl.Start(); err != nil {
		return err
	}
	defer func() { _ = cl.Process.Signal(os.Interrupt); _ = cl.Wait() }()
	info, err := waitForCluster(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return err
	}
	if len(c.threads) > 0 {
		b := bench{config: c, dir: dir, info: info, clusterPID: cl.Process.Pid}
		if err := b.table(); err != nil {
			return err
		}
	}
	return memory(c.dnecho, info.SCM[0])
}

// waitForCluster waits until `dnecho cluster` has written path with its SCMs and DataNodes.
func waitForCluster(path string) (clusterInfo, error) {
	var info clusterInfo
	err := testwait.Until(20*time.Second, "cluster.json at "+path, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && json.Unmarshal(b, &info) == nil && len(info.DataNodes) > 0 && len(info.SCM) > 0
	})
	return info, err
}
