package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The scaling targets: the client's CPU per call with the most DataNodes within 10% of
// its CPU per call with the fewest, and at most 200 KiB of resident memory per VU at the most VUs.
const (
	scalingCPUTarget   = 1.10
	scalingKiBPerVU    = 200
	scalingBaselineVUs = 1 // the VU count whose RSS is subtracted
)

// scalingConfig is the scaling section's part of the command line.
type scalingConfig struct {
	on         bool
	datanodes  []int // cluster sizes, the first the baseline of the CPU ratio
	vus        []int // VU counts, the last judged
	calls      int
	threads    string
	reps       int
	resultsDir string // where the raw outputs go ("" keeps them in memory only)
}

// scalingFlags registers the scaling section's flags on fs; the returned function checks and
// returns them after fs is parsed.
func scalingFlags(fs *flag.FlagSet) func() (scalingConfig, error) {
	var c scalingConfig
	var dns, vus string
	fs.BoolVar(&c.on, "scaling", false, "also measure cost as the cluster and the test grow: the client's CPU per call and RSS per DataNode count with --target all, RSS per VU")
	fs.StringVar(&dns, "scaling-datanodes", "3,30,100", "DataNode counts of the scaling rows (the first is the CPU ratio's baseline)")
	fs.StringVar(&vus, "scaling-vus", "1000,10000", "VU counts of the memory rows (the last is judged)")
	fs.IntVar(&c.calls, "scaling-n", 50000, "calls per run of the DataNode rows")
	fs.StringVar(&c.threads, "scaling-t", "32", "threads (freon -t, run VUs) of the DataNode rows")
	fs.IntVar(&c.reps, "scaling-reps", 3, "interleaved rounds of the scaling rows; figures are medians")
	fs.StringVar(&c.resultsDir, "scaling-out", "", "directory to write the raw outputs into (scaling-datanodes.txt, scaling-vus.txt, scaling-table.txt)")
	return func() (scalingConfig, error) {
		var err error
		if c.datanodes, err = parseCounts("-scaling-datanodes", dns, 1, 128); err != nil {
			return c, err
		}
		if c.vus, err = parseCounts("-scaling-vus", vus, scalingBaselineVUs+1, 100000); err != nil {
			return c, err
		}
		if c.calls < 1 || c.reps < 1 {
			return c, fmt.Errorf("-scaling-n and -scaling-reps must be at least 1")
		}
		if t, err := strconv.Atoi(c.threads); err != nil || t < 1 {
			return c, fmt.Errorf("-scaling-t %q: want a positive number", c.threads)
		}
		return c, nil
	}
}

// parseCounts reads a comma-separated list of counts, each in [lo, hi].
func parseCounts(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range split(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("%s %q: want counts from %d to %d, comma-separated", name, s, lo, hi)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty: want counts from %d to %d, comma-separated", name, lo, hi)
	}
	return out, nil
}

// scalingRun is one measured process: its parsed result and its peak resident set.
type scalingRun struct {
	result
	maxRSS int64 // KiB, the kernel's high-water mark (rusage)
}

// scaling is one scaling section: its clusters, its raw outputs and its verdicts.
type scaling struct {
	scalingConfig
	bin, raw string                      // dnecho and the floor (bench/rawecho)
	out      map[string]*strings.Builder // raw outputs by file
	table    strings.Builder             // what is printed, kept for scaling-table.txt
	clusters map[int]string              // DataNode count -> conf dir
	info     map[int]clusterInfo         // DataNode count -> its cluster.json
	scorecard
}

