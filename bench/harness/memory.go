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
