package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/dnecho/dnecho/bench/floor"
	"github.com/dnecho/dnecho/testsupport/realozone"
)

// realThreads is the concurrency of every row against the real DataNode: freon's -t, run's VUs,
// the floor's goroutines and ghz's -c.
const realThreads = "32"

// realRunLimit bounds one run of one tool, so that a hung call fails the section.
const realRunLimit = 10 * time.Minute

// realRow is one row of the section: a transport and stream mode, and the tools that have it.
// Java freon has only a new stream per call over gRPC, and Ratis reads and writes; ghz has only
// new streams; `dnecho run` and the floor speak gRPC only.
type realRow struct {
	name  string
	ratis bool     // Ratis calls: the -real-ratis-n size
	flags []string // freon flags (both freons) of the transport
	reuse bool     // one stream per goroutine/VU instead of one per call
	mib   bool     // 1 MiB responses: the -real-n-1mib size
	tools []string
}

func realRows() []realRow {
	return []realRow{
		{name: "grpc new", tools: []string{toolRaw, toolFreon, toolFreonH2, toolRun, toolRunH2, toolGhz, toolH2load, toolJava}},
		{name: "grpc reuse", reuse: true, tools: []string{toolRaw, toolFreon, toolFreonH2, toolRun, toolRunH2}},
		{name: "grpc 1MiB", mib: true, tools: []string{toolFreon, toolFreonH2, toolH2load, toolJava}},
		{name: "ratis read", ratis: true, flags: []string{"--ratis", "--read-only"}, tools: []string{toolFreon, toolJava}},
		{name: "ratis write", ratis: true, flags: []string{"--ratis"}, tools: []string{toolFreon, toolJava}},
	}
}

// kind is the mode of the ratios that apply to the row ("ratis" has only the ones without a
// mode).
func (r realRow) kind() string {
	switch {
	case r.ratis:
		return "ratis"
	case r.mib:
		return modeMiB
	case r.reuse:
		return "reuse"
	}
	return "new"
}

// realRatios are the targets of the section: dnecho's drop-in at least as fast as Java freon at
// half its client CPU per call or less, and the script runner at least as fast, with either
// transport; the h2 transport against h2load as on the emulator.
var realRatios = []ratio{
	{"freon/java calls/s", toolFreon, toolJava, rate, true, 1.0, ""},
	{"freon/java CPU per call", toolFreon, toolJava, cpu, false, 0.5, ""},
	{"run/java calls/s", toolRun, toolJava, rate, true, 1.0, ""},
	{"freon-h2/java calls/s", toolFreonH2, toolJava, rate, true, 1.0, ""},
	{"freon-h2/java CPU per call", toolFreonH2, toolJava, cpu, false, 0.5, ""},
	{"run-h2/java calls/s", toolRunH2, toolJava, rate, true, 1.0, ""},
	{"freon/java calls/s", toolFreon, toolJava, rate, true, 0, modeMiB},
	{"freon/java CPU per call", toolFreon, toolJava, cpu, false, 0, modeMiB},
	{"freon-h2/java calls/s", toolFreonH2, toolJava, rate, true, 0, modeMiB},
	{"freon-h2/java CPU per call", toolFreonH2, toolJava, cpu, false, 0, modeMiB},
	{"freon-h2/h2load CPU per call", toolFreonH2, toolH2load, cpu, false, 2.0, "new"},
	{"freon-h2/h2load calls/s", toolFreonH2, toolH2load, rate, true, 0.9, "new"},
	{"freon-h2/h2load CPU per call", toolFreonH2, toolH2load, cpu, false, 1.5, modeMiB},
	{"freon/h2load CPU per call", toolFreon, toolH2load, cpu, false, 0, ""},
	{"freon/h2load CPU per call", toolFreon, toolH2load, cpu, false, 0, modeMiB},
}

