package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// ratisRow is one `dnecho freon dn-echo` run of the Ratis comparison: the three modes
// (docs/ozone-ratis.md#read-versus-write) at 1 and 32 threads, then DataNode handler counts.
type ratisRow struct {
	group, mode string
	handlers    int // the cluster's --handlers
	threads     int // -t, and --clients (one Raft client per thread, HDDS-11224's shape)
	args        []string
}

// ratisRows are the rows benchRatis measures. The handler rows echo with a 1 ms sleep: the
// emulated Echo handler itself takes microseconds, so only a handler that is held shows queueing.
// They use Ratis reads, which different streams run side by side; writes to one container are
// applied one at a time per replica whatever the handler count.
func ratisRows() []ratisRow {
	var rows []ratisRow
	for _, t := range []int{1, 32} {
		rows = append(rows,
			ratisRow{"modes", "grpc", 10, t, nil},
			ratisRow{"modes", "ratis-read", 10, t, []string{"--ratis", "--read-only"}},
			ratisRow{"modes", "ratis-write", 10, t, []string{"--ratis"}})
	}
	for _, h := range []int{1, 10} {
		rows = append(rows,
			ratisRow{"handlers", "ratis-read, 1 ms sleep", h, 32, []string{"--ratis", "--read-only", "--sleep-time-ms", "1"}},
			ratisRow{"handlers", "ratis-write", h, 32, []string{"--ratis"}})
	}
	return rows
}

// benchRatis prints the Ratis rows: each against its own `dnecho cluster` (the handler count is
// the cluster's), median CPU per call of reps runs of n calls.
func benchRatis(bin string, n, reps int) error {
	fmt.Printf("\nRatis transport: %d calls per run, median of %d runs, payload 0/0 KB, -t = --clients\n\n", n, reps)
	fmt.Printf("%-9s %-8s %-24s %8s %12s %9s %9s %12s\n", "rows", "handlers", "mode", "threads", "calls/s", "p50 ms", "p99 ms", "CPU/call")
	clusters := map[int]string{}
	for _, r := range ratisRows() {
		dir, ok := clusters[r.handlers]
		if !ok {
			d, stop, err := startCluster(bin, "--handlers", strconv.Itoa(r.handlers))
			if err != nil {
				return err
			}
			defer stop()
			dir, clusters[r.handlers] = d, d
		}
		t := strconv.Itoa(r.threads)
		args := append([]string{"freon", "dn-echo", "--conf", dir, "--container-id", "1", "-n", strconv.Itoa(n), "-t", t, "--clients", t}, r.args...)
		x, err := medianRun(reps, tool{name: toolFreon, bin: bin, args: args, parse: parseFreon})
		if err != nil {
			return err
		}
		fmt.Printf("%-9s %-8d %-24s %8d %12.0f %9.3f %9.3f %12s\n", r.group, r.handlers, r.mode, r.threads, x.callsPerS, x.p50, x.p99, x.cpuPerCall)
	}
	return nil
}

// medianRun runs t reps times and keeps the run with the median CPU per call.
func medianRun(reps int, t tool) (result, error) {
	var rs []result
	for range reps {
		r, err := once(t, nil)
		if err != nil {
			return result{}, err
		}
		rs = append(rs, r)
	}
	sort.Slice(rs, func(a, b int) bool { return rs[a].cpuPerCall < rs[b].cpuPerCall })
	return rs[len(rs)/2], nil
}

// startCluster runs `dnecho cluster` with extra flags until stop, and returns its configuration
// directory once cluster.json is there.
func startCluster(bin string, flags ...string) (dir string, stop func(), err error) {
	dir, err = os.MkdirTemp("", "dnecho-bench-")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	cl := exec.CommandContext(ctx, bin, append([]string{"cluster", "--conf-dir", dir}, flags...)...)
	cl.Stdout, cl.Stderr = nil, os.Stderr
	if err := cl.Start(); err != nil {
		cancel()
		return "", nil, err
	}
	stop = func() {
		_ = cl.Process.Signal(os.Interrupt)
		_ = cl.Wait()
		cancel()
		os.RemoveAll(dir)
	}
	if _, err := waitForCluster(filepath.Join(dir, "cluster.json")); err != nil {
		stop()
		return "", nil, err
	}
	return dir, stop, nil
}
