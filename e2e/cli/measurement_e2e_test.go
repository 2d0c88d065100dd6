package cli

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/testsupport/minitest"
)

// Both commands record one interval per call (package ozone/echo: from the call to the response,
// as freon's rpc-payload timer does). The DataNode answers after 50 ms and then holds each stream
// open another 200 ms before ending it: a command that timed the end of the stream too would
// report a median near 250 ms. The same closed-loop load through `freon dn-echo` and through `run`
// with the freon-equivalent script must give the same median and neither may include the 200 ms.
// The two runs are separate processes at different times, so "the same" is up to the scheduling
// of a busy machine (11 ms apart with make test and stress-ng --cpu 4 beside them): the bound is
// a quarter of the end delay, which one command timing the end of the stream would far exceed.
func TestFreonAndRunMeasureTheSameInterval(t *testing.T) {
	const latency, endDelay = 50 * time.Millisecond, 200 * time.Millisecond
	_, conf := minitest.Start(t, minicluster.Options{DataNodes: 1, Faults: dnsim.Faults{Latency: latency, EndDelay: endDelay}})

	r := dnecho(t, 2*time.Minute, "freon", "dn-echo", "--conf", conf, "--container-id", "1", "-n", "60", "-t", "4", "--report", "log")
	if r.code != 0 {
		t.Fatalf("freon: exit %d\n%s", r.code, r.all())
	}
	m := regexp.MustCompile(`median=([0-9.E-]+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no median in freon's report:\n%s", r.all())
	}
	freonP50, _ := strconv.ParseFloat(m[1], 64)

	export := filepath.Join(t.TempDir(), "summary.json")
	r = dnecho(t, 2*time.Minute, "run", "-q", "--conf", conf, "--summary-export", export,
		"-e", "THREADS=4", "-e", "ITERATIONS=60", filepath.Join("..", "..", "examples", "freon-equivalent.js"))
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	d := readExport(t, export).Metrics["dnecho_req_duration"]
	runP50, ok := d["med"].(float64)
	if !ok || d["count"].(float64) != 60 {
		t.Fatalf("dnecho_req_duration in the export: %v", d)
	}

	t.Logf("median: freon %.3f ms, run %.3f ms", freonP50, runP50)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for name, p50 := range map[string]float64{"freon": freonP50, "run": runP50} {
		if p50 < ms(latency) || p50 > ms(latency+endDelay/4) {
			t.Errorf("%s median %.3f ms: want the response time (≥ %v), not the end of the stream (+%v)", name, p50, latency, endDelay)
		}
	}
	if diff := math.Abs(freonP50 - runP50); diff > ms(endDelay/4) {
		t.Errorf("medians differ by %.3f ms: freon %.3f ms, run %.3f ms", diff, freonP50, runP50)
	}
}
