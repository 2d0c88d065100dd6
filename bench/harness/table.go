package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// targetThreads is the concurrency the ratios' targets are set at; other rows print the ratios
// without a verdict.
const targetThreads = "32"

// ratio is one comparison of two tools of a row, with its target.
type ratio struct {
	name     string
	num, den string // tool names
	metric   func(result) float64
	atLeast  bool // the target is a minimum (else a maximum)
	target   float64
	mode     string // the stream mode the ratio is printed for; "" for every mode
}

// applies reports whether q is printed for a row: a ratio without a mode is for the rows with
// empty payloads, new and reuse.
func (q ratio) applies(mode string) bool {
	if q.mode == "" {
		return mode != modeMiB
	}
	return q.mode == mode
}

func cpu(r result) float64  { return float64(r.cpuPerCall) }
func rate(r result) float64 { return r.callsPerS }

// ratios are the speed targets (BENCHMARKS.md): freon's CPU per call near the floor's, `dnecho run`
// as fast and nearly as cheap as freon, and both well ahead of ghz; run's CPU per call per stream
// mode is within 1.15x of freon's with a new stream per call, 1.30x on a reused stream,
// where a call costs a fifth as much and the script's own per-iteration work weighs more.
var ratios = []ratio{
	{"freon/raw CPU per call", toolFreon, toolRaw, cpu, false, 1.10, ""},
	{"run/freon calls/s", toolRun, toolFreon, rate, true, 0.95, ""},
	{"run/freon CPU per call", toolRun, toolFreon, cpu, false, 1.15, "new"},
	{"run/freon CPU per call", toolRun, toolFreon, cpu, false, 1.30, "reuse"},
	{"freon/ghz calls/s", toolFreon, toolGhz, rate, true, 1.5, ""},
	{"run/ghz calls/s", toolRun, toolGhz, rate, true, 1.5, ""},
	// The h2 transport against the physical limit (h2load), and its script runner against it as
	// run against freon; the grpc-go figures beside them have no target.
	{"freon-h2/h2load CPU per call", toolFreonH2, toolH2load, cpu, false, 2.0, "new"},
	{"freon-h2/h2load calls/s", toolFreonH2, toolH2load, rate, true, 0.9, "new"},
	{"freon-h2/h2load CPU per call", toolFreonH2, toolH2load, cpu, false, 1.5, modeMiB},
	{"freon-h2/h2load calls/s", toolFreonH2, toolH2load, rate, true, 0, modeMiB},
	{"freon/h2load CPU per call", toolFreon, toolH2load, cpu, false, 0, modeMiB},
	{"freon/h2load calls/s", toolFreon, toolH2load, rate, true, 0, modeMiB},
	{"run-h2/freon-h2 CPU per call", toolRunH2, toolFreonH2, cpu, false, 0, modeMiB},
	{"freon-h2/freon CPU per call", toolFreonH2, toolFreon, cpu, false, 0, modeMiB},
	{"freon/h2load CPU per call", toolFreon, toolH2load, cpu, false, 0, ""},
	{"freon/h2load calls/s", toolFreon, toolH2load, rate, true, 0, ""},
	{"run-h2/h2load CPU per call", toolRunH2, toolH2load, cpu, false, 0, ""},
	{"run-h2/h2load calls/s", toolRunH2, toolH2load, rate, true, 0, ""},
	{"run-h2/freon-h2 calls/s", toolRunH2, toolFreonH2, rate, true, 0.95, "new"},
	{"run-h2/freon-h2 CPU per call", toolRunH2, toolFreonH2, cpu, false, 1.15, "new"},
	{"run-h2/freon-h2 CPU per call", toolRunH2, toolFreonH2, cpu, false, 1.30, "reuse"},
	{"freon-h2/freon CPU per call", toolFreonH2, toolFreon, cpu, false, 0, ""},
}

// bench is one harness run against one cluster.
type bench struct {
	config
	dir        string // the cluster's configuration directory
	clusterPID int    // the `dnecho cluster` process, whose CPU each run is charged
	info       clusterInfo
	ghzRequest string // ghz's --binary-file
	// h2load's -d files: the request with an empty response, and with 1 MiB.
	h2loadRequest, h2loadRequestMiB string
	scorecard
}

// scorecard counts the verdicts of a table's targets.
type scorecard struct {
	failed []string
	passed int
}

// table measures every row and prints it with its ratios, then the verdicts.
func (b *bench) table() error {
	if b.ghz != "" {
		path, err := writeGhzRequest(b.dir, 1, b.info.DataNodes[0].UUID)
		if err != nil {
			return err
		}
		b.ghzRequest = path
	}
	if b.h2load != "" {
		var err error
		uuid := b.info.DataNodes[0].UUID
		if b.h2loadRequest, err = writeH2loadRequest(b.dir, 1, uuid, 0); err != nil {
			return err
		}
		if b.h2loadRequestMiB, err = writeH2loadRequest(b.dir, 1, uuid, respMiB*1024); err != nil {
			return err
		}
	}
	gogc := b.gogc
	if gogc == "" {
		gogc = os.Getenv("GOGC")
	}
	if gogc == "" {
		gogc = "default"
	}
	fmt.Printf("dnecho bench: %d calls per run, medians of %d interleaved rounds, DataNode %s, payload 0/0 KB, GOGC %s\n",
		b.calls, b.reps, b.info.DataNodes[0].Addr, gogc)
	fmt.Printf("CPU/call is user+system time of the tool's process / calls; ratios are medians of the per-round ratios (min-max)\n\n")
	fmt.Printf("rows: new and reuse with empty payloads, %s with new streams and 1 MiB responses (%d calls per run); h2load prints no percentiles\n\n", modeMiB, b.callsMiB)
	fmt.Printf("%-7s %-6s %-8s %10s %8s %8s %10s  %-19s %s\n", "threads", "stream", "tool", "calls/s", "p50 ms", "p99 ms", "CPU/call", "CPU/call min-max", "DataNode CPU/call")
	for _, threads := range b.threads {
		for _, mode := range b.modes {
			if err := b.row(threads, mode); err != nil {
				return err
			}
		}
	}
	if slices.Contains(b.threads, targetThreads) {
		b.summary("targets at " + targetThreads + " threads")
	}
	return nil
}

