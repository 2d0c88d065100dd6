package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/dnecho/dnecho/bench/floor"
	"github.com/dnecho/dnecho/ozone/datanode/h2"
)

// h2load (nghttp2's HTTP/2 load tool, in C; Debian's nghttp2-client) is the physical-limit row:
// one HTTP/2 stream per call with the same request bytes, gRPC-framed, and nothing else. It
// sees only HTTP statuses, not grpc-status: the harness checks that every request got a 200,
// and the emulated and real DataNodes answer these requests with SUCCESS.

// Tools of the transport comparison.
const (
	toolH2load  = "h2load"
	toolFreonH2 = "freon-h2" // dnecho freon dn-echo --transport h2
	toolRunH2   = "run-h2"   // dnecho run with the Client option transport: 'h2'
)

// modeMiB is the row of new streams with 1 MiB responses.
const modeMiB = "1mib"

// respMiB is the 1 MiB row's response payload in KB (freon's unit).
const respMiB = 1024

// h2loadPath is the method h2load posts to (Ozone: DatanodeClientProtocol.proto).
const h2loadPath = "/hadoop.hdds.datanode.XceiverClientProtocolService/send"

// writeH2loadRequest writes the floor's request, with a response of respBytes, gRPC-framed for
// h2load's -d.
func writeH2loadRequest(dir string, container int64, uuid string, respBytes int32) (string, error) {
	req, err := floor.NewRequest(container, uuid, respBytes)
	if err != nil {
		return "", err
	}
	b := append(make([]byte, h2.PrefixLen), req.Bytes()...)
	h2.PutPrefix(b)
	path := filepath.Join(dir, fmt.Sprintf("h2load-request-%d.bin", respBytes))
	return path, os.WriteFile(path, b, 0o600)
}

// h2loadTool is h2load with n calls, threads in flight on one connection, windows of 2^30-1
// (-w 30 -W 30, what the h2 transport grants too) and the request in file.
func h2loadTool(bin, addr, file string, n int, threads string) tool {
	return tool{name: toolH2load, bin: bin, parse: parseH2load,
		args: []string{"-n", strconv.Itoa(n), "-c", "1", "-m", threads, "-t", "1", "-w", "30", "-W", "30",
			"-H", "content-type: application/grpc", "-H", "te: trailers", "-d", file, "http://" + addr + h2loadPath}}
}

var (
	h2loadRate = regexp.MustCompile(`finished in [0-9.]+\w+, ([0-9.]+) req/s`)
	h2loadReqs = regexp.MustCompile(`requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded`)
	h2loadCode = regexp.MustCompile(`status codes: (\d+) 2xx`)
)

// parseH2load reads h2load's summary; it prints no percentiles, so p50 and p99 are NaN.
func parseH2load(out string) (result, error) {
	m := h2loadReqs.FindStringSubmatch(out)
	if m == nil {
		return result{}, nil
	}
	if m[1] != m[3] || m[2] != m[3] {
		return result{}, fmt.Errorf("%s of %s requests succeeded", m[3], m[1])
	}
	if c := h2loadCode.FindStringSubmatch(out); c == nil || c[1] != m[1] {
		return result{}, fmt.Errorf("not every request got HTTP 200")
	}
	r := result{calls: atoi(m[1]), p50: math.NaN(), p99: math.NaN()}
	if rr := h2loadRate.FindStringSubmatch(out); rr != nil {
		r.callsPerS = atof(rr[1])
	}
	return r, nil
}

// h2Variant is a dnecho tool with the h2 transport.
func h2Variant(t tool) tool {
	t.args = append([]string(nil), t.args...)
	switch t.name {
	case toolFreon:
		t.name = toolFreonH2
		t.args = append(t.args, "--transport", "h2")
	case toolRun:
		t.name = toolRunH2
		n := len(t.args) - 1 // the script stays last
		t.args = append(t.args[:n:n], "-e", "TRANSPORT=h2", t.args[n])
	}
	return t
}
