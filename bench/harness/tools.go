package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/dnecho/dnecho/bench/floor"
)

// The tools of a row, in the order they run in each round and are printed.
const (
	toolRaw   = "raw"
	toolFreon = "freon"
	toolRun   = "run"
	toolGhz   = "ghz"
	// toolJava is Java `ozone freon dn-echo`, the tool dnecho replaces; real DataNodes only.
	toolJava = "java-freon"
)

// ghzCall is the Echo method in ghz's package.Service/method form
// (Ozone: DatanodeClientProtocol.proto, XceiverClientProtocolService.send).
const ghzCall = "hadoop.hdds.datanode.XceiverClientProtocolService/send"

// tool is one program of a row with its arguments.
type tool struct {
	name, bin string
	args      []string
	// profile is the flag that makes the program write a CPU profile.
	profile string
	// parse reads the program's output into a result.
	parse func(out string) (result, error)
	// command, when set, builds the process instead of bin and args (Java freon's JVM).
	command func(ctx context.Context, args ...string) *exec.Cmd
}

// result is one run of one tool.
type result struct {
	calls               int64
	callsPerS, p50, p99 float64       // p50/p99 in ms
	cpu                 time.Duration // user+system time of the whole process
	cpuPerCall          time.Duration
	dnCPU               time.Duration // the DataNode processes' during the run (real DataNodes)
	dnCPUPerCall        time.Duration // the DataNode processes' during the run
}

// tools returns the programs of one row: threads goroutines/VUs, mode "new", "reuse" or
// modeMiB; each dnecho tool runs with grpc-go and with the h2 transport.
func (b *bench) tools(threads, mode string) []tool {
	dn, n := b.info.DataNodes[0], strconv.Itoa(b.calls)
	respKB := "0"
	if mode == modeMiB {
		n, respKB = strconv.Itoa(b.callsMiB), strconv.Itoa(respMiB)
	}
	raw := tool{name: toolRaw, bin: b.raw, profile: "-cpuprofile", parse: parseRaw,
		args: []string{"-addr", dn.Addr, "-uuid", dn.UUID, "-n", n, "-t", threads, "-resp-kb", respKB}}
	freon := tool{name: toolFreon, bin: b.dnecho, profile: "--cpuprofile", parse: parseFreon,
		args: []string{"freon", "dn-echo", "--conf", b.dir, "--container-id", "1", "-n", n, "-t", threads, "--payload-resp", respKB}}
	if mode == "reuse" {
		raw.args = append(raw.args, "-reuse")
		freon.args = append(freon.args, "--stream", "reuse")
	}
	js := tool{name: toolRun, bin: b.dnecho, profile: "--cpuprofile", parse: parseRun,
		args: []string{"run", "-q", "--summary-trend-stats", "med,p(99)", "-e", "DNECHO_SCM=" + b.info.SCM[0],
			"-e", "ITERATIONS=" + n, "-e", "THREADS=" + threads, "-e", "PAYLOAD_RESP_KB=" + respKB, "-e", "STREAM=" + streamOf(mode),
			"examples/freon-equivalent.js"}}
	tools := []tool{raw, freon, h2Variant(freon), js, h2Variant(js)}
	if b.h2load != "" && mode != "reuse" {
		file := b.h2loadRequest
		if mode == modeMiB {
			file = b.h2loadRequestMiB
		}
		tools = append(tools, h2loadTool(b.h2load, dn.Addr, file, atoiInt(n), threads))
	}
	// ghz sends its messages on a new stream per request, half-closes and reads to the end of
	// the stream: the new-stream mode. It has no mode that reuses a stream request after request
	// (--stream-call-count sends all messages without waiting for replies and counts the stream
	// as one request), so it has no reused-stream row.
	if b.ghz != "" && mode == "new" {
		tools = append(tools, tool{name: toolGhz, bin: b.ghz, parse: parseGhz,
			args: []string{"--insecure", "--proto", "proto/dnpb/DatanodeClientProtocol.proto", "--call", ghzCall,
				"--binary-file", b.ghzRequest, "-c", threads, "--connections", "1", "-n", n,
				"-t", floor.DefaultDeadline.String(), dn.Addr}})
	}
	return tools
}

// streamOf is the stream mode of a row.
func streamOf(mode string) string {
	if mode == "reuse" {
		return "reuse"
	}
	return "new"
}

func atoiInt(s string) int {
	v, _ := strconv.Atoi(s)
	return v
}

// writeGhzRequest writes the floor's request for ghz's --binary-file. ghz first tries to read
// the file as length-prefixed messages, so the one message gets a length prefix to be read
// unambiguously.
func writeGhzRequest(dir string, container int64, uuid string) (string, error) {
	req, err := floor.NewRequest(container, uuid, 0)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "echo-request.bin")
	return path, os.WriteFile(path, protowire.AppendBytes(nil, req.Bytes()), 0o600)
}

// once runs t with env added to the harness's environment and reads its result; extra arguments
// go after t's own.
func once(t tool, env []string, extra ...string) (result, error) {
	return onceCtx(context.Background(), t, env, extra...)
}