// summary prints the verdicts' count and the failures.
func (s *scorecard) summary(title string) {
	if len(s.failed) == 0 {
		fmt.Printf("%s: all %d PASS\n", title, s.passed)
	} else {
		fmt.Printf("%s: %d PASS, %d FAIL: %s\n", title, s.passed, len(s.failed), strings.Join(s.failed, "; "))
	}
}

// row runs the tools of one thread count and stream mode in interleaved rounds and prints them.
func (b *bench) row(threads, mode string) error {
	tools := b.tools(threads, mode)
	rounds := make([]map[string]result, b.reps)
	for i := range rounds {
		rounds[i] = map[string]result{}
		for _, t := range tools {
			r, err := b.measure(t)
			if err != nil {
				return err
			}
			rounds[i][t.name] = r
		}
	}
	for _, t := range tools {
		runs := column(rounds, t.name)
		med := func(f func(result) float64) float64 { return median(mapf(runs, f)) }
		cpus := mapf(runs, cpu)
		fmt.Printf("%-7s %-6s %-8s %10.0f %8.3f %8.3f %10s  %-19s %s\n", threads, mode, t.name,
			med(rate), med(func(r result) float64 { return r.p50 }), med(func(r result) float64 { return r.p99 }),
			dur(med(cpu)), dur(slices.Min(cpus))+"-"+dur(slices.Max(cpus)),
			dur(med(func(r result) float64 { return float64(r.dnCPUPerCall) })))
	}
	for _, q := range ratios {
		if _, ok := rounds[0][q.den]; !ok || !q.applies(mode) {
			continue
		}
		b.printRatio(q, rounds, threads, mode)
	}
	fmt.Println()
	return b.profile(tools, threads, mode)
}

// measure runs t once and charges it the CPU the cluster process used meanwhile: the emulated
// DataNode's work for t's calls (the SCM is idle after the lookup), which shares the machine.
func (b *bench) measure(t tool) (result, error) {
	before, err := procCPU(b.clusterPID)
	if err != nil {
		return result{}, fmt.Errorf("the cluster's CPU: %w", err)
	}
	r, err := once(t, b.env())
	if err != nil {
		return r, err
	}
	after, err := procCPU(b.clusterPID)
	if err != nil {
		return result{}, fmt.Errorf("the cluster's CPU: %w", err)
	}
	r.dnCPUPerCall = (after - before) / time.Duration(r.calls)
	return r, nil
}

func (b *bench) printRatio(q ratio, rounds []map[string]result, threads, mode string) {
	b.judge(q, rounds, mode+"-stream", threads == targetThreads)
}

// judge prints the median of q's per-round ratios with their range, and a verdict when judged;
// label names the row in the list of failures.
func (s *scorecard) judge(q ratio, rounds []map[string]result, label string, judged bool) {
	per := make([]float64, len(rounds))
	for i, r := range rounds {
		per[i] = q.metric(r[q.num]) / q.metric(r[q.den])
	}
	m := math.Round(median(per)*100) / 100 // the verdict is on the printed figure
	op, verdict := "<=", ""
	if q.atLeast {
		op = ">="
	}
	if judged && q.target > 0 {
		verdict = "PASS"
		if (q.atLeast && m < q.target) || (!q.atLeast && m > q.target) {
			verdict = "FAIL"
			s.failed = append(s.failed, fmt.Sprintf("%s %s %.2fx", label, q.name, m))
		} else {
			s.passed++
		}
	}
	line := fmt.Sprintf("%-14s %-28s %5.2fx  (%.2f-%.2f)  target %s %.2fx  %s", "", q.name, m, slices.Min(per), slices.Max(per), op, q.target, verdict)
	if q.target == 0 {
		line = fmt.Sprintf("%-14s %-28s %5.2fx  (%.2f-%.2f)", "", q.name, m, slices.Min(per), slices.Max(per))
	}
	fmt.Println(strings.TrimRight(line, " "))
}

// profile runs each tool that can write a CPU profile once more with one, when asked to.
func (b *bench) profile(tools []tool, threads, mode string) error {
	if b.profileDir == "" {
		return nil
	}
	for _, t := range tools {
		if t.profile == "" {
			continue
		}
		path := filepath.Join(b.profileDir, fmt.Sprintf("%s-%s-%s.pprof", t.name, threads, mode))
		if _, err := once(t, b.env(), t.profile, path); err != nil {
			return err
		}
		fmt.Printf("%-14s CPU profile: go tool pprof -top %s\n", "", path)
	}
	fmt.Println()
	return nil
}

// env is what every tool's environment gets on top of the harness's.
func (b *bench) env() []string {
	if b.gogc == "" {
		return nil
	}
	return []string{"GOGC=" + b.gogc}
}

func column(rounds []map[string]result, name string) []result {
	out := make([]result, len(rounds))
	for i, r := range rounds {
		out[i] = r[name]
	}
	return out
}

func mapf(rs []result, f func(result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// dur prints nanoseconds as a duration rounded to 0.1 µs.
func dur(ns float64) string { return time.Duration(ns).Round(100 * time.Nanosecond).String() }