// benchScaling prints the scaling table: per DataNode count, the client's CPU per call, calls/s
// and peak RSS for freon and run with --target all; per VU count, peak RSS and KiB per VU.
func benchScaling(bin, raw string, c scalingConfig) error {
	s := &scaling{scalingConfig: c, bin: bin, raw: raw, out: map[string]*strings.Builder{},
		clusters: map[int]string{}, info: map[int]clusterInfo{}}
	s.printf("\nScaling: the client's CPU per call and peak RSS with --target all against 1 cluster per DataNode count, %d calls, -t %s; medians of %d interleaved rounds (min-max)\n\n",
		c.calls, c.threads, c.reps)
	for _, n := range c.datanodes {
		dir, stop, err := startCluster(bin, "--datanodes", strconv.Itoa(n))
		if err != nil {
			return fmt.Errorf("cluster of %d DataNodes: %w", n, err)
		}
		defer stop()
		info, err := waitForCluster(filepath.Join(dir, "cluster.json"))
		if err != nil {
			return err
		}
		s.clusters[n], s.info[n] = dir, info
	}
	if err := s.dataNodeRows(); err != nil {
		return err
	}
	if err := s.vuRows(); err != nil {
		return err
	}
	s.summary("scaling targets")
	return s.save()
}

// dataNodeTools are the clients of a DataNode row against the cluster of n DataNodes: the floor
// round-robin over the same DataNodes (what the transport alone costs), freon and run.
func (s *scaling) dataNodeTools(n int) []tool {
	calls := strconv.Itoa(s.calls)
	var addrs, uuids []string
	for _, dn := range s.info[n].DataNodes {
		addrs, uuids = append(addrs, dn.Addr), append(uuids, dn.UUID)
	}
	return []tool{
		{name: toolRaw, bin: s.raw, parse: parseRaw,
			args: []string{"-addr", strings.Join(addrs, ","), "-uuid", strings.Join(uuids, ","), "-n", calls, "-t", s.threads}},
		{name: toolFreon, bin: s.bin, parse: parseFreon,
			args: []string{"freon", "dn-echo", "--conf", s.clusters[n], "--container-id", "1", "-n", calls, "-t", s.threads, "--target", "all"}},
		{name: toolRun, bin: s.bin, parse: parseRun,
			args: []string{"run", "-q", "--summary-trend-stats", "med,p(99)", "-e", "DNECHO_SCM=" + s.info[n].SCM[0],
				"-e", "ITERATIONS=" + calls, "-e", "THREADS=" + s.threads, "bench/scripts/target-all.js"}},
	}
}

// dataNodeRows runs every tool against every cluster size in each round, then prints a row per
// tool and size and the CPU ratio of the largest cluster to the smallest.
func (s *scaling) dataNodeRows() error {
	rounds, err := s.dataNodeRounds()
	if err != nil {
		return err
	}
	s.printDataNodeRows(rounds)
	return nil
}

// dataNodeRounds measures the rounds of the DataNode rows, each run under its rowKey.
func (s *scaling) dataNodeRounds() ([]map[string]scalingRun, error) {
	rounds := make([]map[string]scalingRun, s.reps)
	for i := range rounds {
		rounds[i] = map[string]scalingRun{}
		for _, n := range s.datanodes {
			for _, t := range s.dataNodeTools(n) {
				r, err := s.measure("datanodes", fmt.Sprintf("round %d, %d DataNodes", i+1, n), t, nil)
				if err != nil {
					return nil, err
				}
				rounds[i][rowKey(t.name, n)] = r
			}
			// The heap floor holds dnecho's heap at up to 64 MiB whatever the DataNode count, so
			// what the connections themselves hold shows only with it off.
			t := s.dataNodeTools(n)[1]
			r, err := s.measure("datanodes", fmt.Sprintf("round %d, %d DataNodes, GOGC=100", i+1, n), t, []string{"GOGC=100"})
			if err != nil {
				return nil, err
			}
			rounds[i][rowKey(toolFreon+" GOGC=100", n)] = r
		}
	}
	return rounds, nil
}