// table measures every row in paired rounds and prints it with its ratios, then the verdicts.
func (t *realTarget) table(ctx context.Context) error {
	fmt.Printf("\nagainst a real DataNode (Apache Ozone %s): container %d (RATIS/THREE), gRPC calls to %s (%s)\n",
		realozone.Version, t.container, t.dn.Addr, t.dn.UUID)
	fmt.Printf("%d calls per run (Ratis rows %d), %s threads, payload 0/0 KB, medians of %d rounds in alternating order; load average %s\n",
		t.real.calls, t.real.ratisCalls, realThreads, t.real.reps, loadAverage())
	fmt.Printf("CPU/call: user+system time of the tool's process / calls; java-freon's is the difference of a run of n and of n/%d calls\n", javaBaselineDivisor)
	fmt.Printf("(JVM start-up, lookup and teardown cancel out). calls/s: freon's mean_rate (timer's life), run's and ghz's rate, raw's calls / its load time\n\n")
	fmt.Printf("the grpc 1MiB row: %d calls per run, 1 MiB responses; h2load prints no percentiles\n\n", t.real.callsMiB)
	fmt.Printf("%-11s %-10s %10s %8s %8s %10s  %-19s %s\n", "row", "tool", "calls/s", "p50 ms", "p99 ms", "CPU/call", "CPU/call min-max", "DataNodes CPU/call")
	for _, row := range realRows() {
		if err := t.row(ctx, row); err != nil {
			return fmt.Errorf("real DataNode, %s: %w", row.name, err)
		}
	}
	t.summary("targets against the real DataNode")
	fmt.Printf("load average after: %s\n", loadAverage())
	return nil
}

// row runs the row's tools in reps rounds, every other round in reverse order, and prints them.
func (t *realTarget) row(ctx context.Context, row realRow) error {
	n := t.real.calls
	switch {
	case row.ratis:
		n = t.real.ratisCalls
	case row.mib:
		n = t.real.callsMiB
	}
	tools := t.tools(row, n)
	rounds := make([]map[string]result, t.real.reps)
	for i := range rounds {
		rounds[i] = map[string]result{}
		order := slices.Clone(tools)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, tl := range order {
			r, err := t.measure(ctx, tl, row, n)
			if err != nil {
				return err
			}
			rounds[i][tl.name] = r
		}
	}
	for _, tl := range tools {
		printRealLine(row.name, tl.name, column(rounds, tl.name))
	}
	for _, q := range realRatios {
		if _, ok := rounds[0][q.num]; !ok || !q.applies(row.kind()) {
			continue
		}
		if _, ok := rounds[0][q.den]; !ok {
			continue
		}
		t.judge(q, rounds, row.name, true)
	}
	fmt.Println()
	return nil
}

func printRealLine(row, name string, runs []result) {
	med := func(f func(result) float64) float64 { return median(mapf(runs, f)) }
	cpus := mapf(runs, cpu)
	fmt.Printf("%-11s %-10s %10.0f %8.3f %8.3f %10s  %-19s %s\n", row, name,
		med(rate), med(func(r result) float64 { return r.p50 }), med(func(r result) float64 { return r.p99 }),
		dur(med(cpu)), dur(slices.Min(cpus))+"-"+dur(slices.Max(cpus)),
		dur(med(func(r result) float64 { return float64(r.dnCPUPerCall) })))
}

// measure runs tl once with n calls and charges it the DataNodes' CPU meanwhile; Java freon runs
// twice, with n/javaBaselineDivisor calls and then with n, and is charged the differences.
func (t *realTarget) measure(ctx context.Context, tl tool, row realRow, n int) (result, error) {
	if tl.name != toolJava {
		return t.measureOnce(ctx, tl)
	}
	short, err := t.measureOnce(ctx, t.javaTool(row, n/javaBaselineDivisor))
	if err != nil {
		return result{}, err
	}
	long, err := t.measureOnce(ctx, tl)
	if err != nil {
		return result{}, err
	}
	return marginal(long, short)
}