// onceCtx is once, killing the program when ctx ends.
func onceCtx(ctx context.Context, t tool, env []string, extra ...string) (result, error) {
	args := append(slices.Clone(t.args), extra...)
	var cmd *exec.Cmd
	if t.command != nil {
		cmd = t.command(ctx, args...)
	} else {
		cmd = exec.CommandContext(ctx, t.bin, args...)
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("%s %s: %v\n%s", t.name, strings.Join(args, " "), err, tail(out))
	}
	r, err := t.parse(string(out))
	if err != nil {
		return result{}, fmt.Errorf("%s: %w\n%s", t.name, err, tail(out))
	}
	if r.calls == 0 {
		return result{}, fmt.Errorf("%s: no result in output:\n%s", t.name, tail(out))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.cpuPerCall = r.cpu / time.Duration(r.calls)
	return r, nil
}

var (
	rawLine = regexp.MustCompile(`calls=(\d+) failed=(\d+) seconds=[0-9.]+ calls_per_s=([0-9.]+) p50_ms=([0-9.]+) p99_ms=([0-9.]+)`)
	// freon's log-format report (Dropwizard timer, ms), Java's and dnecho's alike
	// (docs/ozone-echo.md#log-report).
	timerLine    = regexp.MustCompile(`type=TIMER, name=rpc-payload, count=(\d+),.* median=([0-9.E-]+), .* p99=([0-9.E-]+), .* mean_rate=([0-9.E-]+),`)
	failuresLine = regexp.MustCompile(`Failures: (\d+)`)
	// The k6-style summary of `dnecho run`: the request counter and the duration trend.
	reqsLine = regexp.MustCompile(`dnecho_reqs\.*: (\d+)\s+([0-9.]+)/s`)
	durLine  = regexp.MustCompile(`dnecho_req_duration\.*: med=([0-9.]+)(ns|µs|us|ms|s)\s+p\(99\)=([0-9.]+)(ns|µs|us|ms|s)`)
	// ghz's summary report.
	ghzCount   = regexp.MustCompile(`(?m)^\s+Count:\s+(\d+)`)
	ghzRate    = regexp.MustCompile(`(?m)^\s+Requests/sec:\s+([0-9.]+)`)
	ghzQuant   = regexp.MustCompile(`(?m)^\s+(50|99) % in ([0-9.]+) (ns|µs|us|ms|s)`)
	ghzStatus  = regexp.MustCompile(`(?m)^\s+\[(\w+)\]\s+(\d+) responses`)
	ghzErrLine = regexp.MustCompile(`(?m)^Error distribution:`)
)

func parseRaw(out string) (result, error) {
	m := rawLine.FindStringSubmatch(out)
	if m == nil {
		return result{}, nil
	}
	if m[2] != "0" {
		return result{}, fmt.Errorf("%s failed calls", m[2])
	}
	return result{calls: atoi(m[1]), callsPerS: atof(m[3]), p50: atof(m[4]), p99: atof(m[5])}, nil
}

// parseFreon reads freon's report; a report with failures is an error, because the timer
// counts failed tasks too (docs/ozone-echo.md#runner-semantics).
func parseFreon(out string) (result, error) {
	if f := failuresLine.FindStringSubmatch(out); f != nil && f[1] != "0" {
		return result{}, fmt.Errorf("%s failed calls", f[1])
	}
	m := timerLine.FindStringSubmatch(out)
	if m == nil {
		return result{}, nil
	}
	return result{calls: atoi(m[1]), p50: atof(m[2]), p99: atof(m[3]), callsPerS: atof(m[4])}, nil
}

func parseRun(out string) (result, error) {
	var r result
	if m := reqsLine.FindStringSubmatch(out); m != nil {
		r.calls, r.callsPerS = atoi(m[1]), atof(m[2])
	}
	if m := durLine.FindStringSubmatch(out); m != nil {
		r.p50, r.p99 = toMS(m[1], m[2]), toMS(m[3], m[4])
	}
	return r, nil
}

func parseGhz(out string) (result, error) {
	m := ghzCount.FindStringSubmatch(out)
	if m == nil {
		return result{}, nil
	}
	r := result{calls: atoi(m[1])}
	if m := ghzRate.FindStringSubmatch(out); m != nil {
		r.callsPerS = atof(m[1])
	}
	for _, q := range ghzQuant.FindAllStringSubmatch(out, -1) {
		if q[1] == "50" {
			r.p50 = toMS(q[2], q[3])
		} else {
			r.p99 = toMS(q[2], q[3])
		}
	}
	for _, s := range ghzStatus.FindAllStringSubmatch(out, -1) {
		if s[1] != "OK" {
			return result{}, fmt.Errorf("%s responses with status %s", s[2], s[1])
		}
	}
	if ghzErrLine.MatchString(out) {
		return result{}, fmt.Errorf("calls failed")
	}
	return r, nil
}

func atoi(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// toMS converts a value with a Go duration unit to milliseconds.
func toMS(v, unit string) float64 {
	f := atof(v)
	switch unit {
	case "ns":
		return f / 1e6
	case "µs", "us":
		return f / 1e3
	case "s":
		return f * 1e3
	}
	return f
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