// printDataNodeRows prints the DataNode rows' medians, ranges and verdicts.
func (s *scaling) printDataNodeRows(rounds []map[string]scalingRun) {
	s.printf("%-6s %9s %10s %10s %-19s %12s\n", "tool", "DataNodes", "calls/s", "CPU/call", "CPU/call min-max", "peak RSS KiB")
	lo, hi := s.datanodes[0], s.datanodes[len(s.datanodes)-1]
	growth := func(r map[string]scalingRun, name string) float64 {
		return float64(r[rowKey(name, hi)].cpuPerCall) / float64(r[rowKey(name, lo)].cpuPerCall)
	}
	for _, name := range []string{toolRaw, toolFreon, toolRun} {
		for _, n := range s.datanodes {
			runs := make([]scalingRun, len(rounds))
			for i, r := range rounds {
				runs[i] = r[rowKey(name, n)]
			}
			cpus := mapRuns(runs, func(r scalingRun) float64 { return float64(r.cpuPerCall) })
			s.printf("%-6s %9d %10.0f %10s  %-19s %12.0f\n", name, n,
				median(mapRuns(runs, func(r scalingRun) float64 { return r.callsPerS })), dur(median(cpus)),
				dur(slices.Min(cpus))+"-"+dur(slices.Max(cpus)), median(mapRuns(runs, func(r scalingRun) float64 { return float64(r.maxRSS) })))
		}
		per, own := make([]float64, len(rounds)), make([]float64, len(rounds))
		for i, r := range rounds {
			per[i] = growth(r, name)
			own[i] = per[i] / growth(r, toolRaw)
		}
		if name == toolRaw {
			s.ratioLine(fmt.Sprintf("raw CPU/call %d/%d DNs", hi, lo), per, 0)
			continue
		}
		s.ratioLine(fmt.Sprintf("%s CPU/call %d/%d DNs", name, hi, lo), per, scalingCPUTarget)
		s.ratioLine(fmt.Sprintf("%s over raw's growth", name), own, scalingCPUTarget)
	}
	var rss []string
	for _, n := range s.datanodes {
		v := make([]float64, len(rounds))
		for i, r := range rounds {
			v[i] = float64(r[rowKey(toolFreon+" GOGC=100", n)].maxRSS)
		}
		rss = append(rss, fmt.Sprintf("%d DNs %.0f (%s)", n, median(v), spanKiB(v)))
	}
	s.printf("freon peak RSS KiB with GOGC=100 (the heap floor off): %s\n", strings.Join(rss, ", "))
}

// vuRows runs bench/scripts/vus.js (a client per VU, one echo then 50 ms of sleep) at the
// baseline VU count and at each VU count in each round, and prints peak RSS and KiB per VU.
// GOGC=100 turns dnecho's heap floor off, as memory() explains.
func (s *scaling) vuRows() error {
	counts := append([]int{scalingBaselineVUs}, s.vus...)
	rss := make([][]float64, len(counts)) // [count][round]
	for i := 0; i < s.reps; i++ {
		for j, n := range counts {
			t := tool{name: "vus", bin: s.bin, parse: parseRun,
				args: []string{"run", "-q", "-e", "DNECHO_SCM=" + s.info[s.datanodes[0]].SCM[0], "-e", "VUS=" + strconv.Itoa(n),
					"-e", "DURATION=5s", "bench/scripts/vus.js"}}
			r, err := s.measure("vus", fmt.Sprintf("round %d, %d VUs", i+1, n), t, []string{"GOGC=100"})
			if err != nil {
				return err
			}
			rss[j] = append(rss[j], float64(r.maxRSS))
		}
	}
	s.printf("\n%-6s %9s %14s  %-19s %8s  %s\n", "script", "VUs", "peak RSS KiB", "min-max", "KiB/VU", "min-max")
	s.printf("%-6s %9d %14.0f  %s\n", "vus.js", counts[0], median(rss[0]), spanKiB(rss[0]))
	for j := 1; j < len(counts); j++ {
		per := make([]float64, s.reps)
		for i := range per {
			per[i] = perVU(rss[0][i], rss[j][i], counts[j])
		}
		s.printf("%-6s %9d %14.0f  %-19s %8.0f  %s\n", "vus.js", counts[j], median(rss[j]), spanKiB(rss[j]),
			median(per), fmt.Sprintf("%.0f-%.0f", slices.Min(per), slices.Max(per)))
		if j == len(counts)-1 {
			s.verdict(fmt.Sprintf("KiB per VU at %d VUs", counts[j]), median(per), scalingKiBPerVU)
		}
	}
	return nil
}