func (t *realTarget) measureOnce(ctx context.Context, tl tool) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, realRunLimit)
	defer cancel()
	before, err := t.dnCPU()
	if err != nil {
		return result{}, err
	}
	r, err := onceCtx(ctx, tl, t.env())
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return result{}, fmt.Errorf("%s: still running after %s, killed", tl.name, realRunLimit)
	}
	if err != nil {
		return r, err
	}
	after, err := t.dnCPU()
	if err != nil {
		return result{}, err
	}
	r.dnCPU = after - before
	r.dnCPUPerCall = r.dnCPU / time.Duration(r.calls)
	return r, nil
}

// env is what every tool's environment gets: -gogc as in the emulated table.
func (t *realTarget) env() []string {
	if t.gogc == "" {
		return nil
	}
	return []string{"GOGC=" + t.gogc}
}

// tools returns the programs of a row, each sending n Echo calls with empty payloads to the
// container.
func (t *realTarget) tools(row realRow, n int) []tool {
	ns, id := strconv.Itoa(n), strconv.FormatInt(t.container, 10)
	var out []tool
	for _, name := range row.tools {
		var tl tool
		switch name {
		case toolFreonH2, toolRunH2:
			base := toolFreon
			if name == toolRunH2 {
				base = toolRun
			}
			tl = h2Variant(t.tools(realRow{flags: row.flags, reuse: row.reuse, mib: row.mib, tools: []string{base}}, n)[0])
		case toolH2load:
			if t.h2load == "" {
				continue
			}
			file := t.h2loadRequest
			if row.mib {
				file = t.h2loadRequestMiB
			}
			tl = h2loadTool(t.h2load, t.dn.Addr, file, n, realThreads)
		case toolRaw:
			tl = tool{name: toolRaw, bin: t.raw, parse: parseRaw,
				args: []string{"-addr", t.dn.Addr, "-uuid", t.dn.UUID, "-container", id, "-n", ns, "-t", realThreads}}
			if row.reuse {
				tl.args = append(tl.args, "-reuse")
			}
		case toolFreon:
			tl = tool{name: toolFreon, bin: t.dnecho, parse: parseFreon,
				args: append([]string{"freon", "dn-echo", "--conf", t.cluster.ClientConf, "--container-id", id,
					"-n", ns, "-t", realThreads, "--payload-req", "0", "--payload-resp", row.respKB()}, row.flags...)}
			if row.reuse {
				tl.args = append(tl.args, "--stream", "reuse")
			}
		case toolRun:
			tl = t.runTool(row, ns, id)
		case toolGhz:
			if t.ghz == "" {
				continue
			}
			tl = tool{name: toolGhz, bin: t.ghz, parse: parseGhz,
				args: []string{"--insecure", "--proto", "proto/dnpb/DatanodeClientProtocol.proto", "--call", ghzCall,
					"--binary-file", t.ghzRequest, "-c", realThreads, "--connections", "1", "-n", ns,
					"-t", floor.DefaultDeadline.String(), t.dn.Addr}}
		case toolJava:
			tl = t.javaTool(row, n)
		}
		out = append(out, tl)
	}
	return out
}

func (t *realTarget) runTool(row realRow, ns, id string) tool {
	stream := "new"
	if row.reuse {
		stream = "reuse"
	}
	return tool{name: toolRun, bin: t.dnecho, parse: parseRun,
		args: []string{"run", "-q", "--summary-trend-stats", "med,p(99)", "-e", "DNECHO_CONF=" + t.cluster.ClientConf,
			"-e", "CONTAINER_ID=" + id, "-e", "ITERATIONS=" + ns, "-e", "THREADS=" + realThreads,
			"-e", "PAYLOAD_RESP_KB=" + row.respKB(), "-e", "STREAM=" + stream, "examples/freon-equivalent.js"}}
}

// respKB is the row's --payload-resp.
func (r realRow) respKB() string {
	if r.mib {
		return strconv.Itoa(respMiB)
	}
	return "0"
}
