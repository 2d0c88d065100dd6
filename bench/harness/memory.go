package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// memory prints the RSS cost of a VU (1000 VUs against 1) and how RSS moves when a Trend gets 20x
// more samples (HDR histograms: it should not).
func memory(bin, scm string) error {
	fmt.Println()
	rss := func(env []string, args ...string) (int64, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, tail(out))
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, nil // KiB on Linux
	}
	vus := func(env []string, n int) (int64, error) {
		return rss(env, "run", "-q", "-e", "DNECHO_SCM="+scm, "-e", "VUS="+strconv.Itoa(n), "-e", "DURATION=5s", "bench/scripts/vus.js")
	}
	// A VU's cost is measured with GOGC=100, which turns dnecho's heap floor off: with the floor the
	// 1-VU run holds up to 64 MiB of heap that the 1000-VU run needs anyway, and the difference
	// would understate what a VU costs. The floor's own cost is the second line.
	var at [2][2]int64 // [GOGC=100, floor][1 VU, 1000 VUs]
	for i, env := range [][]string{{"GOGC=100"}, nil} {
		for j, n := range []int{1, 1000} {
			kib, err := vus(env, n)
			if err != nil {
				return err
			}
			at[i][j] = kib
		}
	}
	perVU := float64(at[0][1]-at[0][0]) / 999
	fmt.Printf("memory per VU (GOGC=100): max RSS %d KiB at 1 VU, %d KiB at 1000 VUs -> %.0f KiB per VU (target <= 256 KiB)\n", at[0][0], at[0][1], perVU)
	fmt.Printf("with the heap floor (default): max RSS %d KiB at 1 VU, %d KiB at 1000 VUs\n", at[1][0], at[1][1])
	trend := func(samples int) (last, peak int64, err error) {
		// GOGC=100 as above: under the floor's 64 MiB a growing sink would not show in RSS.
		return sampledRSS(bin, []string{"GOGC=100"}, "run", "-q", "--summary-mode", "disabled", "-e", "SAMPLES="+strconv.Itoa(samples), "bench/scripts/trend.js")
	}
	small, smallPeak, err := trend(1_000_000)
	if err != nil {
		return err
	}
	big, bigPeak, err := trend(20_000_000)
	if err != nil {
		return err
	}
	fmt.Printf("trend memory (GOGC=100): RSS after 1M samples %d KiB, after 20M %d KiB -> %+.1f%% (target within 10%%); peak RSS %d / %d KiB\n",
		small, big, 100*(float64(big)/float64(small)-1), smallPeak, bigPeak)
	return nil
}

// sampledRSS runs the program, reading its resident set every 20 ms: last is the final reading
// before it exits (the state after all the work), peak the kernel's high-water mark (which also
// catches transient start-up spikes).
func sampledRSS(bin string, env []string, args ...string) (last, peak int64, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
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