// perVU is the resident memory a VU adds, in KiB: the growth from the baseline VU count.
func perVU(baseKiB, atKiB float64, vus int) float64 {
	return (atKiB - baseKiB) / float64(vus-scalingBaselineVUs)
}

// ratioLine prints the median of the per-round ratios with their range and, when max > 0, the
// verdict against that maximum, which it counts.
func (s *scaling) ratioLine(name string, per []float64, max float64) {
	m := math.Round(median(per)*100) / 100 // the verdict is on the printed figure
	line := fmt.Sprintf("%-6s %-30s %5.2fx  (%.2f-%.2f)", "", name, m, slices.Min(per), slices.Max(per))
	if max > 0 {
		line += fmt.Sprintf("  target <= %.2fx  %s", max, s.count(name, m, max, "%.2fx"))
	}
	s.printf("%s\n", line)
}

// verdict prints and counts a figure judged against a maximum (on the printed, rounded figure).
func (s *scaling) verdict(name string, v, max float64) {
	v = math.Round(v)
	s.printf("%-6s %-30s %5.0f KiB  target <= %.0f  %s\n", "", name, v, max, s.count(name, v, max, "%.0f"))
}

// count records whether v is at most max and returns PASS or FAIL; format prints v in the list
// of failures.
func (s *scaling) count(name string, v, max float64, format string) string {
	if v <= max {
		s.passed++
		return "PASS"
	}
	s.failed = append(s.failed, fmt.Sprintf("%s "+format, name, v))
	return "FAIL"
}

// measure runs t once with env, keeps its output under file with a header, and reads its
// result, CPU and peak RSS.
func (s *scaling) measure(file, title string, t tool, env []string) (scalingRun, error) {
	cmd := exec.Command(t.bin, t.args...)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	b := s.out[file]
	if b == nil {
		b = &strings.Builder{}
		s.out[file] = b
	}
	fmt.Fprintf(b, "=== %s: %s %s %s (%.1f s)\n%s\n", title, strings.Join(env, " "), t.bin, strings.Join(t.args, " "), time.Since(start).Seconds(), out)
	if err != nil {
		return scalingRun{}, fmt.Errorf("%s %s: %v\n%s", t.name, strings.Join(t.args, " "), err, tail(out))
	}
	r, err := t.parse(string(out))
	if err != nil || r.calls == 0 {
		return scalingRun{}, fmt.Errorf("%s: no result (%v) in output:\n%s", t.name, err, tail(out))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.cpuPerCall = r.cpu / time.Duration(r.calls)
	return scalingRun{result: r, maxRSS: ru.Maxrss}, nil
}

// printf prints and keeps the line for scaling-table.txt.
func (s *scaling) printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Print(line)
	s.table.WriteString(line)
}

// save writes the raw outputs and the table into resultsDir, when set.
func (s *scaling) save() error {
	if s.resultsDir == "" {
		return nil
	}
	stamp := fmt.Sprintf("# %s, load average %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadAvg())
	files := map[string]string{"scaling-table.txt": s.table.String()}
	for name, b := range s.out {
		files["scaling-"+name+".txt"] = b.String()
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(s.resultsDir, name), []byte(stamp+text), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("raw outputs and the table: %s/scaling-*.txt\n", s.resultsDir)
	return nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func rowKey(tool string, datanodes int) string { return tool + "-" + strconv.Itoa(datanodes) }

func mapRuns(rs []scalingRun, f func(scalingRun) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func spanKiB(xs []float64) string { return fmt.Sprintf("%.0f-%.0f", slices.Min(xs), slices.Max(xs)) }
